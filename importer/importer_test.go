package importer

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodesim/engine"
	"nodesim/model/cri"
	"nodesim/scenarios"
	"nodesim/trace"
)

var update = flag.Bool("update", false, "rewrite the fixture captures in testdata/node30")

const fixtureDir = "testdata/node30"

// TestFixturesUpToDate keeps the committed captures equal to what the generator builds
// with the upstream types (go test ./importer -update rewrites them).
func TestFixturesUpToDate(t *testing.T) {
	files, err := fixture()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(fixtureDir, n)
		if *update {
			if err := os.MkdirAll(fixtureDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, files[n], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./importer -update writes it)", err)
		}
		if !bytes.Equal(got, files[n]) {
			t.Errorf("%s is not what the generator builds (go test ./importer -update rewrites it)", path)
		}
	}
}

// fixtureInputs reads the committed captures.
func fixtureInputs(t *testing.T) Inputs {
	t.Helper()
	read := func(name string) *Input {
		path := filepath.Join(fixtureDir, name)
		data, err := scenarios.ReadRegular(path)
		if err != nil {
			t.Fatal(err)
		}
		return &Input{Name: path, Data: data}
	}
	return Inputs{Pods: read("pods.yaml"), Configz: read("configz.json"), Summary: read("summary.json"), Node: read("node.yaml")}
}

func importFixture(t *testing.T) (*Result, *scenarios.Loaded) {
	t.Helper()
	res, err := Import(fixtureInputs(t))
	if err != nil {
		t.Fatal(err)
	}
	l, err := scenarios.Parse("node30.yaml", res.Scenario, nil, nil)
	if err != nil {
		t.Fatalf("imported scenario does not validate: %v\n%s", err, res.Scenario)
	}
	return res, l
}

// TestImportNode30 imports the 30-pod node and runs it: the node memory working set once
// the pods run equals the captured one within 1%.
//
// In the model the node's working set is the system usage plus every running container's
// memory program (model/eviction StatsProvider.Get: sysMem + podsMem). The import sets each
// container's program to its captured working set and the system usage to the node's
// captured working set minus those. The capture's node working set is, by construction of
// the fixture, the containers' sum + 600Ki per pod cgroup (30 pods) + 1900Mi of system
// usage; so the system usage must come out at 1900Mi + 30 x 600Ki = 1963600Ki, less the
// rounding of 31 container figures to whole KiB (under 512 bytes each, so within 16Ki).
func TestImportNode30(t *testing.T) {
	res, l := importFixture(t)
	if res.Pods != 30 || len(l.Pods) != 30 {
		t.Fatalf("imported %d pods (loader: %d), want the 30 running ones of 32", res.Pods, len(l.Pods))
	}
	sys := l.Scenario.Spec.Node.SystemUsage
	if sys == nil || len(sys.Memory) != 1 || sys.Memory[0].Set == nil {
		t.Fatalf("no system memory usage: %+v", sys)
	}
	if got, want := sys.Memory[0].Set.Value(), int64(1963600<<10); got < want-16<<10 || got > want+16<<10 {
		t.Errorf("system memory usage %d, want 1900Mi + 30 x 600Ki = %d within 16Ki", got, want)
	}

	r, err := engine.Run(l, l.Seed(), engine.Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	captured := fixtureNodeWS(t)
	// The last container to start running, then the first stats refresh after it.
	var lastRun time.Duration
	running := 0
	for _, e := range r.Trace.Events {
		if e.Kind == cri.KindContainerRun && e.At < time.Minute {
			running++
			lastRun = e.At
		}
	}
	// 31 long-running containers (the checkout pod's sidecar too) and calico's init container.
	if running != 32 {
		t.Errorf("%d container starts in the first minute, want 31 long-running + 1 init container", running)
	}
	var ws int64 = -1
	var at time.Duration
	for _, e := range r.Trace.Events {
		if e.Kind == trace.Stats && e.Name == "node" && e.At >= lastRun {
			ws, _ = strconv.ParseInt(e.Attr("memoryWorkingSet"), 10, 64)
			at = e.At
			break
		}
	}
	if ws < 0 {
		t.Fatal("no node stats after the pods started")
	}
	if diff := float64(ws-captured) / float64(captured); diff > 0.01 || diff < -0.01 {
		t.Errorf("node working set at %s: %d, captured %d (%.3f%% off, want within 1%%)", at, ws, captured, diff*100)
	}
	t.Logf("node working set at %s: %d bytes, captured %d (%+.4f%%)", at, ws, captured, float64(ws-captured)/float64(captured)*100)
}

// fixtureNodeWS is the captured node working set, computed from the fixture's figures:
// every running container's working set, 600Ki per pod cgroup, 1900Mi of system usage.
func fixtureNodeWS(t *testing.T) int64 {
	var sum int64
	pods := 0
	for _, p := range fixturePods() {
		if p.phase != "" && p.phase != "Running" {
			continue
		}
		pods++
		for _, c := range p.containers {
			sum += c.ws
		}
	}
	if pods != 30 {
		t.Fatalf("fixture has %d running pods", pods)
	}
	return sum + int64(pods)*600<<10 + fixtureSystemWS
}

// TestImportedScenarioText checks what the import writes for particular pods against the
// captures, value by value.
func TestImportedScenarioText(t *testing.T) {
	res, l := importFixture(t)
	text := string(res.Scenario)
	for _, want := range []string{
		// nginx web pod 0: working set 280Mi + 7777 bytes, rounded to the nearest KiB:
		// 286720Ki + 7.6Ki -> 286728Ki; disk rootfs 3Mi + logs 20Mi = 23Mi.
		"memory: [{set: 286728Ki}]",
		"disk: [{set: 23Mi}]",
		// The scratch emptyDir: 1800Mi + 12345 bytes -> 1843200Ki + 12.06Ki -> 1843212Ki.
		"scratch: [{set: 1843212Ki}]",
		// calico's install-cni ran 4s before calico-node started.
		"exit: {after: 4s, code: 0}",
		// The Node's capacity as captured.
		"memory: 32863240Ki",
		// configz's modelled fields kept, unmodelled ones named.
		"maxContainerRestartPeriod: 1m0s",
		"KubeletCrashLoopBackOffMax: true",
		"Left out, as nodesim does not model them:",
		// The Node's allocatable is what nodesim derives from its capacity and configz:
		// memory 32863240Ki - 512Mi - 1Gi - 100Mi = 31187976Ki; ephemeral-storage
		// 103865303040 - 10386530458 (10% as a float32 fraction) = 93478772582; cpu 8 - 100m - 100m.
		"status.allocatable was cpu 7800m, memory 31187976Ki, ephemeral-storage 93478772582, pods 110",
		"nodesim derives the same allocatable (cpu, memory, ephemeral-storage, pods)",
		// The captured time.
		"node memory measured at 2026-11-20T10:15:00Z",
		// The class of the batch workers, from the pods' priority and preemption policy.
		"{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: batch-low}, value: 100, preemptionPolicy: Never}",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("imported scenario lacks %q", want)
		}
	}
	for _, gone := range []string{"resourceVersion", "managedFields", "creationTimestamp", "nodeName", "\n          uid:", "status:", "podIP", "CSIMigration", "ownerReferences:\n            - apiVersion: v1\n              kind: Node", "kubernetes.io/config."} {
		if strings.Contains(text, gone) {
			t.Errorf("imported scenario still has %q", gone)
		}
	}
	// The static pod comes back as a file pod named as the kubelet names it.
	var static []string
	for _, p := range l.Pods {
		if p.Source == "file" {
			static = append(static, p.Key())
		}
		if p.Key() == "batch/worker-66b9c4d5d-cns" && (p.Pod.Spec.Priority == nil || *p.Pod.Spec.Priority != 100) {
			t.Errorf("batch worker priority %v, want 100 from class batch-low", p.Pod.Spec.Priority)
		}
	}
	if len(static) != 1 || static[0] != "kube-system/haproxy-worker-7" {
		t.Errorf("static pods %v, want [kube-system/haproxy-worker-7]", static)
	}
	wantWarn := []string{"featureGates.CSIMigration left out", "2 pods left out as Succeeded or Failed"}
	for _, w := range wantWarn {
		found := false
		for _, got := range res.Warnings {
			found = found || strings.Contains(got, w)
		}
		if !found {
			t.Errorf("no warning %q in %q", w, res.Warnings)
		}
	}
}

// TestImportIsDeterministic: the same captures give the same bytes.
func TestImportIsDeterministic(t *testing.T) {
	a, _ := importFixture(t)
	b, _ := importFixture(t)
	if !bytes.Equal(a.Scenario, b.Scenario) {
		t.Error("two imports of the same captures differ")
	}
}

package importer

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"nodesim/scenarios"
)

func in(name, text string) *Input { return &Input{Name: name, Data: []byte(text)} }

func importText(t *testing.T, inputs Inputs) (string, []string, *scenarios.Loaded) {
	t.Helper()
	res, err := Import(inputs)
	if err != nil {
		t.Fatal(err)
	}
	l, err := scenarios.Parse("x.yaml", res.Scenario, nil, nil)
	if err != nil {
		t.Fatalf("does not validate: %v\n%s", err, res.Scenario)
	}
	return string(res.Scenario), res.Warnings, l
}

func hasWarning(warnings []string, part string) bool {
	for _, w := range warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

func TestImportNothing(t *testing.T) {
	if _, err := Import(Inputs{}); !errors.Is(err, ErrNoInput) {
		t.Errorf("got %v, want ErrNoInput", err)
	}
}

// A Job pod whose first container finished (exit 3 after 90s) while the second runs: the
// first gets that exit; a terminating pod is imported as running, with a warning; a pod
// the summary measured but the pods capture lacks counts as system usage.
func TestImportFinishedAndTerminating(t *testing.T) {
	pods := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: job-1, namespace: batch}
  spec:
    restartPolicy: Never
    containers:
    - {name: prep, image: "busybox:1"}
    - {name: main, image: "busybox:1", resources: {requests: {memory: 64Mi}}}
  status:
    phase: Running
    containerStatuses:
    - name: prep
      state: {terminated: {exitCode: 3, reason: Error, startedAt: "2026-11-20T10:00:00Z", finishedAt: "2026-11-20T10:01:30Z"}}
    - name: main
      state: {running: {startedAt: "2026-11-20T10:00:00Z"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: going, namespace: default, deletionTimestamp: "2026-11-20T10:14:00Z", deletionGracePeriodSeconds: 30}
  spec:
    containers: [{name: app, image: "nginx:1"}]
  status: {phase: Running}
`
	summary := `{"node": {"nodeName": "n1", "memory": {"time": "2026-11-20T10:15:00Z", "workingSetBytes": 3221225472}},
 "pods": [
  {"podRef": {"name": "job-1", "namespace": "batch", "uid": "u1"},
   "containers": [{"name": "main", "memory": {"time": "2026-11-20T10:14:58Z", "workingSetBytes": 104857600}}]},
  {"podRef": {"name": "ghost", "namespace": "default", "uid": "u2"},
   "containers": [{"name": "x", "memory": {"time": "2026-11-20T10:14:58Z", "workingSetBytes": 52428800}}]}
 ]}`
	text, warnings, l := importText(t, Inputs{Pods: in("pods.yaml", pods), Summary: in("summary.json", summary)})
	for _, want := range []string{
		"exit: {after: 1m30s, code: 3} # finished before the capture: ran 1m30s, exit code 3 (Error)",
		"memory: [{set: 100Mi}] # working set at 2026-11-20T10:14:58Z",
		// 3Gi node working set - 100Mi of main = 3072Mi - 100Mi = 2972Mi (ghost's 50Mi included).
		"memory: [{set: 2972Mi}]",
		"# default/going (pods.yaml:19): not in the stats summary: its containers use their memory requests",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "deletionTimestamp") {
		t.Error("deletion fields kept")
	}
	for _, w := range []string{"pod default/going was terminating when captured", "1 pods in the stats summary are not in the pods capture; their usage counts as system usage: default/ghost"} {
		if !hasWarning(warnings, w) {
			t.Errorf("no warning %q in %q", w, warnings)
		}
	}
	if len(l.Pods) != 2 {
		t.Errorf("%d pods", len(l.Pods))
	}
}

// Only a Node: its capacity, and maxPods from capacity.pods (250) so that the loader's
// rule "capacity.pods is maxPods" holds.
func TestImportNodeOnly(t *testing.T) {
	node := `apiVersion: v1
kind: Node
metadata: {name: big-1}
status:
  capacity: {cpu: "64", memory: 256Gi, ephemeral-storage: 1Ti, pods: "250", nvidia.com/gpu: "8"}
  allocatable: {cpu: 63500m, memory: 250Gi, ephemeral-storage: 900Gi, pods: "250", nvidia.com/gpu: "8"}
  nodeInfo: {kubeletVersion: v1.36.1, machineID: "", systemUUID: "", bootID: "", kernelVersion: "", osImage: "", containerRuntimeVersion: "", kubeProxyVersion: "", operatingSystem: linux, architecture: arm64}
`
	text, _, l := importText(t, Inputs{Node: in("node.yaml", node)})
	if l.Kubelet.MaxPods != 250 {
		t.Errorf("maxPods %d, want 250", l.Kubelet.MaxPods)
	}
	for _, want := range []string{"name: import-big-1", "cpu: \"64\"", "memory: 256Gi", "not modelled, left out: nvidia.com/gpu", "kubelet v1.36.1", "allocatable was cpu 63500m"} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q in\n%s", want, text)
		}
	}
}

// A configz from another kubelet: an unknown field is a warning, a bare
// KubeletConfiguration (a config file) is taken as well.
func TestImportConfigz(t *testing.T) {
	_, warnings, l := importText(t, Inputs{Configz: in("c.json", `{"kubeletconfig": {"maxPods": 80, "evictionHard": {"memory.available": "300Mi"}, "futureKnob": true}}`)})
	if l.Kubelet.MaxPods != 80 || l.Kubelet.EvictionHard["memory.available"] != "300Mi" {
		t.Errorf("maxPods %d evictionHard %v", l.Kubelet.MaxPods, l.Kubelet.EvictionHard)
	}
	if !hasWarning(warnings, `c.json:1:82: kubeletconfig: unknown field "futureKnob"`) {
		t.Errorf("warnings %q", warnings)
	}
	_, _, l = importText(t, Inputs{Configz: in("k.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 90\n")})
	if l.Kubelet.MaxPods != 90 {
		t.Errorf("bare config: maxPods %d", l.Kubelet.MaxPods)
	}
}

// A bad value in a capture is positioned in it.
func TestImportPositionedErrors(t *testing.T) {
	for _, tc := range []struct {
		in   Inputs
		want string
	}{
		{Inputs{Configz: in("c.json", "{\"kubeletconfig\": {\n  \"maxPods\": \"many\"}}")}, "c.json:2:14: kubeletconfig.maxPods:"},
		{Inputs{Summary: in("s.json", "{\"node\": {\"nodeName\": \"n\"},\n \"pods\": [{\"podRef\": {\"name\": 3}}]}")}, "s.json:2:"},
		{Inputs{Pods: in("p.yaml", "apiVersion: v1\nkind: List\nitems:\n- kind: Service\n  metadata: {name: s}\n")}, "p.yaml:4:9: items[0].kind: kind \"Service\" is not a Pod"},
		{Inputs{Pods: in("p.yaml", "apiVersion: v1\nkind: Pod\nspec: {containers: [{name: a, image: b}]}\n")}, "p.yaml:1:1: metadata: a pod without metadata.name"},
	} {
		_, err := Import(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// A figure past what a scenario can hold is refused where it is written, not wrapped.
func TestImportHugeFigures(t *testing.T) {
	summary := "{\"node\": {\"nodeName\": \"n\"},\n \"pods\": [{\"podRef\": {\"name\": \"p\", \"namespace\": \"d\"},\n  \"containers\": [{\"name\": \"a\", \"memory\": {\"workingSetBytes\": 18446744073709551615}}]}]}"
	_, err := Import(Inputs{Summary: in("s.json", summary)})
	if err == nil || !strings.Contains(err.Error(), "s.json:3:") || !strings.Contains(err.Error(), "pods[0].containers[0].memory.workingSetBytes: 18446744073709551615 is more than nodesim takes (1Ei)") {
		t.Errorf("got %v", err)
	}
}

// A summary field a newer kubelet adds is a warning, not an error, and the figures still
// come through.
func TestImportNewerSummary(t *testing.T) {
	summary := `{"node": {"nodeName": "n", "memory": {"workingSetBytes": 1073741824}, "newGauge": 1}, "pods": []}`
	text, warnings, _ := importText(t, Inputs{Summary: in("s.json", summary)})
	if !hasWarning(warnings, `s.json:1:71: node: unknown field "newGauge"`) || !strings.Contains(text, "memory: [{set: 1Gi}] # node working set 1Gi at (time not captured) minus the imported containers' 0") {
		t.Errorf("warnings %q\n%s", warnings, text)
	}
}

// Pods bound to another node (a capture without the field selector) are left out.
func TestImportOtherNodesPods(t *testing.T) {
	pods := `apiVersion: v1
kind: PodList
items:
- metadata: {name: mine}
  spec: {nodeName: n1, containers: [{name: a, image: "b:1"}]}
- metadata: {name: theirs}
  spec: {nodeName: n2, containers: [{name: a, image: "b:1"}]}
`
	node := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
	_, warnings, l := importText(t, Inputs{Pods: in("p.yaml", pods), Node: in("n.yaml", node)})
	if len(l.Pods) != 1 || l.Pods[0].Pod.Name != "mine" {
		t.Errorf("pods %v", l.Pods)
	}
	if !hasWarning(warnings, "1 pods left out as bound to another node than n1 (capture with --field-selector spec.nodeName=n1): default/theirs (n2)") {
		t.Errorf("warnings %q", warnings)
	}
}

// kubectl get pods -o json imports as -o yaml does.
func TestImportPodsAsJSON(t *testing.T) {
	inputs := fixtureInputs(t)
	js, err := yaml.YAMLToJSON(inputs.Pods.Data)
	if err != nil {
		t.Fatal(err)
	}
	fromYAML, err := Import(inputs)
	if err != nil {
		t.Fatal(err)
	}
	inputs.Pods = &Input{Name: "pods.json", Data: js}
	fromJSON, err := Import(inputs)
	if err != nil {
		t.Fatal(err)
	}
	// Only the comments that name the pods' file and line differ.
	strip := func(b []byte) string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.Contains(l, "pods.yaml") && !strings.Contains(l, "pods.json") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	if strip(fromYAML.Scenario) != strip(fromJSON.Scenario) || fromJSON.Pods != 30 {
		t.Errorf("the JSON capture imports differently (%d pods)", fromJSON.Pods)
	}
}

// A Node whose allocatable is not what its configz gives (here 1Gi more reserved than the
// configz says) is flagged: 16Gi - 100Mi (the default evictionHard memory.available) =
// 16284Mi derived, against the 15260Mi the Node reported.
func TestImportAllocatableDiffers(t *testing.T) {
	node := "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  capacity: {cpu: \"4\", memory: 16Gi, pods: \"110\"}\n  allocatable: {cpu: \"4\", memory: 15260Mi, pods: \"110\"}\n"
	text, warnings, _ := importText(t, Inputs{Node: in("n.yaml", node), Configz: in("c.json", `{"kubeletconfig": {"maxPods": 110}}`)})
	if !strings.Contains(text, "# memory 16284Mi (the Node: 15260Mi)") {
		t.Errorf("no allocatable note in\n%s", text)
	}
	if !hasWarning(warnings, "allocatable differs from the captured Node's: memory 16284Mi (the Node: 15260Mi)") {
		t.Errorf("warnings %q", warnings)
	}
}

package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// good is a minimal valid scenario; cases below edit it.
const good = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata:
  name: t
spec:
  duration: 5m
  pods:
    - pod:
        metadata: {name: web}
        spec:
          containers:
            - name: app
              image: nginx:1.27
`

func parse(t *testing.T, src string, files map[string]string) (*Loaded, error) {
	t.Helper()
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("no such file")
	}
	glob := func(p string) ([]string, error) {
		var out []string
		for name := range files {
			if strings.HasPrefix(name, strings.TrimSuffix(p, "*.yaml")) && strings.HasSuffix(name, ".yaml") {
				out = append(out, name)
			}
		}
		return out, nil
	}
	return Parse("s.yaml", []byte(src), read, glob)
}

func TestGoodScenarioLoadsWithDefaults(t *testing.T) {
	l, err := parse(t, good, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Seed() != 1 {
		t.Errorf("seed %d, want the default 1", l.Seed())
	}
	p := l.Pods[0].Pod
	if p.Namespace != "default" || p.Spec.RestartPolicy != corev1.RestartPolicyAlways || *p.Spec.TerminationGracePeriodSeconds != 30 {
		t.Errorf("pod defaults not applied: ns=%q policy=%q grace=%d", p.Namespace, p.Spec.RestartPolicy, *p.Spec.TerminationGracePeriodSeconds)
	}
	if p.Spec.Containers[0].ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("pull policy %q for a tagged image", p.Spec.Containers[0].ImagePullPolicy)
	}
	k := l.Kubelet
	if k.SyncFrequency.Duration != time.Minute || k.MaxPods != 110 || k.EvictionHard["memory.available"] != "100Mi" ||
		*k.SerializeImagePulls != true || k.EvictionPressureTransitionPeriod.Duration != 5*time.Minute {
		t.Errorf("kubelet defaults not applied: %+v", k)
	}
	if len(l.NotModelled) != 0 {
		t.Errorf("not modelled = %v for a scenario that sets nothing", l.NotModelled)
	}
}

// Each case edits the good scenario and expects these errors, in this order.
func TestLoaderErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"unknown field with suggestion", strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubelet: {evictonHard: {memory.available: 1Gi}}\n", 1),
			[]string{`s.yaml:7:13: spec.kubelet: unknown field "evictonHard" (did you mean "evictionHard"?)`}},
		{"unknown top-level field", strings.Replace(good, "kind: Scenario\n", "kind: Scenario\nknd: x\n", 1),
			[]string{`s.yaml:3:1: unknown field "knd" (did you mean "kind"?)`}},
		{"missing duration", strings.Replace(good, "  duration: 5m\n", "", 1),
			[]string{`s.yaml:6:3: spec: missing required field "duration" (how much simulated time to run, e.g. 20m)`}},
		{"bad duration once", strings.Replace(good, "5m", "five minutes", 1),
			[]string{`s.yaml:6:13: spec.duration: invalid duration "five minutes" (use a Go duration such as 500ms, 90s, 5m, 1h30m)`}},
		{"wrong apiVersion", strings.Replace(good, "nodesim/v1alpha1", "nodesim/v1", 1),
			[]string{`s.yaml:1:13: apiVersion: apiVersion "nodesim/v1" is not supported (want "nodesim/v1alpha1")`}},
		{"bad quantity", strings.Replace(good, "image: nginx:1.27\n", "image: nginx:1.27\n              resources: {limits: {memory: 1Gx}}\n", 1),
			[]string{`s.yaml:14:44: spec.pods[0].pod.spec.containers[0].resources.limits.memory: invalid value "1Gx"`}},
		{"duplicate pod", good + "    - pod:\n        metadata: {name: web}\n        spec: {containers: [{name: a, image: b}]}\n",
			[]string{`s.yaml:15:26: spec.pods[1].pod.metadata.name: duplicate pod default/web`}},
		{"behavior for a missing container", good + "      behavior:\n        ap: {exit: {after: 1s, code: 1}}\n",
			[]string{`s.yaml:15:13: spec.pods[0].behavior.ap: behavior for "ap" names no container of pod web (did you mean "app"?)`}},
		{"reference to a missing pod", good + "  expect:\n    - restarts: {pod: default/wbe, min: 1}\n",
			[]string{`s.yaml:15:23: spec.expect[0].restarts.pod: no pod default/wbe in this scenario (did you mean "default/web"?)`}},
		{"out of range replicas", strings.Replace(good, "    - pod:\n", "    - replicas: 0\n      pod:\n", 1),
			[]string{`s.yaml:8:17: spec.pods[0].replicas: replicas must be between 1 and 1000, got 0`}},
		{"exit code out of range", good + "      behavior:\n        app: {exit: {after: 1s, code: 300}}\n",
			[]string{`s.yaml:15:39: spec.pods[0].behavior.app.exit.code: exit code must be between 0 and 255, got 300`}},
		{"bad eviction threshold", strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubelet: {evictionHard: {memory.avail: 1Gi}}\n", 1),
			[]string{`s.yaml:7:42: spec.kubelet.evictionHard["memory.avail"]: unsupported eviction signal memory.avail`}},
		{"expectation with two kinds", good + "  expect:\n    - {restarts: {pod: web, min: 1}, phase: {pod: web, is: Running}}\n",
			[]string{`s.yaml:15:7: spec.expect[0]: an expectation has exactly one of`}},
		{"unknown expectation metric", good + "  expect:\n    - latency: {metric: podStrtup, percentile: 99, max: 1s}\n",
			[]string{`spec.expect[0].latency.metric: "podStrtup" is not one of`, `(did you mean "podStartup"?)`}},
		{"event after the end", good + "  events:\n    - {at: 10m, deletePod: default/web}\n",
			[]string{`s.yaml:15:12: spec.events[0].at: event at 10m0s is after the end of the run (5m0s)`}},
		{"two documents", good + "---\n" + good, []string{`s.yaml:14:1: expected a single YAML document, found more than one`}},
		{"unknown feature gate", strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubelet: {featureGates: {EventedPLG: true}}\n", 1),
			[]string{`spec.kubelet.featureGates.EventedPLG: unrecognized feature gate: EventedPLG (did you mean "EventedPLEG"?)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.src, nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%s\ndoes not contain\n%s", err, w)
				}
			}
		})
	}
}

// Three distinct mistakes in one file give three positioned errors, in file order.
func TestAllErrorsReported(t *testing.T) {
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5x\n  seeed: 3\n", 1)
	src += "      behavior:\n        nope: {}\n"
	_, err := parse(t, src, nil)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d errors, want 3:\n%s", len(lines), err)
	}
	for i, prefix := range []string{"s.yaml:6:13:", "s.yaml:7:3:", "s.yaml:16:15:"} {
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("error %d = %q, want it at %s", i, lines[i], prefix)
		}
	}
}

func TestKubeletConfigFileMergesWithInline(t *testing.T) {
	files := map[string]string{"kubelet.yaml": `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
syncFrequency: 30s
maxPods: 50
registryPullQPS: 3
`}
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubeletConfigFile: kubelet.yaml\n  kubelet: {maxPods: 20}\n", 1)
	l, err := parse(t, src, files)
	if err != nil {
		t.Fatal(err)
	}
	if l.Kubelet.SyncFrequency.Duration != 30*time.Second || l.Kubelet.MaxPods != 20 {
		t.Errorf("syncFrequency %s maxPods %d: want 30s from the file and 20 from inline", l.Kubelet.SyncFrequency.Duration, l.Kubelet.MaxPods)
	}
	if strings.Join(l.NotModelled, ",") != "registryPullQPS" {
		t.Errorf("not modelled = %v", l.NotModelled)
	}

	files["kubelet.yaml"] = "kind: KubeletConfiguration\nsyncFrequncy: 30s\n"
	_, err = parse(t, src, files)
	if err == nil || !strings.Contains(err.Error(), `kubelet.yaml:1:1: missing required field "apiVersion"`) {
		t.Errorf("errors in the kubelet file are not positioned in it:\n%v", err)
	}

	// An unknown field alone: the v1.37 kubelet falls back to lenient decoding and starts,
	// ignoring it; nodesim runs and warns, positioned in the file.
	files["kubelet.yaml"] = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsyncFrequncy: 30s\nmetadata: {name: kind-patch}\n"
	l, err = parse(t, src, files)
	if err != nil {
		t.Fatalf("unknown fields in a kubelet file must not stop the run: %v", err)
	}
	want := []string{
		`kubelet.yaml:3:1: unknown field "syncFrequncy" (did you mean "syncFrequency"?): the kubelet decodes the file leniently and ignores it`,
		`kubelet.yaml:4:1: unknown field "metadata": the kubelet decodes the file leniently and ignores it`,
	}
	if strings.Join(l.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(l.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if l.Kubelet.SyncFrequency.Duration != time.Minute || len(l.NotModelled) != 0 {
		t.Errorf("syncFrequency %s (want the 1m default), not modelled %v (want none)", l.Kubelet.SyncFrequency.Duration, l.NotModelled)
	}
}

func TestReplicasExpandNames(t *testing.T) {
	src := strings.Replace(good, "    - pod:\n", "    - replicas: 3\n      pod:\n", 1)
	l, err := parse(t, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range l.Pods {
		names = append(names, p.Key())
	}
	if strings.Join(names, " ") != "default/web-0 default/web-1 default/web-2" {
		t.Errorf("replica names %v", names)
	}
	if l.Pods[0].Pod.UID == l.Pods[1].Pod.UID {
		t.Error("replicas share a UID")
	}
}

func TestPodFilesAreLoaded(t *testing.T) {
	files := map[string]string{"manifests/a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: extra}\nspec: {containers: [{name: c, image: busybox}]}\n"}
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  podFiles: [manifests/*.yaml]\n", 1)
	l, err := parse(t, src, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Pods) != 2 || l.Pods[1].Key() != "default/extra" {
		t.Fatalf("pods %v", l.Pods)
	}
	if l.Pods[1].Pod.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Error("an untagged image must default to pull policy Always")
	}
}

func TestBuiltinsAllLoad(t *testing.T) {
	list, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatal("no built-in scenarios")
	}
	for _, b := range list {
		if b.Description == "" {
			t.Errorf("%s has no description", b.Name)
		}
	}
}

// Reserved quantities and eviction statements are checked as the kubelet parses them, each
// error at its own map key: "1GB" is no quantity (it counted as 0 before), gpu cannot be
// reserved, a soft threshold needs its grace period.
func TestKubeletMapErrorsAtTheirKeys(t *testing.T) {
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubelet:\n    systemReserved: {memory: 1GB, gpu: \"1\"}\n    evictionSoft: {nodefs.available: 15%}\n    evictionMinimumReclaim: {memory.available: 10x}\n", 1)
	_, err := parse(t, src, nil)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`spec.kubelet.systemReserved.memory: failed to parse quantity "1GB" for "memory" resource`,
		`spec.kubelet.systemReserved.gpu: cannot reserve "gpu" resource`,
		`spec.kubelet.evictionSoft["nodefs.available"]: grace period must be specified for the soft eviction threshold nodefs.available`,
		`spec.kubelet.evictionMinimumReclaim["memory.available"]: quantities must match`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
}

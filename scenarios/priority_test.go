package scenarios

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/eviction"
	"nodesim/model/oom"
)

// withPods puts extra scenario lines before spec.pods and edits the one pod's spec.
func withPods(before, podSpec string) string {
	src := strings.Replace(good, "  pods:\n", before+"  pods:\n", 1)
	return strings.Replace(src, "        spec:\n", "        spec:\n"+podSpec, 1)
}

const classes = `  priorityClasses:
    - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: tier-high}, value: 100000, preemptionPolicy: Never}
    - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: tier-default}, value: 500, globalDefault: true}
`

// Each class resolves to upstream's value and policy, and the kubelet's critical-pod checks
// and OOM policy follow from the resolved priority alone.
func TestPriorityClassResolution(t *testing.T) {
	const memCapacity = 4 << 30
	cases := []struct {
		name, before, spec string
		wantClass          string
		wantPriority       int32
		wantPolicy         corev1.PreemptionPolicy
		// A BestEffort container: adj 1000 unless the pod is node-critical (-997).
		wantAdj int
	}{
		// 2 * HighestUserDefinablePriority (10^9) + 1000 = 2000001000.
		{"node-critical", "", "          priorityClassName: system-node-critical\n", "system-node-critical", 2000001000, corev1.PreemptLowerPriority, -997},
		// 2 * 10^9 = 2000000000: critical for eviction and admission, but the OOM policy
		// only protects node-critical pods, so BestEffort keeps 1000.
		{"cluster-critical", "", "          priorityClassName: system-cluster-critical\n", "system-cluster-critical", 2000000000, corev1.PreemptLowerPriority, 1000},
		{"declared class", classes, "          priorityClassName: tier-high\n", "tier-high", 100000, corev1.PreemptNever, 1000},
		{"matching priority is kept", classes, "          priorityClassName: tier-high\n          priority: 100000\n", "tier-high", 100000, corev1.PreemptNever, 1000},
		{"globalDefault for a pod with no class", classes, "", "tier-default", 500, corev1.PreemptLowerPriority, 1000},
		{"no class and no default", "", "", "", 0, corev1.PreemptLowerPriority, 1000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := parse(t, withPods(c.before, c.spec), nil)
			if err != nil {
				t.Fatal(err)
			}
			p := l.Pods[0].Pod
			if p.Spec.PriorityClassName != c.wantClass || p.Spec.Priority == nil || *p.Spec.Priority != c.wantPriority {
				t.Fatalf("class %q priority %v, want %q %d", p.Spec.PriorityClassName, p.Spec.Priority, c.wantClass, c.wantPriority)
			}
			if p.Spec.PreemptionPolicy == nil || *p.Spec.PreemptionPolicy != c.wantPolicy {
				t.Errorf("preemptionPolicy %v, want %s", p.Spec.PreemptionPolicy, c.wantPolicy)
			}
			// Critical (never evicted, always admitted) from SystemCriticalPriority, 2*10^9, up.
			if got, want := eviction.IsCriticalPod(p), c.wantPriority >= 2000000000; got != want {
				t.Errorf("IsCriticalPod %v, want %v", got, want)
			}
			if adj := oom.GetContainerOOMScoreAdjust(p, &p.Spec.Containers[0], memCapacity, true); adj != c.wantAdj {
				t.Errorf("oom_score_adj %d, want %d", adj, c.wantAdj)
			}
		})
	}
}

// Refusals carry the Priority admission plugin's wording at the pod's field, for inline pods
// and for pods from podFiles.
func TestPriorityAdmissionRefusals(t *testing.T) {
	cases := []struct {
		name, src string
		files     map[string]string
		want      string
	}{
		{"unknown class", withPods("", "          priorityClassName: system-nod-critical\n"), nil,
			`s.yaml:11:30: spec.pods[0].pod.spec.priorityClassName: pods "web" is forbidden: no PriorityClass with name system-nod-critical was found`},
		{"priority disagrees with the class", withPods("", "          priorityClassName: system-node-critical\n          priority: 1000\n"), nil,
			`s.yaml:12:21: spec.pods[0].pod.spec.priority: pods "web" is forbidden: the integer value of priority (1000) must not be provided in pod spec; priority admission controller computed 2000001000 from the given PriorityClass name`},
		{"priority without a class", withPods("", "          priority: 100\n"), nil,
			`s.yaml:11:21: spec.pods[0].pod.spec.priority: pods "web" is forbidden: the integer value of priority (100) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`},
		{"preemption policy disagrees", withPods(classes, "          priorityClassName: tier-default\n          preemptionPolicy: Never\n"), nil,
			`spec.pods[0].pod.spec.preemptionPolicy: pods "web" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name`},
		{"unknown class in a pod file", strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  podFiles: [m/*.yaml]\n", 1),
			map[string]string{"m/a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: extra}\nspec:\n  priorityClassName: gold\n  containers: [{name: c, image: busybox}]\n"},
			`m/a.yaml:5:22: spec.priorityClassName: pods "extra" is forbidden: no PriorityClass with name gold was found`},
		{"reserved class name", withPods("  priorityClasses:\n    - {metadata: {name: system-node-critical}, value: 5}\n", ""), nil,
			`s.yaml:8:25: spec.priorityClasses[0].metadata.name: priority class names with 'system-' prefix are reserved for system use only`},
		{"value above the user range", withPods("  priorityClasses:\n    - {metadata: {name: big}, value: 1000000001}\n", ""), nil,
			`spec.priorityClasses[0].value: maximum allowed value of a user defined priority is 1000000000`},
		{"two global defaults", withPods("  priorityClasses:\n    - {metadata: {name: a}, value: 1, globalDefault: true}\n    - {metadata: {name: b}, value: 2, globalDefault: true}\n", ""), nil,
			`spec.priorityClasses[1]: PriorityClass a is already marked as default. Only one default can exist`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.src, c.files)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error\n%s\ndoes not contain\n%s", err, c.want)
			}
		})
	}
}

// A static pod never meets the API server's admission: its priority stays as written.
func TestStaticPodSkipsPriorityAdmission(t *testing.T) {
	src := withPods("", "          priority: 7\n")
	src = strings.Replace(src, "    - pod:\n", "    - source: file\n      pod:\n", 1)
	l, err := parse(t, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Pods[0].Pod.Spec.Priority; p == nil || *p != 7 {
		t.Errorf("static pod priority %v, want 7 as written", p)
	}
}

// A pod file may hold several documents: a PriorityClass that an inline pod and a file pod
// both name, a List of pods with the server's fields (dropped as a re-create drops them), and
// a bare Pod.
func TestPodFileForms(t *testing.T) {
	files := map[string]string{"m/a.yaml": `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: gold}
value: 4242
---
apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: one, uid: 11111111-2222-3333-4444-555555555555, resourceVersion: "9"}
  spec:
    nodeName: elsewhere
    priorityClassName: gold
    containers: [{name: c, image: "busybox:1.36"}]
  status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: two}
spec: {containers: [{name: c, image: "busybox:1.36"}]}
`}
	src := withPods("  podFiles: [m/*.yaml]\n", "          priorityClassName: gold\n")
	l, err := parse(t, src, files)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range l.Pods {
		names = append(names, p.Key())
	}
	if strings.Join(names, " ") != "default/web default/one default/two" {
		t.Fatalf("pods %v", names)
	}
	web, one := l.Pods[0].Pod, l.Pods[1].Pod
	if *web.Spec.Priority != 4242 || *one.Spec.Priority != 4242 {
		t.Errorf("priorities %d %d, want 4242 from the file's class", *web.Spec.Priority, *one.Spec.Priority)
	}
	if one.UID == "11111111-2222-3333-4444-555555555555" || one.ResourceVersion != "" || one.Status.Phase != "" || one.Spec.NodeName != "" {
		t.Errorf("server fields kept: uid %s rv %q phase %q node %q", one.UID, one.ResourceVersion, one.Status.Phase, one.Spec.NodeName)
	}
}

// An error inside a List item is positioned in the file at the item's field.
func TestPodListItemErrorPositioned(t *testing.T) {
	files := map[string]string{"m/a.yaml": "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: one}\n  spec:\n    priorityClassName: nope\n    containers: [{name: c, image: b}]\n"}
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  podFiles: [m/*.yaml]\n", 1)
	_, err := parse(t, src, files)
	want := `m/a.yaml:6:24: items[0].spec.priorityClassName: pods "one" is forbidden: no PriorityClass with name nope was found`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
}

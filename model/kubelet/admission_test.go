package kubelet

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

func memPod(uid, memory string) *corev1.Pod {
	p := testPod(uid, nil)
	p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}}}}
	return p
}

// The active set's summed requests follow additions, replacements (a new object for a known
// UID) and removals, and its index always points at each pod's place. Memory is
// admittedResources[1]: a 1Gi + b 2Gi = 3Gi; a replaced by 3Gi: 5Gi; c 4Gi: 9Gi; b removed
// (c takes its place): 7Gi; a removed: 4Gi.
func TestActivePodsBookkeeping(t *testing.T) {
	kl := &Kubelet{requests: map[types.UID]cachedRequests{}}
	a := &activePods{index: map[types.UID]int{}}
	check := func(step, wantMem string, wantUIDs ...string) {
		t.Helper()
		if got := a.used[1]; got.Cmp(resource.MustParse(wantMem)) != 0 {
			t.Errorf("%s: memory in use %s, want %s", step, got.String(), wantMem)
		}
		if len(a.pods) != len(wantUIDs) || len(a.index) != len(wantUIDs) || len(a.req) != len(wantUIDs) {
			t.Fatalf("%s: %d pods, %d indexed, %d requests; want %d", step, len(a.pods), len(a.index), len(a.req), len(wantUIDs))
		}
		for _, uid := range wantUIDs {
			i, ok := a.index[types.UID(uid)]
			if !ok || a.pods[i].UID != types.UID(uid) {
				t.Errorf("%s: %s indexed at %d (%v)", step, uid, i, ok)
			}
		}
	}
	kl.addActive(a, memPod("a", "1Gi"))
	kl.addActive(a, memPod("b", "2Gi"))
	check("a and b", "3Gi", "a", "b")
	kl.addActive(a, memPod("a", "3Gi"))
	check("a replaced", "5Gi", "a", "b")
	kl.addActive(a, memPod("c", "4Gi"))
	a.remove("b")
	check("c added, b removed", "7Gi", "a", "c")
	a.remove("nobody")
	check("unknown removed", "7Gi", "a", "c")
	a.remove("a")
	check("a removed", "4Gi", "c")
}

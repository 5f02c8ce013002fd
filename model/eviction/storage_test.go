package eviction

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// recheckStorage answers every pod of a changed list as hasLocalStorageLimit does, whether
// the pod object was in the last list (in order, moved, or far away) or not.
func TestRecheckStorageKeepsAnswersPerPodObject(t *testing.T) {
	var pods []*corev1.Pod
	for i := range 30 {
		p := evPod(fmt.Sprintf("p%d", i), 0, corev1.Container{Name: "c"})
		if i%3 == 0 {
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")}
		}
		pods = append(pods, p)
	}
	m := &Manager{}
	check := func(list []*corev1.Pod) {
		t.Helper()
		m.recheckStorage(list)
		if len(m.storagePods) != len(list) || len(m.storageChecked) != len(list) {
			t.Fatalf("kept %d pods and %d answers for %d", len(m.storagePods), len(m.storageChecked), len(list))
		}
		for i, p := range list {
			if m.storagePods[i] != p || m.storageChecked[i] != (!IsCriticalPod(p) && hasLocalStorageLimit(p)) {
				t.Errorf("%s: kept %v, want %v", p.Name, m.storageChecked[i], hasLocalStorageLimit(p))
			}
		}
	}
	check(pods)
	check(pods[1:])                                                    // one out at the front
	check(append([]*corev1.Pod{pods[0]}, pods[5:]...))                 // back in, four out
	check(append(append([]*corev1.Pod{}, pods[20:]...), pods[:20]...)) // rotated
	fresh := evPod("new", 0, corev1.Container{Name: "c"})
	fresh.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{
		Limits: corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")}}}}
	check(append([]*corev1.Pod{fresh}, pods...))
	check(nil)
	check(pods)
}

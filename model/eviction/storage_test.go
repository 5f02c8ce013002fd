package eviction

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
)

// storageCheckedOf answers every pod of a changed list as hasLocalStorageLimit does, whether
// the pod object was in the last list (in order, moved, or far away) or not, and entriesOf
// gives each pod its own entry whatever the list.
func TestStorageCheckedKeepsAnswersPerPodObject(t *testing.T) {
	var pods []*corev1.Pod
	for i := range 30 {
		p := evPod(fmt.Sprintf("p%d", i), 0, corev1.Container{Name: "c"})
		if i%3 == 0 {
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")}
		}
		pods = append(pods, p)
	}
	p := &StatsProvider{entries: map[types.UID]*podEntry{}}
	byUID := map[types.UID]*podEntry{}
	check := func(list []*corev1.Pod) {
		t.Helper()
		entries := p.entriesOf(list)
		if len(entries) != len(list) {
			t.Fatalf("%d entries for %d pods", len(entries), len(list))
		}
		for i, pod := range list {
			e := entries[i]
			if first, seen := byUID[pod.UID]; seen && first != e {
				t.Errorf("%s: a second entry", pod.Name)
			}
			byUID[pod.UID] = e
			if got, want := storageCheckedOf(e, pod), !IsCriticalPod(pod) && hasLocalStorageLimit(pod); got != want {
				t.Errorf("%s: answered %v, want %v", pod.Name, got, want)
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
	// A new object for a pod (same UID) is answered afresh.
	limited := pods[1].DeepCopy()
	limited.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("1Gi")}
	check(append([]*corev1.Pod{pods[0], limited}, pods[2:]...))
	check(nil)
	check(pods)
}

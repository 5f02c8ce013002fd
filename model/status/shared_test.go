package status

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nodesim/model/apiserver"
	"nodesim/sim"
)

// GetPodStatus shares the cached status with its callers (as upstream's does) instead of
// copying it, which is safe only while no update changes a cached status in place: a status
// read before SetContainerReadiness or TerminatePod must still read as it was.
func TestSharedStatusIsNeverChangedInPlace(t *testing.T) {
	s := sim.New(1, nil)
	m := NewManager(s, apiserver.New(s), nil)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	started := metav1.NewTime(s.Now())
	m.SetPodStatus(pod, corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
		Name: "c", ContainerID: ContainerIDScheme + "c1",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}})
	before, ok := m.GetPodStatus(pod.UID)
	if !ok || before.ContainerStatuses[0].Ready {
		t.Fatalf("initial status: %v %+v", ok, before)
	}
	m.SetContainerReadiness(pod, "c1", true)
	ready, _ := m.GetPodStatus(pod.UID)
	if !ready.ContainerStatuses[0].Ready || before.ContainerStatuses[0].Ready {
		t.Fatalf("readiness: now %v, the earlier read %v (want true, false)", ready.ContainerStatuses[0].Ready, before.ContainerStatuses[0].Ready)
	}
	m.TerminatePod(pod)
	done, _ := m.GetPodStatus(pod.UID)
	if done.Phase != corev1.PodFailed || done.ContainerStatuses[0].State.Terminated == nil {
		t.Fatalf("after TerminatePod: %+v", done)
	}
	if ready.Phase != corev1.PodRunning || ready.ContainerStatuses[0].State.Running == nil || ready.ContainerStatuses[0].State.Terminated != nil {
		t.Fatalf("the status read before TerminatePod changed: %+v", ready)
	}
}

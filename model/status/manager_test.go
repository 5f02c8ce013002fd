package status

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func always() *corev1.ContainerRestartPolicy { p := corev1.ContainerRestartPolicyAlways; return &p }

// hasPodInitialized and initializedContainers decide what TerminatePod marks
// ContainerStatusUnknown: cases from upstream's rules.
func TestHasPodInitialized(t *testing.T) {
	waiting := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: PodInitializing}}
	failed := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}
	done := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	started := true
	pod := func(init []corev1.Container, inits, regular []corev1.ContainerStatus) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{InitContainers: init, Containers: []corev1.Container{{Name: "app"}}},
			Status: corev1.PodStatus{InitContainerStatuses: inits, ContainerStatuses: regular}}
	}
	initC := []corev1.Container{{Name: "init"}}
	for _, c := range []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"no init containers", pod(nil, nil, []corev1.ContainerStatus{{Name: "app", State: waiting}}), true},
		{"init failed, app never ran", pod(initC, []corev1.ContainerStatus{{Name: "init", State: failed}}, []corev1.ContainerStatus{{Name: "app", State: waiting}}), false},
		{"init completed", pod(initC, []corev1.ContainerStatus{{Name: "init", State: done}}, []corev1.ContainerStatus{{Name: "app", State: waiting}}), true},
		{"app left waiting once", pod(initC, []corev1.ContainerStatus{{Name: "init", State: failed}}, []corev1.ContainerStatus{{Name: "app", State: running}}), true},
		{"sidecar running and started", pod([]corev1.Container{{Name: "init", RestartPolicy: always()}},
			[]corev1.ContainerStatus{{Name: "init", State: running, Started: &started}}, []corev1.ContainerStatus{{Name: "app", State: waiting}}), true},
	} {
		if got := hasPodInitialized(c.pod); got != c.want {
			t.Errorf("%s: hasPodInitialized = %v, want %v", c.name, got, c.want)
		}
	}
	list := []corev1.ContainerStatus{{Name: "a", State: done}, {Name: "b", State: failed}, {Name: "c", State: waiting}}
	if got := initializedContainers(list); len(got) != 2 {
		t.Errorf("initializedContainers kept %d, want a and b (c never left waiting)", len(got))
	}
	if got := initializedContainers([]corev1.ContainerStatus{{Name: "a", State: waiting}}); len(got) != 1 {
		t.Errorf("initializedContainers kept %d, want at least the first", len(got))
	}
}

// The kubelet owns AllContainersRestarting (PodConditionByKubelet with
// RestartAllContainersOnContainerExits): its own value replaces the API's, so the condition
// reaches the API server, and a stale True there does not survive the kubelet's False.
func TestMergePodStatusOwnsAllContainersRestarting(t *testing.T) {
	cond := func(s corev1.ConditionStatus) corev1.PodCondition {
		return corev1.PodCondition{Type: corev1.AllContainersRestarting, Status: s}
	}
	old := &corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{cond(corev1.ConditionTrue), {Type: "example.com/Gate", Status: corev1.ConditionTrue}}}
	merged := mergePodStatus(old, &corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{cond(corev1.ConditionFalse)}}, true)
	var got []string
	for _, c := range merged.Conditions {
		got = append(got, string(c.Type)+"="+string(c.Status))
	}
	if len(got) != 2 || got[0] != "AllContainersRestarting=False" || got[1] != "example.com/Gate=True" {
		t.Errorf("merged conditions %v; want the kubelet's AllContainersRestarting=False and the API's own gate", got)
	}
}

package status

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nodesim/internal/upstream"
	"nodesim/model/container"
	"nodesim/model/kuberuntime"
)

func withRule(c corev1.Container, p corev1.ContainerRestartPolicy, action corev1.ContainerRestartRuleAction, codes ...int32) corev1.Container {
	c.RestartPolicy = &p
	c.RestartPolicyRules = []corev1.ContainerRestartRule{{Action: action,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: codes}}}
	return c
}

// getPhase's ContainerRestartRules branches (v1.37 kubelet_pods.go): a pod whose containers
// have all stopped is Running while one of them will restart, by its own policy and rules;
// otherwise Succeeded when all exited 0, else Failed; a failed init container fails the pod
// only when it will not run again. Gate off, the pod's policy alone decides.
func TestGetPhaseRestartRules(t *testing.T) {
	on, off := kuberuntime.DefaultRestartGates(), kuberuntime.RestartGates{}
	never := func(c ...corev1.Container) *corev1.Pod {
		return &corev1.Pod{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: c}}
	}
	app := withRule(corev1.Container{Name: "app"}, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartRuleActionRestart, 42)
	init := withRule(corev1.Container{Name: "setup"}, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartRuleActionRestart, 75)
	always := corev1.ContainerRestartPolicyAlways
	cases := []struct {
		name string
		pod  *corev1.Pod
		info []corev1.ContainerStatus
		g    kuberuntime.RestartGates
		want corev1.PodPhase
	}{
		{"exit 42 matches Restart: restarting", never(app), []corev1.ContainerStatus{apiExited("app", 42)}, on, corev1.PodRunning},
		{"waiting after 42: restarting", never(app), []corev1.ContainerStatus{apiBackoff("app", 42)}, on, corev1.PodRunning},
		{"exit 1: no rule, container Never", never(app), []corev1.ContainerStatus{apiExited("app", 1)}, on, corev1.PodFailed},
		{"gate off: the pod's Never", never(app), []corev1.ContainerStatus{apiExited("app", 42)}, off, corev1.PodFailed},
		{"container Always in a Never pod, exit 0", never(corev1.Container{Name: "app", RestartPolicy: &always}), []corev1.ContainerStatus{apiExited("app", 0)}, on, corev1.PodRunning},
		{"all exited 0, none restarts", never(corev1.Container{Name: "a"}), []corev1.ContainerStatus{apiExited("a", 0)}, on, corev1.PodSucceeded},
		{"removed by a reset: restarting", never(corev1.Container{Name: "a"}), []corev1.ContainerStatus{{Name: "a", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: kuberuntime.RestartingAllContainers}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: kuberuntime.RestartingAllContainers, ExitCode: 137}}}}, on, corev1.PodRunning},
		{"init failed 75, its rule retries", &corev1.Pod{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, InitContainers: []corev1.Container{init}, Containers: []corev1.Container{{Name: "a"}}}},
			[]corev1.ContainerStatus{apiBackoff("setup", 75), apiWaiting("a")}, on, corev1.PodPending},
		{"init failed 1: for good", &corev1.Pod{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, InitContainers: []corev1.Container{init}, Containers: []corev1.Container{{Name: "a"}}}},
			[]corev1.ContainerStatus{apiExited("setup", 1), apiWaiting("a")}, on, corev1.PodFailed},
	}
	for _, tc := range cases {
		if got := GetPhase(tc.pod, tc.info, false, false, tc.g); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// The status across a reset: the sync that sees app exit 42 sets AllContainersRestarting=True
// (RestartAllContainersStarted); the sync after the removal shows each removed container
// Waiting RestartingAllContainers with a last termination of that reason (137) and one more
// restart (1 → 2), clears the condition (every container gone) and keeps Initialized.
func TestStatusAcrossRestartAllContainers(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "uid-web"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways,
			InitContainers: []corev1.Container{{Name: "setup", Image: "busybox"}},
			Containers: []corev1.Container{
				withRule(corev1.Container{Name: "app", Image: "busybox"}, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartRuleActionRestartAllContainers, 42),
				{Name: "helper", Image: "busybox"}}}}
	sandbox := []*container.SandboxStatus{{ID: "sb", State: container.SandboxReady, IP: "10.244.0.2", CreatedAt: now.Add(-time.Minute)}}
	inst := func(id, name string, state container.State, code, restarts int) *container.Status {
		return &container.Status{ID: id, Name: name, State: state, ExitCode: code, RestartCount: restarts, Image: "busybox",
			CreatedAt: now.Add(-50 * time.Second), StartedAt: now.Add(-50 * time.Second), FinishedAt: now.Add(-time.Second)}
	}
	rt := &container.PodStatus{ID: pod.UID, SandboxStatuses: sandbox, ContainerStatuses: []*container.Status{
		inst("c-setup", "setup", container.StateExited, 0, 1), inst("c-app", "app", container.StateExited, 42, 1), inst("c-helper", "helper", container.StateRunning, 0, 1)}}
	old := &corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}}}
	first := GenerateAPIPodStatus(pod, rt, old, false, nil, nil, now)
	cond := findCondition(first.Conditions, corev1.AllContainersRestarting)
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != RestartAllContainersStarted {
		t.Fatalf("condition after exit 42: %+v; want True RestartAllContainersStarted", cond)
	}

	gone := &container.PodStatus{ID: pod.UID, SandboxStatuses: sandbox}
	second := GenerateAPIPodStatus(pod, gone, &first, false, nil, nil, now.Add(2*time.Second))
	if cond := findCondition(second.Conditions, corev1.AllContainersRestarting); cond == nil || cond.Status != corev1.ConditionFalse {
		t.Errorf("condition once all are removed: %+v; want False", cond)
	}
	if c := findCondition(second.Conditions, corev1.PodInitialized); c == nil || c.Status != corev1.ConditionTrue {
		t.Errorf("Initialized %+v; a reset keeps it True", c)
	}
	all := append(append([]corev1.ContainerStatus{}, second.InitContainerStatuses...), second.ContainerStatuses...)
	for _, cs := range all {
		w, last := cs.State.Waiting, cs.LastTerminationState.Terminated
		if w == nil || w.Reason != kuberuntime.RestartingAllContainers || last == nil || last.Reason != kuberuntime.RestartingAllContainers ||
			last.ExitCode != 137 || cs.RestartCount != 2 {
			t.Errorf("%s after the reset: %s; want waiting RestartingAllContainers, last RestartingAllContainers:137, restarts 2", cs.Name, ContainerSummary(&cs))
		}
	}
	if second.Phase != corev1.PodRunning {
		t.Errorf("phase during the reset %s, want Running (every container will restart)", second.Phase)
	}
}

// shouldAllContainersRestart answers as kuberuntime.ShouldAllContainersRestart for pods with
// and without RestartAllContainers rules, runtime and API exits that match or not, and the
// AllContainersRestarting condition True, False or absent.
func TestShouldAllContainersRestartShortcut(t *testing.T) {
	plain := corev1.Container{Name: "app"}
	restartOnly := withRule(corev1.Container{Name: "app"}, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartRuleActionRestart, 42)
	restartAll := withRule(corev1.Container{Name: "app"}, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartRuleActionRestartAllContainers, 42)
	initAll := withRule(corev1.Container{Name: "setup"}, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartRuleActionRestartAllContainers, 42)
	pods := map[string]*corev1.Pod{
		"no rules":          {Spec: corev1.PodSpec{Containers: []corev1.Container{plain}}},
		"restart rule":      {Spec: corev1.PodSpec{Containers: []corev1.Container{restartOnly}}},
		"restart-all rule":  {Spec: corev1.PodSpec{Containers: []corev1.Container{restartAll}}},
		"init restart-all":  {Spec: corev1.PodSpec{InitContainers: []corev1.Container{initAll}, Containers: []corev1.Container{plain}}},
		"init, plain main":  {Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "setup"}}, Containers: []corev1.Container{plain}}},
		"restart-all, init": {Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "setup"}}, Containers: []corev1.Container{restartAll}}},
	}
	runtimes := map[string]*container.PodStatus{
		"none":       nil,
		"empty":      {},
		"app 42":     {ContainerStatuses: []*container.Status{{Name: "app", State: container.StateExited, ExitCode: 42}}},
		"app 1":      {ContainerStatuses: []*container.Status{{Name: "app", State: container.StateExited, ExitCode: 1}}},
		"setup 42":   {ContainerStatuses: []*container.Status{{Name: "setup", State: container.StateExited, ExitCode: 42}}},
		"app runs":   {ContainerStatuses: []*container.Status{{Name: "app", State: container.StateRunning}}},
		"app 42 old": {ContainerStatuses: []*container.Status{{Name: "app", State: container.StateRunning}, {Name: "app", State: container.StateExited, ExitCode: 42}}},
	}
	cond := func(s corev1.ConditionStatus) []corev1.PodCondition {
		return []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}, {Type: corev1.AllContainersRestarting, Status: s}}
	}
	olds := map[string]*corev1.PodStatus{
		"empty":           {},
		"condition true":  {Conditions: cond(corev1.ConditionTrue)},
		"condition false": {Conditions: cond(corev1.ConditionFalse)},
		"api app 42":      {ContainerStatuses: []corev1.ContainerStatus{apiExited("app", 42)}},
		"api setup 42":    {InitContainerStatuses: []corev1.ContainerStatus{apiExited("setup", 42)}},
		"api app 3":       {ContainerStatuses: []corev1.ContainerStatus{apiExited("app", 3)}},
	}
	for pn, pod := range pods {
		for rn, ps := range runtimes {
			for on, old := range olds {
				want := kuberuntime.ShouldAllContainersRestart(pod, ps, old)
				if got := shouldAllContainersRestart(pod, ps, old, upstream.AllContainersCouldRestart(&pod.Spec)); got != want {
					t.Errorf("%s, runtime %s, old %s: %v, want %v", pn, rn, on, got, want)
				}
			}
		}
	}
}

package kuberuntime

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/container"
	"nodesim/model/prober/results"
)

func ctrPolicy(p corev1.ContainerRestartPolicy) *corev1.ContainerRestartPolicy { return &p }

func rule(action corev1.ContainerRestartRuleAction, op corev1.ContainerRestartRuleOnExitCodesOperator, codes ...int32) corev1.ContainerRestartRule {
	return corev1.ContainerRestartRule{Action: action, ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: op, Values: codes}}
}

// ContainerShouldRestart against upstream's podutil.ContainerShouldRestart (v1.37): rules in
// order, first match decides; then the container's policy; then the pod's.
func TestContainerShouldRestart(t *testing.T) {
	on := DefaultRestartGates()
	noAll := RestartGates{ContainerRestartRules: true}
	restart42 := []corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}
	cases := []struct {
		name      string
		pod       corev1.RestartPolicy
		policy    *corev1.ContainerRestartPolicy
		rules     []corev1.ContainerRestartRule
		code      int32
		g         RestartGates
		want      bool
		rationale string
	}{
		{"rule matches under Never", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyNever), restart42, 42, on, true, "Restart In [42] matches 42"},
		{"rule misses under Never", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyNever), restart42, 1, on, false, "no rule matches 1; container policy Never"},
		{"NotIn matches any other code", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyNever),
			[]corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpNotIn, 0, 143)}, 1, on, true, "1 is not in [0 143]"},
		{"NotIn misses a listed code", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyNever),
			[]corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpNotIn, 0, 143)}, 143, on, false, "143 is listed; policy Never"},
		{"container OnFailure over pod Always, exit 0", corev1.RestartPolicyAlways, ctrPolicy(corev1.ContainerRestartPolicyOnFailure), nil, 0, on, false, "the container's OnFailure wins"},
		{"container OnFailure, exit 3", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyOnFailure), nil, 3, on, true, "non-zero under OnFailure"},
		{"container Always over pod Never", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyAlways), nil, 0, on, true, "the container's Always wins"},
		{"no container policy: pod OnFailure, exit 0", corev1.RestartPolicyOnFailure, nil, nil, 0, on, false, "the pod's policy"},
		{"RestartAllContainers restarts with its gate", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyNever),
			[]corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestartAllContainers, corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}, 42, on, true, "the action counts as a restart"},
		{"RestartAllContainers without its gate falls back", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyNever),
			[]corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestartAllContainers, corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}, 42, noAll, false, "to the container's Never"},
		{"first matching rule decides", corev1.RestartPolicyNever, ctrPolicy(corev1.ContainerRestartPolicyNever),
			[]corev1.ContainerRestartRule{
				rule(corev1.ContainerRestartRuleActionRestartAllContainers, corev1.ContainerRestartRuleOnExitCodesOpIn, 7),
				rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpNotIn, 0)}, 7, noAll, false,
			"the first rule matches 7 and, its gate off, falls through to Never; the second is never tried"},
	}
	for _, tc := range cases {
		c := &corev1.Container{Name: "app", RestartPolicy: tc.policy, RestartPolicyRules: tc.rules}
		spec := &corev1.PodSpec{RestartPolicy: tc.pod}
		if got := ContainerShouldRestart(c, spec, tc.code, tc.g); got != tc.want {
			t.Errorf("%s: got %v, want %v (%s)", tc.name, got, tc.want, tc.rationale)
		}
	}
}

// computePodActions with the gates on: a container with restartPolicy Never and Restart In
// [42] is started again after 42 and not after 1 (and then, nothing else running, the pod
// is killed); a probe kill restarts a container unless its own policy is Never; with the
// gate off the same spec follows the pod's Always.
func TestComputePodActionsRestartRules(t *testing.T) {
	liveness := probeTable{}
	m := &Manager{livenessManager: liveness, startupManager: probeTable{}, Restart: DefaultRestartGates()}
	setup := func(code int) (*corev1.Pod, *container.PodStatus) {
		pod, st := regularPod()
		pod.Spec.RestartPolicy = corev1.RestartPolicyNever
		pod.Spec.Containers = pod.Spec.Containers[:1]
		st.ContainerStatuses = st.ContainerStatuses[:1]
		pod.Spec.Containers[0].RestartPolicy = ctrPolicy(corev1.ContainerRestartPolicyNever)
		pod.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}
		exited(st, "front", code)
		return pod, st
	}
	pod, st := setup(42)
	if a := m.computePodActions(pod, st, false); len(a.ContainersToStart) != 1 || a.KillPod {
		t.Errorf("exit 42: %s; want start front", a.String(pod))
	}
	pod, st = setup(1)
	if a := m.computePodActions(pod, st, false); len(a.ContainersToStart) != 0 || !a.KillPod {
		t.Errorf("exit 1: %s; want killPod and nothing started", a.String(pod))
	}
	off := &Manager{livenessManager: liveness, startupManager: probeTable{}}
	pod, st = setup(1)
	pod.Spec.RestartPolicy = corev1.RestartPolicyAlways
	if a := off.computePodActions(pod, st, false); len(a.ContainersToStart) != 1 {
		t.Errorf("gate off, pod Always, exit 1: %s; want start front", a.String(pod))
	}

	// Liveness failure of a running container: restart unless the container says Never.
	pod, st = regularPod()
	pod.Spec.Containers[0].RestartPolicy = ctrPolicy(corev1.ContainerRestartPolicyNever)
	pod.Spec.Containers[1].RestartPolicy = ctrPolicy(corev1.ContainerRestartPolicyOnFailure)
	liveness["ctr-front"], liveness["ctr-api"] = results.Failure, results.Failure
	a := m.computePodActions(pod, st, false)
	if len(a.ContainersToKill) != 2 || len(a.ContainersToStart) != 1 || a.ContainersToStart[0] != 1 {
		t.Errorf("liveness failures: %s; want both killed, only api (OnFailure) started again", a.String(pod))
	}
}

// A RestartAllContainers reset (upstream getContainersToReset, computePodActions): every
// instance of every container goes, regular targets first, then init targets, then the
// instances whose exit triggered the reset (regular, then init); running ones are killed
// first. Nothing is started in the same sync.
func TestComputePodActionsReset(t *testing.T) {
	m := &Manager{livenessManager: probeTable{}, startupManager: probeTable{}, Restart: DefaultRestartGates()}
	pod, st := withInitPod()
	appendRegular(pod, st, container.StateRunning, 0)
	pod.Spec.Containers[1].RestartPolicy = ctrPolicy(corev1.ContainerRestartPolicyNever)
	pod.Spec.Containers[1].RestartPolicyRules = []corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestartAllContainers, corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}
	exited(st, "api", 42)
	if !ShouldAllContainersRestart(pod, st, nil) {
		t.Fatal("api exited 42 with a RestartAllContainers rule: the pod must restart")
	}
	a := m.computePodActions(pod, st, true)
	var got []string
	for _, r := range a.ContainersToReset {
		s := r.Name
		if r.Kill {
			s += "(kill)"
		}
		got = append(got, s)
	}
	want := "front(kill),cache(kill),migrate,seed,warm,api"
	if strings.Join(got, ",") != want {
		t.Errorf("reset %s, want %s", strings.Join(got, ","), want)
	}
	if len(a.ContainersToStart) != 0 || len(a.InitContainersToStart) != 0 || a.KillPod || a.CreateSandbox {
		t.Errorf("reset sync also %s; want nothing else", a.String(pod))
	}
	// Once every instance is gone the reset is over, and the next sync starts from the
	// first init container in the same sandbox.
	st.ContainerStatuses = nil
	if !AllContainersRestartCleanedUp(pod, st) {
		t.Error("no instance left: cleaned up")
	}
	a = m.computePodActions(pod, st, false)
	if a.CreateSandbox || len(a.InitContainersToStart) != 1 || a.InitContainersToStart[0] != 0 || len(a.ContainersToStart) != 0 {
		t.Errorf("after the reset: %s; want startInit migrate in the same sandbox", a.String(pod))
	}
	// With RestartAllContainersOnContainerExits off the flag is ignored.
	noAll := &Manager{livenessManager: probeTable{}, startupManager: probeTable{}, Restart: RestartGates{ContainerRestartRules: true}}
	pod, st = withInitPod()
	appendRegular(pod, st, container.StateRunning, 0)
	if a := noAll.computePodActions(pod, st, true); len(a.ContainersToReset) != 0 {
		t.Errorf("gate off: reset %v", a.ContainersToReset)
	}
}

// A failed init container under pod restartPolicy Never is retried when its own rules say
// so (computeInitContainerActions takes ShouldContainerBeRestarted with the gate on).
func TestInitContainerRestartRules(t *testing.T) {
	m := &Manager{livenessManager: probeTable{}, startupManager: probeTable{}, Restart: DefaultRestartGates()}
	pod, st := withInitPod()
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod.Spec.InitContainers[2].RestartPolicy = ctrPolicy(corev1.ContainerRestartPolicyNever)
	pod.Spec.InitContainers[2].RestartPolicyRules = []corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpIn, 75)}
	exited(st, "warm", 75)
	if a := m.computePodActions(pod, st, false); a.KillPod || len(a.InitContainersToStart) != 1 || a.InitContainersToStart[0] != 2 {
		t.Errorf("warm exited 75: %s; want startInit warm", a.String(pod))
	}
	exited(st, "warm", 1)
	if a := m.computePodActions(pod, st, false); !a.KillPod || len(a.InitContainersToStart) != 0 {
		t.Errorf("warm exited 1: %s; want killPod", a.String(pod))
	}
}

// The why of computePodActions names the rule or policy that decided each exited container,
// and what a reset does.
func TestRestartRulesReason(t *testing.T) {
	g := DefaultRestartGates()
	pod, st := regularPod()
	pod.Spec.Containers[0].RestartPolicy = ctrPolicy(corev1.ContainerRestartPolicyNever)
	pod.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{rule(corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleOnExitCodesOpIn, 42)}
	pod.Spec.Containers[1].RestartPolicy = ctrPolicy(corev1.ContainerRestartPolicyOnFailure)
	exited(st, "front", 42)
	exited(st, "api", 0)
	exited(st, "cache", 1) // no container policy: the pod's decides, nothing to say
	r := restartRulesReason(pod, st, &PodActions{}, g)
	want := "front exited 42: its rule Restart when the exit code is In [42] restarts it; api exited 0: its restartPolicy OnFailure keeps it down"
	if r == nil || r.Rule != "containerRestartRules" || r.Text != want {
		t.Errorf("reason %+v, want %q", r, want)
	}
	if r := restartRulesReason(pod, st, &PodActions{}, RestartGates{}); r != nil {
		t.Errorf("gate off: %+v, want none", r)
	}
	pod.Spec.Containers[0].RestartPolicyRules[0].Action = corev1.ContainerRestartRuleActionRestartAllContainers
	a := PodActions{ContainersToReset: []ContainerToReset{{ID: "ctr-cache", Name: "cache"}, {ID: "ctr-front", Name: "front", Container: &pod.Spec.Containers[0], Source: true}}}
	r = restartRulesReason(pod, st, &a, g)
	if r == nil || r.Rule != "restartAllContainers" || !strings.HasPrefix(r.Text, "AllContainersRestarting is True: front exited 42 (its rule RestartAllContainers when the exit code is In [42]); every instance") {
		t.Errorf("reset reason %+v", r)
	}
}

package status

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/model/kuberuntime"
)

// ---- builders for API container statuses ----

func apiRunning(name string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
}

func apiStarted(name string) corev1.ContainerStatus {
	s := apiRunning(name)
	t := true
	s.Started = &t
	return s
}

func apiNotStarted(name string) corev1.ContainerStatus {
	f := false
	return corev1.ContainerStatus{Name: name, Started: &f}
}

func apiExited(name string, code int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
}

func apiSucceeded(name string) corev1.ContainerStatus { return apiExited(name, 0) }
func apiFailed(name string) corev1.ContainerStatus    { return apiExited(name, -1) }

func apiWaiting(name string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}}
}

// apiBackoff is a container waiting after a termination with the given exit code.
func apiBackoff(name string, code int32) corev1.ContainerStatus {
	s := apiWaiting(name)
	s.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: code}
	return s
}

func apiReady(s corev1.ContainerStatus) corev1.ContainerStatus {
	s.Ready = true
	return s
}

var sidecarPolicy = corev1.ContainerRestartPolicyAlways

func sidecar(name string) corev1.Container {
	return corev1.Container{Name: name, RestartPolicy: &sidecarPolicy}
}

func specWith(policy corev1.RestartPolicy, inits []corev1.Container, names ...string) corev1.PodSpec {
	spec := corev1.PodSpec{RestartPolicy: policy, InitContainers: inits}
	for _, n := range names {
		spec.Containers = append(spec.Containers, corev1.Container{Name: n, Image: "img-" + n})
	}
	return spec
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// ---- GetPhase ----

func TestGetPhase(t *testing.T) {
	two := func(p corev1.RestartPolicy) corev1.PodSpec { return specWith(p, nil, "a", "b") }
	oneInit := func(p corev1.RestartPolicy) corev1.PodSpec {
		return specWith(p, []corev1.Container{{Name: "x"}}, "a", "b")
	}
	oneSidecar := func(p corev1.RestartPolicy) corev1.PodSpec {
		return specWith(p, []corev1.Container{sidecar("x")}, "a", "b")
	}
	initAndSidecar := specWith(corev1.RestartPolicyAlways, []corev1.Container{{Name: "x"}, sidecar("y")}, "a")
	type st = []corev1.ContainerStatus

	cases := []struct {
		name        string
		spec        corev1.PodSpec
		init, main  st
		terminal    bool
		initialized bool
		static      bool
		want        corev1.PodPhase
	}{
		// Restart policy Always, no init containers.
		{name: "always/nothing known", spec: two(corev1.RestartPolicyAlways), want: corev1.PodPending},
		{name: "always/all running", spec: two(corev1.RestartPolicyAlways), main: st{apiRunning("a"), apiRunning("b")}, want: corev1.PodRunning},
		{name: "always/all stopped restarts", spec: two(corev1.RestartPolicyAlways), main: st{apiSucceeded("a"), apiSucceeded("b")}, want: corev1.PodRunning},
		{name: "always/all failed restarts", spec: two(corev1.RestartPolicyAlways), main: st{apiFailed("a"), apiFailed("b")}, want: corev1.PodRunning},
		{name: "always/terminal all succeeded", spec: two(corev1.RestartPolicyAlways), main: st{apiSucceeded("a"), apiSucceeded("b")}, terminal: true, want: corev1.PodSucceeded},
		{name: "always/terminal one failed", spec: two(corev1.RestartPolicyAlways), main: st{apiSucceeded("a"), apiFailed("b")}, terminal: true, want: corev1.PodFailed},
		{name: "always/terminal static pod keeps restart semantics", spec: two(corev1.RestartPolicyAlways), main: st{apiSucceeded("a"), apiFailed("b")}, terminal: true, static: true, want: corev1.PodRunning},
		{name: "always/terminal but one running", spec: two(corev1.RestartPolicyAlways), main: st{apiRunning("a"), apiSucceeded("b")}, terminal: true, want: corev1.PodRunning},
		{name: "always/running and stopped", spec: two(corev1.RestartPolicyAlways), main: st{apiRunning("a"), apiFailed("b")}, want: corev1.PodRunning},
		{name: "always/one status missing", spec: two(corev1.RestartPolicyAlways), main: st{apiRunning("a")}, want: corev1.PodPending},
		{name: "always/one waiting", spec: two(corev1.RestartPolicyAlways), main: st{apiRunning("a"), apiWaiting("b")}, want: corev1.PodPending},
		{name: "always/one in crash-loop back-off", spec: two(corev1.RestartPolicyAlways), main: st{apiRunning("a"), apiBackoff("b", 0)}, want: corev1.PodRunning},
		{name: "always/all in back-off", spec: two(corev1.RestartPolicyAlways), main: st{apiBackoff("a", 1), apiBackoff("b", 2)}, want: corev1.PodRunning},
		{name: "always/state empty counts unknown", spec: two(corev1.RestartPolicyAlways), main: st{apiRunning("a"), {Name: "b"}}, want: corev1.PodPending},

		// Always, one regular init container.
		{name: "always-init/nothing known", spec: oneInit(corev1.RestartPolicyAlways), want: corev1.PodPending},
		{name: "always-init/init running", spec: oneInit(corev1.RestartPolicyAlways), init: st{apiRunning("x")}, want: corev1.PodPending},
		{name: "always-init/init failed retries", spec: oneInit(corev1.RestartPolicyAlways), init: st{apiFailed("x")}, want: corev1.PodPending},
		{name: "always-init/init waiting after success", spec: oneInit(corev1.RestartPolicyAlways), init: st{apiBackoff("x", 0)}, want: corev1.PodPending},
		{name: "always-init/init waiting after failure", spec: oneInit(corev1.RestartPolicyAlways), init: st{apiBackoff("x", 1)}, want: corev1.PodPending},
		{name: "always-init/init waiting first time", spec: oneInit(corev1.RestartPolicyAlways), init: st{apiWaiting("x")}, want: corev1.PodPending},
		{name: "always-init/init done, all running", spec: oneInit(corev1.RestartPolicyAlways), init: st{apiSucceeded("x")}, main: st{apiRunning("a"), apiRunning("b")}, want: corev1.PodRunning},

		// Always, one sidecar.
		{name: "always-sidecar/nothing known", spec: oneSidecar(corev1.RestartPolicyAlways), want: corev1.PodPending},
		{name: "always-sidecar/sidecar running unstarted", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiRunning("x")}, want: corev1.PodPending},
		{name: "always-sidecar/sidecar stopped", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiSucceeded("x")}, want: corev1.PodPending},
		{name: "always-sidecar/sidecar back-off after success", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiBackoff("x", 0)}, want: corev1.PodPending},
		{name: "always-sidecar/sidecar back-off after failure", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiBackoff("x", 1)}, want: corev1.PodPending},
		{name: "always-sidecar/sidecar waiting first time", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiWaiting("x")}, want: corev1.PodPending},
		{name: "always-sidecar/started, one of two running", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiStarted("x")}, main: st{apiRunning("a")}, initialized: true, want: corev1.PodPending},
		{name: "always-sidecar/started, all running", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiStarted("x")}, main: st{apiRunning("a"), apiRunning("b")}, initialized: true, want: corev1.PodRunning},
		{name: "always-sidecar/unstarted sidecar after init", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiRunning("x")}, main: st{apiRunning("a"), apiRunning("b")}, initialized: true, want: corev1.PodRunning},
		{name: "always-sidecar/stopped sidecar, all running", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiSucceeded("x")}, main: st{apiRunning("a"), apiRunning("b")}, initialized: true, want: corev1.PodRunning},
		{name: "always-sidecar/back-off sidecar, all running", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiBackoff("x", 0)}, main: st{apiRunning("a"), apiRunning("b")}, initialized: true, want: corev1.PodRunning},
		{name: "always-sidecar/terminal, sidecar failed, main succeeded", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiFailed("x")}, main: st{apiSucceeded("a"), apiSucceeded("b")}, terminal: true, initialized: true, want: corev1.PodSucceeded},
		{name: "always-sidecar/terminal, all succeeded", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiSucceeded("x")}, main: st{apiSucceeded("a"), apiSucceeded("b")}, terminal: true, initialized: true, want: corev1.PodSucceeded},
		{name: "always-sidecar/new sandbox re-initializing", spec: oneSidecar(corev1.RestartPolicyAlways), init: st{apiRunning("x")}, main: st{apiRunning("a"), apiRunning("b")}, want: corev1.PodPending},

		// Always, a regular init container and a sidecar.
		{name: "always-both/init still running", spec: initAndSidecar, init: st{apiRunning("x"), apiRunning("y")}, main: st{apiRunning("a")}, want: corev1.PodPending},
		{name: "always-both/init running, main stopped", spec: initAndSidecar, init: st{apiRunning("x"), apiRunning("y")}, main: st{apiSucceeded("a")}, want: corev1.PodPending},
		{name: "always-both/recreated sandbox, old main stopped", spec: initAndSidecar, init: st{apiSucceeded("x"), apiRunning("y")}, main: st{apiSucceeded("a")}, want: corev1.PodPending},
		{name: "always-both/initialized, main stopped", spec: initAndSidecar, init: st{apiSucceeded("x"), apiRunning("y")}, main: st{apiSucceeded("a")}, initialized: true, want: corev1.PodRunning},
		{name: "always-both/initialized, main running", spec: initAndSidecar, init: st{apiSucceeded("x"), apiRunning("y")}, main: st{apiRunning("a")}, initialized: true, want: corev1.PodRunning},

		// Restart policy Never.
		{name: "never/nothing known", spec: two(corev1.RestartPolicyNever), want: corev1.PodPending},
		{name: "never/all running", spec: two(corev1.RestartPolicyNever), main: st{apiRunning("a"), apiRunning("b")}, want: corev1.PodRunning},
		{name: "never/all succeeded", spec: two(corev1.RestartPolicyNever), main: st{apiSucceeded("a"), apiSucceeded("b")}, want: corev1.PodSucceeded},
		{name: "never/all failed", spec: two(corev1.RestartPolicyNever), main: st{apiFailed("a"), apiFailed("b")}, want: corev1.PodFailed},
		{name: "never/one failed one succeeded", spec: two(corev1.RestartPolicyNever), main: st{apiSucceeded("a"), apiFailed("b")}, want: corev1.PodFailed},
		{name: "never/running and succeeded", spec: two(corev1.RestartPolicyNever), main: st{apiRunning("a"), apiSucceeded("b")}, want: corev1.PodRunning},
		{name: "never/one status missing", spec: two(corev1.RestartPolicyNever), main: st{apiRunning("a")}, want: corev1.PodPending},
		{name: "never/one waiting", spec: two(corev1.RestartPolicyNever), main: st{apiRunning("a"), apiWaiting("b")}, want: corev1.PodPending},

		// Never, one regular init container.
		{name: "never-init/nothing known", spec: oneInit(corev1.RestartPolicyNever), want: corev1.PodPending},
		{name: "never-init/init running", spec: oneInit(corev1.RestartPolicyNever), init: st{apiRunning("x")}, want: corev1.PodPending},
		{name: "never-init/init failed", spec: oneInit(corev1.RestartPolicyNever), init: st{apiFailed("x")}, want: corev1.PodFailed},
		{name: "never-init/init waiting after success", spec: oneInit(corev1.RestartPolicyNever), init: st{apiBackoff("x", 0)}, want: corev1.PodPending},
		{name: "never-init/init waiting after failure", spec: oneInit(corev1.RestartPolicyNever), init: st{apiBackoff("x", 1)}, want: corev1.PodFailed},
		{name: "never-init/init waiting first time", spec: oneInit(corev1.RestartPolicyNever), init: st{apiWaiting("x")}, want: corev1.PodPending},
		{name: "never-init/init done, all running", spec: oneInit(corev1.RestartPolicyNever), init: st{apiSucceeded("x")}, main: st{apiRunning("a"), apiRunning("b")}, want: corev1.PodRunning},

		// Never, one sidecar.
		{name: "never-sidecar/nothing known", spec: oneSidecar(corev1.RestartPolicyNever), want: corev1.PodPending},
		{name: "never-sidecar/sidecar running unstarted", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiRunning("x")}, want: corev1.PodPending},
		{name: "never-sidecar/sidecar stopped", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiSucceeded("x")}, want: corev1.PodPending},
		{name: "never-sidecar/sidecar back-off after failure", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiBackoff("x", 1)}, want: corev1.PodPending},
		{name: "never-sidecar/started, one main running", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiStarted("x")}, main: st{apiRunning("a")}, initialized: true, want: corev1.PodPending},
		{name: "never-sidecar/started, mains succeeded", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiStarted("x")}, main: st{apiSucceeded("a"), apiSucceeded("b")}, initialized: true, want: corev1.PodRunning},
		{name: "never-sidecar/re-running, mains succeeded", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiRunning("x")}, main: st{apiSucceeded("a"), apiSucceeded("b")}, initialized: true, want: corev1.PodRunning},
		{name: "never-sidecar/everything succeeded", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiSucceeded("x")}, main: st{apiSucceeded("a"), apiSucceeded("b")}, initialized: true, want: corev1.PodSucceeded},
		{name: "never-sidecar/sidecar failed, mains succeeded", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiFailed("x")}, main: st{apiSucceeded("a"), apiSucceeded("b")}, initialized: true, want: corev1.PodSucceeded},
		{name: "never-sidecar/sidecar back-off, mains succeeded", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiBackoff("x", 0)}, main: st{apiSucceeded("a"), apiSucceeded("b")}, initialized: true, want: corev1.PodSucceeded},
		{name: "never-sidecar/sidecar failed back-off, mains succeeded", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiBackoff("x", 1)}, main: st{apiSucceeded("a"), apiSucceeded("b")}, initialized: true, want: corev1.PodSucceeded},
		{name: "never-sidecar/sidecar failed, one main failed", spec: oneSidecar(corev1.RestartPolicyNever), init: st{apiFailed("x")}, main: st{apiSucceeded("a"), apiFailed("b")}, initialized: true, want: corev1.PodFailed},

		// Restart policy OnFailure.
		{name: "onfailure/nothing known", spec: two(corev1.RestartPolicyOnFailure), want: corev1.PodPending},
		{name: "onfailure/all running", spec: two(corev1.RestartPolicyOnFailure), main: st{apiRunning("a"), apiRunning("b")}, want: corev1.PodRunning},
		{name: "onfailure/all succeeded", spec: two(corev1.RestartPolicyOnFailure), main: st{apiSucceeded("a"), apiSucceeded("b")}, want: corev1.PodSucceeded},
		{name: "onfailure/all failed restart", spec: two(corev1.RestartPolicyOnFailure), main: st{apiFailed("a"), apiFailed("b")}, want: corev1.PodRunning},
		{name: "onfailure/terminal, failed", spec: two(corev1.RestartPolicyOnFailure), main: st{apiFailed("a"), apiSucceeded("b")}, terminal: true, want: corev1.PodFailed},
		{name: "onfailure/running and succeeded", spec: two(corev1.RestartPolicyOnFailure), main: st{apiRunning("a"), apiSucceeded("b")}, want: corev1.PodRunning},
		{name: "onfailure/one status missing", spec: two(corev1.RestartPolicyOnFailure), main: st{apiRunning("a")}, want: corev1.PodPending},
		{name: "onfailure/one waiting", spec: two(corev1.RestartPolicyOnFailure), main: st{apiRunning("a"), apiWaiting("b")}, want: corev1.PodPending},
		{name: "onfailure/one in back-off", spec: two(corev1.RestartPolicyOnFailure), main: st{apiRunning("a"), apiBackoff("b", 0)}, want: corev1.PodRunning},
		{name: "onfailure/init failed retries", spec: oneInit(corev1.RestartPolicyOnFailure), init: st{apiFailed("x")}, want: corev1.PodPending},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: tc.spec}
			if tc.static {
				pod.Annotations = map[string]string{"kubernetes.io/config.source": "file"}
			}
			st := &corev1.PodStatus{InitContainerStatuses: tc.init, ContainerStatuses: tc.main}
			if got := GetPhaseFromStatus(pod, st, tc.terminal, tc.initialized, kuberuntime.DefaultRestartGates()); got != tc.want {
				t.Errorf("GetPhaseFromStatus = %s, want %s", got, tc.want)
			}
			info := append(append([]corev1.ContainerStatus(nil), tc.init...), tc.main...)
			if got := GetPhase(pod, info, tc.terminal, tc.initialized, kuberuntime.DefaultRestartGates()); got != tc.want {
				t.Errorf("GetPhase (init first) = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestHasAnyActiveRegularContainerStarted(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{Spec: specWith(corev1.RestartPolicyAlways, []corev1.Container{sidecar("x")}, "a")}
	sb := func(state container.SandboxState, at time.Time) *container.SandboxStatus {
		return &container.SandboxStatus{ID: "sb", State: state, CreatedAt: at, IP: "10.0.0.1"}
	}
	cases := []struct {
		name string
		ps   *container.PodStatus
		want bool
	}{
		{name: "nil", ps: nil, want: false},
		{name: "no sandbox", ps: &container.PodStatus{ContainerStatuses: []*container.Status{{Name: "a", State: container.StateRunning}}}, want: false},
		{name: "ready sandbox, main created after it", ps: &container.PodStatus{
			SandboxStatuses:   []*container.SandboxStatus{sb(container.SandboxReady, t0)},
			ContainerStatuses: []*container.Status{{Name: "a", State: container.StateExited, CreatedAt: t0.Add(time.Second)}},
		}, want: true},
		{name: "ready sandbox, only the sidecar", ps: &container.PodStatus{
			SandboxStatuses:   []*container.SandboxStatus{sb(container.SandboxReady, t0)},
			ContainerStatuses: []*container.Status{{Name: "x", State: container.StateRunning, CreatedAt: t0.Add(time.Second)}},
		}, want: false},
		{name: "main from an older sandbox", ps: &container.PodStatus{
			SandboxStatuses:   []*container.SandboxStatus{sb(container.SandboxReady, t0), sb(container.SandboxNotReady, t0.Add(-time.Minute))},
			ContainerStatuses: []*container.Status{{Name: "a", State: container.StateExited, CreatedAt: t0.Add(-time.Second)}},
		}, want: false},
		{name: "newest sandbox not ready", ps: &container.PodStatus{
			SandboxStatuses:   []*container.SandboxStatus{sb(container.SandboxNotReady, t0)},
			ContainerStatuses: []*container.Status{{Name: "a", State: container.StateRunning, CreatedAt: t0.Add(time.Second)}},
		}, want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := HasAnyActiveRegularContainerStarted(pod, tc.ps); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// ---- conditions ----

func TestGenerateContainersReadyCondition(t *testing.T) {
	ab := specWith(corev1.RestartPolicyAlways, nil, "a", "b")
	withSidecars := specWith(corev1.RestartPolicyAlways, []corev1.Container{{Name: "init"}, sidecar("s1"), sidecar("s2")}, "a")
	type st = []corev1.ContainerStatus
	cases := []struct {
		name     string
		spec     corev1.PodSpec
		statuses st
		phase    corev1.PodPhase
		status   corev1.ConditionStatus
		reason   string
		message  string
	}{
		{name: "nil statuses", spec: corev1.PodSpec{}, statuses: nil, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: UnknownContainerStatuses},
		{name: "empty spec, empty statuses", spec: corev1.PodSpec{}, statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "no status for a container", spec: specWith("", nil, "a"), statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unknown status: [a]"},
		{name: "all ready", spec: ab, statuses: st{apiReady(apiRunning("a")), apiReady(apiRunning("b"))}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "one unknown", spec: ab, statuses: st{apiReady(apiRunning("a"))}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unknown status: [b]"},
		{name: "one unready", spec: ab, statuses: st{apiReady(apiRunning("a")), apiRunning("b")}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unready status: [b]"},
		{name: "unknown and unready", spec: specWith("", nil, "a", "b", "c"), statuses: st{apiRunning("b")}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unknown status: [a c], containers with unready status: [b]"},
		{name: "succeeded", spec: specWith("", nil, "a"), statuses: st{apiSucceeded("a")}, phase: corev1.PodSucceeded, status: corev1.ConditionFalse, reason: PodCompleted},
		{name: "succeeded with an unknown container", spec: ab, statuses: st{apiSucceeded("a")}, phase: corev1.PodSucceeded, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unknown status: [b], containers with unready status: [a]"},
		{name: "failed while still ready", spec: ab, statuses: st{apiReady(apiRunning("a")), apiReady(apiRunning("b"))}, phase: corev1.PodFailed, status: corev1.ConditionFalse, reason: PodFailed},
		{name: "failed with unknowns", spec: ab, statuses: st{}, phase: corev1.PodFailed, status: corev1.ConditionFalse, reason: PodFailed},
		{name: "sidecar without status", spec: specWith("", []corev1.Container{sidecar("s")}, "a"), statuses: st{apiReady(apiRunning("a"))}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unknown status: [s]"},
		{name: "sidecars and main ready, regular init ignored", spec: withSidecars, statuses: st{apiReady(apiRunning("s1")), apiReady(apiRunning("s2")), apiReady(apiRunning("a"))}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "second sidecar unknown", spec: withSidecars, statuses: st{apiReady(apiRunning("s1")), apiReady(apiRunning("a"))}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unknown status: [s2]"},
		{name: "second sidecar unready", spec: withSidecars, statuses: st{apiReady(apiRunning("s1")), apiRunning("s2"), apiReady(apiRunning("a"))}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unready status: [s2]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: tc.spec}
			got := GenerateContainersReadyCondition(pod, &corev1.PodStatus{}, tc.statuses, tc.phase)
			want := corev1.PodCondition{Type: corev1.ContainersReady, Status: tc.status, Reason: tc.reason, Message: tc.message}
			if got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestConditionObservedGeneration(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Generation: 7}, Spec: specWith("", nil, "a")}
	if g := GenerateContainersReadyCondition(pod, &corev1.PodStatus{}, nil, corev1.PodRunning).ObservedGeneration; g != 7 {
		t.Errorf("with an old status: observedGeneration %d, want 7", g)
	}
	if g := GenerateContainersReadyCondition(pod, nil, nil, corev1.PodRunning).ObservedGeneration; g != 0 {
		t.Errorf("without an old status: observedGeneration %d, want 0", g)
	}
	if g := GeneratePodReadyCondition(pod, &corev1.PodStatus{}, nil, nil, corev1.PodRunning).ObservedGeneration; g != 7 {
		t.Errorf("Ready: observedGeneration %d, want 7", g)
	}
}

func TestGeneratePodReadyCondition(t *testing.T) {
	gates := func(names ...string) corev1.PodSpec {
		var s corev1.PodSpec
		for _, n := range names {
			s.ReadinessGates = append(s.ReadinessGates, corev1.PodReadinessGate{ConditionType: corev1.PodConditionType(n)})
		}
		return s
	}
	cond := func(name string, s corev1.ConditionStatus) corev1.PodCondition {
		return corev1.PodCondition{Type: corev1.PodConditionType(name), Status: s}
	}
	ab := specWith("", nil, "a", "b")
	gatedA := specWith("", nil, "a")
	gatedA.ReadinessGates = gates("g1").ReadinessGates
	type st = []corev1.ContainerStatus
	cases := []struct {
		name       string
		spec       corev1.PodSpec
		conditions []corev1.PodCondition
		statuses   st
		phase      corev1.PodPhase
		status     corev1.ConditionStatus
		reason     string
		message    string
	}{
		{name: "nil statuses", statuses: nil, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: UnknownContainerStatuses},
		{name: "nothing to wait for", statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "unknown container", spec: specWith("", nil, "a"), statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unknown status: [a]"},
		{name: "all ready", spec: ab, statuses: st{apiReady(apiRunning("a")), apiReady(apiRunning("b"))}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "one unknown", spec: ab, statuses: st{apiReady(apiRunning("a"))}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unknown status: [b]"},
		{name: "one unready", spec: ab, statuses: st{apiReady(apiRunning("a")), apiRunning("b")}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unready status: [b]"},
		{name: "succeeded", spec: specWith("", nil, "a"), statuses: st{apiSucceeded("a")}, phase: corev1.PodSucceeded, status: corev1.ConditionFalse, reason: PodCompleted},
		{name: "failed", spec: ab, statuses: st{apiReady(apiRunning("a")), apiReady(apiRunning("b"))}, phase: corev1.PodFailed, status: corev1.ConditionFalse, reason: PodFailed},
		{name: "gate condition missing", spec: gates("g1"), statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ReadinessGatesNotReady, message: `corresponding condition of pod readiness gate "g1" does not exist.`},
		{name: "gate condition false", spec: gates("g1"), conditions: []corev1.PodCondition{cond("g1", corev1.ConditionFalse)}, statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ReadinessGatesNotReady, message: `the status of pod readiness gate "g1" is not "True", but False`},
		{name: "gate condition true", spec: gates("g1"), conditions: []corev1.PodCondition{cond("g1", corev1.ConditionTrue)}, statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "second gate missing", spec: gates("g1", "g2"), conditions: []corev1.PodCondition{cond("g1", corev1.ConditionTrue)}, statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ReadinessGatesNotReady, message: `corresponding condition of pod readiness gate "g2" does not exist.`},
		{name: "second gate false", spec: gates("g1", "g2"), conditions: []corev1.PodCondition{cond("g1", corev1.ConditionTrue), cond("g2", corev1.ConditionFalse)}, statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ReadinessGatesNotReady, message: `the status of pod readiness gate "g2" is not "True", but False`},
		{name: "both gates bad", spec: gates("g1", "g2"), conditions: []corev1.PodCondition{cond("g2", corev1.ConditionUnknown)}, statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ReadinessGatesNotReady, message: `corresponding condition of pod readiness gate "g1" does not exist., the status of pod readiness gate "g2" is not "True", but Unknown`},
		{name: "both gates true", spec: gates("g1", "g2"), conditions: []corev1.PodCondition{cond("g1", corev1.ConditionTrue), cond("g2", corev1.ConditionTrue)}, statuses: st{}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "gates true but container unready", spec: gatedA, conditions: []corev1.PodCondition{cond("g1", corev1.ConditionTrue)}, statuses: st{apiRunning("a")}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotReady, message: "containers with unready status: [a]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: tc.spec}
			got := GeneratePodReadyCondition(pod, &corev1.PodStatus{}, tc.conditions, tc.statuses, tc.phase)
			want := corev1.PodCondition{Type: corev1.PodReady, Status: tc.status, Reason: tc.reason, Message: tc.message}
			if got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestGeneratePodInitializedCondition(t *testing.T) {
	none := specWith("", nil, "main")
	one := specWith("", []corev1.Container{{Name: "i1"}}, "main")
	two := specWith("", []corev1.Container{{Name: "i1"}, {Name: "i2"}}, "main")
	withSidecar := specWith("", []corev1.Container{sidecar("s")}, "main")
	type st = []corev1.ContainerStatus
	cases := []struct {
		name        string
		spec        corev1.PodSpec
		main, inits st
		phase       corev1.PodPhase
		status      corev1.ConditionStatus
		reason      string
		message     string
	}{
		{name: "no statuses at all", spec: two, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: UnknownContainerStatuses},
		{name: "no init containers", spec: none, main: st{}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "init container unknown", spec: one, main: st{}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotInitialized, message: "containers with unknown status: [i1]"},
		{name: "all init containers done", spec: two, inits: st{apiReady(apiSucceeded("i1")), apiReady(apiSucceeded("i2"))}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "second unknown", spec: two, inits: st{apiReady(apiSucceeded("i1"))}, phase: corev1.PodRunning, status: corev1.ConditionFalse, reason: ContainersNotInitialized, message: "containers with unknown status: [i2]"},
		{name: "second incomplete", spec: two, inits: st{apiReady(apiSucceeded("i1")), apiRunning("i2")}, phase: corev1.PodPending, status: corev1.ConditionFalse, reason: ContainersNotInitialized, message: "containers with incomplete status: [i2]"},
		{name: "succeeded pod", spec: one, inits: st{apiSucceeded("i1")}, phase: corev1.PodSucceeded, status: corev1.ConditionTrue, reason: PodCompleted},
		{name: "sidecar not started", spec: withSidecar, inits: st{apiNotStarted("s")}, phase: corev1.PodPending, status: corev1.ConditionFalse, reason: ContainersNotInitialized, message: "containers with incomplete status: [s]"},
		{name: "sidecar started", spec: withSidecar, inits: st{apiStarted("s")}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "sidecar restarting after main ran", spec: withSidecar, inits: st{apiNotStarted("s")}, main: st{apiRunning("main")}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "init waiting again but main terminated", spec: one, inits: st{apiWaiting("i1")}, main: st{apiSucceeded("main")}, phase: corev1.PodRunning, status: corev1.ConditionTrue},
		{name: "combined list passed as main", spec: two, main: st{apiReady(apiSucceeded("i1")), apiRunning("i2")}, phase: corev1.PodPending, status: corev1.ConditionFalse, reason: ContainersNotInitialized, message: "containers with incomplete status: [i2]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: tc.spec}
			got := GeneratePodInitializedCondition(pod, tc.main, tc.inits, tc.phase)
			want := corev1.PodCondition{Type: corev1.PodInitialized, Status: tc.status, Reason: tc.reason, Message: tc.message}
			if got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestGeneratePodReadyToStartContainersCondition(t *testing.T) {
	ready := func(ip string) *container.SandboxStatus {
		return &container.SandboxStatus{ID: "s-" + ip, State: container.SandboxReady, IP: ip}
	}
	cases := []struct {
		name        string
		hostNetwork bool
		sandboxes   []*container.SandboxStatus
		status      corev1.ConditionStatus
		message     string
	}{
		{name: "no sandbox", status: corev1.ConditionFalse, message: SandboxMsgNone},
		{name: "sandbox not ready", sandboxes: []*container.SandboxStatus{{ID: "s", State: container.SandboxNotReady}}, status: corev1.ConditionFalse, message: SandboxMsgNotReady},
		{name: "two ready sandboxes", sandboxes: []*container.SandboxStatus{ready("10.0.0.10"), ready("10.0.0.11")}, status: corev1.ConditionFalse, message: SandboxMsgMultiple},
		{name: "ready without an IP", sandboxes: []*container.SandboxStatus{ready("")}, status: corev1.ConditionFalse, message: SandboxMsgNoIP},
		{name: "ready without an IP, host network", hostNetwork: true, sandboxes: []*container.SandboxStatus{ready("")}, status: corev1.ConditionTrue},
		{name: "ready with an IP", sandboxes: []*container.SandboxStatus{ready("10.0.0.10")}, status: corev1.ConditionTrue},
		{name: "newest ready, older not ready", sandboxes: []*container.SandboxStatus{ready("10.0.0.10"), {ID: "old", State: container.SandboxNotReady}}, status: corev1.ConditionTrue},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{HostNetwork: tc.hostNetwork}}
			got := GeneratePodReadyToStartContainersCondition(pod, &container.PodStatus{SandboxStatuses: tc.sandboxes})
			want := corev1.PodCondition{Type: corev1.PodReadyToStartContainers, Status: tc.status}
			if tc.status == corev1.ConditionFalse {
				want.Reason, want.Message = PodSandboxNotReady, tc.message
			}
			if got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

// ---- ConvertToAPIContainerStatuses ----

var (
	tBase = time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	// at returns tBase plus s seconds plus a sub-second part that must be truncated away.
	at = func(s int) time.Time { return tBase.Add(time.Duration(s)*time.Second + 250*time.Millisecond) }
	// api is at(s) as the API shows it.
	api = func(s int) metav1.Time { return metav1.NewTime(tBase.Add(time.Duration(s) * time.Second)) }
)

func fixedReasons(entries map[string]Reason) ReasonLookup {
	return func(_ types.UID, name string) (Reason, bool) {
		r, ok := entries[name]
		return r, ok
	}
}

func unknownLastTermination() corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		Reason: ContainerStatusUnknown, ExitCode: 137,
		Message: "The container could not be located when the pod was deleted.  The container used to be Running",
	}}
}

func waitingFor(reason string) corev1.ContainerState {
	return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
}

func TestConvertToAPIContainerStatuses(t *testing.T) {
	now := metav1.NewTime(tBase)
	always := specWith(corev1.RestartPolicyAlways, nil, "a", "b")
	never := specWith(corev1.RestartPolicyNever, nil, "a")
	withInits := specWith(corev1.RestartPolicyAlways, []corev1.Container{{Name: "i1", Image: "img-i1"}, {Name: "i2", Image: "img-i2"}}, "a")
	crash := Reason{Err: "CrashLoopBackOff", Message: "back-off 20s restarting failed container=a pod=p_ns(uid)"}
	tru := true

	type st = []corev1.ContainerStatus
	cases := []struct {
		name       string
		spec       corev1.PodSpec
		deleted    bool
		runtime    []*container.Status
		previous   st
		init       bool
		reasons    map[string]Reason
		want       st
		wantByName bool // compare only the listed containers, by name
	}{
		{
			name:     "vanished running containers, pod deleted: no extra restart",
			spec:     always,
			deleted:  true,
			previous: st{apiRunning("a"), apiRunning("b")},
			want: st{
				{Name: "a", Image: "img-a", State: waitingFor(ContainerCreating), LastTerminationState: unknownLastTermination()},
				{Name: "b", Image: "img-b", State: waitingFor(ContainerCreating), LastTerminationState: unknownLastTermination()},
			},
		},
		{
			name:     "vanished running containers: one more restart",
			spec:     always,
			previous: st{apiRunning("a"), {Name: "b", RestartCount: 4, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}},
			want: st{
				{Name: "a", Image: "img-a", State: waitingFor(ContainerCreating), LastTerminationState: unknownLastTermination(), RestartCount: 1},
				{Name: "b", Image: "img-b", State: waitingFor(ContainerCreating), LastTerminationState: unknownLastTermination(), RestartCount: 5},
			},
		},
		{
			name: "nothing known yet: ContainerCreating, sorted by name",
			spec: specWith(corev1.RestartPolicyAlways, nil, "zeta", "alpha"),
			want: st{
				{Name: "alpha", Image: "img-alpha", State: waitingFor(ContainerCreating)},
				{Name: "zeta", Image: "img-zeta", State: waitingFor(ContainerCreating)},
			},
		},
		{
			name: "regular containers of a pod with init containers: PodInitializing",
			spec: withInits,
			want: st{{Name: "a", Image: "img-a", State: waitingFor(PodInitializing)}},
		},
		{
			name: "init containers keep spec order, waiting PodInitializing",
			spec: specWith(corev1.RestartPolicyAlways, []corev1.Container{{Name: "z", Image: "iz"}, {Name: "b", Image: "ib"}}, "a"),
			init: true,
			want: st{
				{Name: "z", Image: "iz", State: waitingFor(PodInitializing)},
				{Name: "b", Image: "ib", State: waitingFor(PodInitializing)},
			},
		},
		{
			name:     "restart count and last termination carried over while waiting",
			spec:     specWith(corev1.RestartPolicyAlways, nil, "a"),
			previous: st{{Name: "a", RestartCount: 3, State: waitingFor("CrashLoopBackOff"), LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2}}}},
			want:     st{{Name: "a", Image: "img-a", RestartCount: 3, State: waitingFor(ContainerCreating), LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2}}}},
		},
		{
			name:     "previous terminated status kept as is",
			spec:     never,
			previous: st{{Name: "a", Image: "old", ContainerID: "containerd://c1", RestartCount: 1, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error"}}}},
			want:     st{{Name: "a", Image: "old", ContainerID: "containerd://c1", RestartCount: 1, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error"}}}},
		},
		{
			name:     "running: started carried from the previous status",
			spec:     specWith(corev1.RestartPolicyAlways, nil, "a"),
			runtime:  []*container.Status{{ID: "c2", Name: "a", State: container.StateRunning, Image: "img-a", CreatedAt: at(5), StartedAt: at(6), RestartCount: 1}},
			previous: st{{Name: "a", Started: &tru, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}},
			want:     st{{Name: "a", Image: "img-a", ContainerID: "containerd://c2", RestartCount: 1, Started: &tru, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: api(6)}}}},
		},
		{
			name: "running after an exit: last termination from the previous instance",
			spec: specWith(corev1.RestartPolicyAlways, nil, "a"),
			runtime: []*container.Status{
				{ID: "c1", Name: "a", State: container.StateExited, Image: "img-a", CreatedAt: at(0), StartedAt: at(1), FinishedAt: at(3), ExitCode: 1, Reason: "Error"},
				{ID: "c3", Name: "a", State: container.StateRunning, Image: "img-a", CreatedAt: at(20), StartedAt: at(21), RestartCount: 2},
				{ID: "c2", Name: "a", State: container.StateExited, Image: "img-a", CreatedAt: at(10), StartedAt: at(11), FinishedAt: at(12), ExitCode: 137, Reason: "OOMKilled"},
			},
			want: st{{
				Name: "a", Image: "img-a", ContainerID: "containerd://c3", RestartCount: 2,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: api(21)}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 137, Reason: "OOMKilled", StartedAt: api(11), FinishedAt: api(12), ContainerID: "containerd://c2"}},
			}},
		},
		{
			name: "crash-loop back-off: waiting with the cached reason, termination moved to last state",
			spec: specWith(corev1.RestartPolicyAlways, nil, "a"),
			runtime: []*container.Status{
				{ID: "c2", Name: "a", State: container.StateExited, Image: "img-a", CreatedAt: at(10), StartedAt: at(11), FinishedAt: at(12), ExitCode: 1, Reason: "Error", RestartCount: 1},
				{ID: "c1", Name: "a", State: container.StateExited, Image: "img-a", CreatedAt: at(0), StartedAt: at(1), FinishedAt: at(2), ExitCode: 1, Reason: "Error"},
			},
			reasons: map[string]Reason{"a": crash},
			want: st{{
				Name: "a", Image: "img-a", ContainerID: "containerd://c2", RestartCount: 1,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: crash.Err, Message: crash.Message}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 1, Reason: "Error", StartedAt: api(11), FinishedAt: api(12), ContainerID: "containerd://c2"}},
			}},
		},
		{
			name:    "exited without a reason cache entry stays terminated",
			spec:    specWith(corev1.RestartPolicyAlways, nil, "a"),
			runtime: []*container.Status{{ID: "c1", Name: "a", State: container.StateExited, Image: "img-a", CreatedAt: at(0), StartedAt: at(1), FinishedAt: at(2), ExitCode: 1, Reason: "Error"}},
			want: st{{Name: "a", Image: "img-a", ContainerID: "containerd://c1",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: api(1), FinishedAt: api(2), ContainerID: "containerd://c1"}}}},
		},
		{
			name:    "restart policy Never: the reason cache is not consulted",
			spec:    never,
			runtime: []*container.Status{{ID: "c1", Name: "a", State: container.StateExited, Image: "img-a", CreatedAt: at(0), StartedAt: at(1), FinishedAt: at(2), ExitCode: 1, Reason: "Error"}},
			reasons: map[string]Reason{"a": crash},
			want: st{{Name: "a", Image: "img-a", ContainerID: "containerd://c1",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: api(1), FinishedAt: api(2), ContainerID: "containerd://c1"}}}},
		},
		{
			name:    "deleted pod: the reason cache is not consulted",
			spec:    specWith(corev1.RestartPolicyAlways, nil, "a"),
			deleted: true,
			reasons: map[string]Reason{"a": {Err: "ErrImagePull", Message: "pull failed"}},
			want:    st{{Name: "a", Image: "img-a", State: waitingFor(ContainerCreating)}},
		},
		{
			name:    "never started: image pull back-off replaces ContainerCreating",
			spec:    specWith(corev1.RestartPolicyAlways, nil, "a"),
			reasons: map[string]Reason{"a": {Err: "ImagePullBackOff", Message: "Back-off pulling image \"img-a\""}},
			want:    st{{Name: "a", Image: "img-a", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image \"img-a\""}}}},
		},
		{
			name:    "created but not started: waiting without a reason",
			spec:    specWith(corev1.RestartPolicyAlways, nil, "a"),
			runtime: []*container.Status{{ID: "c1", Name: "a", State: container.StateCreated, Image: "img-a", CreatedAt: at(0)}},
			want:    st{{Name: "a", Image: "img-a", ContainerID: "containerd://c1", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}}},
		},
		{
			name:    "created and start failed: RunContainerError",
			spec:    specWith(corev1.RestartPolicyAlways, nil, "a"),
			runtime: []*container.Status{{ID: "c1", Name: "a", State: container.StateCreated, Image: "img-a", CreatedAt: at(0)}},
			reasons: map[string]Reason{"a": {Err: "RunContainerError", Message: "boom"}},
			want:    st{{Name: "a", Image: "img-a", ContainerID: "containerd://c1", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "RunContainerError", Message: "boom"}}}},
		},
		{
			name:     "unknown state after running: terminated ContainerStatusUnknown, one more restart",
			spec:     specWith(corev1.RestartPolicyAlways, nil, "a"),
			runtime:  []*container.Status{{ID: "c1", Name: "a", State: container.StateUnknown, Image: "img-a", CreatedAt: at(0), RestartCount: 2}},
			previous: st{{Name: "a", RestartCount: 2, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}},
			want: st{{Name: "a", Image: "img-a", ContainerID: "containerd://c1", RestartCount: 3,
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: ContainerStatusUnknown, Message: "The container could not be located when the pod was terminated", ExitCode: 137}}}},
		},
		{
			name:    "unknown state without a running past: waiting",
			spec:    specWith(corev1.RestartPolicyAlways, nil, "a"),
			runtime: []*container.Status{{ID: "c1", Name: "a", State: container.StateUnknown, Image: "img-a", CreatedAt: at(0)}},
			want:    st{{Name: "a", Image: "img-a", ContainerID: "containerd://c1", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}}},
		},
		{
			name: "succeeded init container is never shown waiting",
			spec: withInits,
			init: true,
			runtime: []*container.Status{
				{ID: "i1c", Name: "i1", State: container.StateExited, Image: "img-i1", CreatedAt: at(0), StartedAt: at(1), FinishedAt: at(2), Reason: "Completed"},
				{ID: "i2c", Name: "i2", State: container.StateExited, Image: "img-i2", CreatedAt: at(3), StartedAt: at(4), FinishedAt: at(5), ExitCode: 1, Reason: "Error"},
			},
			reasons: map[string]Reason{"i1": crash, "i2": crash},
			want: st{
				{Name: "i1", Image: "img-i1", ContainerID: "containerd://i1c", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: api(1), FinishedAt: api(2), ContainerID: "containerd://i1c"}}},
				{Name: "i2", Image: "img-i2", ContainerID: "containerd://i2c",
					State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: crash.Err, Message: crash.Message}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: api(4), FinishedAt: api(5), ContainerID: "containerd://i2c"}}},
			},
		},
		{
			name: "init containers removed from the runtime after the pod initialized: completed",
			spec: withInits,
			init: true,
			runtime: []*container.Status{
				{ID: "ac", Name: "a", State: container.StateRunning, Image: "img-a", CreatedAt: at(10), StartedAt: at(11)},
			},
			want: st{
				{Name: "i1", Image: "img-i1", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", Message: "Unable to get init container status from container runtime and pod has been initialized, treat it as exited normally"}}},
				{Name: "i2", Image: "img-i2", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", Message: "Unable to get init container status from container runtime and pod has been initialized, treat it as exited normally"}}},
			},
		},
		{
			name: "a vanished sidecar is not assumed completed",
			spec: specWith(corev1.RestartPolicyAlways, []corev1.Container{sidecar("s")}, "a"),
			init: true,
			runtime: []*container.Status{
				{ID: "ac", Name: "a", State: container.StateRunning, Image: "img-a", CreatedAt: at(10), StartedAt: at(11)},
			},
			want: st{{Name: "s", State: waitingFor(PodInitializing)}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid"}, Spec: tc.spec}
			if tc.deleted {
				pod.DeletionTimestamp = &now
			}
			containers := pod.Spec.Containers
			if tc.init {
				containers = pod.Spec.InitContainers
			}
			var reasons ReasonLookup
			if tc.reasons != nil {
				reasons = fixedReasons(tc.reasons)
			}
			got := ConvertToAPIContainerStatuses(pod, &container.PodStatus{ID: pod.UID, ContainerStatuses: tc.runtime},
				tc.previous, containers, len(pod.Spec.InitContainers) > 0, tc.init, reasons, false, kuberuntime.DefaultRestartGates())
			if !apiequality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("got %s\nwant %s", dump(got), dump(tc.want))
			}
		})
	}
}

// ---- GenerateAPIPodStatus ----

// fakeProbes answers by container name: started/ready default to true; results marks
// containers with a known startup result (for StartupResults).
type fakeProbes struct {
	notStarted map[string]bool
	notReady   map[string]bool
	calls      []string
}

func (f *fakeProbes) Started(_ types.UID, id string, c *corev1.Container) bool {
	f.calls = append(f.calls, "started:"+c.Name+":"+id)
	return !f.notStarted[c.Name]
}

func (f *fakeProbes) Ready(_ types.UID, id string, c *corev1.Container) bool {
	f.calls = append(f.calls, "ready:"+c.Name+":"+id)
	return !f.notReady[c.Name]
}

type fakeProbesWithResults struct {
	fakeProbes
	known map[string]bool // container ID -> startup result
}

func (f *fakeProbesWithResults) StartupResult(_ types.UID, id string) (bool, bool) {
	r, ok := f.known[id]
	return r, ok
}

func readySandbox(ip string) []*container.SandboxStatus {
	return []*container.SandboxStatus{{ID: "sb1", State: container.SandboxReady, IP: ip, CreatedAt: tBase}}
}

func condByType(st corev1.PodStatus, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

func TestGenerateAPIPodStatusPhase(t *testing.T) {
	spec := specWith(corev1.RestartPolicyAlways, nil, "a", "b")
	bothRunning := &container.PodStatus{
		SandboxStatuses: readySandbox("10.0.0.5"), IPs: []string{"10.0.0.5"},
		ContainerStatuses: []*container.Status{
			{ID: "ca", Name: "a", State: container.StateRunning, CreatedAt: at(1), StartedAt: at(2)},
			{ID: "cb", Name: "b", State: container.StateRunning, CreatedAt: at(1), StartedAt: at(2)},
		},
	}
	bothSucceeded := &container.PodStatus{
		SandboxStatuses: readySandbox("10.0.0.5"), IPs: []string{"10.0.0.5"},
		ContainerStatuses: []*container.Status{
			{ID: "ca", Name: "a", State: container.StateExited, CreatedAt: at(1), StartedAt: at(2), FinishedAt: at(3), Reason: "Completed"},
			{ID: "cb", Name: "b", State: container.StateExited, CreatedAt: at(1), StartedAt: at(2), FinishedAt: at(3), Reason: "Completed"},
		},
	}
	cases := []struct {
		name            string
		apiStatus       corev1.PodStatus
		old             *corev1.PodStatus
		runtime         *container.PodStatus
		terminal        bool
		phase           corev1.PodPhase
		reason, message string
	}{
		{name: "running", runtime: bothRunning, phase: corev1.PodRunning},
		{name: "cached Failed is never left", runtime: bothRunning, old: &corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "low on memory"},
			phase: corev1.PodFailed, reason: "Evicted", message: "low on memory"},
		{name: "API Succeeded wins over a running runtime", runtime: bothRunning, apiStatus: corev1.PodStatus{Phase: corev1.PodSucceeded},
			old: &corev1.PodStatus{Phase: corev1.PodRunning}, phase: corev1.PodSucceeded},
		{name: "API Failed wins over a cached Succeeded", runtime: bothSucceeded, apiStatus: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "DeadlineExceeded"},
			old: &corev1.PodStatus{Phase: corev1.PodSucceeded, Reason: "Done"}, phase: corev1.PodFailed, reason: "Done"}, // the forced API phase comes after the reason was kept
		{name: "API Failed kept when there is no cache", runtime: &container.PodStatus{}, apiStatus: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "DeadlineExceeded", Message: "too long"},
			phase: corev1.PodFailed, reason: "DeadlineExceeded", message: "too long"},
		{name: "reason kept while the phase is unchanged", runtime: bothRunning, old: &corev1.PodStatus{Phase: corev1.PodRunning, Reason: "R", Message: "M"},
			phase: corev1.PodRunning, reason: "R", message: "M"},
		{name: "empty cached reason falls back to the API's", runtime: bothRunning, apiStatus: corev1.PodStatus{Phase: corev1.PodRunning, Reason: "api-r", Message: "api-m"},
			old: &corev1.PodStatus{Phase: corev1.PodRunning}, phase: corev1.PodRunning, reason: "api-r", message: "api-m"},
		{name: "reason dropped when the phase changes", runtime: bothRunning, old: &corev1.PodStatus{Phase: corev1.PodPending, Reason: "R", Message: "M"},
			phase: corev1.PodRunning},
		{name: "running can go back to pending", runtime: &container.PodStatus{SandboxStatuses: readySandbox("10.0.0.5")},
			old: &corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{apiWaiting("a"), apiWaiting("b")}}, phase: corev1.PodPending},
		{name: "terminating, everything succeeded", runtime: bothSucceeded, terminal: true, phase: corev1.PodSucceeded},
		{name: "not terminating, restart Always keeps Running", runtime: bothSucceeded, phase: corev1.PodRunning},
		{name: "vanished running containers count as stopped (Always: Running)", runtime: &container.PodStatus{},
			old: &corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{apiRunning("a"), apiRunning("b")}}, phase: corev1.PodRunning},
		{name: "vanished running containers while terminating: Failed", runtime: &container.PodStatus{}, terminal: true,
			old: &corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{apiRunning("a"), apiRunning("b")}}, phase: corev1.PodFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"}, Spec: spec, Status: tc.apiStatus}
			got := GenerateAPIPodStatus(pod, tc.runtime, tc.old, tc.terminal, nil, nil, tBase)
			if got.Phase != tc.phase || got.Reason != tc.reason || got.Message != tc.message {
				t.Errorf("got phase %q reason %q message %q, want %q %q %q", got.Phase, got.Reason, got.Message, tc.phase, tc.reason, tc.message)
			}
		})
	}
}

func TestGenerateAPIPodStatusFields(t *testing.T) {
	start := metav1.NewTime(tBase.Add(-time.Hour))
	ltt := metav1.NewTime(tBase.Add(-30 * time.Minute))
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u", Generation: 3},
		Spec:       specWith(corev1.RestartPolicyAlways, nil, "a"),
		Status: corev1.PodStatus{
			QOSClass: corev1.PodQOSBurstable,
			Conditions: []corev1.PodCondition{
				{Type: "example.com/gate", Status: corev1.ConditionTrue},
				{Type: corev1.PodReady, Status: corev1.ConditionFalse},
			},
		},
	}
	old := &corev1.PodStatus{
		Phase:     corev1.PodRunning,
		StartTime: &start,
		PodIP:     "10.0.0.9", PodIPs: []corev1.PodIP{{IP: "10.0.0.9"}},
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: ltt},
			{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, LastTransitionTime: ltt},
			{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI", LastTransitionTime: ltt},
		},
	}
	running := &container.PodStatus{
		SandboxStatuses:   readySandbox("10.0.0.7"),
		IPs:               []string{"10.0.0.7"},
		ContainerStatuses: []*container.Status{{ID: "ca", Name: "a", State: container.StateRunning, CreatedAt: at(1), StartedAt: at(2)}},
	}
	now := tBase.Add(500 * time.Millisecond)

	got := GenerateAPIPodStatus(pod, running, old, false, nil, nil, now)

	if got.StartTime == nil || !got.StartTime.Equal(&start) {
		t.Errorf("StartTime = %v, want the old %v", got.StartTime, start)
	}
	if got.PodIP != "10.0.0.7" || len(got.PodIPs) != 1 || got.PodIPs[0].IP != "10.0.0.7" {
		t.Errorf("pod IPs = %q %v, want the runtime's 10.0.0.7", got.PodIP, got.PodIPs)
	}
	if got.HostIP != "" || len(got.HostIPs) != 0 {
		t.Errorf("host IPs should stay empty, got %q %v", got.HostIP, got.HostIPs)
	}
	if got.QOSClass != corev1.PodQOSBurstable {
		t.Errorf("QOSClass = %q, want it carried over from the API status", got.QOSClass)
	}
	wantTypes := []corev1.PodConditionType{"example.com/gate", corev1.DisruptionTarget, corev1.PodReadyToStartContainers,
		corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled}
	if len(got.Conditions) != len(wantTypes) {
		t.Fatalf("conditions %s", dump(got.Conditions))
	}
	for i, ty := range wantTypes {
		if got.Conditions[i].Type != ty {
			t.Errorf("condition %d is %s, want %s", i, got.Conditions[i].Type, ty)
		}
	}
	if c := condByType(got, corev1.DisruptionTarget); c.Reason != "EvictionByEvictionAPI" || !c.LastTransitionTime.Equal(&ltt) {
		t.Errorf("DisruptionTarget not copied from the old status: %+v", c)
	}
	if c := condByType(got, corev1.PodScheduled); !c.LastTransitionTime.Equal(&ltt) || c.ObservedGeneration != 3 {
		t.Errorf("PodScheduled unchanged should keep its transition time and carry the generation: %+v", c)
	}
	nowAPI := metav1.NewTime(tBase)
	if c := condByType(got, corev1.ContainersReady); c.Status != corev1.ConditionTrue || !c.LastTransitionTime.Equal(&nowAPI) {
		t.Errorf("ContainersReady turned True should transition now (whole second): %+v", c)
	}
	if c := condByType(got, corev1.PodReady); c.Status != corev1.ConditionTrue {
		t.Errorf("Ready = %+v", c)
	}
	cs := got.ContainerStatuses[0]
	if cs.Started == nil || !*cs.Started || !cs.Ready || cs.ContainerID != "containerd://ca" {
		t.Errorf("container status without probes: %s", dump(cs))
	}
	if cs.State.Running == nil || !cs.State.Running.StartedAt.Equal(&metav1.Time{Time: tBase.Add(2 * time.Second)}) {
		t.Errorf("startedAt not truncated to whole seconds: %s", dump(cs.State))
	}

	// No runtime IPs (sandbox gone): keep the old ones. No old start time: now.
	gone := GenerateAPIPodStatus(pod, &container.PodStatus{}, &corev1.PodStatus{PodIPs: old.PodIPs, PodIP: old.PodIP}, false, nil, nil, now)
	if gone.PodIP != "10.0.0.9" || len(gone.PodIPs) != 1 {
		t.Errorf("old IPs not kept: %q %v", gone.PodIP, gone.PodIPs)
	}
	if gone.StartTime == nil || !gone.StartTime.Equal(&nowAPI) {
		t.Errorf("StartTime = %v, want now truncated", gone.StartTime)
	}
	if c := condByType(gone, corev1.PodReadyToStartContainers); c.Status != corev1.ConditionFalse || c.Reason != PodSandboxNotReady {
		t.Errorf("PodReadyToStartContainers = %+v", c)
	}

	// Deterministic.
	again := GenerateAPIPodStatus(pod, running, old, false, nil, nil, now)
	if !apiequality.Semantic.DeepEqual(got, again) {
		t.Errorf("two calls differ:\n%s\n%s", dump(got), dump(again))
	}
}

func TestGenerateAPIPodStatusProbes(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"},
		Spec: specWith(corev1.RestartPolicyAlways,
			[]corev1.Container{{Name: "init"}, sidecar("side")}, "slow", "web", "done"),
	}
	rt := &container.PodStatus{
		SandboxStatuses: readySandbox("10.0.0.5"), IPs: []string{"10.0.0.5"},
		ContainerStatuses: []*container.Status{
			{ID: "i", Name: "init", State: container.StateExited, CreatedAt: at(1), StartedAt: at(1), FinishedAt: at(2), Reason: "Completed"},
			{ID: "s", Name: "side", State: container.StateRunning, CreatedAt: at(3), StartedAt: at(3)},
			{ID: "sl", Name: "slow", State: container.StateRunning, CreatedAt: at(5), StartedAt: at(5)},
			{ID: "w", Name: "web", State: container.StateRunning, CreatedAt: at(5), StartedAt: at(5)},
			{ID: "d", Name: "done", State: container.StateExited, CreatedAt: at(5), StartedAt: at(5), FinishedAt: at(6), Reason: "Completed"},
		},
	}
	probes := &fakeProbes{notStarted: map[string]bool{"slow": true}, notReady: map[string]bool{"web": true, "side": true}}
	got := GenerateAPIPodStatus(pod, rt, &corev1.PodStatus{}, false, nil, probes, tBase)

	type flags struct{ started, ready bool }
	want := map[string]flags{
		"init": {false, true}, // exited 0: ready, not started
		"side": {true, false}, // sidecar started, readiness failing
		"slow": {false, false},
		"web":  {true, false},
		"done": {false, false},
	}
	for _, cs := range append(append([]corev1.ContainerStatus(nil), got.InitContainerStatuses...), got.ContainerStatuses...) {
		w := want[cs.Name]
		if cs.Started == nil || *cs.Started != w.started || cs.Ready != w.ready {
			t.Errorf("%s: started %v ready %v, want %+v", cs.Name, cs.Started, cs.Ready, w)
		}
	}
	for _, call := range probes.calls {
		if call == "ready:slow:sl" {
			t.Errorf("readiness asked for a container that has not started")
		}
	}
	if c := condByType(got, corev1.PodInitialized); c.Status != corev1.ConditionTrue {
		t.Errorf("Initialized = %+v", c)
	}
	if c := condByType(got, corev1.ContainersReady); c.Status != corev1.ConditionFalse || c.Message != "containers with unready status: [side slow web done]" {
		t.Errorf("ContainersReady = %+v", c)
	}
	if got.Phase != corev1.PodRunning {
		t.Errorf("phase %s, want Running", got.Phase)
	}
}

func TestGenerateAPIPodStatusStartedCarryOver(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"}, Spec: specWith(corev1.RestartPolicyAlways, nil, "a")}
	rt := &container.PodStatus{
		SandboxStatuses:   readySandbox("10.0.0.5"),
		ContainerStatuses: []*container.Status{{ID: "c1", Name: "a", State: container.StateRunning, CreatedAt: at(1), StartedAt: at(1)}},
	}
	tru := true
	old := &corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "a", Started: &tru, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}
	cases := []struct {
		name   string
		probes ProbeState
		want   bool
	}{
		{name: "no startup result known: previous started kept", probes: &fakeProbes{notStarted: map[string]bool{"a": true}}, want: true},
		{name: "known failure wins over the previous status", probes: &fakeProbesWithResults{fakeProbes: fakeProbes{notStarted: map[string]bool{"a": true}}, known: map[string]bool{"c1": false}}, want: false},
		{name: "unknown result with the lookup: previous kept", probes: &fakeProbesWithResults{fakeProbes: fakeProbes{notStarted: map[string]bool{"a": true}}, known: map[string]bool{}}, want: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := GenerateAPIPodStatus(pod, rt, old, false, nil, tc.probes, tBase)
			if s := got.ContainerStatuses[0].Started; s == nil || *s != tc.want {
				t.Errorf("started = %v, want %v", s, tc.want)
			}
		})
	}
}

func TestGenerateAPIPodStatusSidecarInitialization(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"},
		Spec: specWith(corev1.RestartPolicyAlways, []corev1.Container{sidecar("side")}, "a")}
	probes := &fakeProbes{notStarted: map[string]bool{"side": true}}
	// The sidecar restarted (its startup probe has not passed yet) while the main
	// container of the same sandbox runs: the pod stays Running.
	sameSandbox := &container.PodStatus{
		SandboxStatuses: readySandbox("10.0.0.5"),
		ContainerStatuses: []*container.Status{
			{ID: "s2", Name: "side", State: container.StateRunning, CreatedAt: at(30), StartedAt: at(30), RestartCount: 1},
			{ID: "a1", Name: "a", State: container.StateRunning, CreatedAt: at(5), StartedAt: at(5)},
		},
	}
	if got := GenerateAPIPodStatus(pod, sameSandbox, &corev1.PodStatus{}, false, nil, probes, tBase); got.Phase != corev1.PodRunning {
		t.Errorf("same sandbox: phase %s, want Running", got.Phase)
	}
	// A new sandbox: the main container's instance predates it, so the pod is
	// initializing again.
	newSandbox := &container.PodStatus{
		SandboxStatuses: []*container.SandboxStatus{{ID: "sb2", State: container.SandboxReady, IP: "10.0.0.6", CreatedAt: tBase.Add(time.Minute)}},
		ContainerStatuses: []*container.Status{
			{ID: "s2", Name: "side", State: container.StateRunning, CreatedAt: tBase.Add(61 * time.Second), StartedAt: tBase.Add(61 * time.Second)},
			{ID: "a1", Name: "a", State: container.StateRunning, CreatedAt: at(5), StartedAt: at(5)},
		},
	}
	if got := GenerateAPIPodStatus(pod, newSandbox, &corev1.PodStatus{}, false, nil, probes, tBase); got.Phase != corev1.PodPending {
		t.Errorf("new sandbox: phase %s, want Pending", got.Phase)
	}
}

func TestGenerateAPIPodStatusCrashLoop(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"}, Spec: specWith(corev1.RestartPolicyAlways, nil, "a")}
	rt := &container.PodStatus{
		SandboxStatuses: readySandbox("10.0.0.5"), IPs: []string{"10.0.0.5"},
		ContainerStatuses: []*container.Status{
			{ID: "c3", Name: "a", State: container.StateExited, CreatedAt: at(30), StartedAt: at(30), FinishedAt: at(31), ExitCode: 1, Reason: "Error", RestartCount: 2},
			{ID: "c2", Name: "a", State: container.StateExited, CreatedAt: at(10), StartedAt: at(10), FinishedAt: at(11), ExitCode: 1, Reason: "Error", RestartCount: 1},
		},
	}
	reasons := fixedReasons(map[string]Reason{"a": {Err: "CrashLoopBackOff", Message: "back-off 20s"}})
	got := GenerateAPIPodStatus(pod, rt, &corev1.PodStatus{Phase: corev1.PodRunning}, false, reasons, nil, tBase)
	cs := got.ContainerStatuses[0]
	if cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" || cs.RestartCount != 2 {
		t.Fatalf("container status %s", dump(cs))
	}
	if lt := cs.LastTerminationState.Terminated; lt == nil || lt.ContainerID != "containerd://c3" || lt.ExitCode != 1 {
		t.Errorf("last termination %s", dump(cs.LastTerminationState))
	}
	if got.Phase != corev1.PodRunning {
		t.Errorf("phase %s, want Running (a container in back-off counts as stopped)", got.Phase)
	}
	if c := condByType(got, corev1.ContainersReady); c.Status != corev1.ConditionFalse || c.Message != "containers with unready status: [a]" {
		t.Errorf("ContainersReady %+v", c)
	}
	if cs.Started == nil || *cs.Started {
		t.Errorf("a waiting container is not started: %v", cs.Started)
	}
}

// listMessage writes its lists as fmt's %v writes a []string.
func TestListMessageFormat(t *testing.T) {
	for _, tc := range []struct{ unknown, other []string }{
		{nil, nil}, {[]string{"a"}, nil}, {nil, []string{"b", "c"}}, {[]string{"a", "b"}, []string{"c"}}, {[]string{""}, []string{"x y"}},
	} {
		var parts []string
		if len(tc.unknown) > 0 {
			parts = append(parts, fmt.Sprintf("containers with unknown status: %v", tc.unknown))
		}
		if len(tc.other) > 0 {
			parts = append(parts, fmt.Sprintf("containers with %s status: %v", "unready", tc.other))
		}
		if got, want := listMessage("unready", tc.unknown, tc.other), strings.Join(parts, ", "); got != want {
			t.Errorf("listMessage(%q, %q) = %q, want %q", tc.unknown, tc.other, got, want)
		}
	}
}

func TestIsAPIContainerID(t *testing.T) {
	for _, id := range []string{"", "abc", "containerd://", "x"} {
		for _, api := range []string{"", "containerd://abc", "containerd://ab", "containerd://", "docker://abc", "abc", "containerd://containerd://", "containerd://x"} {
			if got, want := isAPIContainerID(api, id), api == apiContainerID(id); got != want {
				t.Errorf("isAPIContainerID(%q, %q) = %v, want %v", api, id, got, want)
			}
		}
	}
}

// A generated status shares the container states, started flags, start time and pod IPs
// that did not change with the status it was generated from (sharedState), and never
// writes into that status: a state whose times need truncating is replaced by a copy.
func TestGeneratedStatusSharesButNeverChangesThePrevious(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"},
		Spec: specWith(corev1.RestartPolicyAlways, nil, "a", "b", "c")}
	start := metav1.NewTime(tBase)
	yes := true
	ragged := metav1.NewTime(at(1)) // not whole seconds
	old := &corev1.PodStatus{
		Phase: corev1.PodRunning, StartTime: &start, PodIP: "10.0.0.7", PodIPs: []corev1.PodIP{{IP: "10.0.0.7"}},
		ContainerStatuses: []corev1.ContainerStatus{
			{Name: "a", ContainerID: ContainerIDScheme + "ca", Started: &yes,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: api(2)}}},
			{Name: "b", ContainerID: ContainerIDScheme + "cb2", RestartCount: 1,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: api(4)}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 1, Reason: "Error", StartedAt: api(1), FinishedAt: api(2), ContainerID: ContainerIDScheme + "cb1"}}},
			{Name: "c", ContainerID: ContainerIDScheme + "cc",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, StartedAt: ragged, FinishedAt: ragged}}},
		},
	}
	before := old.DeepCopy()
	runtime := &container.PodStatus{
		SandboxStatuses: readySandbox("10.0.0.7"),
		IPs:             []string{"10.0.0.7"},
		ContainerStatuses: []*container.Status{
			{ID: "ca", Name: "a", State: container.StateRunning, CreatedAt: at(1), StartedAt: at(2)},
			{ID: "cb2", Name: "b", State: container.StateExited, ExitCode: 2, Reason: "Error", RestartCount: 1, CreatedAt: at(3), StartedAt: at(4), FinishedAt: at(5)},
			{ID: "cb1", Name: "b", State: container.StateExited, ExitCode: 1, Reason: "Error", CreatedAt: at(0), StartedAt: at(1), FinishedAt: at(2)},
		},
	}
	got := GenerateAPIPodStatus(pod, runtime, old, false, nil, nil, tBase.Add(10*time.Second))
	if !apiequality.Semantic.DeepEqual(old, before) {
		t.Fatalf("generation changed the previous status:\n%s\nwas\n%s", dump(old), dump(before))
	}
	a, b, c := &got.ContainerStatuses[0], &got.ContainerStatuses[1], &got.ContainerStatuses[2]
	if a.State.Running != old.ContainerStatuses[0].State.Running || a.Started != old.ContainerStatuses[0].Started {
		t.Error("an unchanged running state and started flag were not shared")
	}
	if b.State.Terminated == nil || b.State.Terminated.ExitCode != 2 || b.LastTerminationState.Terminated != old.ContainerStatuses[1].LastTerminationState.Terminated {
		t.Errorf("b: want a new terminated state (exit 2) and the previous last termination shared, got %s", dump(b))
	}
	if c.State.Terminated == old.ContainerStatuses[2].State.Terminated || c.State.Terminated.StartedAt != api(1) || c.State.Terminated.FinishedAt != api(1) {
		t.Errorf("c: a state with ragged times must be replaced by a truncated copy, got %s", dump(c))
	}
	if got.StartTime != old.StartTime || &got.PodIPs[0] != &old.PodIPs[0] {
		t.Error("the unchanged start time and pod IPs were not shared")
	}
}

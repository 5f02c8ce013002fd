package kuberuntime

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"nodesim/internal/upstream"
	"nodesim/model/container"
	"nodesim/trace"
)

// RestartGates are the two feature gates that decide how the kubelet reads a container's own
// restart policy and rules: ContainerRestartRules (Beta, on since v1.35) lets a container's
// restartPolicy and restartPolicyRules override the pod's restart policy;
// RestartAllContainersOnContainerExits (Beta, on since v1.36) adds the RestartAllContainers
// action. Upstream reads them from the process-wide gate; the model takes them per run.
type RestartGates struct {
	ContainerRestartRules                bool
	RestartAllContainersOnContainerExits bool
}

// DefaultRestartGates are both gates at their v1.37 defaults (on).
func DefaultRestartGates() RestartGates {
	return RestartGates{ContainerRestartRules: true, RestartAllContainersOnContainerExits: true}
}

// RestartAll reports whether the RestartAllContainers action is in force.
func (g RestartGates) RestartAll() bool {
	return g.ContainerRestartRules && g.RestartAllContainersOnContainerExits
}

// RestartingAllContainers is the reason the kubelet gives a container removed by a
// RestartAllContainers reset (its waiting state and its last termination).
const RestartingAllContainers = "RestartingAllContainers"

// ContainerShouldRestart is upstream's podutil.ContainerShouldRestart with the run's gates:
// with a container-level restartPolicy, its rules are tried in order and the first that
// matches the exit code decides (Restart restarts; RestartAllContainers counts as a restart
// when its gate is on, else falls through); then the container's policy decides (Always,
// OnFailure: a non-zero code, Never). Without one, the pod's policy decides.
func ContainerShouldRestart(c *corev1.Container, spec *corev1.PodSpec, exitCode int32, g RestartGates) bool {
	if c.RestartPolicy != nil {
		if rule, ok := upstream.FindMatchingContainerRestartRule(c, exitCode); ok {
			switch rule.Action {
			case corev1.ContainerRestartRuleActionRestart:
				return true
			case corev1.ContainerRestartRuleActionRestartAllContainers:
				if g.RestartAllContainersOnContainerExits {
					return true
				}
			}
		}
		switch *c.RestartPolicy {
		case corev1.ContainerRestartPolicyAlways:
			return true
		case corev1.ContainerRestartPolicyOnFailure:
			return exitCode != 0
		case corev1.ContainerRestartPolicyNever:
			return false
		}
	}
	switch spec.RestartPolicy {
	case corev1.RestartPolicyOnFailure:
		return exitCode != 0
	case corev1.RestartPolicyNever:
		return false
	}
	return true
}

// matchesRestartAll reports whether a container's exit code matches one of its rules whose
// action is RestartAllContainers.
func matchesRestartAll(c *corev1.Container, exitCode int32) bool {
	rule, ok := upstream.FindMatchingContainerRestartRule(c, exitCode)
	return ok && rule.Action == corev1.ContainerRestartRuleActionRestartAllContainers
}

// ShouldAllContainersRestart reports whether the pod is in, or must begin, a
// RestartAllContainers reset (upstream kubecontainer.ShouldAllContainersRestart): the API
// status already carries AllContainersRestarting=True, or an init or regular container has
// exited, in the runtime or in the API status, with a code that matches one of its
// RestartAllContainers rules. Either status may be nil.
func ShouldAllContainersRestart(pod *corev1.Pod, podStatus *container.PodStatus, apiStatus *corev1.PodStatus) bool {
	api := map[string]*corev1.ContainerStatus{}
	if apiStatus != nil {
		for _, cond := range apiStatus.Conditions {
			if cond.Type == corev1.AllContainersRestarting && cond.Status == corev1.ConditionTrue {
				return true
			}
		}
		for i := range apiStatus.InitContainerStatuses {
			api[apiStatus.InitContainerStatuses[i].Name] = &apiStatus.InitContainerStatuses[i]
		}
		for i := range apiStatus.ContainerStatuses {
			api[apiStatus.ContainerStatuses[i].Name] = &apiStatus.ContainerStatuses[i]
		}
	}
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			c := &list[i]
			if podStatus != nil {
				if s := podStatus.FindContainerStatusByName(c.Name); s != nil && s.State == container.StateExited && matchesRestartAll(c, int32(s.ExitCode)) {
					return true
				}
			}
			if s, ok := api[c.Name]; ok && s.State.Terminated != nil && matchesRestartAll(c, s.State.Terminated.ExitCode) {
				return true
			}
		}
	}
	return false
}

// AllContainersRestartCleanedUp reports whether the runtime holds no instance of any of the
// pod's init or regular containers: the reset has removed them all.
func AllContainersRestartCleanedUp(pod *corev1.Pod, podStatus *container.PodStatus) bool {
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			if podStatus.FindContainerStatusByName(list[i].Name) != nil {
				return false
			}
		}
	}
	return true
}

// ContainerToReset is one runtime instance a RestartAllContainers reset removes (upstream
// containerToRemoveInfo); Kill says it is still running and is stopped first.
type ContainerToReset struct {
	ID        string
	Name      string
	Container *corev1.Container
	Kill      bool
	// Source says this instance exited with a code matching a RestartAllContainers rule:
	// it triggered the reset, and is removed last.
	Source bool
}

// getContainersToReset splits every runtime instance of the given containers into the ones
// that triggered the reset (exited with a RestartAllContainers code) and the others, in spec
// order, each container's instances newest first (upstream getContainersToReset).
func getContainersToReset(containers []corev1.Container, podStatus *container.PodStatus) (sources, targets []ContainerToReset) {
	for i := range containers {
		c := &containers[i]
		for _, s := range podStatus.ContainerStatuses {
			if s.Name != c.Name {
				continue
			}
			info := ContainerToReset{ID: s.ID, Name: c.Name, Container: c}
			if s.State == container.StateExited {
				if matchesRestartAll(c, int32(s.ExitCode)) {
					info.Source = true
					sources = append(sources, info)
				} else {
					targets = append(targets, info)
				}
				continue
			}
			info.Kill = true
			targets = append(targets, info)
		}
	}
	return sources, targets
}

// describeRule renders a rule as the manifest states it: "RestartAllContainers when the exit
// code is In [42]".
func describeRule(r corev1.ContainerRestartRule) string {
	if r.ExitCodes == nil {
		return string(r.Action)
	}
	return fmt.Sprintf("%s when the exit code is %s %v", r.Action, r.ExitCodes.Operator, r.ExitCodes.Values)
}

// restartDecision says, for a container whose newest instance has exited, what decided
// whether it runs again, with ContainerRestartRules on and a container-level restartPolicy
// ("" when the pod's restart policy decided, as before the gate).
func restartDecision(c *corev1.Container, exitCode int32, g RestartGates) string {
	if !g.ContainerRestartRules || c.RestartPolicy == nil {
		return ""
	}
	if rule, ok := upstream.FindMatchingContainerRestartRule(c, exitCode); ok {
		switch {
		case rule.Action == corev1.ContainerRestartRuleActionRestart:
			return fmt.Sprintf("%s exited %d: its rule %s restarts it", c.Name, exitCode, describeRule(rule))
		case rule.Action == corev1.ContainerRestartRuleActionRestartAllContainers && g.RestartAllContainersOnContainerExits:
			return fmt.Sprintf("%s exited %d: its rule %s restarts the whole pod", c.Name, exitCode, describeRule(rule))
		}
	}
	verdict := "keeps it down"
	if ContainerShouldRestart(c, &corev1.PodSpec{}, exitCode, g) {
		verdict = "restarts it"
	}
	if len(c.RestartPolicyRules) == 0 {
		return fmt.Sprintf("%s exited %d: its restartPolicy %s %s", c.Name, exitCode, *c.RestartPolicy, verdict)
	}
	return fmt.Sprintf("%s exited %d: no rule matches, its restartPolicy %s %s", c.Name, exitCode, *c.RestartPolicy, verdict)
}

// restartRulesReason explains the restart decisions computePodActions took from container
// restart policies and rules: a RestartAllContainers reset, or for each container that has
// exited, the rule or policy that restarts it or keeps it down. nil when none applied.
func restartRulesReason(pod *corev1.Pod, podStatus *container.PodStatus, actions *PodActions, g RestartGates) *trace.Reason {
	if len(actions.ContainersToReset) > 0 {
		var sources []string
		for _, r := range actions.ContainersToReset {
			if !r.Source {
				continue
			}
			for _, s := range podStatus.ContainerStatuses {
				if s.ID == r.ID {
					rule, _ := upstream.FindMatchingContainerRestartRule(r.Container, int32(s.ExitCode))
					sources = append(sources, fmt.Sprintf("%s exited %d (its rule %s)", r.Name, s.ExitCode, describeRule(rule)))
				}
			}
		}
		text := "AllContainersRestarting is True"
		if len(sources) > 0 {
			text += ": " + strings.Join(sources, ", ")
		}
		text += "; every instance of the pod's containers is killed with no grace period and removed, the ones that triggered the reset last, and the next sync starts the pod again in its sandbox from the first init container"
		return trace.BecauseEach("restartAllContainers", text, trace.Attr{Key: "containers", Value: strconv.Itoa(len(actions.ContainersToReset))})
	}
	if !g.ContainerRestartRules {
		return nil
	}
	var parts []string
	for k, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			c := &list[i]
			s := podStatus.FindContainerStatusByName(c.Name)
			if s == nil || s.State != container.StateExited || IsRestartableInitContainer(c) {
				continue
			}
			if k == 0 && s.ExitCode == 0 {
				continue // an init container that completed is done, whatever its policy
			}
			if d := restartDecision(c, int32(s.ExitCode), g); d != "" {
				parts = append(parts, d)
			}
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return trace.BecauseEach("containerRestartRules", strings.Join(parts, "; "))
}

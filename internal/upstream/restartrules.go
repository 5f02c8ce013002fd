package upstream

import (
	corev1 "k8s.io/api/core/v1"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
)

// Container restart rules (spec.containers[*].restartPolicyRules, gate ContainerRestartRules)
// are matched by upstream's own helpers where they are pure. The helpers that also read the
// process-wide feature gate (podutil.ContainerShouldRestart) are not called: the model's
// runtime manager decides with the run's gates instead.

// FindMatchingContainerRestartRule returns the first of the container's rules whose exit-code
// requirement the code meets (operator In: among the values; NotIn: not among them), as the
// v1.37 kubelet evaluates them.
func FindMatchingContainerRestartRule(c *corev1.Container, exitCode int32) (corev1.ContainerRestartRule, bool) {
	return podutil.FindMatchingContainerRestartRule(*c, exitCode)
}

// AllContainersCouldRestart reports whether any init or regular container of the pod has a
// rule with the RestartAllContainers action.
func AllContainersCouldRestart(spec *corev1.PodSpec) bool {
	return podutil.AllContainersCouldRestart(spec)
}

// IsContainerRestartable reports whether the container may ever run again after it exits:
// a container-level restart policy other than Never or a rule with the Restart action, else
// a pod-level restart policy other than Never.
func IsContainerRestartable(spec *corev1.PodSpec, c *corev1.Container) bool {
	return podutil.IsContainerRestartable(*spec, *c)
}

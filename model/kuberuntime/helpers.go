package kuberuntime

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/container"
)

// PodSandboxChanged reports whether the pod needs a new sandbox, and the attempt number
// and ID of the newest one (upstream kuberuntime/util.PodSandboxChanged).
func PodSandboxChanged(pod *corev1.Pod, podStatus *container.PodStatus) (bool, uint32, string) {
	if len(podStatus.SandboxStatuses) == 0 {
		return true, 0, ""
	}
	ready := 0
	for _, s := range podStatus.SandboxStatuses {
		if s.State == container.SandboxReady {
			ready++
		}
	}
	newest := podStatus.SandboxStatuses[0]
	switch {
	case ready > 1:
		return true, newest.Attempt + 1, newest.ID
	case newest.State != container.SandboxReady:
		return true, newest.Attempt + 1, newest.ID
	case !pod.Spec.HostNetwork && newest.IP == "":
		return true, newest.Attempt + 1, newest.ID
	}
	return false, newest.Attempt, newest.ID
}

// IsRestartableInitContainer reports whether an init container is a sidecar.
func IsRestartableInitContainer(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// ShouldContainerBeRestarted is upstream's rule for a container that is not running: never
// once the pod is being deleted; always when it never ran, or is created or unknown; for an
// exited container, with ContainerRestartRules its own policy and rules decide
// (ContainerShouldRestart), else the pod's restart policy.
func ShouldContainerBeRestarted(c *corev1.Container, pod *corev1.Pod, podStatus *container.PodStatus, g RestartGates) bool {
	if pod.DeletionTimestamp != nil {
		return false
	}
	status := podStatus.FindContainerStatusByName(c.Name)
	if status == nil {
		return true
	}
	switch status.State {
	case container.StateRunning:
		return false
	case container.StateUnknown, container.StateCreated:
		return true
	}
	if g.ContainerRestartRules {
		return ContainerShouldRestart(c, &pod.Spec, int32(status.ExitCode), g)
	}
	switch pod.Spec.RestartPolicy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return status.ExitCode != 0
	}
	return true
}

func shouldRestartOnFailure(pod *corev1.Pod) bool {
	return pod.Spec.RestartPolicy != corev1.RestartPolicyNever
}

func containerSucceeded(c *corev1.Container, podStatus *container.PodStatus) bool {
	s := podStatus.FindContainerStatusByName(c.Name)
	return s != nil && s.State == container.StateExited && s.ExitCode == 0
}

func isInitContainerFailed(s *container.Status) bool {
	if s.State == container.StateExited && s.ExitCode != 0 {
		return true
	}
	return s.State == container.StateUnknown
}

func containerChanged(c *corev1.Container, s *container.Status) bool {
	return container.HashContainer(c) != s.Hash
}

// GetStableKey is the crash-loop back-off key: the pod, the container and its spec hash, so
// a spec change starts a fresh back-off.
func GetStableKey(pod *corev1.Pod, c *corev1.Container) string {
	// fmt's "%s_%s_%s_%s_%x", without boxing each value: crash-looping pods ask at every sync.
	return pod.Name + "_" + pod.Namespace + "_" + string(pod.UID) + "_" + c.Name + "_" + strconv.FormatUint(container.HashContainer(c), 16)
}

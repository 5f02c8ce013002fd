package status

import (
	corev1 "k8s.io/api/core/v1"

	"nodesim/model/container"
	"nodesim/model/kuberuntime"
)

// phaseCounts tallies what getPhase needs to know about a pod's containers. Sidecars
// (restartable init containers) share the regular containers' counters, as upstream.
type phaseCounts struct {
	// Regular (non-restartable) init containers.
	initPending int
	initFailed  int
	// initFailedNotRestartable are failed init containers that will not run again
	// (counted with ContainerRestartRules on).
	initFailedNotRestartable int
	// Sidecars that have not started yet (or whose state is unclear).
	sidecarPending int
	// Sidecars and regular containers.
	unknown   int
	running   int
	waiting   int
	stopped   int
	succeeded int
	// stoppedNotRestartable are stopped regular containers that will not run again
	// (counted with ContainerRestartRules on).
	stoppedNotRestartable int
}

// findStatus returns the first status in list named name.
func findStatus(list []corev1.ContainerStatus, name string) (*corev1.ContainerStatus, bool) {
	for i := range list {
		if list[i].Name == name {
			return &list[i], true
		}
	}
	return nil, false
}

// terminatedWith reports the exit code of a terminated state.
func terminatedWith(st corev1.ContainerState) (int32, bool) {
	if st.Terminated == nil {
		return 0, false
	}
	return st.Terminated.ExitCode, true
}

// restartable reports whether a container that ended with state t runs again: its restart
// policy and rules say so, or a RestartAllContainers reset removed it.
func restartable(c *corev1.Container, spec *corev1.PodSpec, t *corev1.ContainerStateTerminated, g kuberuntime.RestartGates) bool {
	return kuberuntime.ContainerShouldRestart(c, spec, t.ExitCode, g) ||
		(g.RestartAllContainersOnContainerExits && t.Reason == kuberuntime.RestartingAllContainers)
}

func countPhase(pod *corev1.Pod, info statusLists, g kuberuntime.RestartGates) phaseCounts {
	var n phaseCounts
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cs, ok := info.find(c.Name)
		if kuberuntime.IsRestartableInitContainer(c) {
			switch {
			case !ok:
				n.unknown++
			case cs.State.Running != nil:
				// A running sidecar keeps initialization pending until its startup
				// probe (if any) has succeeded.
				n.running++
				if cs.Started == nil || !*cs.Started {
					n.sidecarPending++
				}
			case cs.State.Terminated != nil:
				// A stopped sidecar does not count towards the phase.
			case cs.State.Waiting != nil:
				if cs.LastTerminationState.Terminated == nil {
					n.sidecarPending++
					n.waiting++
				}
			default:
				n.sidecarPending++
				n.unknown++
			}
			continue
		}
		switch {
		case !ok, cs.State.Running != nil:
			n.initPending++
		case cs.State.Terminated != nil:
			if cs.State.Terminated.ExitCode != 0 {
				n.initFailed++
				if g.ContainerRestartRules && !restartable(c, &pod.Spec, cs.State.Terminated, g) {
					n.initFailedNotRestartable++
				}
			}
		case cs.State.Waiting != nil:
			if code, ok := terminatedWith(cs.LastTerminationState); ok {
				if code != 0 {
					n.initFailed++
					if !restartable(c, &pod.Spec, cs.LastTerminationState.Terminated, g) {
						n.initFailedNotRestartable++
					}
				}
			} else {
				n.initPending++
			}
		default:
			n.initPending++
		}
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cs, ok := info.find(c.Name)
		switch {
		case !ok:
			n.unknown++
		case cs.State.Running != nil:
			n.running++
		case cs.State.Terminated != nil:
			n.stopped++
			if g.ContainerRestartRules && !restartable(c, &pod.Spec, cs.State.Terminated, g) {
				n.stoppedNotRestartable++
			}
			if cs.State.Terminated.ExitCode == 0 {
				n.succeeded++
			}
		case cs.State.Waiting != nil:
			// Waiting after a termination is a container in crash-loop back-off: it
			// counts as stopped, not as waiting to start for the first time.
			if cs.LastTerminationState.Terminated != nil {
				n.stopped++
				if g.ContainerRestartRules && !restartable(c, &pod.Spec, cs.LastTerminationState.Terminated, g) {
					n.stoppedNotRestartable++
				}
			} else {
				n.waiting++
			}
		default:
			n.unknown++
		}
	}
	return n
}

// GetPhase computes a pod's phase from the API statuses of its containers, as the
// kubelet's getPhase (v1.37). info holds the statuses of both the init containers and the
// regular containers (one list; names are unique in a pod).
//
// With ContainerRestartRules on (g), whether a stopped container runs again is its own
// business (ContainerShouldRestart, or a RestartAllContainers reset that removed it): a pod
// fails once an init container failed for good, and a pod whose containers all stopped is
// Running while any of them will restart, else Succeeded when all exited 0, else Failed.
// Off, the pod's restart policy alone decides.
//
// podIsTerminal says the pod is being terminated for good (the pod worker is terminating
// it): then a pod whose containers have all stopped is Succeeded or Failed whatever its
// restart policy (static pods excepted). podHasInitialized says a regular container of
// the current sandbox has started (see HasAnyActiveRegularContainerStarted): it keeps a
// restarting sidecar from sending an initialized pod back to Pending.
func GetPhase(pod *corev1.Pod, info []corev1.ContainerStatus, podIsTerminal, podHasInitialized bool, g kuberuntime.RestartGates) corev1.PodPhase {
	return getPhase(pod, statusLists{info}, podIsTerminal, podHasInitialized, g)
}

// getPhase is GetPhase over statuses kept in several lists.
func getPhase(pod *corev1.Pod, info statusLists, podIsTerminal, podHasInitialized bool, g kuberuntime.RestartGates) corev1.PodPhase {
	n := countPhase(pod, info, g)
	policy := pod.Spec.RestartPolicy

	if g.ContainerRestartRules {
		if n.initFailedNotRestartable > 0 {
			return corev1.PodFailed
		}
	} else if n.initFailed > 0 && policy == corev1.RestartPolicyNever {
		return corev1.PodFailed
	}
	switch {
	case n.initPending > 0, n.sidecarPending > 0 && !podHasInitialized, n.waiting > 0:
		return corev1.PodPending
	case n.running > 0 && n.unknown == 0:
		return corev1.PodRunning
	case n.running == 0 && n.stopped > 0 && n.unknown == 0:
		if podIsTerminal && !isStaticPod(pod) {
			if n.stopped == n.succeeded {
				return corev1.PodSucceeded
			}
			return corev1.PodFailed
		}
		if g.ContainerRestartRules {
			switch {
			case n.stopped != n.stoppedNotRestartable:
				// At least one container is being restarted.
				return corev1.PodRunning
			case n.stopped == n.succeeded:
				return corev1.PodSucceeded
			}
			return corev1.PodFailed
		}
		switch {
		case policy == corev1.RestartPolicyAlways:
			// Everything is being restarted.
			return corev1.PodRunning
		case n.stopped == n.succeeded:
			return corev1.PodSucceeded
		case policy == corev1.RestartPolicyNever:
			return corev1.PodFailed
		default:
			// OnFailure: the failed containers are being restarted.
			return corev1.PodRunning
		}
	default:
		return corev1.PodPending
	}
}

// GetPhaseFromStatus is GetPhase over an API pod status (its init and regular container
// statuses).
func GetPhaseFromStatus(pod *corev1.Pod, st *corev1.PodStatus, podIsTerminal, podHasInitialized bool, g kuberuntime.RestartGates) corev1.PodPhase {
	if st == nil {
		return GetPhase(pod, nil, podIsTerminal, podHasInitialized, g)
	}
	return getPhase(pod, statusLists{st.ContainerStatuses, st.InitContainerStatuses}, podIsTerminal, podHasInitialized, g)
}

// HasAnyActiveRegularContainerStarted reports whether a regular container of the pod's
// current sandbox exists in the runtime (in any state), which means the pod's init
// containers completed in this sandbox. Upstream keeps the containers of the newest
// sandbox, if it is ready, in PodStatus.ActiveContainerStatuses; this model's runtime
// status does not say which sandbox a container belongs to, so a container counts as part
// of the current sandbox when the newest sandbox is ready and the container was created
// no earlier than it.
func HasAnyActiveRegularContainerStarted(pod *corev1.Pod, podStatus *container.PodStatus) bool {
	if podStatus == nil || len(podStatus.SandboxStatuses) == 0 {
		return false
	}
	sb := podStatus.SandboxStatuses[0]
	if sb.State != container.SandboxReady {
		return false
	}
	for _, cs := range podStatus.ContainerStatuses {
		if !cs.CreatedAt.Before(sb.CreatedAt) && specByName(pod.Spec.Containers, cs.Name) != nil {
			return true
		}
	}
	return false
}

// isStaticPod reports whether the pod came from a source other than the API server (its
// config-source annotation is set to something other than "api").
func isStaticPod(pod *corev1.Pod) bool {
	src, ok := pod.Annotations["kubernetes.io/config.source"]
	return ok && src != "api"
}

func phaseIsTerminal(p corev1.PodPhase) bool {
	return p == corev1.PodSucceeded || p == corev1.PodFailed
}

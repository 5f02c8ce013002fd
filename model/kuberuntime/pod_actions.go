package kuberuntime

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/container"
	"nodesim/model/prober/results"
)

// KillReason says why a container is killed.
type KillReason string

// Kill reasons.
const (
	ReasonStartupProbe    KillReason = "StartupProbe"
	ReasonLivenessProbe   KillReason = "LivenessProbe"
	ReasonFailedPostStart KillReason = "FailedPostStartHook"
	ReasonUnknown         KillReason = "Unknown"
	ReasonSpecChanged     KillReason = "SpecChanged"
	// ReasonRestartAllContainers: a container exited with a code matching one of its
	// RestartAllContainers rules, and the pod's containers are reset.
	ReasonRestartAllContainers KillReason = "RestartAllContainers"
)

// ContainerToKill is one container computePodActions wants stopped.
type ContainerToKill struct {
	ID        string
	Name      string
	Container *corev1.Container
	Message   string
	Reason    KillReason
}

// PodActions is what one SyncPod will do (upstream podActions).
type PodActions struct {
	KillPod               bool
	CreateSandbox         bool
	SandboxID             string
	Attempt               uint32
	InitContainersToStart []int
	ContainersToStart     []int
	ContainersToKill      map[string]ContainerToKill
	// ContainersToReset are the runtime instances a RestartAllContainers reset kills (if
	// running) and removes, in order: the regular containers, the init containers, then the
	// instances that triggered the reset (regular, then init).
	ContainersToReset []ContainerToReset
}

// KillList returns ContainersToKill ordered by container ID, so that runs are reproducible
// (nil when there is nothing to kill).
func (a *PodActions) KillList() []ContainerToKill {
	if len(a.ContainersToKill) == 0 {
		return nil
	}
	out := make([]ContainerToKill, 0, len(a.ContainersToKill))
	for _, k := range a.ContainersToKill {
		out = append(out, k)
	}
	slices.SortFunc(out, func(x, y ContainerToKill) int { return strings.Compare(x.ID, y.ID) })
	return out
}

// kill adds a container to stop; the map is made on the first, since most syncs kill
// nothing.
func (a *PodActions) kill(k ContainerToKill) {
	if a.ContainersToKill == nil {
		a.ContainersToKill = map[string]ContainerToKill{}
	}
	a.ContainersToKill[k.ID] = k
}

// String summarizes the actions for the trace.
func (a *PodActions) String(pod *corev1.Pod) string { return a.describe(pod, a.KillList()) }

// none reports whether the actions, with the kill list kills, do nothing: what describe
// calls "none".
func (a *PodActions) none(kills []ContainerToKill) bool {
	return !a.KillPod && !a.CreateSandbox && len(a.InitContainersToStart) == 0 && len(a.ContainersToStart) == 0 &&
		len(kills) == 0 && len(a.ContainersToReset) == 0
}

// describe is String with the kill list already made.
func (a *PodActions) describe(pod *corev1.Pod, kills []ContainerToKill) string {
	var parts []string
	if a.KillPod {
		parts = append(parts, "killPod")
	}
	if a.CreateSandbox {
		parts = append(parts, fmt.Sprintf("createSandbox(attempt %d)", a.Attempt))
	}
	for _, i := range a.InitContainersToStart {
		parts = append(parts, "startInit "+pod.Spec.InitContainers[i].Name)
	}
	for _, i := range a.ContainersToStart {
		parts = append(parts, "start "+pod.Spec.Containers[i].Name)
	}
	for _, k := range kills {
		parts = append(parts, "kill "+k.Name)
	}
	for _, r := range a.ContainersToReset {
		if r.Kill {
			parts = append(parts, "reset(kill, remove) "+r.Name)
		} else {
			parts = append(parts, "reset(remove) "+r.Name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// ProbeResults is a probe type's results (liveness, startup).
type ProbeResults interface {
	Get(containerID string) (results.Result, bool)
}

// computePodActions decides, from the spec and the cached runtime status, what to kill and
// what to start (upstream computePodActions). restartAllContainers says the pod's API status
// carries AllContainersRestarting=True: then the only action is to reset every container
// (kill what runs, remove every instance), and the sync after that starts the pod's
// containers again from its first init container, in the same sandbox.
func (m *Manager) computePodActions(pod *corev1.Pod, podStatus *container.PodStatus, restartAllContainers bool) PodActions {
	var changes PodActions
	m.podActions(&changes, pod, podStatus, restartAllContainers, nil)
	return changes
}

// podActions is computePodActions, writing the actions to changes (every field of it),
// and appending the regular containers to start, when the sandbox stays, to startBuf
// (which must have length 0; nil for none): SyncPod passes the room a finished sync
// left, since a crash-looping pod's every sync starts a container. ContainersToStart is
// nil, as computePodActions' is, when there is none. It writes SyncPod's podSync in
// place, field by field, rather than returning the struct to be copied into it.
func (m *Manager) podActions(changes *PodActions, pod *corev1.Pod, podStatus *container.PodStatus, restartAllContainers bool, startBuf []int) {
	createSandbox, attempt, sandboxID := PodSandboxChanged(pod, podStatus)
	changes.KillPod = createSandbox
	changes.CreateSandbox = createSandbox
	changes.SandboxID = sandboxID
	changes.Attempt = attempt
	changes.InitContainersToStart = nil
	changes.ContainersToStart = nil
	changes.ContainersToKill = nil
	changes.ContainersToReset = nil

	if m.Restart.RestartAll() && restartAllContainers {
		sourceInit, targetInit := getContainersToReset(pod.Spec.InitContainers, podStatus)
		source, target := getContainersToReset(pod.Spec.Containers, podStatus)
		changes.ContainersToReset = append(changes.ContainersToReset, target...)
		changes.ContainersToReset = append(changes.ContainersToReset, targetInit...)
		changes.ContainersToReset = append(changes.ContainersToReset, source...)
		changes.ContainersToReset = append(changes.ContainersToReset, sourceInit...)
		return
	}

	if createSandbox {
		if !shouldRestartOnFailure(pod) && attempt != 0 && len(podStatus.ContainerStatuses) != 0 {
			// A pod that must not restart does not get a new sandbox; it is only killed.
			changes.CreateSandbox = false
			return
		}
		var toStart []int
		for i := range pod.Spec.Containers {
			c := &pod.Spec.Containers[i]
			// A container that runs to success once (OnFailure: the container's own policy
			// when it has one and ContainerRestartRules is on, else the pod's) is not
			// started again in the new sandbox.
			runOnce := pod.Spec.RestartPolicy == corev1.RestartPolicyOnFailure
			if m.Restart.ContainerRestartRules && c.RestartPolicy != nil {
				runOnce = *c.RestartPolicy == corev1.ContainerRestartPolicyOnFailure
			}
			if runOnce && containerSucceeded(c, podStatus) {
				continue
			}
			toStart = append(toStart, i)
		}
		if len(toStart) == 0 {
			initialized := false
			for i := range pod.Spec.Containers {
				if s := podStatus.FindContainerStatusByName(pod.Spec.Containers[i].Name); s != nil {
					initialized = true
					break
				}
			}
			if initialized {
				changes.CreateSandbox = false
				return
			}
		}
		if len(pod.Spec.InitContainers) != 0 {
			// Everything starts over in the new sandbox, from the first init container.
			changes.InitContainersToStart = []int{0}
			return
		}
		changes.ContainersToStart = toStart
		return
	}

	initialized := m.computeInitContainerActions(pod, podStatus, changes)
	if changes.KillPod || !initialized {
		return
	}

	keep := 0
	changes.ContainersToStart = startBuf
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		s := podStatus.FindContainerStatusByName(c.Name)
		if s == nil || s.State != container.StateRunning {
			if ShouldContainerBeRestarted(c, pod, podStatus, m.Restart) {
				changes.ContainersToStart = append(changes.ContainersToStart, i)
				if s != nil && s.State == container.StateUnknown {
					changes.kill(ContainerToKill{ID: s.ID, Name: c.Name, Container: c,
						Message: fmt.Sprintf("Container is in %q state, try killing it before restart", s.State), Reason: ReasonUnknown})
				}
			}
			continue
		}
		restart := shouldRestartOnFailure(pod)
		if m.Restart.ContainerRestartRules && c.RestartPolicy != nil {
			// A probe kills a running container: there is no exit code for the rules yet,
			// so only the container's own policy decides whether it runs again.
			restart = *c.RestartPolicy != corev1.ContainerRestartPolicyNever
		}
		var message string
		var reason KillReason
		if containerChanged(c, s) {
			message, reason, restart = fmt.Sprintf("Container %s definition changed", c.Name), ReasonSpecChanged, true
		} else if r, ok := m.liveness(s.ID); ok && r == results.Failure {
			message, reason = fmt.Sprintf("Container %s failed liveness probe", c.Name), ReasonLivenessProbe
		} else if r, ok := m.startup(s.ID); ok && r == results.Failure {
			message, reason = fmt.Sprintf("Container %s failed startup probe", c.Name), ReasonStartupProbe
		} else {
			keep++
			continue
		}
		if restart {
			message += ", will be restarted"
			changes.ContainersToStart = append(changes.ContainersToStart, i)
		}
		changes.kill(ContainerToKill{ID: s.ID, Name: c.Name, Container: c, Message: message, Reason: reason})
	}
	if len(changes.ContainersToStart) == 0 {
		changes.ContainersToStart = nil
	}
	if keep == 0 && len(changes.ContainersToStart) == 0 {
		changes.KillPod = true
		// Sidecars must not keep a pod with nothing left to run alive.
		changes.InitContainersToStart = nil
	}
	return
}

func (m *Manager) liveness(id string) (results.Result, bool) {
	if m.livenessManager == nil {
		return results.Unknown, false
	}
	r, ok := m.livenessManager.Get(id)
	if m.recording != nil {
		m.recording.asked = append(m.recording.asked, probeAnswer{id: id, result: r, ok: ok})
	}
	return r, ok
}

func (m *Manager) startup(id string) (results.Result, bool) {
	if m.startupManager == nil {
		return results.Unknown, false
	}
	r, ok := m.startupManager.Get(id)
	if m.recording != nil {
		m.recording.asked = append(m.recording.asked, probeAnswer{startup: true, id: id, result: r, ok: ok})
	}
	return r, ok
}

// ActionsMemo lets SyncPod skip computing the actions of a pod whose previous sync decided
// to do nothing, when nothing they depend on changed since (one memo per pod, kept by the
// kubelet's pod syncer): every periodic resync of a steady pod.
//
// computePodActions is a function of the pod object, the runtime status from the pod
// cache, restartAllContainers, the restart gates, and the answers of the liveness and
// startup results. The memo keeps the first two by identity, which is exact because
// neither is ever changed in place (the pod config hands out a new pod object for every
// change, PLEG stores a new runtime status for every observation), the next two by value,
// and every question asked of the probe results with its answer, which it asks again: the
// same answers take computePodActions down the same path to the same actions. Only an
// outcome of "none" is kept: its actions are the sandbox's ID and attempt and nothing
// else, all nil, which the memo restores (and with which SyncPod's syncNone finishes a
// pod without init containers at once).
type ActionsMemo struct {
	valid      bool
	pod        *corev1.Pod
	podStatus  *container.PodStatus
	restartAll bool
	gates      RestartGates
	// none is the actions the memo holds: the sandbox's ID and attempt, nothing else.
	none  PodActions
	asked []probeAnswer
	// versioned says the liveness and startup results keep a version, and
	// livenessVersion and startupVersion are theirs when the questions were asked: while
	// both are unchanged, every answer in asked is too, and matches need not ask again.
	versioned                       bool
	livenessVersion, startupVersion uint64
	// buf is where asked starts: room for a one-container pod's questions (its liveness
	// and startup results), so that most memos need no slice of their own. A memo is
	// used in place (by pointer), never copied.
	buf [2]probeAnswer
}

// probeAnswer is one question podActions asked of the liveness (or startup) results, and
// the answer.
type probeAnswer struct {
	startup bool
	id      string
	result  results.Result
	ok      bool
}

// memoPodActions is podActions, recording in memo (nil: none) what the actions depend on,
// for the next sync if they are "none". SyncPod calls it when memo did not match.
func (m *Manager) memoPodActions(memo *ActionsMemo, changes *PodActions, pod *corev1.Pod, podStatus *container.PodStatus, restartAllContainers bool, startBuf []int) {
	if memo == nil {
		m.podActions(changes, pod, podStatus, restartAllContainers, startBuf)
		return
	}
	memo.valid = false
	clear(memo.asked)
	memo.asked = memo.asked[:0]
	if memo.asked == nil {
		memo.asked = memo.buf[:0]
	}
	// The versions are read before the questions are asked: a change after that (none
	// is made while computing the actions) only makes the next sync ask again.
	memo.livenessVersion, memo.startupVersion, memo.versioned = m.resultsVersions()
	m.recording = memo
	m.podActions(changes, pod, podStatus, restartAllContainers, startBuf)
	m.recording = nil
	if changes.KillPod || changes.CreateSandbox || changes.InitContainersToStart != nil || changes.ContainersToStart != nil ||
		changes.ContainersToKill != nil || changes.ContainersToReset != nil {
		return
	}
	memo.valid = true
	memo.pod, memo.podStatus, memo.restartAll, memo.gates = pod, podStatus, restartAllContainers, m.Restart
	memo.none = PodActions{SandboxID: changes.SandboxID, Attempt: changes.Attempt}
}

// matches reports whether podActions would decide "none" again, as memo recorded.
func (memo *ActionsMemo) matches(m *Manager, pod *corev1.Pod, podStatus *container.PodStatus, restartAllContainers bool) bool {
	if !memo.valid || memo.pod != pod || memo.podStatus != podStatus || memo.restartAll != restartAllContainers || memo.gates != m.Restart {
		return false
	}
	if memo.versioned {
		if liveness, startup, _ := m.resultsVersions(); liveness == memo.livenessVersion && startup == memo.startupVersion {
			return true
		}
	}
	for i := range memo.asked {
		a := &memo.asked[i]
		var r results.Result
		var ok bool
		if a.startup {
			r, ok = m.startupManager.Get(a.id)
		} else {
			r, ok = m.livenessManager.Get(a.id)
		}
		if r != a.result || ok != a.ok {
			return false
		}
	}
	return true
}

// resultsVersions are the versions of the liveness and startup results (see
// results.Manager.Version); ok is false unless both are results.Managers, which keep one
// (a test's fake results do not).
func (m *Manager) resultsVersions() (liveness, startup uint64, ok bool) {
	if m.livenessResults == nil || m.startupResults == nil {
		return 0, 0, false
	}
	return m.livenessResults.Version(), m.startupResults.Version(), true
}

// computeInitContainerActions walks the init containers from last to first, deciding which
// to (re)start, and reports whether the pod has finished initializing (upstream
// computeInitContainerActions, the path used for pods with and without sidecars).
func (m *Manager) computeInitContainerActions(pod *corev1.Pod, podStatus *container.PodStatus, changes *PodActions) bool {
	if len(pod.Spec.InitContainers) == 0 {
		return true
	}
	// Any regular container created or running means initialization finished once (an
	// exited one does not count: after a node reboot every container has exited).
	initialized := false
	for i := range pod.Spec.Containers {
		s := podStatus.FindContainerStatusByName(pod.Spec.Containers[i].Name)
		if s != nil && (s.State == container.StateCreated || s.State == container.StateRunning) {
			initialized = true
			break
		}
	}
	restartOnFailure := shouldRestartOnFailure(pod)
	previouslyInitialized := initialized
	last := len(pod.Spec.InitContainers) - 1
	for i := last; i >= 0; i-- {
		c := &pod.Spec.InitContainers[i]
		s := podStatus.FindContainerStatusByName(c.Name)
		sidecar := IsRestartableInitContainer(c)
		if s == nil {
			if previouslyInitialized && sidecar {
				changes.InitContainersToStart = append(changes.InitContainersToStart, i)
			}
			continue
		}
		if previouslyInitialized && !sidecar {
			continue
		}
		kill := func(msg string, reason KillReason) {
			changes.kill(ContainerToKill{ID: s.ID, Name: c.Name, Container: c, Message: msg, Reason: reason})
			changes.InitContainersToStart = append(changes.InitContainersToStart, i)
		}
		switch s.State {
		case container.StateCreated:
			// Created but never started: start it again so it cannot stay stuck.
			changes.InitContainersToStart = append(changes.InitContainersToStart, i)
		case container.StateRunning:
			if !sidecar {
				break // a regular init container: wait for it
			}
			if c.StartupProbe != nil {
				r, ok := m.startup(s.ID)
				if !ok {
					break // not probed yet: wait
				}
				if r != results.Success {
					if r == results.Failure {
						kill(fmt.Sprintf("Init container %s failed startup probe", c.Name), ReasonStartupProbe)
					}
					break
				}
			}
			if i == last {
				initialized = true
			} else if !previouslyInitialized {
				changes.InitContainersToStart = append(changes.InitContainersToStart, i+1)
			}
			if containerChanged(c, s) {
				kill(fmt.Sprintf("Init container %s definition changed", c.Name), ReasonSpecChanged)
			} else if r, ok := m.liveness(s.ID); ok && r == results.Failure {
				kill(fmt.Sprintf("Init container %s failed liveness probe", c.Name), ReasonLivenessProbe)
			}
		case container.StateExited:
			if sidecar {
				changes.InitContainersToStart = append(changes.InitContainersToStart, i)
				break
			}
			if isInitContainerFailed(s) {
				restartOnFailure := restartOnFailure
				if m.Restart.ContainerRestartRules {
					restartOnFailure = ShouldContainerBeRestarted(c, pod, podStatus, m.Restart)
				}
				if !restartOnFailure {
					changes.KillPod = true
					changes.InitContainersToStart = nil
					return false
				}
				changes.InitContainersToStart = append(changes.InitContainersToStart, i)
				break
			}
			if i == last {
				initialized = true
			} else {
				changes.InitContainersToStart = append(changes.InitContainersToStart, i+1)
			}
		default: // unknown
			restartOnFailure := restartOnFailure
			if m.Restart.ContainerRestartRules && c.RestartPolicy != nil {
				// No exit code to match rules against: the container's own policy decides.
				restartOnFailure = *c.RestartPolicy != corev1.ContainerRestartPolicyNever
			}
			if !sidecar && !restartOnFailure {
				changes.KillPod = true
				changes.InitContainersToStart = nil
				return false
			}
			kill(fmt.Sprintf("Init container is in %q state, try killing it before restart", s.State), ReasonUnknown)
		}
		previouslyInitialized = true
	}
	if !previouslyInitialized {
		changes.InitContainersToStart = append(changes.InitContainersToStart, 0)
	}
	slices.Reverse(changes.InitContainersToStart)
	return initialized
}

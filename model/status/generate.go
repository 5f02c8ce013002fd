package status

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/internal/upstream"
	"nodesim/model/container"
	"nodesim/model/kuberuntime"
)

// Reasons on the conditions the kubelet owns.
const (
	// UnknownContainerStatuses: the kubelet has no container statuses at all.
	UnknownContainerStatuses = "UnknownContainerStatuses"
	// PodCompleted: the pod succeeded.
	PodCompleted = "PodCompleted"
	// PodFailed: the pod failed (its containers may still be stopping).
	PodFailed = "PodFailed"
	// ContainersNotReady: some containers are unready or have no status.
	ContainersNotReady = "ContainersNotReady"
	// ContainersNotInitialized: some init containers have not completed.
	ContainersNotInitialized = "ContainersNotInitialized"
	// ReadinessGatesNotReady: a readiness gate's condition is missing or not True.
	ReadinessGatesNotReady = "ReadinessGatesNotReady"
	// PodSandboxNotReady: the pod needs a new sandbox (PodReadyToStartContainers=False).
	PodSandboxNotReady = "PodSandboxNotReady"
)

// Messages on PodReadyToStartContainers=False, one per reason PodSandboxChanged asks for a
// new sandbox. The first and the last are upstream's wording (release note of
// kubernetes#135300); the two others are this model's wording.
const (
	SandboxMsgNone     = "no pod sandbox exists"
	SandboxMsgMultiple = "multiple pod sandboxes are ready"
	SandboxMsgNotReady = "pod sandbox is not ready"
	SandboxMsgNoIP     = "pod sandbox has no IP address"
)

// Container state reasons the kubelet writes itself.
const (
	// ContainerCreating is a container's waiting reason until it first runs.
	ContainerCreating = "ContainerCreating"
	// PodInitializing replaces ContainerCreating when the pod has init containers.
	PodInitializing = "PodInitializing"
	// ContainerStatusUnknown is the terminated reason of a container that was running and
	// can no longer be found.
	ContainerStatusUnknown = "ContainerStatusUnknown"
	// Completed is the terminated reason given to an init container that vanished from
	// the runtime after the pod had initialized.
	Completed = "Completed"

	// ContainerIDScheme prefixes runtime container IDs in the API (the model runs
	// containerd).
	ContainerIDScheme = "containerd://"

	msgUnknownVanished    = "The container could not be located when the pod was deleted.  The container used to be Running"
	msgUnknownState       = "The container could not be located when the pod was terminated"
	msgInitCompletedGuess = "Unable to get init container status from container runtime and pod has been initialized, treat it as exited normally"
	msgRestartingAll      = "The container is removed because RestartAllContainers in place"

	// RestartAllContainersStarted is the reason of AllContainersRestarting=True: a container
	// exited with a code matching one of its RestartAllContainers rules.
	RestartAllContainersStarted = "RestartAllContainersStarted"
	msgRestartAllStarted        = "container exited with restart policy rule"
)

// Reason is what the kubelet's reason cache holds for a container whose last start
// failed: Err is the error's name (CrashLoopBackOff, ImagePullBackOff, ErrImagePull,
// CreateContainerError, RunContainerError, ...), Message its detail.
type Reason struct {
	Err     string
	Message string
}

// ReasonLookup returns the reason cache entry for a container of a pod.
type ReasonLookup func(uid types.UID, containerName string) (Reason, bool)

// ProbeState is what the prober knows when a status is generated. containerID is the
// runtime's ID, without the "containerd://" scheme.
type ProbeState interface {
	// Started reports the startup result for a running container: true when it has no
	// startup probe or its startup probe succeeded.
	Started(uid types.UID, containerID string, c *corev1.Container) bool
	// Ready reports readiness for a started running container: true when it has no
	// readiness probe or its readiness result is Success.
	Ready(uid types.UID, containerID string, c *corev1.Container) bool
}

// StartupResults may be implemented by a ProbeState to say whether a startup result is
// cached for a container at all. Upstream keeps a running container started when the
// previous status said so and no startup result is cached (after a kubelet restart, or
// for a restarted container before its first probe); with this interface that rule is
// exact, without it a previous started=true is simply kept.
type StartupResults interface {
	StartupResult(uid types.UID, containerID string) (success, known bool)
}

// KubeletRestartGate may be implemented by a ProbeState to give the feature gate
// ChangeContainerStatusOnKubeletRestart (deprecated, off by default since v1.35). Off (or
// not implemented), a running container keeps the Started of its previous status, so a
// restarted kubelet does not report it as not started again.
type KubeletRestartGate interface {
	ChangeContainerStatusOnKubeletRestart() bool
}

// RestartRules may be implemented by a ProbeState to give the run's ContainerRestartRules and
// RestartAllContainersOnContainerExits gates. Without it status generation uses their v1.37
// defaults (both on).
type RestartRules interface {
	RestartGates() kuberuntime.RestartGates
}

func restartGates(probes ProbeState) kuberuntime.RestartGates {
	if r, ok := probes.(RestartRules); ok {
		return r.RestartGates()
	}
	return kuberuntime.DefaultRestartGates()
}

func changesStatusOnKubeletRestart(probes ProbeState) bool {
	g, ok := probes.(KubeletRestartGate)
	return ok && g.ChangeContainerStatusOnKubeletRestart()
}

// ConditionObservedGeneration is the observedGeneration written on a kubelet-owned
// condition. PodObservedGenerationTracking is GA (locked on) since v1.35, so it is the
// pod's generation whenever a previous status is known (upstream passes one always).
func ConditionObservedGeneration(pod *corev1.Pod, oldStatus *corev1.PodStatus) int64 {
	if oldStatus == nil {
		return 0
	}
	return pod.Generation
}

// GenerateContainersReadyCondition computes ContainersReady: True when every regular
// container and every sidecar has a status that is ready. containerStatuses should hold
// both the init and the regular container statuses; nil means nothing is known.
func GenerateContainersReadyCondition(pod *corev1.Pod, oldStatus *corev1.PodStatus, containerStatuses []corev1.ContainerStatus, podPhase corev1.PodPhase) corev1.PodCondition {
	return generateContainersReadyCondition(pod, oldStatus, statusLists{containerStatuses}, containerStatuses != nil, podPhase)
}

// statusLists is container statuses kept in several lists (a pod status's init and regular
// ones), searched in order as if they were one list: it spares status generation a
// concatenated copy on every pod sync.
type statusLists [2][]corev1.ContainerStatus

// find returns the first status named name.
func (l statusLists) find(name string) (*corev1.ContainerStatus, bool) {
	for _, list := range l {
		if cs, ok := findStatus(list, name); ok {
			return cs, true
		}
	}
	return nil, false
}

// generateContainersReadyCondition is GenerateContainersReadyCondition over statusLists;
// known false means nothing is known (a nil list).
func generateContainersReadyCondition(pod *corev1.Pod, oldStatus *corev1.PodStatus, containerStatuses statusLists, known bool, podPhase corev1.PodPhase) corev1.PodCondition {
	cond := corev1.PodCondition{
		Type:               corev1.ContainersReady,
		ObservedGeneration: ConditionObservedGeneration(pod, oldStatus),
		Status:             corev1.ConditionFalse,
	}
	if !known {
		cond.Reason = UnknownContainerStatuses
		return cond
	}
	// The names go to listMessage only, which keeps none of them: the lists can live on
	// the stack for the usual handful of containers.
	var unknownBuf, unreadyBuf [8]string
	unknown, unready := unknownBuf[:0], unreadyBuf[:0]
	check := func(name string) {
		cs, ok := containerStatuses.find(name)
		switch {
		case !ok:
			unknown = append(unknown, name)
		case !cs.Ready:
			unready = append(unready, name)
		}
	}
	for i := range pod.Spec.InitContainers {
		if kuberuntime.IsRestartableInitContainer(&pod.Spec.InitContainers[i]) {
			check(pod.Spec.InitContainers[i].Name)
		}
	}
	for i := range pod.Spec.Containers {
		check(pod.Spec.Containers[i].Name)
	}
	if (podPhase == corev1.PodSucceeded && len(unknown) == 0) || podPhase == corev1.PodFailed {
		cond.Reason = terminalReason(podPhase)
		return cond
	}
	// The message is usually the previous status's, whose string is then reused.
	var prev string
	if oldStatus != nil {
		if c := findCondition(oldStatus.Conditions, corev1.ContainersReady); c != nil {
			prev = c.Message
		}
	}
	if msg := reuseListMessage("unready", unknown, unready, prev); msg != "" {
		cond.Reason, cond.Message = ContainersNotReady, msg
		return cond
	}
	cond.Status = corev1.ConditionTrue
	return cond
}

// GeneratePodReadyCondition computes Ready: ContainersReady's status, reason and message
// when that is not True; otherwise True only if every readiness gate names a condition in
// conditions whose status is True.
func GeneratePodReadyCondition(pod *corev1.Pod, oldStatus *corev1.PodStatus, conditions []corev1.PodCondition, containerStatuses []corev1.ContainerStatus, podPhase corev1.PodPhase) corev1.PodCondition {
	cr := GenerateContainersReadyCondition(pod, oldStatus, containerStatuses, podPhase)
	return podReadyCondition(pod, oldStatus, conditions, &cr)
}

// podReadyCondition is GeneratePodReadyCondition given the ContainersReady condition cr,
// so that a caller that needs both computes cr once.
func podReadyCondition(pod *corev1.Pod, oldStatus *corev1.PodStatus, conditions []corev1.PodCondition, cr *corev1.PodCondition) corev1.PodCondition {
	cond := corev1.PodCondition{
		Type:               corev1.PodReady,
		ObservedGeneration: ConditionObservedGeneration(pod, oldStatus),
		Status:             cr.Status,
		Reason:             cr.Reason,
		Message:            cr.Message,
	}
	if cr.Status != corev1.ConditionTrue {
		return cond
	}
	var problems []string
	for _, gate := range pod.Spec.ReadinessGates {
		c := findCondition(conditions, gate.ConditionType)
		switch {
		case c == nil:
			problems = append(problems, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(gate.ConditionType)))
		case c.Status != corev1.ConditionTrue:
			problems = append(problems, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(gate.ConditionType), c.Status))
		}
	}
	if len(problems) > 0 {
		cond.Status = corev1.ConditionFalse
		cond.Reason = ReadinessGatesNotReady
		cond.Message = strings.Join(problems, ", ")
	}
	return cond
}

// GeneratePodInitializedCondition computes Initialized: True when every init container is
// done (a regular one ready, i.e. exited 0; a sidecar started), or once a regular
// container has run (running or terminated), or (reason PodCompleted) when the pod
// succeeded with every init container known. Statuses of init containers are looked up in
// initStatuses, then in containerStatuses, so callers may pass one combined list in either.
func GeneratePodInitializedCondition(pod *corev1.Pod, containerStatuses []corev1.ContainerStatus, initStatuses []corev1.ContainerStatus, podPhase corev1.PodPhase) corev1.PodCondition {
	cond := corev1.PodCondition{
		Type:               corev1.PodInitialized,
		ObservedGeneration: pod.Generation,
		Status:             corev1.ConditionTrue,
	}
	if containerStatuses == nil && initStatuses == nil && len(pod.Spec.InitContainers) > 0 {
		cond.Status, cond.Reason = corev1.ConditionFalse, UnknownContainerStatuses
		return cond
	}
	lookup := func(name string) (*corev1.ContainerStatus, bool) {
		if cs, ok := findStatus(initStatuses, name); ok {
			return cs, true
		}
		return findStatus(containerStatuses, name)
	}
	// As in generateContainersReadyCondition, the lists stay on the stack.
	var unknownBuf, incompleteBuf [8]string
	unknown, incomplete := unknownBuf[:0], incompleteBuf[:0]
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cs, ok := lookup(c.Name)
		if !ok {
			unknown = append(unknown, c.Name)
			continue
		}
		done := cs.Ready
		if kuberuntime.IsRestartableInitContainer(c) {
			done = cs.Started != nil && *cs.Started
		}
		if !done {
			incomplete = append(incomplete, c.Name)
		}
	}
	if podPhase == corev1.PodSucceeded && len(unknown) == 0 {
		cond.Reason = PodCompleted
		return cond
	}
	// Sidecars restarting after the pod initialized do not un-initialize it.
	if anyRegularContainerRan(pod, containerStatuses) || anyRegularContainerRan(pod, initStatuses) {
		return cond
	}
	if msg := listMessage("incomplete", unknown, incomplete); msg != "" {
		cond.Status, cond.Reason, cond.Message = corev1.ConditionFalse, ContainersNotInitialized, msg
	}
	return cond
}

// GeneratePodReadyToStartContainersCondition computes PodReadyToStartContainers: True when
// the pod has a ready sandbox with networking (no new sandbox is needed), else False with
// reason PodSandboxNotReady and a message saying why.
func GeneratePodReadyToStartContainersCondition(pod *corev1.Pod, podStatus *container.PodStatus) corev1.PodCondition {
	cond := corev1.PodCondition{
		Type:               corev1.PodReadyToStartContainers,
		ObservedGeneration: pod.Generation,
		Status:             corev1.ConditionTrue,
	}
	if podStatus == nil {
		podStatus = &container.PodStatus{}
	}
	if changed, _, _ := kuberuntime.PodSandboxChanged(pod, podStatus); changed {
		cond.Status = corev1.ConditionFalse
		cond.Reason = PodSandboxNotReady
		cond.Message = sandboxNotReadyMessage(pod, podStatus)
	}
	return cond
}

// sandboxNotReadyMessage names the first reason, in PodSandboxChanged's order, why a new
// sandbox is needed.
func sandboxNotReadyMessage(pod *corev1.Pod, podStatus *container.PodStatus) string {
	if len(podStatus.SandboxStatuses) == 0 {
		return SandboxMsgNone
	}
	ready := 0
	for _, s := range podStatus.SandboxStatuses {
		if s.State == container.SandboxReady {
			ready++
		}
	}
	switch {
	case ready > 1:
		return SandboxMsgMultiple
	case podStatus.SandboxStatuses[0].State != container.SandboxReady:
		return SandboxMsgNotReady
	default:
		return SandboxMsgNoIP
	}
}

func terminalReason(p corev1.PodPhase) string {
	switch p {
	case corev1.PodFailed:
		return PodFailed
	case corev1.PodSucceeded:
		return PodCompleted
	}
	return ""
}

// listMessage is "containers with unknown status: [a b], containers with <what> status:
// [c]", leaving out empty lists.
func listMessage(what string, unknown, other []string) string {
	return reuseListMessage(what, unknown, other, "")
}

// reuseListMessage is listMessage returning prev when the message is the same, so that
// the usual message, unchanged since the previous status, is not allocated again. The
// message is built in a buffer on the stack.
func reuseListMessage(what string, unknown, other []string, prev string) string {
	var buf [128]byte
	b := buf[:0]
	// Written as fmt's %v writes a []string: "[a b]".
	list := func(names []string) {
		b = append(b, '[')
		for i, n := range names {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, n...)
		}
		b = append(b, ']')
	}
	if len(unknown) > 0 {
		b = append(b, "containers with unknown status: "...)
		list(unknown)
	}
	if len(other) > 0 {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, "containers with "...)
		b = append(b, what...)
		b = append(b, " status: "...)
		list(other)
	}
	if string(b) == prev {
		return prev
	}
	return string(b)
}

// shouldAllContainersRestart is kuberuntime.ShouldAllContainersRestart for a non-nil old
// status, given whether the pod has a RestartAllContainers rule (AllContainersCouldRestart).
// Without one, no container can match such a rule, so only the condition in the old status
// can say yes: that check alone spares the common pod the full test and its lookup map.
func shouldAllContainersRestart(pod *corev1.Pod, podStatus *container.PodStatus, old *corev1.PodStatus, hasRestartAllRules bool) bool {
	if hasRestartAllRules {
		return kuberuntime.ShouldAllContainersRestart(pod, podStatus, old)
	}
	return hasTrueCondition(old.Conditions, corev1.AllContainersRestarting)
}

// hasTrueCondition reports whether any condition of type t in list is True.
func hasTrueCondition(list []corev1.PodCondition, t corev1.PodConditionType) bool {
	for i := range list {
		if list[i].Type == t && list[i].Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func findCondition(list []corev1.PodCondition, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range list {
		if list[i].Type == t {
			return &list[i]
		}
	}
	return nil
}

// anyRegularContainerRan reports whether a regular container's API status is running or
// terminated.
func anyRegularContainerRan(pod *corev1.Pod, statuses []corev1.ContainerStatus) bool {
	for i := range pod.Spec.Containers {
		if cs, ok := findStatus(statuses, pod.Spec.Containers[i].Name); ok {
			if cs.State.Running != nil || cs.State.Terminated != nil {
				return true
			}
		}
	}
	return false
}

// apiTime converts a runtime timestamp to the API's whole-second precision (what the
// status manager's normalization would do), so generated statuses compare stably.
func apiTime(t time.Time) metav1.Time {
	if t.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(wholeSecond(t))
}

// zeroUnix is the zero time's Unix time: the earliest time wholeSecond truncates itself.
const zeroUnix = -62135596800

// wholeSecond is t.Truncate(time.Second): t without its monotonic reading, rounded down
// to its second. Truncate divides t's seconds by the duration to find the remainder; for
// a whole second that remainder is t's nanosecond within its second, for any time from
// the zero time on (every time a run makes), which is all wholeSecond subtracts. Earlier
// times, where Truncate counts backwards from the zero time, are left to Truncate. Status
// generation and the status manager truncate every timestamp of every status they make.
func wholeSecond(t time.Time) time.Time {
	if t.Unix() < zeroUnix {
		return t.Truncate(time.Second)
	}
	t = t.Truncate(0) // only strips the monotonic reading, as Truncate(time.Second) does
	if ns := t.Nanosecond(); ns != 0 {
		return t.Add(-time.Duration(ns))
	}
	return t
}

func apiContainerID(id string) string {
	if id == "" {
		return ""
	}
	return ContainerIDScheme + id
}

// isAPIContainerID reports whether apiID is apiContainerID(id), without building it.
func isAPIContainerID(apiID, id string) bool {
	if id == "" {
		return apiID == ""
	}
	return len(apiID) == len(ContainerIDScheme)+len(id) && strings.HasPrefix(apiID, ContainerIDScheme) && strings.HasSuffix(apiID, id)
}

// runtimeID strips the scheme from an API container ID.
func runtimeID(id string) string {
	return strings.TrimPrefix(id, ContainerIDScheme)
}

// convertInstance turns one runtime container instance into an API status. old is the
// container's previous API status, if any.
//
// With RestartAllContainersOnContainerExits on (restartAll), the previous status carries
// over what a reset's removal erased from the runtime: the restart count never falls, the
// last termination comes from the previous status (its terminated state when the container
// ID changed), and a running container whose previous status was terminated with a count
// no lower than the runtime's counts one more restart.
func convertInstance(cs *container.Status, old *corev1.ContainerStatus, specImage string, restartAll, podRestarting bool) corev1.ContainerStatus {
	// The same instance as in the previous status (its state, or its last termination):
	// reuse its ID string rather than build an equal one on every sync.
	var cid string
	switch {
	case old != nil && isAPIContainerID(old.ContainerID, cs.ID):
		cid = old.ContainerID
	case old != nil && old.LastTerminationState.Terminated != nil && isAPIContainerID(old.LastTerminationState.Terminated.ContainerID, cs.ID):
		cid = old.LastTerminationState.Terminated.ContainerID
	default:
		cid = apiContainerID(cs.ID)
	}
	out := corev1.ContainerStatus{
		Name:         cs.Name,
		RestartCount: int32(cs.RestartCount),
		Image:        cs.Image,
		ContainerID:  cid,
	}
	if out.Image == "" {
		out.Image = specImage
	}
	if old != nil && restartAll {
		if old.RestartCount > out.RestartCount {
			out.RestartCount = old.RestartCount
		}
		if old.ContainerID != out.ContainerID && old.State.Terminated != nil {
			out.LastTerminationState.Terminated = old.State.Terminated
		} else if old.LastTerminationState.Terminated != nil {
			out.LastTerminationState.Terminated = old.LastTerminationState.Terminated
		}
	}
	// The states of the previous status, which an equal new state shares (see sharedState).
	var prev, prevLast corev1.ContainerState
	if old != nil {
		prev, prevLast = old.State, old.LastTerminationState
	}
	switch {
	case cs.State == container.StateRunning:
		out.State.Running = sharedState(corev1.ContainerStateRunning{StartedAt: apiTime(cs.StartedAt)}, prev.Running, prevLast.Running)
		if restartAll && old != nil && old.State.Terminated != nil && old.RestartCount >= int32(cs.RestartCount) {
			out.RestartCount = old.RestartCount + 1
		}
	case cs.State == container.StateCreated:
		// Created but never started: waiting, with no reason.
		out.State.Waiting = sharedState(corev1.ContainerStateWaiting{}, prev.Waiting, nil)
	case cs.State == container.StateExited:
		out.State.Terminated = sharedState(corev1.ContainerStateTerminated{
			ExitCode:    int32(cs.ExitCode),
			Reason:      cs.Reason,
			Message:     cs.Message,
			StartedAt:   apiTime(cs.StartedAt),
			FinishedAt:  apiTime(cs.FinishedAt),
			ContainerID: cid,
		}, prev.Terminated, prevLast.Terminated)
	case cs.State == container.StateUnknown && old != nil && old.State.Running != nil:
		// It was running and the runtime lost track of it: it must have died. Do not let
		// it look like a container that never ran.
		reason := ContainerStatusUnknown
		if restartAll && podRestarting {
			reason = kuberuntime.RestartingAllContainers
		}
		out.State.Terminated = sharedState(corev1.ContainerStateTerminated{
			Reason:   reason,
			Message:  msgUnknownState,
			ExitCode: 137,
		}, prev.Terminated, prevLast.Terminated)
		out.RestartCount = old.RestartCount + 1
	default:
		out.State.Waiting = sharedState(corev1.ContainerStateWaiting{}, prev.Waiting, nil)
	}
	return out
}

// sharedState returns a pointer to v: a or b when one of them points to a value equal to
// v (==, so the same bytes), else a new one. A generated status may share what it points
// to with the previous status, because no status is ever changed in place once built: the
// status manager stores a new status for every change and copies a cached one before
// changing it (SetContainerReadiness, TerminatePod), the API server replaces a stored
// status, and whoever adjusts a freshly generated status (the status manager's transition
// times, the eviction manager's status function, normalizeContainerTimes) assigns its
// own fields and condition list only. Most syncs find most container states as they were,
// so this spares them an allocation per state.
func sharedState[T comparable](v T, a, b *T) *T {
	switch {
	case a != nil && *a == v:
		return a
	case b != nil && *b == v:
		return b
	}
	// A new value only here: returning &v would move v to the heap on every call.
	p := new(T)
	*p = v
	return p
}

// ConvertToAPIContainerStatuses builds the API statuses of either the init containers
// (isInitContainer, in spec order) or the regular containers (sorted by name, as upstream
// sorts them). previous holds the same containers' previous API statuses.
//
// Every container starts Waiting (ContainerCreating, or PodInitializing when the pod has
// init containers) with the previous restart count and last termination, or keeps its
// previous status as is if that was terminated. A container that was running and has
// vanished from the runtime gets a ContainerStatusUnknown (137) last termination and,
// unless the pod is being deleted, one more restart. The newest runtime instance gives the
// state, the one before it the last termination. Finally a container that will be
// restarted and has a reason cache entry is shown Waiting with that reason (its
// terminated state moves to the last termination).
//
// podRestarting says the pod is in a RestartAllContainers reset (ShouldAllContainersRestart):
// then, with RestartAllContainersOnContainerExits on, a container the reset removed whose
// previous status was not waiting is Waiting with reason RestartingAllContainers, a last
// termination of that reason (137), and one more restart.
func ConvertToAPIContainerStatuses(pod *corev1.Pod, podStatus *container.PodStatus, previous []corev1.ContainerStatus, containers []corev1.Container, hasInitContainers, isInitContainer bool, reasons ReasonLookup, podRestarting bool, g kuberuntime.RestartGates) []corev1.ContainerStatus {
	restartAll := g.RestartAll()
	if podStatus == nil {
		podStatus = &container.PodStatus{}
	}
	// Container names are unique within a pod (API validation), so the statuses are kept
	// by spec index and found by name with a short linear search: pods have a handful of
	// containers, and this runs on every pod sync.
	oldStatus := func(name string) *corev1.ContainerStatus {
		// The last status of that name, as a map filled in list order would keep.
		for i := len(previous) - 1; i >= 0; i-- {
			if previous[i].Name == name {
				return &previous[i]
			}
		}
		return nil
	}
	index := func(name string) int {
		for i := range containers {
			if containers[i].Name == name {
				return i
			}
		}
		return -1
	}
	defaultReason := ContainerCreating
	if hasInitContainers {
		defaultReason = PodInitializing
	}
	// statuses[i] is containers[i]'s status. It becomes the result, so every value in it
	// is built fresh or deep-copied: previous belongs to the status manager's cache.
	statuses := make([]corev1.ContainerStatus, len(containers))
	for i := range containers {
		c := &containers[i]
		if podStatus.FindContainerStatusByName(c.Name) != nil {
			// The newest runtime instance replaces all of it below.
			continue
		}
		st := &statuses[i]
		o := oldStatus(c.Name)
		if o != nil && o.State.Terminated != nil {
			// Kept as it was: a copy of the value, sharing what it points to (see
			// sharedState).
			*st = *o
			continue
		}
		var prevWaiting *corev1.ContainerStateWaiting
		if o != nil {
			st.RestartCount = o.RestartCount
			st.LastTerminationState = o.LastTerminationState
			prevWaiting = o.State.Waiting
		}
		st.Name, st.Image = c.Name, c.Image
		st.State = corev1.ContainerState{Waiting: sharedState(corev1.ContainerStateWaiting{Reason: defaultReason}, prevWaiting, nil)}
	}

	// Containers that were running but the runtime no longer knows at all.
	for i := range containers {
		name := containers[i].Name
		if podStatus.FindContainerStatusByName(name) != nil {
			continue
		}
		o := oldStatus(name)
		if o == nil {
			continue
		}
		st := &statuses[i]
		if restartAll && podRestarting && o.State.Waiting == nil {
			st.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: kuberuntime.RestartingAllContainers, Message: msgRestartingAll}}
			st.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{Reason: kuberuntime.RestartingAllContainers, Message: msgRestartingAll, ExitCode: 137}
			st.RestartCount = o.RestartCount + 1
			continue
		}
		if o.State.Terminated != nil || o.State.Running == nil {
			continue
		}
		if st.State.Waiting == nil || st.State.Waiting.Reason != defaultReason || st.LastTerminationState.Terminated != nil {
			continue
		}
		st.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{
			Reason:   ContainerStatusUnknown,
			Message:  msgUnknownVanished,
			ExitCode: 137,
		}
		if pod.DeletionTimestamp == nil {
			st.RestartCount++
		}
	}

	// Runtime instances, newest first: the newest gives the state, the next the last
	// termination; older ones are ignored. The sort is stable, so instances created at the
	// same instant keep the runtime's order.
	var buf [8]*container.Status
	instances := append(buf[:0], podStatus.ContainerStatuses...)
	slices.SortStableFunc(instances, func(a, b *container.Status) int { return b.CreatedAt.Compare(a.CreatedAt) })
	// second[i] is containers[i]'s instance before the newest. Its state becomes the last
	// termination, unless the reason step below replaces that with the newest instance's
	// termination; nothing before then reads it, so it is converted only at the end, when
	// it is kept.
	var seenBuf [8]uint8
	var secondBuf [8]*container.Status
	seen, second := seenBuf[:0], secondBuf[:0]
	if len(containers) <= len(seenBuf) {
		seen, second = seenBuf[:len(containers)], secondBuf[:len(containers)]
	} else {
		seen, second = make([]uint8, len(containers)), make([]*container.Status, len(containers))
	}
	for _, cs := range instances {
		i := index(cs.Name)
		if i < 0 || seen[i] >= 2 {
			continue
		}
		if seen[i] == 0 {
			oldPtr := oldStatus(cs.Name)
			statuses[i] = convertInstance(cs, oldPtr, containers[i].Image, restartAll, podRestarting)
			if cs.State == container.StateRunning && oldPtr != nil && oldPtr.Started != nil {
				statuses[i].Started = oldPtr.Started // shared, as in sharedState
			}
		} else {
			second[i] = cs
		}
		seen[i]++
	}

	// Containers that will be (re)started and whose last start failed are waiting with
	// the failure's reason.
	for i := range containers {
		c := &containers[i]
		st := &statuses[i]
		if isInitContainer {
			s := podStatus.FindContainerStatusByName(c.Name)
			if s != nil && s.State == container.StateExited && s.ExitCode == 0 {
				continue
			}
			// A regular init container the runtime has forgotten, in a pod whose regular
			// containers exist, must have completed.
			if s == nil && !kuberuntime.IsRestartableInitContainer(c) && anyRegularContainerCreated(pod, podStatus) && st.State.Waiting != nil {
				st.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					Reason:  Completed,
					Message: msgInitCompletedGuess,
				}}
				continue
			}
		}
		if !kuberuntime.ShouldContainerBeRestarted(c, pod, podStatus, g) || reasons == nil {
			continue
		}
		r, ok := reasons(pod.UID, c.Name)
		if !ok {
			continue
		}
		if st.State.Terminated != nil {
			st.LastTerminationState = st.State
			second[i] = nil
		}
		var prevWaiting *corev1.ContainerStateWaiting
		if o := oldStatus(c.Name); o != nil {
			prevWaiting = o.State.Waiting
		}
		st.State = corev1.ContainerState{Waiting: sharedState(corev1.ContainerStateWaiting{Reason: r.Err, Message: r.Message}, prevWaiting, nil)}
	}

	for i, cs := range second {
		if cs != nil {
			statuses[i].LastTerminationState = convertInstance(cs, oldStatus(cs.Name), containers[i].Image, restartAll, podRestarting).State
		}
	}

	if !isInitContainer {
		slices.SortStableFunc(statuses, func(a, b corev1.ContainerStatus) int { return strings.Compare(a.Name, b.Name) })
	}
	return statuses
}

// anyRegularContainerCreated reports whether the runtime has a regular container of the
// pod that was created, is running or has exited.
func anyRegularContainerCreated(pod *corev1.Pod, podStatus *container.PodStatus) bool {
	for i := range pod.Spec.Containers {
		s := podStatus.FindContainerStatusByName(pod.Spec.Containers[i].Name)
		if s == nil {
			continue
		}
		switch s.State {
		case container.StateCreated, container.StateRunning, container.StateExited:
			return true
		}
	}
	return false
}

// kubeletOwnedCondition reports whether a condition type is one the kubelet generates (and
// drops from the API status before generating it again).
func kubeletOwnedCondition(t corev1.PodConditionType) bool {
	switch t {
	case corev1.PodScheduled, corev1.PodReady, corev1.PodInitialized, corev1.ContainersReady,
		corev1.PodReadyToStartContainers, corev1.PodResizePending, corev1.PodResizeInProgress,
		corev1.AllContainersRestarting:
		return true
	}
	return false
}

// GenerateAPIPodStatus is the kubelet's generateAPIPodStatus, for what a simulation needs.
//
// oldStatus is the status manager's cached status, or nil to use the pod's API status.
// The phase comes from GetPhase; a non-terminal phase gives way to a terminal phase of
// oldStatus, else of the API status, and the API's terminal phase always wins: a pod never
// leaves Succeeded or Failed. Reason and message are kept while the phase is unchanged.
// (Eviction by pod sync handlers, e.g. activeDeadlineSeconds, is the caller's business:
// it overrides phase, reason and message afterwards.)
//
// Container statuses come from ConvertToAPIContainerStatuses, with started/ready from
// probes (nil means no container has probes). Conditions: those the kubelet does not own
// are kept from the API status, DisruptionTarget is copied from oldStatus, then
// PodReadyToStartContainers, Initialized, Ready, ContainersReady and PodScheduled are
// appended; a condition's LastTransitionTime is kept from oldStatus while its status is
// unchanged, else it is now (as the status manager does). StartTime is kept from oldStatus
// (now if it has none); pod IPs come from the runtime, or are kept from oldStatus when the
// runtime reports none; HostIP stays empty. QOSClass is not computed: it is carried over
// from oldStatus or the API status (the API server sets it at creation). Timestamps are at
// whole seconds.
//
// The status shares what did not change (container states, started flags, the start time,
// the pod IPs) with oldStatus or the API status, as sharedState explains: nobody changes a
// built status in place. Its container status and condition lists are its own.
func GenerateAPIPodStatus(pod *corev1.Pod, podStatus *container.PodStatus, oldStatus *corev1.PodStatus, podIsTerminal bool, reasons ReasonLookup, probes ProbeState, now time.Time) corev1.PodStatus {
	s, _ := GenerateAPIPodStatusUsingNow(pod, podStatus, oldStatus, podIsTerminal, reasons, probes, now)
	return s
}

// GenerateAPIPodStatusUsingNow is GenerateAPIPodStatus that also reports whether now went
// into the status: a condition's LastTransitionTime (no previous condition of its type with
// the same status) or the StartTime (none in the old status). When it did not, the status
// is a function of the other arguments and of the answers of reasons and probes alone,
// which lets a caller reuse a status generated from the same inputs at another time.
func GenerateAPIPodStatusUsingNow(pod *corev1.Pod, podStatus *container.PodStatus, oldStatus *corev1.PodStatus, podIsTerminal bool, reasons ReasonLookup, probes ProbeState, now time.Time) (corev1.PodStatus, bool) {
	usedNow := false
	if podStatus == nil {
		podStatus = &container.PodStatus{}
	}
	old := &pod.Status
	if oldStatus != nil {
		old = oldStatus
	}
	var s corev1.PodStatus

	// The runtime's IPs, else the old status's; the old status's list is shared when it
	// holds the same IPs (see sharedState).
	switch {
	case len(podStatus.IPs) > 0 && !samePodIPs(old.PodIPs, podStatus.IPs):
		s.PodIPs = make([]corev1.PodIP, len(podStatus.IPs))
		for i, ip := range podStatus.IPs {
			s.PodIPs[i] = corev1.PodIP{IP: ip}
		}
	case len(old.PodIPs) > 0:
		s.PodIPs = old.PodIPs
	}
	if len(s.PodIPs) > 0 {
		s.PodIP = s.PodIPs[0].IP
	} else {
		s.PodIP = old.PodIP
	}
	s.QOSClass = old.QOSClass
	if s.QOSClass == "" {
		s.QOSClass = pod.Status.QOSClass
	}

	g := restartGates(probes)
	restartAllRules := g.RestartAll() && upstream.AllContainersCouldRestart(&pod.Spec)
	podRestarting := g.RestartAll() && shouldAllContainersRestart(pod, podStatus, old, restartAllRules)
	hasInit := len(pod.Spec.InitContainers) > 0
	s.ContainerStatuses = ConvertToAPIContainerStatuses(pod, podStatus, old.ContainerStatuses, pod.Spec.Containers, hasInit, false, reasons, podRestarting, g)
	if hasInit {
		s.InitContainerStatuses = ConvertToAPIContainerStatuses(pod, podStatus, old.InitContainerStatuses, pod.Spec.InitContainers, hasInit, true, reasons, podRestarting, g)
	}
	if len(pod.Spec.EphemeralContainers) > 0 {
		specs := make([]corev1.Container, 0, len(pod.Spec.EphemeralContainers))
		for i := range pod.Spec.EphemeralContainers {
			specs = append(specs, corev1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
		}
		s.EphemeralContainerStatuses = ConvertToAPIContainerStatuses(pod, podStatus, old.EphemeralContainerStatuses, specs, hasInit, false, reasons, podRestarting, g)
	}

	// Phase, made monotonic.
	s.Phase = GetPhaseFromStatus(pod, &s, podIsTerminal, HasAnyActiveRegularContainerStarted(pod, podStatus), g)
	if !phaseIsTerminal(s.Phase) {
		switch {
		case phaseIsTerminal(old.Phase):
			s.Phase = old.Phase
		case phaseIsTerminal(pod.Status.Phase):
			s.Phase = pod.Status.Phase
		}
	}
	if s.Phase == old.Phase {
		s.Reason, s.Message = old.Reason, old.Message
		if s.Reason == "" {
			s.Reason = pod.Status.Reason
		}
		if s.Message == "" {
			s.Message = pod.Status.Message
		}
	}
	if phaseIsTerminal(pod.Status.Phase) && s.Phase != pod.Status.Phase {
		s.Phase = pod.Status.Phase
	}

	applyProbes(pod, &s, probes)

	// Conditions: those kept from the API status, DisruptionTarget, the five the kubelet
	// always adds and AllContainersRestarting; the list is allocated once, at its size.
	restartingCondition := restartAllRules
	dt := findCondition(old.Conditions, corev1.DisruptionTarget)
	size := 5
	for i := range pod.Status.Conditions {
		if !kubeletOwnedCondition(pod.Status.Conditions[i].Type) {
			size++
		}
	}
	if dt != nil {
		size++
	}
	if restartingCondition {
		size++
	}
	s.Conditions = make([]corev1.PodCondition, 0, size)
	for i := range pod.Status.Conditions {
		if c := &pod.Status.Conditions[i]; !kubeletOwnedCondition(c.Type) {
			s.Conditions = append(s.Conditions, corev1.PodCondition{})
			c.DeepCopyInto(&s.Conditions[len(s.Conditions)-1])
		}
	}
	if dt != nil {
		if cur := findCondition(s.Conditions, corev1.DisruptionTarget); cur != nil {
			*cur = *dt.DeepCopy()
		} else {
			s.Conditions = append(s.Conditions, *dt.DeepCopy())
		}
	}
	all := statusLists{s.InitContainerStatuses, s.ContainerStatuses}
	s.Conditions = append(s.Conditions, GeneratePodReadyToStartContainersCondition(pod, podStatus))
	initialized := GeneratePodInitializedCondition(pod, s.ContainerStatuses, s.InitContainerStatuses, s.Phase)
	if g.RestartAll() && initialized.Reason == ContainersNotInitialized {
		// Init containers that run again (a RestartAllContainers reset) do not
		// un-initialize a pod that had initialized.
		if prev := findCondition(old.Conditions, corev1.PodInitialized); prev != nil && prev.Status == corev1.ConditionTrue {
			initialized.Status, initialized.Reason, initialized.Message = corev1.ConditionTrue, "", ""
		}
	}
	s.Conditions = append(s.Conditions, initialized)
	// Both are computed from the combined list of init and regular statuses, which is
	// never nil here (ConvertToAPIContainerStatuses returns a non-nil list).
	containersReady := generateContainersReadyCondition(pod, old, all, true, s.Phase)
	s.Conditions = append(s.Conditions, podReadyCondition(pod, old, s.Conditions, &containersReady))
	s.Conditions = append(s.Conditions, containersReady)
	s.Conditions = append(s.Conditions, corev1.PodCondition{
		Type:               corev1.PodScheduled,
		ObservedGeneration: ConditionObservedGeneration(pod, old),
		Status:             corev1.ConditionTrue,
	})
	if restartingCondition {
		s.Conditions = append(s.Conditions, GenerateAllContainersRestartingCondition(pod, podStatus, old, s.Phase))
	}
	for i := range s.Conditions {
		c := &s.Conditions[i]
		if !kubeletOwnedCondition(c.Type) {
			continue
		}
		c.ObservedGeneration = pod.Generation
		if prev := findCondition(old.Conditions, c.Type); prev != nil && prev.Status == c.Status {
			c.LastTransitionTime = prev.LastTransitionTime
		} else {
			c.LastTransitionTime = apiTime(now)
			usedNow = true
		}
	}

	if old.StartTime != nil && !old.StartTime.IsZero() {
		s.StartTime = old.StartTime // shared, as in sharedState
	} else {
		t := apiTime(now)
		s.StartTime = &t
		usedNow = true
	}
	normalizeContainerTimes(s.InitContainerStatuses)
	normalizeContainerTimes(s.ContainerStatuses)
	normalizeContainerTimes(s.EphemeralContainerStatuses)
	return s, usedNow
}

// samePodIPs reports whether list holds exactly the IPs ips, in order.
func samePodIPs(list []corev1.PodIP, ips []string) bool {
	if len(list) != len(ips) {
		return false
	}
	for i := range list {
		if list[i].IP != ips[i] {
			return false
		}
	}
	return true
}

// GenerateAllContainersRestartingCondition computes AllContainersRestarting for a pod with a
// RestartAllContainers rule: True (reason RestartAllContainersStarted) from the sync that
// sees a container exit with a matching code until the sync that sees all of the pod's
// containers removed; False otherwise (reason PodCompleted or PodFailed once the pod is
// terminal).
func GenerateAllContainersRestartingCondition(pod *corev1.Pod, podStatus *container.PodStatus, oldStatus *corev1.PodStatus, podPhase corev1.PodPhase) corev1.PodCondition {
	cond := corev1.PodCondition{Type: corev1.AllContainersRestarting, Status: corev1.ConditionFalse}
	switch {
	case podPhase == corev1.PodSucceeded:
		cond.Reason = PodCompleted
	case podPhase == corev1.PodFailed:
		cond.Reason = PodFailed
	case !kuberuntime.ShouldAllContainersRestart(pod, podStatus, oldStatus):
	case kuberuntime.AllContainersRestartCleanedUp(pod, podStatus):
	default:
		cond.Status, cond.Reason, cond.Message = corev1.ConditionTrue, RestartAllContainersStarted, msgRestartAllStarted
	}
	return cond
}

// applyProbes fills started and ready as the probe manager's UpdatePodStatus does.
func applyProbes(pod *corev1.Pod, s *corev1.PodStatus, probes ProbeState) {
	for i := range s.ContainerStatuses {
		cs := &s.ContainerStatuses[i]
		spec := specByName(pod.Spec.Containers, cs.Name)
		started := containerStarted(pod.UID, cs, spec, probes)
		cs.Started = startedFlag(cs.Started, started)
		if !started {
			continue
		}
		cs.Ready = containerReady(pod.UID, cs, spec, probes)
	}
	for i := range s.InitContainerStatuses {
		cs := &s.InitContainerStatuses[i]
		spec := specByName(pod.Spec.InitContainers, cs.Name)
		started := containerStarted(pod.UID, cs, spec, probes)
		cs.Started = startedFlag(cs.Started, started)
		if spec == nil {
			continue
		}
		if !kuberuntime.IsRestartableInitContainer(spec) {
			// A regular init container is ready once it exited successfully.
			if cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0 {
				cs.Ready = true
			}
			continue
		}
		if started {
			cs.Ready = containerReady(pod.UID, cs, spec, probes)
		}
	}
}

// startedFlag returns a pointer to started: prev, the flag the status holds so far (shared
// with the previous status, see sharedState), when it says the same.
func startedFlag(prev *bool, started bool) *bool {
	if prev != nil && *prev == started {
		return prev
	}
	p := new(bool) // not &started, which would move started to the heap on every call
	*p = started
	return p
}

func specByName(list []corev1.Container, name string) *corev1.Container {
	for i := range list {
		if list[i].Name == name {
			return &list[i]
		}
	}
	return nil
}

// containerStarted: a container is started only while running, once its startup probe
// (if any) succeeded; a previous started=true is kept while no startup result is known.
func containerStarted(uid types.UID, cs *corev1.ContainerStatus, spec *corev1.Container, probes ProbeState) bool {
	if cs.State.Running == nil {
		return false
	}
	prev := cs.Started != nil && *cs.Started && !changesStatusOnKubeletRestart(probes)
	if probes == nil || spec == nil {
		return true
	}
	id := runtimeID(cs.ContainerID)
	if sr, ok := probes.(StartupResults); ok {
		if success, known := sr.StartupResult(uid, id); known {
			return success
		}
		return prev || probes.Started(uid, id, spec)
	}
	return probes.Started(uid, id, spec) || prev
}

func containerReady(uid types.UID, cs *corev1.ContainerStatus, spec *corev1.Container, probes ProbeState) bool {
	if cs.State.Running == nil {
		return false
	}
	if probes == nil || spec == nil {
		return true
	}
	return probes.Ready(uid, runtimeID(cs.ContainerID), spec)
}

// normalizeContainerTimes truncates the container state timestamps to whole seconds. A
// state may be shared with the previous status (see sharedState), so one whose times need
// truncating is replaced by a truncated copy rather than changed in place; nearly every
// state's times are whole seconds already.
func normalizeContainerTimes(list []corev1.ContainerStatus) {
	fix := func(st *corev1.ContainerState) {
		if r := st.Running; r != nil {
			if t := apiTime(r.StartedAt.Time); t != r.StartedAt {
				c := *r
				c.StartedAt = t
				st.Running = &c
			}
		}
		if x := st.Terminated; x != nil {
			started, finished := apiTime(x.StartedAt.Time), apiTime(x.FinishedAt.Time)
			if started != x.StartedAt || finished != x.FinishedAt {
				c := *x
				c.StartedAt, c.FinishedAt = started, finished
				st.Terminated = &c
			}
		}
	}
	for i := range list {
		fix(&list[i].State)
		fix(&list[i].LastTerminationState)
	}
}

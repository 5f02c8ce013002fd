// Package kuberuntime is the kubelet's runtime manager (upstream pkg/kubelet/kuberuntime):
// SyncPod computes what a pod needs (computePodActions) and drives the runtime there:
// killing what must go, creating the sandbox, starting init containers in order, sidecars
// and regular containers, each start held back by the crash-loop back-off and preceded by
// an image pull when the policy asks for one.
package kuberuntime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/internal/upstream"
	"nodesim/model/container"
	"nodesim/model/cri"
	"nodesim/model/flowcontrol"
	"nodesim/model/images"
	"nodesim/model/oom"
	"nodesim/model/prober/results"
	"nodesim/sim"
	"nodesim/trace"
)

// Errors a sync result carries; their text is the waiting reason the kubelet shows.
var (
	ErrCrashLoopBackOff   = errors.New("CrashLoopBackOff")
	ErrCreatePodSandbox   = errors.New("CreatePodSandboxError")
	ErrKillPodSandbox     = errors.New("KillPodSandboxError")
	ErrCreateContainer    = errors.New("CreateContainerError")
	ErrRunContainer       = errors.New("RunContainerError")
	ErrKillContainer      = errors.New("KillContainerError")
	ErrPostStartHook      = errors.New("PostStartHookError")
	ErrRemoveContainer    = errors.New("RemoveContainerError")
	ErrImagePull          = images.ErrImagePull
	ErrImagePullBackOff   = images.ErrImagePullBackOff
	ErrImageNeverPull     = images.ErrImageNeverPull
	minimumGracePeriodSec = int64(2)
)

// SyncAction is the kind of step a sync result describes.
type SyncAction string

// Sync actions.
const (
	StartContainer   SyncAction = "StartContainer"
	KillContainer    SyncAction = "KillContainer"
	CreatePodSandbox SyncAction = "CreatePodSandbox"
	KillPodSandbox   SyncAction = "KillPodSandbox"
	RemoveContainer  SyncAction = "RemoveContainer"
)

// SyncResult is the outcome of one step.
type SyncResult struct {
	Action  SyncAction
	Target  string
	Error   error
	Message string
}

// PodSyncResult is the outcome of one SyncPod or KillPod.
type PodSyncResult struct {
	SyncResults []*SyncResult
	SyncError   error
	// slots is room for the results add makes, within its capacity (nil: none): a reused
	// podSync's, whose previous results nobody refers to any more (see podSync.reset).
	slots []SyncResult
}

func (r *PodSyncResult) add(action SyncAction, target string, err error, msg string) {
	var s *SyncResult
	if n := len(r.slots); n < cap(r.slots) {
		// Within the capacity the array never moves, so the results handed out stay put.
		r.slots = r.slots[:n+1]
		s = &r.slots[n]
	} else {
		s = new(SyncResult)
	}
	*s = SyncResult{Action: action, Target: target, Error: err, Message: msg}
	r.SyncResults = append(r.SyncResults, s)
}

// BackoffError is a crash-loop back-off that says when it ends, so the pod worker can
// requeue the pod for that moment (upstream since v1.35).
type BackoffError struct {
	Msg    string
	Expiry time.Time
	// hold is the decideBackOff memo that made the error (nil for one made elsewhere):
	// PodSyncResult.Error keeps the step error wrapping it there.
	hold *backOffHold
}

func (e *BackoffError) Error() string            { return e.Msg }
func (e *BackoffError) BackoffExpiry() time.Time { return e.Expiry }
func (e *BackoffError) Is(target error) bool     { return target == ErrCrashLoopBackOff }

// aggregate is several errors as one; errors.Is and errors.As look through it.
type aggregate []error

func (a aggregate) Error() string {
	if len(a) == 1 {
		return a[0].Error()
	}
	parts := make([]string, len(a))
	for i, e := range a {
		parts[i] = e.Error()
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (a aggregate) Unwrap() []error { return a }

// heldError is the sync error whose one failure is a held-back container's start: the
// aggregate of that step error, which a backOffHold keeps and every sync of its back-off
// window returns. It is the aggregate to errors.Is and errors.As (Unwrap), with its text
// made once, and it answers its back-off expiry itself (the one BackoffError it holds),
// so that the pod worker, which asks both at every such sync, need not walk the tree.
type heldError struct {
	errs aggregate
	be   *BackoffError
	text string // Error's answer, "" until first asked; errs never changes
}

func (h *heldError) Error() string {
	if h.text == "" {
		h.text = h.errs.Error()
	}
	return h.text
}

func (h *heldError) Unwrap() []error { return h.errs }

// BackoffExpiry is the expiry of the back-off the error holds, the earliest (and only)
// one anywhere in it.
func (h *heldError) BackoffExpiry() time.Time { return h.be.Expiry }

type stepError struct {
	action SyncAction
	target string
	msg    string
	// wrapped is the step's reason, then its cause if any (nil otherwise); Unwrap returns
	// the set ones as a slice of this array, which errors.Is and errors.As only read.
	wrapped [2]error
	// text is Error's answer, "" until first asked, for a step error kept in a backOffHold and
	// so returned by the syncs of a whole back-off window. Every field it is made of is
	// set before the error is handed out and never changes.
	text string
}

func (e *stepError) Error() string {
	if e.text == "" {
		e.text = e.format()
	}
	return e.text
}

func (e *stepError) format() string {
	// fmt's "failed to %q for %q with %v: %q", without boxing: %q of a string is
	// strconv.Quote, %v of an error its Error.
	return "failed to " + quote(string(e.action)) + " for " + quote(e.target) + " with " + e.wrapped[0].Error() + ": " + quote(e.msg)
}

// quote is strconv.Quote(s). A string of printable ASCII without a quote or a backslash
// (every action, container name and back-off message the runtime manager makes) is quoted
// as it is, which is what strconv.Quote does with it, rune by rune: the first step error of
// every back-off window of a crash-looping pod quotes its message.
func quote(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.Quote(s)
		}
	}
	return `"` + s + `"`
}

// Unwrap returns the step's reason and cause without allocating: a crash-looping pod's
// sync error is unwrapped several times per sync (context.Canceled, the back-off expiry).
func (e *stepError) Unwrap() []error {
	if e.wrapped[1] != nil {
		return e.wrapped[:2:2]
	}
	return e.wrapped[:1:1]
}

// Error returns every failed step as one error, or nil.
func (r *PodSyncResult) Error() error {
	if r.SyncError == nil && len(r.SyncResults) == 0 {
		// A sync that did nothing (every periodic resync of a steady pod) failed nothing.
		return nil
	}
	if held := r.heldAlone(); held != nil {
		return held
	}
	var errs aggregate
	if r.SyncError != nil {
		errs = append(errs, r.SyncError)
	}
	for _, s := range r.SyncResults {
		if s.Error == nil {
			continue
		}
		if be := asBackoffError(s.Error); be != nil {
			// A back-off error decideBackOff keeps is returned by every sync of its
			// window, and so is the step error wrapping it.
			h := be.hold
			if h != nil && h.step != nil && h.step.action == s.Action && h.step.target == s.Target && h.step.msg == s.Message && h.step.wrapped[1] == error(be) {
				errs = append(errs, h.step)
				continue
			}
			se := &stepError{action: s.Action, target: s.Target, msg: s.Message, wrapped: [2]error{ErrCrashLoopBackOff, be}}
			if h != nil {
				h.step, h.alone = se, nil
			}
			errs = append(errs, se)
			continue
		}
		errs = append(errs, &stepError{action: s.Action, target: s.Target, msg: s.Message, wrapped: [2]error{s.Error}})
	}
	if len(errs) == 0 {
		return nil
	}
	if len(errs) == 1 {
		// A sync whose one failure is a held-back container's start returns the same
		// error all window, as its step error is (see backOffHold).
		if se, ok := errs[0].(*stepError); ok {
			if be, ok := se.wrapped[1].(*BackoffError); ok && be.hold != nil && be.hold.step == se {
				if be.hold.alone == nil {
					be.hold.alone = &heldError{errs: errs, be: be}
				}
				return be.hold.alone
			}
		}
	}
	return errs
}

// heldAlone is what Error returns for a result whose one failure is the start of a
// container held back, when the hold already made that answer (backOffHold.alone, for the
// same step): the crash-looping pod's sync of every back-off window after the first. It
// is nil otherwise, and then Error builds the answer. Answering here spares Error its
// list, which it would only drop for the hold's.
func (r *PodSyncResult) heldAlone() error {
	if r.SyncError != nil {
		return nil
	}
	var failed *SyncResult
	for _, s := range r.SyncResults {
		if s.Error == nil {
			continue
		}
		if failed != nil {
			return nil
		}
		failed = s
	}
	if failed == nil {
		return nil
	}
	be := asBackoffError(failed.Error)
	if be == nil || be.hold == nil || be.hold.alone == nil {
		return nil
	}
	h := be.hold
	if h.step != nil && h.step.action == failed.Action && h.step.target == failed.Target && h.step.msg == failed.Message && h.step.wrapped[1] == error(be) {
		return h.alone
	}
	return nil
}

// asBackoffError is errors.As(err, &be) for a *BackoffError be. The error a held-back
// start carries is the BackoffError itself, which is looked at first: errors.As needs its
// target on the heap.
func asBackoffError(err error) *BackoffError {
	if be, ok := err.(*BackoffError); ok {
		return be
	}
	var be *BackoffError
	if errors.As(err, &be) {
		return be
	}
	return nil
}

// Trace kinds recorded by the runtime manager.
const (
	KindPodActions trace.Kind = "computePodActions"
	KindBackOff    trace.Kind = "crashLoopBackOff"
	KindKilling    trace.Kind = "killing"
	KindStarted    trace.Kind = "containerStartedByKubelet"
	// KindPostStart is a container's postStart hook run by the kubelet: Dur is how long it
	// held the sync, attr failed.
	KindPostStart   trace.Kind = "postStartHook"
	KindStartFailed trace.Kind = "containerStartFailed"
)

// Manager is the kubelet's generic runtime manager.
type Manager struct {
	s               *sim.Sim
	runtime         *cri.Runtime
	images          *images.ImageManager
	livenessManager ProbeResults
	startupManager  ProbeResults
	// livenessResults and startupResults are livenessManager and startupManager when they
	// are results.Managers (nil otherwise), whose versions the actions memo reads.
	livenessResults, startupResults *results.Manager
	memoryCapacity                  int64
	// podState answers whether the pod worker was asked to terminate a pod.
	podState PodStateProvider
	// skipActions and skipBackOff say that nobody reads the computePodActions and
	// crashLoopBackOff events (see sim.Sim.SetSkips), asked once at NewManager: an event
	// nobody reads is neither built nor given its reason, and Sim.Skip takes its sequence
	// number. They say "skip" so that a Manager built without NewManager records both.
	skipActions, skipBackOff bool

	// PodLevelResources is the run's PodLevelResources feature gate (v1.37 default on):
	// pod-level memory requests enter each container's oom_score_adj.
	PodLevelResources bool
	// Restart are the run's ContainerRestartRules and RestartAllContainersOnContainerExits
	// gates (v1.37 defaults: both on).
	Restart RestartGates

	// spareSyncs are finished syncs' structs for the next SyncPods to reuse (see
	// podSync.finish), at most maxSpareSyncs: as many as syncs wait for the runtime at
	// once, commonly. noActionsAttrs is the computePodActions attributes of "none".
	spareSyncs     []*podSync
	noActionsAttrs []trace.Attr

	// backOffMemo keeps, per back-off key, what decideBackOff built the last time it held
	// that container back (see backOffHold); nil until the first hold.
	backOffMemo map[string]*backOffHold

	// stableKeys keeps each container's back-off key (see stableKey); startAttrs, the
	// computePodActions attributes of a sync whose one action is to start the container of
	// that name (see describeAttrs). Both are bounded as backOffMemo is.
	stableKeys map[stableKeyID]stableKeyEntry
	startAttrs map[string][]trace.Attr

	// noExited are noExitedAttrs' attributes, one entry per kind of start.
	noExited []kindAttrs

	// reasons is asked only whether recorded events keep their Reason (sim.Clock.Reasons):
	// a clock of no process of its own, which never schedules or records anything. When
	// they do not, SyncPod and decideBackOff skip building the reasons they record.
	reasons *sim.Clock

	// recording is the ActionsMemo that SyncPod's podActions call records its questions to
	// the probe results in (see memoPodActions); nil outside that call.
	recording *ActionsMemo
	// noneResult is the result of every sync that syncNone finishes: empty, never written.
	noneResult PodSyncResult
}

// stableKeyID names a container of a pod, by the pod's UID.
type stableKeyID struct {
	uid       types.UID
	container string
}

// stableKeyEntry is a container's back-off key with what it was made from besides the
// stableKeyID: the pod's name and namespace and the container's spec hash.
type stableKeyEntry struct {
	name, namespace string
	hash            uint64
	key             string
}

// stableKey is GetStableKey(pod, c), made once per container: a crash-looping container
// asks for its key at every sync. The entry is used only while everything the key is made
// of is as it was (the UID and container name pick the entry; the pod's name and
// namespace and the container's hash are compared), so a changed spec gets a new key.
func (m *Manager) stableKey(pod *corev1.Pod, c *corev1.Container) string {
	id := stableKeyID{uid: pod.UID, container: c.Name}
	hash := container.HashContainer(c)
	if e, ok := m.stableKeys[id]; ok && e.hash == hash && e.name == pod.Name && e.namespace == pod.Namespace {
		return e.key
	}
	key := GetStableKey(pod, c)
	if len(m.stableKeys) >= backOffMemoLimit || m.stableKeys == nil {
		m.stableKeys = make(map[stableKeyID]stableKeyEntry)
	}
	m.stableKeys[id] = stableKeyEntry{name: pod.Name, namespace: pod.Namespace, hash: hash, key: key}
	return key
}

// backOffHold is what decideBackOff records and returns when it holds a container back:
// the error message, the event's attributes and reason, and the error. All of it is a
// function of the back-off key (which names the pod, its namespace and UID, the container
// and its hash), the last exit's finish time and the back-off's current duration, so a
// later hold with the same three reuses it: a crash-looping container is held back at
// every sync of its back-off window. Nothing a hold hands out is written after it is
// made: recorded attributes and reasons are read-only, and a BackoffError is only read.
type backOffHold struct {
	finishedAt time.Time
	current    time.Duration

	podKey string
	msg    string
	attrs  []trace.Attr
	reason *trace.Reason
	err    *BackoffError
	// step is the step error PodSyncResult.Error last made around err (nil: none yet),
	// alone the sync error that is step and nothing else (nil: none yet).
	step  *stepError
	alone error
}

// backOffMemoLimit bounds backOffMemo: once it holds this many keys it is emptied, which
// drops the keys of containers no longer held back (a miss only builds the texts again).
const backOffMemoLimit = 1024

// PodStateProvider is the pod workers' view a sync needs (upstream podStateProvider).
type PodStateProvider interface {
	IsPodTerminationRequested(uid types.UID) bool
}

// errSyncCancelled is what a start step returns once the pod's termination was requested.
// Upstream cancels the sync's context then; the CRI calls of a start that comes after (the
// create or start once a pull returns) fail with that context, so a terminating pod never
// gets a new container.
var errSyncCancelled = errors.New("pod sync cancelled: pod termination requested")

// NewManager returns a runtime manager over the fake runtime; memoryCapacity is the
// machine's memory, for oom_score_adj.
func NewManager(s *sim.Sim, runtime *cri.Runtime, imageManager *images.ImageManager, liveness, startup ProbeResults, memoryCapacity int64, podState PodStateProvider) *Manager {
	m := &Manager{s: s, runtime: runtime, images: imageManager, livenessManager: liveness, startupManager: startup, memoryCapacity: memoryCapacity, podState: podState, PodLevelResources: true, Restart: DefaultRestartGates(),
		reasons: s.Clock("kuberuntime", sim.PriorityDefault)}
	m.livenessResults, _ = liveness.(*results.Manager)
	m.startupResults, _ = startup.(*results.Manager)
	m.skipActions, m.skipBackOff = !s.Records(KindPodActions), !s.Records(KindBackOff)
	return m
}

// SyncPod drives the runtime towards the pod's spec (upstream kubeGenericRuntimeManager.SyncPod).
// restartAllContainers says the status the kubelet generated for this sync carries
// AllContainersRestarting=True. podKey is container.Key(pod), which the caller keeps for
// the pod rather than have every sync build it again.
//
// memo, when not nil, is the pod's ActionsMemo (kept by the caller from sync to sync): a
// sync whose actions it proves to be "none" again skips computing them.
func (m *Manager) SyncPod(pod *corev1.Pod, podKey string, podStatus *container.PodStatus, backOff *flowcontrol.Backoff, restartAllContainers bool, memo *ActionsMemo, done func(*PodSyncResult)) {
	matched := memo != nil && memo.matches(m, pod, podStatus, restartAllContainers)
	if matched && len(pod.Spec.InitContainers) == 0 {
		m.syncNone(memo, pod, podKey, podStatus, done)
		return
	}
	var ps *podSync
	if n := len(m.spareSyncs); n > 0 {
		ps = m.spareSyncs[n-1]
		m.spareSyncs[n-1] = nil
		m.spareSyncs = m.spareSyncs[:n-1]
	} else {
		ps = &podSync{}
	}
	ps.reset(m, pod, podKey, podStatus, backOff, done)
	if matched {
		ps.actions = memo.none
	} else {
		m.memoPodActions(memo, &ps.actions, pod, podStatus, restartAllContainers, ps.startBuf[:0])
	}
	if cap(ps.actions.ContainersToStart) > cap(ps.startBuf) {
		ps.startBuf = ps.actions.ContainersToStart[:0]
	}
	ps.kills = ps.actions.KillList()
	if !m.skipActions {
		var why *trace.Reason
		if m.keepReasons() {
			why = podActionsReason(ps.actions.KillPod, podStatus)
			if why == nil {
				why = restartRulesReason(pod, podStatus, &ps.actions, m.Restart)
			}
		}
		var ev trace.Event // set field by field: see syncNone
		ev.Kind, ev.Pod, ev.Attrs, ev.Reason = KindPodActions, podKey, m.describeAttrs(pod, &ps.actions, ps.kills), why
		m.s.Record(&ev)
	} else {
		m.s.Skip()
	}

	if ps.actions.KillPod {
		m.killPodWithSyncResult(pod, container.ConvertPodStatusToRunningPod(podStatus), nil, ps.podKilled)
	} else {
		ps.killContainer(0)
	}
}

// syncNone is SyncPod of a pod without init containers whose actions memo proves to be
// "none" (the memo matched): its steps would all find nothing to do. The kill list is
// empty, there is no reset, no init container instance to remove (the pod has no init
// containers), no sandbox to create and no container to start, so the sync records its
// computePodActions event and finishes at once, as its steps would, with a result that
// holds nothing (noneResult: done only reads it, and nothing writes it).
func (m *Manager) syncNone(memo *ActionsMemo, pod *corev1.Pod, podKey string, podStatus *container.PodStatus, done func(*PodSyncResult)) {
	if m.skipActions {
		m.s.Skip()
		done(&m.noneResult)
		return
	}
	var why *trace.Reason
	if m.keepReasons() {
		why = podActionsReason(false, podStatus)
		if why == nil {
			why = restartRulesReason(pod, podStatus, &memo.none, m.Restart)
		}
	}
	// The event's fields are set one by one on a zeroed event: a composite literal of an
	// event's size is built in a temporary and copied over, twenty-odd instructions more
	// at every periodic resync.
	var ev trace.Event
	ev.Kind, ev.Pod, ev.Attrs, ev.Reason = KindPodActions, podKey, m.actionsAttrs("none"), why
	m.s.Record(&ev)
	done(&m.noneResult)
}

// describeAttrs is actionsAttrs(a.describe(pod, kills)). A sync whose one action is to
// start one regular container (a crash-looping container's, at every sync of its
// back-off) gets the attributes made for that container's name the first time: the text
// is "start <name>" whatever else the pod holds.
func (m *Manager) describeAttrs(pod *corev1.Pod, a *PodActions, kills []ContainerToKill) []trace.Attr {
	if a.none(kills) {
		return m.actionsAttrs("none")
	}
	if len(a.ContainersToStart) != 1 || a.KillPod || a.CreateSandbox || len(a.InitContainersToStart) > 0 || len(kills) > 0 || len(a.ContainersToReset) > 0 {
		return m.actionsAttrs(a.describe(pod, kills))
	}
	name := pod.Spec.Containers[a.ContainersToStart[0]].Name
	if attrs, ok := m.startAttrs[name]; ok {
		return attrs
	}
	attrs := m.actionsAttrs(a.describe(pod, kills))
	if len(m.startAttrs) >= backOffMemoLimit || m.startAttrs == nil {
		m.startAttrs = make(map[string][]trace.Attr)
	}
	m.startAttrs[name] = attrs
	return attrs
}

// actionsAttrs returns the computePodActions event's attributes for the actions' text:
// "none", what almost every sync decides, shares one slice made once (nothing writes a
// recorded event's attributes).
func (m *Manager) actionsAttrs(text string) []trace.Attr {
	if text == "none" {
		if m.noActionsAttrs == nil {
			m.noActionsAttrs = []trace.Attr{{Key: "actions", Value: text}}
		}
		return m.noActionsAttrs
	}
	return []trace.Attr{{Key: "actions", Value: text}}
}

// podSync is one SyncPod in flight. Its steps run in upstream's order: kill the pod or the
// containers computePodActions names, reset the containers (RestartAllContainers), remove
// old init container instances, create the sandbox, start the init containers, then the
// regular ones. A step that calls the runtime resumes the next from the call's callback;
// a step with nothing to do goes straight on, so a sync that decides "nothing to do" runs
// through every step without allocating. The struct lives as long as the sync: nothing
// outside it holds a step, and done is called exactly once, with &result (which done
// does not keep). A sync that finishes leaves its struct to the next (podSync.finish).
type podSync struct {
	m         *Manager
	pod       *corev1.Pod
	podKey    string // container.Key(pod), SyncPod's podKey
	podStatus *container.PodStatus
	backOff   *flowcontrol.Backoff
	actions   PodActions
	kills     []ContainerToKill // actions.ContainersToKill in container ID order
	sandboxID string
	// removeInit are the init container instances removed before the sandbox step.
	removeInit []string
	result     PodSyncResult
	done       func(*PodSyncResult)
	// finished says done was called.
	finished bool
	// regular is the regular container being started (its place in
	// actions.ContainersToStart), and regularDoneFn, bound once, its start's answer.
	regular       int
	regularDoneFn func(error)
	// starting is the container start in flight (see containerStart); kept by reset.
	starting containerStart
	// startBuf is the room computePodActions fills ContainersToStart in: the array of a
	// finished sync's actions.ContainersToStart, which nothing reads any more.
	startBuf []int
}

// reset makes ps a new sync of pod, keeping what a finished sync leaves for the next one
// to reuse: the bound regularDoneFn, the room of its result (the result list's array and
// the results' slots), startBuf and starting (its bound steps; start sets the rest). A
// podSync is reset only before its first sync or once its sync has finished
// (podSync.finish): done has returned, and neither it nor anything it called keeps the
// result, its SyncResults or the actions' lists, so the next sync may write over them. It sets every other field but actions (which SyncPod's podActions
// writes in full) one by one, rather than copying a whole new struct over ps: a field
// added to podSync must be reset here.
func (ps *podSync) reset(m *Manager, pod *corev1.Pod, podKey string, podStatus *container.PodStatus, backOff *flowcontrol.Backoff, done func(*PodSyncResult)) {
	results, slots := ps.result.SyncResults, ps.result.slots
	clear(results)
	clear(slots)
	if ps.regularDoneFn == nil {
		ps.regularDoneFn = ps.regularDone
	}
	if slots == nil && results != nil {
		// The first reuse of a sync that acted: room for the results of a sync that
		// starts a container or two, as a crash-looping pod's do at every sync.
		slots = make([]SyncResult, 0, 2)
	}
	ps.m, ps.pod, ps.podKey, ps.podStatus, ps.backOff, ps.done = m, pod, podKey, podStatus, backOff, done
	ps.kills, ps.sandboxID, ps.removeInit = nil, "", nil
	ps.result.SyncResults, ps.result.SyncError, ps.result.slots = results[:0], nil, slots[:0]
	ps.finished, ps.regular = false, 0
}

// maxSpareSyncs bounds Manager.spareSyncs.
const maxSpareSyncs = 16

// finish ends the sync: done gets its result. Once done has returned nothing refers to ps
// any more, whether the sync ran to its end within SyncPod (a periodic sync with nothing
// to do) or later, from a runtime callback (a container start): finish is the last step
// of every chain of steps, so each step the sync handed out has run, and done keeps
// neither the result nor its lists. So the next SyncPod may reuse ps (Manager.spareSyncs;
// reset keeps this sync's room for results and actions). A sync whose steps are dropped
// with its context never finishes, and is never reused.
func (ps *podSync) finish() {
	ps.finished = true
	ps.done(&ps.result)
	if m := ps.m; len(m.spareSyncs) < maxSpareSyncs {
		m.spareSyncs = append(m.spareSyncs, ps)
	}
}

// podKilled follows the whole-pod kill: a pod that gets a new sandbox starts over, its
// init container instances purged.
func (ps *podSync) podKilled(kr *PodSyncResult) {
	ps.result.SyncResults = append(ps.result.SyncResults, kr.SyncResults...)
	if kr.Error() != nil {
		ps.finish()
		return
	}
	if ps.actions.CreateSandbox {
		ps.removeInit = initInstancesToRemove(ps.pod, ps.podStatus, 0)
	}
	ps.removeInitInstance(0)
}

// killContainer stops the i-th container to kill, in container ID order; a failed kill
// ends the sync.
func (ps *podSync) killContainer(i int) {
	if i == len(ps.kills) {
		ps.resetContainer(0)
		return
	}
	k := ps.kills[i]
	ps.m.killContainer(ps.pod, k.ID, k.Name, k.Container, k.Message, k.Reason, nil, func(err error) {
		if err != nil {
			ps.result.add(KillContainer, k.Name, ErrKillContainer, err.Error())
			ps.finish()
			return
		}
		ps.result.add(KillContainer, k.Name, nil, "")
		ps.killContainer(i + 1)
	})
}

// resetContainer is SyncPod's RestartAllContainers step: each instance in turn is killed
// if it still runs, with no grace period (which killContainer raises to its 2s floor, and
// which skips the preStop hook), then removed with its logs kept, so that its next instance
// continues the restart count. A failed kill or removal ends the sync. After the last, the
// init containers are pruned: all but the newest exited instance of each is removed, so
// that restarts do not pile them up.
func (ps *podSync) resetContainer(i int) {
	reset := ps.actions.ContainersToReset
	if i == len(reset) || !ps.m.Restart.RestartAll() {
		ps.removeInit = initInstancesToRemove(ps.pod, ps.podStatus, 1)
		ps.removeInitInstance(0)
		return
	}
	r := reset[i]
	remove := func() {
		ps.m.runtime.RemoveContainerKeepLogs(r.ID, func(err error) {
			if err != nil {
				ps.result.add(RemoveContainer, r.Name, ErrRemoveContainer, err.Error())
				ps.finish()
				return
			}
			ps.result.add(RemoveContainer, r.Name, nil, "")
			ps.resetContainer(i + 1)
		})
	}
	if !r.Kill {
		remove()
		return
	}
	zero := int64(0)
	ps.m.killContainer(ps.pod, r.ID, r.Name, r.Container, "killing", ReasonRestartAllContainers, &zero, func(err error) {
		if err != nil {
			ps.result.add(RemoveContainer, r.Name, ErrKillContainer, err.Error())
			ps.finish()
			return
		}
		remove()
	})
}

// removeInitInstance removes the i-th of removeInit (its error is ignored), then creates
// the sandbox after the last.
func (ps *podSync) removeInitInstance(i int) {
	if i == len(ps.removeInit) {
		ps.createSandbox()
		return
	}
	ps.m.runtime.RemoveContainer(ps.removeInit[i], func(error) { ps.removeInitInstance(i + 1) })
}

func (ps *podSync) createSandbox() {
	ps.sandboxID = ps.actions.SandboxID
	if !ps.actions.CreateSandbox {
		ps.startInitContainer(0)
		return
	}
	pod := ps.pod
	ps.m.runtime.RunPodSandbox(pod, ps.actions.Attempt, func(id string, err error) {
		if err != nil {
			ps.result.add(CreatePodSandbox, string(pod.UID), ErrCreatePodSandbox, fmt.Sprintf("Failed to create pod sandbox: %v", err))
			ps.finish()
			return
		}
		ps.result.add(CreatePodSandbox, string(pod.UID), nil, "")
		ps.sandboxID = id
		// The new sandbox starts from scratch: every container needs a fresh instance.
		old := ps.podStatus
		ps.podStatus = &container.PodStatus{ID: old.ID, Name: old.Name, Namespace: old.Namespace,
			ContainerStatuses: old.ContainerStatuses, SandboxStatuses: old.SandboxStatuses}
		ps.startInitContainer(0)
	})
}

// startInitContainer starts the i-th init container to start; a regular init container
// that fails to start stops the sync.
func (ps *podSync) startInitContainer(i int) {
	idx := ps.actions.InitContainersToStart
	if i == len(idx) {
		ps.startRegularContainer(0)
		return
	}
	c := &ps.pod.Spec.InitContainers[idx[i]]
	ps.m.start(&ps.starting, ps.pod, ps.podKey, ps.podStatus, ps.backOff, ps.sandboxID, c, "init container", &ps.result, func(err error) {
		if err != nil && !IsRestartableInitContainer(c) {
			ps.finish()
			return
		}
		ps.startInitContainer(i + 1)
	})
}

func (ps *podSync) startRegularContainer(i int) {
	idx := ps.actions.ContainersToStart
	if i == len(idx) {
		ps.finish()
		return
	}
	c := &ps.pod.Spec.Containers[idx[i]]
	// One start at a time: ps.regular holds until regularDone, which moves to the next.
	ps.regular = i
	ps.m.start(&ps.starting, ps.pod, ps.podKey, ps.podStatus, ps.backOff, ps.sandboxID, c, "container", &ps.result, ps.regularDoneFn)
}

// regularDone is the answer of the start of regular container ps.regular (any error is in
// the result): start the next.
func (ps *podSync) regularDone(error) { ps.startRegularContainer(ps.regular + 1) }

// start is one container start: the back-off check, then startContainer (cs's steps).
// cs is the podSync's containerStart, free: a sync starts one container at a time.
func (m *Manager) start(cs *containerStart, pod *corev1.Pod, podKey string, podStatus *container.PodStatus, backOff *flowcontrol.Backoff, sandboxID string, c *corev1.Container, kind string, result *PodSyncResult, done func(error)) {
	inBackOff, msg, startAttrs, err := m.decideBackOff(pod, c, podStatus, backOff, kind)
	if inBackOff {
		result.add(StartContainer, c.Name, err, msg)
		done(err)
		return
	}
	if cs.imageReadyFn == nil {
		cs.imageReadyFn, cs.createdFn, cs.startedFn, cs.startDoneFn = cs.imageReady, cs.created, cs.started, cs.startDone
	}
	cs.m, cs.pod, cs.podKey, cs.podStatus, cs.sandboxID, cs.c = m, pod, podKey, podStatus, sandboxID, c
	cs.startAttrs, cs.result, cs.done, cs.id = startAttrs, result, done, ""
	m.startContainer(cs)
}

// containerStart is a podSync's container start in flight (upstream startContainer and
// the answer the sync waits for), its steps bound once per podSync. A sync starts one
// container at a time (each start's answer moves it on to the next), so its one
// containerStart serves each in turn: a step reads what it needs of cs before it calls
// the next, which may already be the next start's.
type containerStart struct {
	m          *Manager
	pod        *corev1.Pod
	podKey     string
	podStatus  *container.PodStatus
	sandboxID  string
	c          *corev1.Container
	startAttrs []trace.Attr // the KindStarted event's attributes
	result     *PodSyncResult
	done       func(error)
	id         string // the container created

	imageReadyFn func(msg string, err error)
	createdFn    func(id string, err error)
	startedFn    func(err error)
	startDoneFn  func(msg string, err error)
}

// startDone is the start's answer: its result and its event, then done.
func (cs *containerStart) startDone(msg string, err error) {
	m, c, done := cs.m, cs.c, cs.done
	if err != nil {
		cs.result.add(StartContainer, c.Name, err, msg)
		m.s.Record(&trace.Event{Kind: KindStartFailed, Pod: cs.podKey, Container: c.Name,
			Attrs: []trace.Attr{{Key: "reason", Value: err.Error()}, {Key: "message", Value: msg}}})
		done(err)
		return
	}
	cs.result.add(StartContainer, c.Name, nil, "")
	m.s.Record(&trace.Event{Kind: KindStarted, Pod: cs.podKey, Container: c.Name, Attrs: cs.startAttrs})
	done(nil)
}

// doBackOff holds back a container whose last instance exited within the current
// crash-loop back-off window (upstream doBackOff).
func (m *Manager) doBackOff(pod *corev1.Pod, c *corev1.Container, podStatus *container.PodStatus, backOff *flowcontrol.Backoff) (bool, string, error) {
	in, msg, _, err := m.decideBackOff(pod, c, podStatus, backOff, "")
	return in, msg, err
}

// decideBackOff is doBackOff with the attributes of the KindStarted event of a container
// it lets start, of the kind given ("" for none): the kind, then the reason it decided
// by: no exited instance to back off from (a first start, or a restart after the kubelet
// killed the container in this same sync), or a back-off started or extended from the
// last exit.
func (m *Manager) decideBackOff(pod *corev1.Pod, c *corev1.Container, podStatus *container.PodStatus, backOff *flowcontrol.Backoff, kind string) (bool, string, []trace.Attr, error) {
	var last *container.Status
	for _, s := range podStatus.ContainerStatuses {
		if s.Name == c.Name && s.State == container.StateExited {
			last = s
			break
		}
	}
	if last == nil {
		return false, "", m.noExitedAttrs(kind), nil
	}
	key := m.stableKey(pod, c)
	now := m.s.Now()
	if backOff.IsInBackOffSince(key, last.FinishedAt, now) {
		current := backOff.Get(key)
		hold := m.backOffMemo[key]
		if hold == nil || !hold.finishedAt.Equal(last.FinishedAt) || hold.current != current {
			if hold == nil {
				if len(m.backOffMemo) >= backOffMemoLimit || m.backOffMemo == nil {
					m.backOffMemo = make(map[string]*backOffHold)
				}
				hold = &backOffHold{}
				m.backOffMemo[key] = hold
			}
			m.buildBackOffHold(hold, key, pod, c, last.FinishedAt, current)
		}
		if m.skipBackOff {
			m.s.Skip()
		} else {
			if hold.reason == nil && m.keepReasons() {
				hold.reason = backOffReason(hold, key, c.Name)
			}
			m.s.Record(&trace.Event{Kind: KindBackOff, Pod: hold.podKey, Container: c.Name, Attrs: hold.attrs, Reason: hold.reason})
		}
		return true, hold.msg, nil, hold.err
	}
	backOff.Next(key, last.FinishedAt, now)
	if kind == "" {
		return false, "", nil, nil
	}
	next := backOff.Get(key)
	return false, "", []trace.Attr{{Key: "type", Value: kind}, {Key: "reason", Value: "backOffStarted"}, {Key: "backoff", Value: next.String()},
		{Key: "backoffFrom", Value: last.FinishedAt.Sub(sim.Epoch).String()}}, nil
}

// noExitedAttrs is decideBackOff's attributes of a start of the kind given with no exited
// instance, made once per kind and shared by every such event (nothing writes a recorded
// event's attributes).
func (m *Manager) noExitedAttrs(kind string) []trace.Attr {
	if kind == "" {
		return nil
	}
	for _, k := range m.noExited {
		if k.kind == kind {
			return k.attrs
		}
	}
	attrs := []trace.Attr{{Key: "type", Value: kind}, {Key: "reason", Value: "noExitedInstance"}}
	m.noExited = append(m.noExited, kindAttrs{kind, attrs})
	return attrs
}

// kindAttrs are the attributes of one kind of container start.
type kindAttrs struct {
	kind  string
	attrs []trace.Attr
}

// buildBackOffHold fills hold with what decideBackOff records and returns for the container
// of key held back in the window of current from finishedAt.
func (m *Manager) buildBackOffHold(hold *backOffHold, key string, pod *corev1.Pod, c *corev1.Container, finishedAt time.Time, current time.Duration) {
	expiry := finishedAt.Add(current)
	// Built by concatenation, each value formatted once. The texts are those of fmt's %s
	// (a Duration's String) and %.3f (strconv 'f' with precision 3).
	backoffText, untilText := current.String(), expiry.Sub(sim.Epoch).String()
	msg := "back-off " + backoffText + " restarting failed container=" + c.Name + " pod=" + pod.Name + "_" + pod.Namespace + "(" + string(pod.UID) + ")"
	hold.finishedAt, hold.current = finishedAt, current
	hold.podKey = container.Key(pod)
	hold.msg = msg
	hold.attrs = []trace.Attr{{Key: "backoff", Value: backoffText}, {Key: "until", Value: untilText}}
	hold.reason = nil // made when first recorded (backOffReason), if reasons are kept
	hold.err = &BackoffError{Msg: msg, Expiry: expiry, hold: hold}
	hold.step, hold.alone = nil, nil
}

// keepReasons reports whether recorded events keep their Reason (always, for a Manager
// made without NewManager).
func (m *Manager) keepReasons() bool { return m.reasons == nil || m.reasons.Reasons() }

// backOffReason is the reason of the KindBackOff event of hold, the hold of the container
// name of key (its attributes hold the texts of the back-off and its expiry).
func backOffReason(hold *backOffHold, key, name string) *trace.Reason {
	backoffText, untilText := hold.attrs[0].Value, hold.attrs[1].Value
	expiry := hold.finishedAt.Add(hold.current)
	return trace.BecauseEach("doBackOff", name+"'s last run ended inside its back-off window (key "+key+", "+backoffText+" from its exit): SyncPod skips the start until "+strconv.FormatFloat(expiry.Sub(sim.Epoch).Seconds(), 'f', 3, 64)+"s",
		trace.Attr{Key: "key", Value: key}, trace.Attr{Key: "backoff", Value: backoffText}, trace.Attr{Key: "until", Value: untilText})
}

// podMemoryLimit is the pod cgroup's memory limit when the pod declares a pod-level memory
// limit and the PodLevelResources gate is on (upstream's pod cgroup takes the pod-level
// limit, plus overhead); 0 otherwise. Without one, the pod cgroup's limit is the sum of the
// containers' limits, which never binds before a container's own does, so it is not set.
func podMemoryLimit(pod *corev1.Pod, podLevelResources bool) int64 {
	if !podLevelResources || pod.Spec.Resources == nil {
		return 0
	}
	if _, ok := pod.Spec.Resources.Limits[corev1.ResourceMemory]; !ok {
		return 0
	}
	q := upstream.PodLimits(pod, true)[corev1.ResourceMemory]
	return q.Value()
}

// startContainer pulls the image if needed, then creates and starts the container
// (upstream startContainer).
func (m *Manager) startContainer(cs *containerStart) {
	m.images.EnsureImageExists(cs.pod, cs.c, cs.imageReadyFn)
}

func (cs *containerStart) imageReady(msg string, err error) {
	if err != nil {
		cs.startDone(msg, err)
		return
	}
	m, pod, c := cs.m, cs.pod, cs.c
	if m.podState.IsPodTerminationRequested(pod.UID) {
		cs.startDone(errSyncCancelled.Error(), ErrCreateContainer)
		return
	}
	// The runtime's newest instance gives the restart count; without one, the log files
	// a RestartAllContainers reset kept do.
	restartCount := m.runtime.LogRestartCount(pod.UID, c.Name)
	if s := cs.podStatus.FindContainerStatusByName(c.Name); s != nil {
		restartCount = s.RestartCount + 1
	}
	cfg := cri.ContainerConfig{OOMScoreAdj: oom.GetContainerOOMScoreAdjust(pod, c, m.memoryCapacity, m.PodLevelResources)}
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		cfg.MemoryLimit = q.Value()
	}
	cfg.PodMemoryLimit = podMemoryLimit(pod, m.PodLevelResources)
	m.runtime.CreateContainer(cs.sandboxID, c, restartCount, cfg, cs.createdFn)
}

func (cs *containerStart) created(id string, err error) {
	if err != nil {
		cs.startDone(err.Error(), ErrCreateContainer)
		return
	}
	if cs.m.podState.IsPodTerminationRequested(cs.pod.UID) {
		cs.startDone(errSyncCancelled.Error(), ErrRunContainer)
		return
	}
	cs.id = id
	cs.m.runtime.StartContainer(id, cs.startedFn)
}

func (cs *containerStart) started(err error) {
	if err != nil {
		cs.startDone(err.Error(), ErrRunContainer)
		return
	}
	cs.m.runPostStart(cs.pod, cs.c, cs.id, cs.startDoneFn)
}

// setTerminationGracePeriod is the grace for a kill without an explicit override.
func setTerminationGracePeriod(pod *corev1.Pod, c *corev1.Container, reason KillReason) int64 {
	g, _ := terminationGracePeriod(pod, c, reason)
	return g
}

// terminationGracePeriod is setTerminationGracePeriod with the field it came from, for the
// trace.
func terminationGracePeriod(pod *corev1.Pod, c *corev1.Container, reason KillReason) (int64, string) {
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		return *pod.DeletionGracePeriodSeconds, "deletionGracePeriodSeconds"
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		if c != nil {
			if reason == ReasonStartupProbe && c.StartupProbe != nil && c.StartupProbe.TerminationGracePeriodSeconds != nil {
				return *c.StartupProbe.TerminationGracePeriodSeconds, "startupProbe.terminationGracePeriodSeconds"
			}
			if reason == ReasonLivenessProbe && c.LivenessProbe != nil && c.LivenessProbe.TerminationGracePeriodSeconds != nil {
				return *c.LivenessProbe.TerminationGracePeriodSeconds, "livenessProbe.terminationGracePeriodSeconds"
			}
		}
		return *pod.Spec.TerminationGracePeriodSeconds, "terminationGracePeriodSeconds"
	}
	return minimumGracePeriodSec, "minimum"
}

// killContainer stops one container: preStop hook first (if the spec has one), then the
// stop signal with what is left of the grace period, at least 2s (upstream killContainer).
func (m *Manager) killContainer(pod *corev1.Pod, id, name string, c *corev1.Container, message string, reason KillReason, gracePeriodOverride *int64, done func(error)) {
	grace, source := terminationGracePeriod(pod, c, reason)
	if gracePeriodOverride != nil {
		grace, source = *gracePeriodOverride, "the pod worker"
		if reason == ReasonRestartAllContainers {
			source = "RestartAllContainers"
		}
	}
	if message == "" {
		message = fmt.Sprintf("Stopping container %s", name)
	}
	attrs := []trace.Attr{{Key: "message", Value: message}, {Key: "grace", Value: fmt.Sprintf("%ds", grace)}, {Key: "reason", Value: string(reason)},
		{Key: "graceSource", Value: source}}
	if grace < minimumGracePeriodSec {
		attrs = append(attrs, trace.Attr{Key: "graceRaisedTo", Value: fmt.Sprintf("%ds", minimumGracePeriodSec)})
	}
	why := graceReason(grace, gracePeriodOverride != nil)
	if reason == ReasonRestartAllContainers {
		why = resetGraceReason(grace)
	}
	m.s.Record(&trace.Event{Kind: KindKilling, Pod: container.Key(pod), Container: name, Attrs: attrs, Reason: why})
	stop := func(grace int64) {
		if grace < minimumGracePeriodSec {
			grace = minimumGracePeriodSec
		}
		m.runtime.StopContainer(id, time.Duration(grace)*time.Second, done)
	}
	if c != nil && c.Lifecycle != nil && c.Lifecycle.PreStop != nil && grace > 0 {
		hook := m.runtime.PreStopDuration(id)
		limit := time.Duration(grace) * time.Second
		wait := hook
		if wait > limit {
			wait = limit
		}
		m.s.Record(&trace.Event{Kind: "preStop", Pod: container.Key(pod), Container: name, Dur: wait})
		m.s.Continue(wait, func() { stop(grace - int64(wait.Seconds())) })
		return
	}
	stop(grace)
}

// runPostStart runs the container's postStart hook, if its spec has one, holding the sync
// until it returns (upstream startContainer's step 4). A failed hook kills the container
// (reason FailedPostStartHook, the pod's grace period, its preStop hook first) and fails the
// start with PostStartHookError; the restart policy decides what follows.
func (m *Manager) runPostStart(pod *corev1.Pod, c *corev1.Container, id string, done func(msg string, err error)) {
	if c.Lifecycle == nil || c.Lifecycle.PostStart == nil {
		done("", nil)
		return
	}
	took, fail := m.runtime.PostStartHook(id)
	m.s.Record(&trace.Event{Kind: KindPostStart, Pod: container.Key(pod), Container: c.Name, Dur: took,
		Attrs: []trace.Attr{{Key: "failed", Value: strconv.FormatBool(fail)}}})
	m.s.Continue(took, func() {
		if !fail {
			done("", nil)
			return
		}
		msg := fmt.Sprintf("PostStartHook for Container %q in Pod %q failed", c.Name, pod.Name)
		m.killContainer(pod, id, c.Name, c, msg, ReasonFailedPostStart, nil, func(error) {
			done(msg, ErrPostStartHook)
		})
	})
}

// KillPod stops every running container of the pod and then its sandboxes
// (upstream KillPod / killPodWithSyncResult). gracePeriodOverride replaces each
// container's own grace period.
func (m *Manager) KillPod(pod *corev1.Pod, runningPod *container.Pod, gracePeriodOverride *int64, done func(error)) {
	m.killPodWithSyncResult(pod, runningPod, gracePeriodOverride, func(r *PodSyncResult) { done(r.Error()) })
}

func specByName(pod *corev1.Pod, name string) *corev1.Container {
	if pod == nil {
		return nil
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	return nil
}

func (m *Manager) killPodWithSyncResult(pod *corev1.Pod, runningPod *container.Pod, gracePeriodOverride *int64, done func(*PodSyncResult)) {
	result := &PodSyncResult{}
	if pod == nil {
		// A runtime pod no config knows (housekeeping's orphan kill): upstream rebuilds the
		// pod and each container's spec (its preStop hook included) from the containers'
		// labels (restoreSpecsFromContainerLabels); the runtime keeps them here.
		pod = &corev1.Pod{}
		pod.UID, pod.Name, pod.Namespace = runningPod.ID, runningPod.Name, runningPod.Namespace
		for _, c := range runningPod.Containers {
			if spec := m.runtime.ContainerSpec(c.ID); spec != nil {
				pod.Spec.Containers = append(pod.Spec.Containers, *spec)
			}
		}
	}
	var regular, sidecars []*container.Container
	for _, c := range runningPod.Containers {
		if spec := specByName(pod, c.Name); spec != nil && IsRestartableInitContainer(spec) {
			sidecars = append(sidecars, c)
		} else {
			regular = append(regular, c)
		}
	}
	// Sidecars stop after the regular containers, in reverse spec order.
	reverseSpecOrder(pod, sidecars)
	start := m.s.Elapsed()
	stopSandboxes := func() {
		var next func(i int)
		next = func(i int) {
			if i == len(runningPod.Sandboxes) {
				done(result)
				return
			}
			sb := runningPod.Sandboxes[i]
			m.runtime.StopPodSandbox(sb.ID, func(err error) {
				if err != nil {
					result.add(KillPodSandbox, string(runningPod.ID), ErrKillPodSandbox, err.Error())
				} else {
					result.add(KillPodSandbox, string(runningPod.ID), nil, "")
				}
				next(i + 1)
			})
		}
		next(0)
	}
	killOne := func(c *container.Container, override *int64, then func()) {
		m.killContainer(pod, c.ID, c.Name, specByName(pod, c.Name), "", "", override, func(err error) {
			if err != nil {
				result.add(KillContainer, c.Name, ErrKillContainer, err.Error())
			} else {
				result.add(KillContainer, c.Name, nil, "")
			}
			then()
		})
	}
	var killSidecar func(i int)
	killSidecar = func(i int) {
		if i == len(sidecars) {
			stopSandboxes()
			return
		}
		override := gracePeriodOverride
		if override != nil {
			left := *override - int64((m.s.Elapsed() - start).Seconds())
			override = &left
		}
		killOne(sidecars[i], override, func() { killSidecar(i + 1) })
	}
	if len(regular) == 0 {
		killSidecar(0)
		return
	}
	// The regular containers stop in parallel; the sync waits for all of them.
	pending := len(regular)
	for _, c := range regular {
		killOne(c, gracePeriodOverride, func() {
			pending--
			if pending == 0 {
				killSidecar(0)
			}
		})
	}
}

func reverseSpecOrder(pod *corev1.Pod, cs []*container.Container) {
	index := map[string]int{}
	if pod != nil {
		for i, c := range pod.Spec.InitContainers {
			index[c.Name] = i
		}
	}
	for i := 0; i < len(cs); i++ {
		for j := i + 1; j < len(cs); j++ {
			if index[cs[j].Name] > index[cs[i].Name] {
				cs[i], cs[j] = cs[j], cs[i]
			}
		}
	}
}

// initInstancesToRemove lists, newest first, the exited instances of the pod's init
// containers beyond the newest keep of each: SyncPod prunes them to one before it starts
// containers (upstream pruneInitContainersBeforeStart), so that restarts do not pile them
// up, and purges them all (keep 0) when the pod gets a new sandbox and starts over
// (purgeInitContainers). Nil when there is nothing to remove, without allocating.
func initInstancesToRemove(pod *corev1.Pod, podStatus *container.PodStatus, keep int) []string {
	inits := pod.Spec.InitContainers
	if len(inits) == 0 {
		return nil
	}
	// seen counts each init container's instances so far, by its index in the spec.
	var buf [8]int
	seen := buf[:0]
	for range inits {
		seen = append(seen, 0)
	}
	var remove []string
	for _, s := range podStatus.ContainerStatuses {
		if s.State == container.StateRunning {
			continue
		}
		i := 0
		for i < len(inits) && inits[i].Name != s.Name {
			i++
		}
		if i == len(inits) {
			continue // not an init container
		}
		seen[i]++
		if seen[i] > keep {
			remove = append(remove, s.ID)
		}
	}
	return remove
}

// podActionsReason explains a killPod that has nothing to kill: computePodActions asks for
// one whenever it must create a sandbox, a brand-new pod's first sync included.
func podActionsReason(killPod bool, podStatus *container.PodStatus) *trace.Reason {
	if !killPod || podStatus == nil || len(podStatus.SandboxStatuses) > 0 {
		return nil
	}
	return trace.Because("killPodBeforeSandbox", "computePodActions asks for killPod whenever it must create a sandbox; a pod with no sandbox yet has nothing to stop, so the kill returns at once")
}

// resetGraceReason explains the grace of a kill by a RestartAllContainers reset.
func resetGraceReason(grace int64) *trace.Reason {
	text := fmt.Sprintf("grace %ds: a RestartAllContainers reset kills every running container with no grace period and no preStop hook", grace)
	if grace < minimumGracePeriodSec {
		text += fmt.Sprintf("; StopContainer is given at least %ds (minimumGracePeriodInSeconds)", minimumGracePeriodSec)
	}
	return trace.BecauseEach("gracePeriod", text, trace.Attr{Key: "grace", Value: strconv.FormatInt(grace, 10)},
		trace.Attr{Key: "override", Value: "true"})
}

// graceReason says where a container's grace period came from and how StopContainer
// clamps it.
func graceReason(grace int64, override bool) *trace.Reason {
	source := "setTerminationGracePeriod: the pod's deletion grace period, else the probe's or the pod's terminationGracePeriodSeconds"
	if override {
		source = "the pod worker's override (a kill's grace period: eviction, deletion, or housekeeping)"
	}
	text := fmt.Sprintf("grace %ds from %s", grace, source)
	if grace < minimumGracePeriodSec {
		text += fmt.Sprintf("; StopContainer is given at least %ds (minimumGracePeriodInSeconds)", minimumGracePeriodSec)
	}
	return trace.BecauseEach("gracePeriod", text, trace.Attr{Key: "grace", Value: strconv.FormatInt(grace, 10)},
		trace.Attr{Key: "override", Value: strconv.FormatBool(override)})
}

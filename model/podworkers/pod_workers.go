package podworkers

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/internal/digits"
	"nodesim/model/container"
	"nodesim/sim"
	"nodesim/trace"
)

// podSyncStatus is one pod's worker state (upstream podSyncStatus).
type podSyncStatus struct {
	// What housekeeping reads of every worker on every pass (SyncKnownPods), first and
	// together, so that a pass over many workers touches little memory of each.
	terminatingAt    time.Time
	terminatedAt     time.Time
	restartRequested bool
	// hasConfig says activeUpdate holds a pod spec. Set by mergeLastUpdate, the only writer
	// of activeUpdate, whose Pod is never cleared once set.
	hasConfig bool
	static    int8 // 1 static pod, -1 not, 0 not looked at yet

	key      string // namespace/name, for the trace
	fullname string
	// cacheEntry is the worker's handle on its pod's pod cache entry, so that a round's
	// GetNewerThan does not look the pod up by UID (the cache keeps it valid).
	cacheEntry container.CacheHandle

	working       bool
	pendingUpdate *UpdatePodOptions
	activeUpdate  *UpdatePodOptions
	// updates is where UpdatePod stores the pending update (see pendingSlot).
	updates [2]UpdatePodOptions

	syncedAt    time.Time
	startedAt   time.Time
	gracePeriod int64

	// handlerState is the SyncHandler's own state of the pod (see HandlerState).
	handlerState HandlerState

	notifyPostTerminating []func()
	statusPostTerminating []func(*corev1.PodStatus)

	startedTerminating bool
	deleted            bool
	evicted            bool
	finished           bool
	observedRuntime    bool

	// the worker process, and its own random stream (requeue jitter): one per pod, so that
	// adding a pod does not reshuffle the others' draws
	rng       *sim.RNG
	clk       *sim.Clock
	doorbell  bool // the capacity-1 channel holds a value
	scheduled bool // a round is scheduled to run
	// takeDoorbell runs the worker's next round (scheduleRound's event). It depends only on
	// the worker, so it is made once, on the first round, and reused by every later one.
	takeDoorbell func()
	inRound      bool
	lastSyncTime time.Time
	closed       bool
	// The duration of the worker's last successful sync and its syncEnd attributes (see
	// syncEndAttrs).
	syncEndDur  time.Duration
	syncEndText []trace.Attr
	// The same for the worker's last failed or terminal sync: its duration, whether it
	// failed and with what text, isTerminal, and the attributes made for them (see
	// syncEndFailedAttrs).
	syncFailDur                      time.Duration
	syncFailErr                      string
	syncFailHasErr, syncFailTerminal bool
	syncFailText                     []trace.Attr

	// ctx is the context the worker's syncs run in (upstream podSyncStatus.ctx): reused
	// round after round until UpdatePod cancels it, which drops every pending step of the
	// sync in flight, its CRI calls included.
	ctx *sim.Lifetime
	// round is the round in flight, for finishing it when its sync is cancelled: nil
	// between rounds, else &rounds.
	round *round
	// rounds is the worker's round, made ready for each round in turn (a worker runs one
	// at a time). Reusing it is safe because nothing of a round outlives it: a round that
	// finishes has had every answer it waited for, and the steps still pending of a
	// cancelled round are dropped with its context, which the next round does not share.
	rounds round
}

// round is one pass of podWorkerLoop in flight. Its steps are its methods, so that the
// callbacks it hands out (to the sim, the pod cache and the sync function) are method
// values of the worker's one round, bound once, rather than a closure each per round.
type round struct {
	p        *PodWorkers
	uid      types.UID
	st       *podSyncStatus
	update   *UpdatePodOptions
	workType WorkType
	ctx      *sim.Lifetime
	syncing  bool          // the sync function was called (it is not waiting for the cache)
	start    time.Duration // when the sync function was called
	// answered says GetNewerThan has answered; waited, that it did not answer at once.
	answered, waited bool
	// seq counts the worker's rounds, telling a round from the one before it (the round
	// struct is the same).
	seq uint64
	// The round's steps as callbacks, bound once per worker (see podSyncStatus.rounds).
	runFn         func()
	cacheReadyFn  func(*container.PodStatus, error)
	doneFn        func(error)
	syncPodDoneFn func(bool, error)
}

func (s *podSyncStatus) IsWorking() bool              { return s.working }
func (s *podSyncStatus) IsTerminationRequested() bool { return !s.terminatingAt.IsZero() }
func (s *podSyncStatus) IsTerminationStarted() bool   { return s.startedTerminating }
func (s *podSyncStatus) IsTerminated() bool           { return !s.terminatedAt.IsZero() }
func (s *podSyncStatus) IsFinished() bool             { return s.finished }
func (s *podSyncStatus) IsEvicted() bool              { return s.evicted }
func (s *podSyncStatus) IsDeleted() bool              { return s.deleted }
func (s *podSyncStatus) IsStarted() bool              { return !s.startedAt.IsZero() }

// WorkType is the worker's state.
func (s *podSyncStatus) WorkType() WorkType {
	if s.IsTerminated() {
		return TerminatedPod
	}
	if s.IsTerminationRequested() {
		return TerminatingPod
	}
	return SyncPodWork
}

// PodWorkers holds every pod's worker.
type PodWorkers struct {
	// terminationVersion counts the changes to what IsPodTerminationRequested and
	// IsPodKnownTerminated answer for any pod (a termination requested or finished, a
	// pod's state forgotten): admission rechecks its active pods only when it moved.
	terminationVersion uint64
	s                  *sim.Sim
	clk                *sim.Clock
	handler            SyncHandler
	workQueue          WorkQueue
	cache              *container.Cache
	resyncInterval     time.Duration
	backOffPeriod      time.Duration

	podsSynced      bool
	podSyncStatuses map[types.UID]*podSyncStatus

	startedStaticPodsByFullname        map[string]types.UID
	waitingToStartStaticPodsByFullname map[string][]types.UID

	syncOut map[types.UID]PodWorkerSync // SyncKnownPods' answer, valid until the next call
	// workerVersion counts the changes housekeeping reads that terminationVersion does not
	// (see StateVersion): a worker created, a restart requested, a worker given its first
	// pod spec.
	workerVersion uint64
	// What the previous SyncKnownPodsFunc left, for the next one to start from when
	// nothing it reads moved (see SyncKnownPodsFunc): whether syncOut may be reused, the
	// desired set's version it was given, StateVersion as it returned, and the workers it
	// acted on that are still there, in UID order.
	syncValid          bool
	syncDesiredVersion uint64
	syncStateVersion   uint64
	syncAct            []types.UID

	// resyncText is resyncInterval as requeue reasons print it; both are fixed at New.
	resyncText string
	// The reasons whose text never varies, made once at New and shared by every event
	// that states them: nothing that reads a recorded event changes its Reason.
	waitCacheReason, pendingUpdateReason *trace.Reason
	// textBuf is completeWorkText's scratch buffer for the requeue texts: only the string
	// made from it is kept, so the next requeue writes over it.
	textBuf []byte
	// requeueTexts, jitterReasons and attrs are where completeWorkText's resync reasons
	// and attributes are allocated, many to an allocation rather than a few per resync
	// (see trace.TextArena, trace.AttrArena and nextJitterReason).
	requeueTexts  trace.TextArena
	jitterReasons []jitterReason
	attrs         trace.AttrArena
	// updateTypeAttrs are the syncStart attributes of each update type, made at New.
	updateTypeAttrs [SyncPodKill + 1][]trace.Attr
	// zeroSyncEnd is the syncEnd attributes of a successful sync that took no time, shared
	// by every worker (see syncEndAttrs); nil until the first.
	zeroSyncEnd []trace.Attr
	// Whether anyone reads the events of the three kinds every sync records (see
	// sim.Sim.SetSkips), asked once at New: the run's answer never changes. An event of a
	// kind nobody reads is not built; Sim.Skip takes its sequence number instead.
	recordUpdatePod, recordSyncStart, recordRequeue bool
}

// New returns the pod workers. resyncInterval is the kubelet's syncFrequency.
func New(s *sim.Sim, handler SyncHandler, workQueue WorkQueue, cache *container.Cache, resyncInterval time.Duration) *PodWorkers {
	p := &PodWorkers{
		s: s, clk: s.Clock("podWorkers", sim.PriorityPodWorker), handler: handler, workQueue: workQueue,
		cache: cache, resyncInterval: resyncInterval, backOffPeriod: BackOffPeriod, resyncText: resyncInterval.String(),
		podSyncStatuses:                    map[types.UID]*podSyncStatus{},
		startedStaticPodsByFullname:        map[string]types.UID{},
		waitingToStartStaticPodsByFullname: map[string][]types.UID{},
		waitCacheReason:                    trace.Because("GetNewerThan", "a worker never syncs on a status older than its last sync: the next relist (or one of this pod) wakes it"),
		pendingUpdateReason:                trace.Because("pendingUpdate", "a pod worker keeps one pending update: this one replaces the update not yet started, which keeps its earlier start time (and a kill's grace period can only shorten)"),
	}
	for t := range p.updateTypeAttrs {
		p.updateTypeAttrs[t] = []trace.Attr{{Key: "update", Value: UpdateType(t).String()}}
	}
	p.recordUpdatePod, p.recordSyncStart, p.recordRequeue = s.Records(KindUpdatePod), s.Records(KindSyncStart), s.Records(KindRequeue)
	return p
}

func (p *PodWorkers) record(st *podSyncStatus, kind trace.Kind, name string, attrs ...trace.Attr) {
	p.recordBecause(st, kind, name, nil, attrs...)
}

// recordBecause records an event with the reason the worker decided what it shows. The
// event itself is lent to the recorder for the call only (the trace.Sink contract), so it
// lives on the stack; the caller's attributes are copied into a slice of their own, which
// a sink may keep, so that the variadic slice need not be allocated either.
func (p *PodWorkers) recordBecause(st *podSyncStatus, kind trace.Kind, name string, why *trace.Reason, attrs ...trace.Attr) {
	// Without attributes Attrs stays nil, as it was recorded before (slices.Clone of an
	// empty variadic slice is not nil).
	var shared []trace.Attr
	if len(attrs) > 0 {
		shared = slices.Clone(attrs)
	}
	p.recordShared(st, kind, name, why, shared)
}

// recordShared is recordBecause with attributes that are recorded as they are: the slice
// may be shared with other events, and nobody writes to it after it is made.
//
// The event's fields are set one by one on a zeroed event: the compiler builds a
// composite literal of this size in a temporary and copies it over (twenty-odd more
// instructions for each of the ~66,000 events a full-4h run records here).
func (p *PodWorkers) recordShared(st *podSyncStatus, kind trace.Kind, name string, why *trace.Reason, attrs []trace.Attr) {
	var ev trace.Event
	ev.Kind, ev.Name, ev.Reason, ev.Attrs = kind, name, why, attrs
	if st != nil {
		if st.clk != nil {
			ev.Track = st.clk.Track()
		}
		ev.Pod = st.key
	}
	p.s.Record(&ev)
}

// --- predicates (upstream's PodWorkers interface)

// TerminationVersion changes whenever IsPodTerminationRequested or IsPodKnownTerminated
// may answer differently for some pod.
func (p *PodWorkers) TerminationVersion() uint64 { return p.terminationVersion }

// StateVersion changes whenever a worker's state that housekeeping reads may have changed:
// a worker created or forgotten, its termination requested or finished, a restart
// requested, its first pod spec merged (what SyncKnownPods reports and acts on). Both
// counters only grow, so their sum moves whenever either does.
func (p *PodWorkers) StateVersion() uint64 { return p.terminationVersion + p.workerVersion }

// IsPodKnownTerminated reports whether the worker finished terminating the pod.
func (p *PodWorkers) IsPodKnownTerminated(uid types.UID) bool {
	if st, ok := p.podSyncStatuses[uid]; ok {
		return st.IsTerminated()
	}
	return false
}

// CouldHaveRunningContainers reports whether the pod's containers may still run.
func (p *PodWorkers) CouldHaveRunningContainers(uid types.UID) bool {
	if st, ok := p.podSyncStatuses[uid]; ok {
		return !st.IsTerminated()
	}
	return !p.podsSynced
}

// ShouldPodBeFinished reports whether the worker completed the pod.
func (p *PodWorkers) ShouldPodBeFinished(uid types.UID) bool {
	if st, ok := p.podSyncStatuses[uid]; ok {
		return st.IsFinished()
	}
	return p.podsSynced
}

// IsPodTerminationRequested reports whether termination was requested.
func (p *PodWorkers) IsPodTerminationRequested(uid types.UID) bool {
	if st, ok := p.podSyncStatuses[uid]; ok {
		return st.IsTerminationRequested()
	}
	return false
}

// ShouldPodContainersBeTerminating reports whether no new container may start.
func (p *PodWorkers) ShouldPodContainersBeTerminating(uid types.UID) bool {
	if st, ok := p.podSyncStatuses[uid]; ok {
		return st.IsTerminationStarted()
	}
	return p.podsSynced
}

// ShouldPodRuntimeBeRemoved reports whether the pod's runtime objects may be removed.
func (p *PodWorkers) ShouldPodRuntimeBeRemoved(uid types.UID) bool {
	if st, ok := p.podSyncStatuses[uid]; ok {
		return st.IsTerminated()
	}
	return p.podsSynced
}

// ShouldPodContentBeRemoved reports whether the pod's data may be removed.
func (p *PodWorkers) ShouldPodContentBeRemoved(uid types.UID) bool {
	if st, ok := p.podSyncStatuses[uid]; ok {
		return st.IsEvicted() || (st.IsDeleted() && st.IsTerminated())
	}
	return p.podsSynced
}

// State returns the worker's state for a pod, and whether the pod has a worker.
func (p *PodWorkers) State(uid types.UID) (WorkType, bool) {
	st, ok := p.podSyncStatuses[uid]
	if !ok {
		return SyncPodWork, false
	}
	return st.WorkType(), true
}

// --- UpdatePod

func isTerminalPhase(pod *corev1.Pod) bool {
	return pod != nil && (pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed)
}

// UpdatePod hands an update to the pod's worker, creating the worker if needed. It never
// blocks: the worker takes the update on its next round.
func (p *PodWorkers) UpdatePod(options UpdatePodOptions) { p.UpdatePodRef(nil, options) }

// WorkerRef is one pod's worker as UpdatePodRef last found it, kept by a caller that hands
// the same pod update after update (the kubelet keeps one with each desired pod), so that
// the worker is not looked up by UID each time. It is trusted only while its worker is not
// closed: a worker is closed before it is forgotten (removeTerminatedWorker,
// completeTerminatingRuntimePod) and never reopened, and only a forgotten worker's UID is
// given a new one, so an open worker is still the one podSyncStatuses holds for its UID;
// a closed one is looked up again. The zero value holds no worker.
type WorkerRef struct{ st *podSyncStatus }

// UpdatePodRef is UpdatePod with ref, the caller's WorkerRef for the pod's UID (nil for
// none): it is used instead of a lookup while it holds an open worker, and made to hold
// the worker the update went to.
func (p *PodWorkers) UpdatePodRef(ref *WorkerRef, options UpdatePodOptions) {
	// Runtime-only pods (orphans with no config) accept only kills.
	var isRuntimePod bool
	var uid types.UID
	var name, ns string
	if runningPod := options.RunningPod; runningPod != nil {
		if options.Pod == nil {
			if options.UpdateType != SyncPodKill {
				return
			}
			uid, ns, name = runningPod.ID, runningPod.Namespace, runningPod.Name
			isRuntimePod = true
		} else {
			options.RunningPod = nil
			uid, ns, name = options.Pod.UID, options.Pod.Namespace, options.Pod.Name
		}
	} else {
		uid, ns, name = options.Pod.UID, options.Pod.Namespace, options.Pod.Name
	}
	now := p.clk.Now()

	var status *podSyncStatus
	var ok bool
	if ref != nil && ref.st != nil && !ref.st.closed {
		status, ok = ref.st, true
	} else {
		status, ok = p.podSyncStatuses[uid]
	}
	if !ok {
		status = &podSyncStatus{syncedAt: now, fullname: name + "_" + ns, key: ns + "/" + name, cacheEntry: container.NewCacheHandle(uid)}
		// A terminal pod the runtime has nothing running for goes straight to terminated
		// (kubelet restart); one the runtime never saw is finished outright.
		if !isRuntimePod && isTerminalPhase(options.Pod) {
			if cached, err := p.cache.Get(uid); err == nil && cached != nil {
				running := len(cached.RunningContainerStatuses()) > 0
				for _, sb := range cached.SandboxStatuses {
					if sb.State == container.SandboxReady {
						running = true
					}
				}
				if !running {
					status.terminatingAt, status.terminatedAt, status.startedTerminating = now, now, true
					p.terminationVersion++
					if len(cached.ContainerStatuses) == 0 && len(cached.SandboxStatuses) == 0 {
						status.finished = true
					}
				}
			}
		}
		p.podSyncStatuses[uid] = status
		p.workerVersion++
	}
	if ref != nil {
		ref.st = status
	}
	if p.recordUpdatePod {
		var merged *trace.Reason
		if status.pendingUpdate != nil {
			merged = p.pendingUpdateReason
		}
		p.recordShared(status, KindUpdatePod, options.UpdateType.String(), merged, nil) // no attributes: nothing to clone
	} else {
		p.s.Skip()
	}

	if isRuntimePod {
		status.observedRuntime = true
		// With a known spec the kill carries that spec instead of the running pod, but it is
		// still an orphan kill: the pod is marked deleted, and ignored once terminated.
		switch {
		case status.pendingUpdate != nil && status.pendingUpdate.Pod != nil:
			options.Pod, options.MirrorPod, options.RunningPod = status.pendingUpdate.Pod, status.pendingUpdate.MirrorPod, nil
		case status.activeUpdate != nil && status.activeUpdate.Pod != nil:
			options.Pod, options.MirrorPod, options.RunningPod = status.activeUpdate.Pod, status.activeUpdate.MirrorPod, nil
		}
	}

	if ok && status.IsTerminationRequested() && options.UpdateType == SyncPodCreate {
		status.restartRequested = true
		p.workerVersion++
		return
	}
	if status.IsFinished() {
		return
	}

	var becameTerminating bool
	if !status.IsTerminationRequested() {
		switch {
		case isRuntimePod:
			status.deleted = true
			status.terminatingAt = now
			p.terminationVersion++
			becameTerminating = true
		case options.Pod.DeletionTimestamp != nil:
			status.deleted = true
			status.terminatingAt = now
			p.terminationVersion++
			becameTerminating = true
		case isTerminalPhase(options.Pod):
			status.terminatingAt = now
			p.terminationVersion++
			becameTerminating = true
		case options.UpdateType == SyncPodKill:
			if options.KillPodOptions != nil && options.KillPodOptions.Evict {
				status.evicted = true
			}
			status.terminatingAt = now
			p.terminationVersion++
			becameTerminating = true
		}
	}

	var wasGracePeriodShortened bool
	// grace is the kill's grace period decided here, recorded after the state change.
	var grace *gracePeriodDecision
	switch {
	case status.IsTerminated():
		if isRuntimePod {
			return
		}
		if options.KillPodOptions != nil {
			if options.KillPodOptions.Completed != nil {
				options.KillPodOptions.Completed()
			}
			options.KillPodOptions = nil
		}
	case status.IsTerminationRequested():
		if options.KillPodOptions == nil {
			options.KillPodOptions = &KillPodOptions{}
		}
		if options.KillPodOptions.Completed != nil {
			status.notifyPostTerminating = append(status.notifyPostTerminating, options.KillPodOptions.Completed)
		}
		if options.KillPodOptions.PodStatusFunc != nil {
			status.statusPostTerminating = append(status.statusPostTerminating, options.KillPodOptions.PodStatusFunc)
		}
		var gp int64
		var why graceWhy
		gp, wasGracePeriodShortened, why = effectiveGracePeriod(status, options.Pod, options.KillPodOptions)
		options.KillPodOptions.PodTerminationGracePeriodSecondsOverride = &gp
		if becameTerminating || wasGracePeriodShortened {
			grace = &gracePeriodDecision{gp, why}
		}
	default:
		if options.KillPodOptions != nil {
			if options.KillPodOptions.Completed != nil {
				options.KillPodOptions.Completed()
			}
			options.KillPodOptions = nil
		}
	}

	if status.clk == nil {
		status.clk = p.s.Clock("podWorker "+status.key, sim.PriorityPodWorker)
		status.rng = p.s.RNG("podWorker/" + string(uid))
		if options.Pod != nil && isStaticPod(options.Pod) {
			p.waitingToStartStaticPodsByFullname[status.fullname] = append(p.waitingToStartStaticPodsByFullname[status.fullname], uid)
		}
		p.record(status, KindWorkerState, status.WorkType().String(), trace.Attr{Key: "reason", Value: "created"})
	} else if becameTerminating {
		attrs := []trace.Attr{{Key: "reason", Value: terminationReason(status, options)}}
		if o := options.KillPodOptions; o != nil && o.PodTerminationGracePeriodSecondsOverride != nil {
			// The grace period the pod is given, as calculateEffectiveGracePeriod settled it
			// (never below 1s): what an eviction or deletion asked for is recorded by its caller.
			attrs = append(attrs, trace.Attr{Key: "gracePeriod", Value: strconv.FormatInt(*o.PodTerminationGracePeriodSecondsOverride, 10)})
		}
		p.record(status, KindWorkerState, "terminating", attrs...)
	}
	if grace != nil {
		p.recordGracePeriod(status, grace.gp, grace.why)
	}

	if status.pendingUpdate != nil && !status.pendingUpdate.StartTime.IsZero() && status.pendingUpdate.StartTime.Before(options.StartTime) {
		options.StartTime = status.pendingUpdate.StartTime
	}
	slot := status.pendingSlot()
	*slot = options
	status.pendingUpdate = slot
	status.working = true
	p.ring(uid, status)

	if (becameTerminating || wasGracePeriodShortened) && status.inRound && status.round != nil {
		reason := "termination requested"
		if !becameTerminating {
			reason = "grace period shortened"
		}
		p.cancelSync(uid, status, reason)
	}
}

// cancelSync cancels the sync in flight (upstream: UpdatePod calls the worker's cancelFn).
// Every pending step of the sync is dropped at once: a CRI call in flight never returns to
// it, an image pull's result is never used, and nothing it was about to create or start is
// created or started. The worker then finishes the round as upstream's does when the sync
// returns context.Canceled, and takes the pending update (the termination, or the shorter
// grace period) in a new round with a new context. A round still waiting for a fresh pod
// cache entry has not called its sync function: it ends without one.
func (p *PodWorkers) cancelSync(uid types.UID, st *podSyncStatus, reason string) {
	r := st.round
	seq := r.seq
	r.ctx.End()
	p.recordBecause(st, KindCancelSync, syncFuncName(r.workType, r.update),
		trace.Because("cancelSync", "UpdatePod cancels the sync in flight when the pod starts terminating or its grace period shrinks: the next round terminates with the new grace period"),
		trace.Attr{Key: "reason", Value: reason})
	st.clk.Schedule(0, func() {
		if st.round != r || r.seq != seq {
			return
		}
		if r.syncing {
			p.syncDone(uid, st, r.update, r.workType, false, context.Canceled, r.start)
			return
		}
		p.finishRound(uid, st, r.update, r.workType, false, context.Canceled, context.Canceled.Error())
	})
}

func terminationReason(st *podSyncStatus, o UpdatePodOptions) string {
	switch {
	case st.evicted:
		return "evicted"
	case o.RunningPod != nil && o.Pod == nil:
		return "orphaned runtime pod"
	case o.Pod != nil && o.Pod.DeletionTimestamp != nil:
		return "deleted"
	case isTerminalPhase(o.Pod):
		return "terminal phase"
	default:
		return "killed"
	}
}

func isStaticPod(pod *corev1.Pod) bool {
	return pod.Annotations["kubernetes.io/config.source"] == "file"
}

// calculateEffectiveGracePeriod is upstream's rule: the grace period only ever shrinks,
// the pod's deletion grace or a kill override win over the spec, and the floor is 1s.
func calculateEffectiveGracePeriod(status *podSyncStatus, pod *corev1.Pod, options *KillPodOptions) (int64, bool) {
	gp, shortened, _ := effectiveGracePeriod(status, pod, options)
	return gp, shortened
}

// graceWhy is where an effective grace period came from: the value that decided it, which
// field held that value, and whether the 1s floor raised it.
type graceWhy struct {
	from    string
	value   int64
	floored bool
}

// effectiveGracePeriod is calculateEffectiveGracePeriod with where its answer came from.
func effectiveGracePeriod(status *podSyncStatus, pod *corev1.Pod, options *KillPodOptions) (int64, bool, graceWhy) {
	gracePeriod := status.gracePeriod
	why := graceWhy{from: "the grace period already in force", value: gracePeriod}
	overridden := false
	if pod != nil && pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		if gracePeriod == 0 || *pod.DeletionGracePeriodSeconds < gracePeriod {
			gracePeriod = *pod.DeletionGracePeriodSeconds
			why = graceWhy{from: "the pod's deletionGracePeriodSeconds", value: gracePeriod}
			overridden = true
		}
	}
	if options != nil && options.PodTerminationGracePeriodSecondsOverride != nil {
		if gracePeriod == 0 || *options.PodTerminationGracePeriodSecondsOverride < gracePeriod {
			gracePeriod = *options.PodTerminationGracePeriodSecondsOverride
			why = graceWhy{from: "the kill's override", value: gracePeriod}
			if options.Evict {
				why.from = "the eviction's override"
			}
			overridden = true
		}
	}
	if !overridden && gracePeriod == 0 && pod != nil && pod.Spec.TerminationGracePeriodSeconds != nil {
		gracePeriod = *pod.Spec.TerminationGracePeriodSeconds
		why = graceWhy{from: "the pod's terminationGracePeriodSeconds", value: gracePeriod}
	}
	if gracePeriod < 1 {
		gracePeriod = 1
		why.floored = true
	}
	if status.gracePeriod != 0 && status.gracePeriod != gracePeriod {
		status.gracePeriod = gracePeriod
		return gracePeriod, true, why
	}
	status.gracePeriod = gracePeriod
	return gracePeriod, false, why
}

type gracePeriodDecision struct {
	gp  int64
	why graceWhy
}

// recordGracePeriod records the kill's grace period with where it came from.
func (p *PodWorkers) recordGracePeriod(st *podSyncStatus, gp int64, why graceWhy) {
	text := fmt.Sprintf("the kill's grace period is %ds, from %s (%ds)", gp, why.from, why.value)
	attrs := []trace.Attr{{Key: "grace", Value: strconv.FormatInt(gp, 10)}, {Key: "from", Value: why.from}, {Key: "value", Value: strconv.FormatInt(why.value, 10)}}
	if why.floored {
		text += ", raised to the pod worker's floor of 1s"
		attrs = append(attrs, trace.Attr{Key: "floor", Value: "1"})
	}
	text += "; a later update can only shorten it"
	p.recordBecause(st, KindGracePeriod, "", trace.BecauseEach("effectiveGracePeriod", text, attrs...), attrs...)
}

// ring is the non-blocking send on the worker's capacity-1 doorbell.
func (p *PodWorkers) ring(uid types.UID, st *podSyncStatus) {
	if st.doorbell || st.closed {
		return
	}
	st.doorbell = true
	p.scheduleRound(uid, st)
}

// scheduleRound lets the worker take its doorbell as soon as it is free.
func (p *PodWorkers) scheduleRound(uid types.UID, st *podSyncStatus) {
	if st.inRound || st.scheduled || st.closed {
		return
	}
	st.scheduled = true
	if st.takeDoorbell == nil {
		st.takeDoorbell = func() {
			st.scheduled = false
			if st.closed {
				// st may have been forgotten since, and its UID given a new worker:
				// the round goes to whichever worker the UID has now.
				p.podWorkerLoop(uid)
				return
			}
			// A worker not closed is still the one podSyncStatuses holds for its UID
			// (a worker is closed before it is forgotten, and only a forgotten one is
			// replaced), so it needs no looking up.
			p.workerRound(uid, st)
		}
	}
	// Go, not Schedule: the round is never stopped, so it needs no Timer.
	st.clk.Go(0, st.takeDoorbell)
}

// --- the worker loop

// podWorkerLoop runs one round of the worker of pod uid, if it has one: take the pending
// update, wait for a fresh pod cache entry, run the sync function for the worker's state,
// then schedule what comes next.
func (p *PodWorkers) podWorkerLoop(uid types.UID) {
	if st, ok := p.podSyncStatuses[uid]; ok {
		p.workerRound(uid, st)
	}
}

// workerRound is podWorkerLoop for worker st, the one podSyncStatuses holds for uid.
func (p *PodWorkers) workerRound(uid types.UID, st *podSyncStatus) {
	if st.closed || st.inRound {
		return
	}
	st.doorbell = false
	ctxOK, update, canStart, canEverStart := p.startPodSync(uid, st)
	if !ctxOK {
		return
	}
	if !canEverStart {
		p.cleanupUnstartedPod(uid, st)
		return
	}
	if !canStart {
		return
	}
	st.inRound = true
	workType := st.WorkType()
	if st.ctx == nil || st.ctx.Ended() {
		st.ctx = st.clk.Life().Context("sync " + st.key)
	}
	r := &st.rounds
	if r.runFn == nil {
		r.p, r.uid, r.st = p, uid, st
		r.runFn, r.cacheReadyFn, r.doneFn, r.syncPodDoneFn = r.run, r.cacheReady, r.done, r.syncPodDone
	}
	r.update, r.workType, r.ctx = update, workType, st.ctx
	r.syncing, r.start, r.answered, r.waited = false, 0, false, false
	r.seq++
	st.round = r
	p.s.Within(r.ctx, r.runFn)
}

// run waits for a runtime observation newer than the worker's previous sync, then runs
// the sync function for the worker's state; all of it within the round's context.
func (r *round) run() {
	p, st, update := r.p, r.st, r.update
	if update.RunningPod != nil && update.Pod == nil {
		r.sync(nil, nil)
		return
	}
	// Wait for a runtime observation made after this worker's previous sync.
	p.cache.GetNewerThanHandle(&st.cacheEntry, st.lastSyncTime, r.cacheReadyFn)
	if !r.answered {
		r.waited = true
		p.recordBecause(st, KindWaitCache, "GetNewerThan", p.waitCacheReason,
			trace.Attr{Key: "after", Value: formatSince(st.lastSyncTime)})
	}
}

// cacheReady is GetNewerThan's answer.
func (r *round) cacheReady(status *container.PodStatus, err error) {
	r.answered = true
	if r.waited {
		r.p.record(r.st, KindCacheReady, "GetNewerThan")
	}
	r.sync(status, err)
}

// sync calls the sync function for the round's work type.
func (r *round) sync(status *container.PodStatus, cacheErr error) {
	p, uid, st, update, workType := r.p, r.uid, r.st, r.update, r.workType
	if cacheErr != nil {
		p.finishRound(uid, st, update, workType, false, cacheErr, cacheErr.Error())
		return
	}
	if p.recordSyncStart {
		p.recordShared(st, KindSyncStart, syncFuncName(workType, update), nil, p.updateAttrs(update.UpdateType))
	} else {
		p.s.Skip()
	}
	r.syncing, r.start = true, p.clk.Elapsed()
	switch workType {
	case TerminatedPod:
		p.handler.SyncTerminatedPod(update.Pod, status, r.doneFn)
	case TerminatingPod:
		var gracePeriod *int64
		if update.KillPodOptions != nil {
			gracePeriod = update.KillPodOptions.PodTerminationGracePeriodSecondsOverride
		}
		statusFn := p.acknowledgeTerminating(st)
		if update.RunningPod != nil && update.Pod == nil {
			p.handler.SyncTerminatingRuntimePod(update.RunningPod, r.doneFn)
		} else {
			p.handler.SyncTerminatingPod(update.Pod, status, gracePeriod, statusFn, r.doneFn)
		}
	default:
		p.handler.SyncPod(update.UpdateType, update.Pod, update.MirrorPod, status, &st.handlerState, r.syncPodDoneFn)
	}
}

// done is the terminating and terminated sync functions' answer.
func (r *round) done(err error) {
	r.p.syncDone(r.uid, r.st, r.update, r.workType, false, err, r.start)
}

// syncPodDone is SyncPod's answer.
func (r *round) syncPodDone(isTerminal bool, err error) {
	r.p.syncDone(r.uid, r.st, r.update, r.workType, isTerminal, err, r.start)
}

func formatSince(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Sub(sim.Epoch).String()
}

func syncFuncName(w WorkType, u *UpdatePodOptions) string {
	switch w {
	case TerminatedPod:
		return "SyncTerminatedPod"
	case TerminatingPod:
		if u.RunningPod != nil && u.Pod == nil {
			return "SyncTerminatingRuntimePod"
		}
		return "SyncTerminatingPod"
	default:
		return "SyncPod"
	}
}

// pendingSlot is where UpdatePod stores a new pending update: in place of the pending
// update it replaces, else in the one of the worker's two update slots that the round in
// flight does not use. A pending update's pointer is held only by pendingUpdate until a
// round takes it, and then by that round (round.update) until it finishes, so that slot is
// free again by the time a new pending update could need it.
func (st *podSyncStatus) pendingSlot() *UpdatePodOptions {
	if p := st.pendingUpdate; p == &st.updates[0] || p == &st.updates[1] {
		return p
	}
	if st.round != nil && st.round.update == &st.updates[0] {
		return &st.updates[1]
	}
	return &st.updates[0]
}

// startPodSync consumes the pending update of the worker st of pod uid (upstream
// startPodSync).
func (p *PodWorkers) startPodSync(uid types.UID, st *podSyncStatus) (ok bool, update *UpdatePodOptions, canStart, canEverStart bool) {
	if st.pendingUpdate == nil {
		st.working = false
		return false, nil, false, true
	}
	update = st.pendingUpdate
	st.pendingUpdate = nil
	if update.Pod != nil && !st.hasConfig {
		p.workerVersion++ // the mergeLastUpdate below may give the worker its first pod spec
	}

	if st.IsStarted() {
		st.mergeLastUpdate(update)
		return true, update, true, true
	}
	if update.RunningPod != nil && update.Pod == nil && st.IsTerminationRequested() {
		st.mergeLastUpdate(update)
		return true, update, true, true
	}
	if update.Pod == nil {
		return true, update, false, false
	}
	if isStaticPod(update.Pod) && st.IsTerminationRequested() {
		return true, update, false, false
	}
	if isStaticPod(update.Pod) && !p.allowStaticPodStart(st.fullname, uid) {
		st.pendingUpdate = update
		st.working = false
		delay := st.rng.Jitter(p.backOffPeriod, WorkerBackOffPeriodJitterFactor)
		p.workQueue.Enqueue(uid, delay)
		p.record(st, KindRequeue, "waitingForStaticPodFullname", trace.Attr{Key: "after", Value: delay.String()})
		return true, update, false, true
	}
	st.startedAt = p.clk.Now()
	st.mergeLastUpdate(update)
	return true, update, true, true
}

func (st *podSyncStatus) mergeLastUpdate(other *UpdatePodOptions) {
	opts := st.activeUpdate
	if opts == nil {
		opts = &UpdatePodOptions{}
		st.activeUpdate = opts
	}
	if other.Pod != nil {
		opts.Pod = other.Pod
		opts.MirrorPod = other.MirrorPod
		st.hasConfig = true
	}
	if other.RunningPod != nil {
		opts.RunningPod = other.RunningPod
	}
	if other.KillPodOptions != nil {
		opts.KillPodOptions = other.KillPodOptions
	}
}

// allowStaticPodStart: only one UID per static pod fullname may run, first come first served.
func (p *PodWorkers) allowStaticPodStart(fullname string, uid types.UID) bool {
	if started, ok := p.startedStaticPodsByFullname[fullname]; ok {
		return started == uid
	}
	waiting := p.waitingToStartStaticPodsByFullname[fullname]
	for i, w := range waiting {
		st, ok := p.podSyncStatuses[w]
		if !ok || st.IsTerminationRequested() || w == uid {
			if w == uid {
				p.waitingToStartStaticPodsByFullname[fullname] = waiting[i+1:]
				p.startedStaticPodsByFullname[fullname] = uid
				return true
			}
			continue
		}
		return false
	}
	return false
}

func (p *PodWorkers) acknowledgeTerminating(st *podSyncStatus) func(*corev1.PodStatus) {
	if !st.startedTerminating {
		st.startedTerminating = true
	}
	if n := len(st.statusPostTerminating); n > 0 {
		return st.statusPostTerminating[n-1]
	}
	return nil
}

func (p *PodWorkers) cleanupUnstartedPod(uid types.UID, st *podSyncStatus) {
	st.closed = true
	st.finished = true
	st.working = false
	st.terminatedAt = p.clk.Now()
	p.terminationVersion++
	p.record(st, KindWorkerState, "terminated", trace.Attr{Key: "reason", Value: "never started"})
}

// syncDone classifies a finished sync (upstream: the tail of podWorkerLoop).
func (p *PodWorkers) syncDone(uid types.UID, st *podSyncStatus, update *UpdatePodOptions, workType WorkType, isTerminal bool, err error, start time.Duration) {
	st.lastSyncTime = p.clk.Now()
	dur := p.clk.Elapsed() - start
	// Set field by field, as recordShared does (no temporary literal to copy).
	var ev trace.Event
	ev.Track, ev.Kind, ev.Name, ev.Pod, ev.Dur = st.clk.Track(), KindSyncEnd, syncFuncName(workType, update), st.key, dur
	// The error's text is built once, for the event and for completeWork: an aggregate
	// error builds it anew on every call.
	errText := ""
	if err == nil && !isTerminal {
		ev.Attrs = p.syncEndAttrs(st, dur)
	} else {
		if err != nil {
			errText = err.Error()
		}
		ev.Attrs = st.syncEndFailedAttrs(dur, err != nil, errText, isTerminal)
	}
	p.s.Record(&ev)
	p.finishRound(uid, st, update, workType, isTerminal, err, errText)
}

// syncEndAttrs returns the attributes of a successful sync of worker st's syncEnd event
// that took d: a worker's periodic syncs of an unchanged pod take the same time, so the
// slice made for the previous one is recorded again while d is the same. A sync that
// finished without waiting for the runtime took no time at all, on any worker: those share
// one slice (zeroSyncEnd), which a worker whose syncs alternate between starting a
// container and doing nothing (a crash-looping pod) would otherwise make again and again.
// Recorded attributes are never written, and a worker's slice is replaced (not changed)
// when d differs.
func (p *PodWorkers) syncEndAttrs(st *podSyncStatus, d time.Duration) []trace.Attr {
	if d == 0 {
		if p.zeroSyncEnd == nil {
			p.zeroSyncEnd = []trace.Attr{{Key: "duration", Value: d.String()}}
		}
		return p.zeroSyncEnd
	}
	if st.syncEndText == nil || st.syncEndDur != d {
		st.syncEndDur = d
		st.syncEndText = []trace.Attr{{Key: "duration", Value: d.String()}}
	}
	return st.syncEndText
}

// syncEndFailedAttrs returns the attributes of the syncEnd event of a sync that took d and
// failed (hasErr, with errText) or found the pod terminal: duration, error, isTerminal.
// A crash-looping pod's syncs inside one back-off window fail alike, in the same time, so
// the slice made for the previous one is recorded again while they are the same. Recorded
// attributes are never written, and the slice is replaced (not changed) when one differs.
func (st *podSyncStatus) syncEndFailedAttrs(d time.Duration, hasErr bool, errText string, isTerminal bool) []trace.Attr {
	if st.syncFailText != nil && st.syncFailDur == d && st.syncFailHasErr == hasErr && st.syncFailTerminal == isTerminal && st.syncFailErr == errText {
		return st.syncFailText
	}
	attrs := append(make([]trace.Attr, 0, 3), trace.Attr{Key: "duration", Value: d.String()})
	if hasErr {
		attrs = append(attrs, trace.Attr{Key: "error", Value: errText})
	}
	if isTerminal {
		attrs = append(attrs, trace.Attr{Key: "isTerminal", Value: "true"})
	}
	st.syncFailDur, st.syncFailErr, st.syncFailHasErr, st.syncFailTerminal, st.syncFailText = d, errText, hasErr, isTerminal, attrs
	return attrs
}

// updateAttrs returns the syncStart event's attributes for an update of type t, shared by
// every such event (nothing writes a recorded event's attributes).
func (p *PodWorkers) updateAttrs(t UpdateType) []trace.Attr {
	if t >= 0 && int(t) < len(p.updateTypeAttrs) {
		return p.updateTypeAttrs[t]
	}
	return []trace.Attr{{Key: "update", Value: t.String()}}
}

// finishRound ends a round. errText is err.Error() ("" for no error).
func (p *PodWorkers) finishRound(uid types.UID, st *podSyncStatus, update *UpdatePodOptions, workType WorkType, isTerminal bool, err error, errText string) {
	st.inRound = false
	st.round = nil
	var phaseTransition bool
	switch {
	case err != nil:
		// Logged; the pod is retried after a back-off below. A sync cancelled by UpdatePod
		// (context.Canceled) is no different here: the update that follows is already
		// queued. (Telling the two apart, errors.Is walks every wrapped error, which a
		// crash-looping pod's sync error has several of.)
	case workType == TerminatedPod:
		p.completeTerminated(uid, st)
		return
	case workType == TerminatingPod:
		if update.RunningPod != nil && update.Pod == nil {
			p.completeTerminatingRuntimePod(uid, st)
			return
		}
		p.completeTerminating(st)
		phaseTransition = true
	case isTerminal:
		p.completeSync(st)
		phaseTransition = true
	}
	p.completeWorkText(uid, st, phaseTransition, err, errText)
}

func (p *PodWorkers) completeSync(st *podSyncStatus) {
	if st.terminatingAt.IsZero() {
		st.terminatingAt = p.clk.Now()
		p.terminationVersion++
	}
	st.startedTerminating = true
	p.record(st, KindWorkerState, "terminating", trace.Attr{Key: "reason", Value: "pod reached a terminal phase"})
	p.requeueLastPodUpdate(st)
}

func (p *PodWorkers) completeTerminating(st *podSyncStatus) {
	st.terminatedAt = p.clk.Now()
	p.terminationVersion++
	for _, fn := range st.notifyPostTerminating {
		fn()
	}
	st.notifyPostTerminating = nil
	st.statusPostTerminating = nil
	p.record(st, KindWorkerState, "terminated", trace.Attr{Key: "reason", Value: "all containers stopped"})
	p.requeueLastPodUpdate(st)
}

func (p *PodWorkers) completeTerminatingRuntimePod(uid types.UID, st *podSyncStatus) {
	st.terminatedAt = p.clk.Now()
	p.terminationVersion++
	st.finished = true
	st.working = false
	st.closed = true
	for _, fn := range st.notifyPostTerminating {
		fn()
	}
	delete(p.podSyncStatuses, uid)
	p.record(st, KindWorkerState, "terminated", trace.Attr{Key: "reason", Value: "orphaned runtime pod killed"})
	p.record(st, KindWorkerState, "finished", trace.Attr{Key: "reason", Value: "orphaned runtime pod killed"})
}

func (p *PodWorkers) completeTerminated(uid types.UID, st *podSyncStatus) {
	st.closed = true
	st.finished = true
	st.working = false
	if started, ok := p.startedStaticPodsByFullname[st.fullname]; ok && started == uid {
		delete(p.startedStaticPodsByFullname, st.fullname)
	}
	p.record(st, KindWorkerState, "finished", trace.Attr{Key: "reason", Value: "SyncTerminatedPod succeeded"})
}

func (p *PodWorkers) requeueLastPodUpdate(st *podSyncStatus) {
	if st.pendingUpdate != nil || st.activeUpdate == nil {
		return
	}
	copied := *st.activeUpdate
	st.pendingUpdate = &copied
	st.working = true
}

// completeWork schedules the pod's next periodic sync, then takes pending work at once.
func (p *PodWorkers) completeWork(uid types.UID, st *podSyncStatus, phaseTransition bool, err error) {
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	p.completeWorkText(uid, st, phaseTransition, err, errText)
}

// completeWorkText is completeWork given err's text ("" for no error).
func (p *PodWorkers) completeWorkText(uid types.UID, st *podSyncStatus, phaseTransition bool, err error, errText string) {
	var delay, base time.Duration
	var why string
	factor := WorkerBackOffPeriodJitterFactor
	// Only an error carries a back-off expiry: a successful sync (every periodic resync)
	// does not walk it.
	var expiry time.Time
	var isBackoff bool
	if err != nil {
		expiry, isBackoff = minBackoffExpiry(err)
	}
	var reason *trace.Reason
	switch {
	case phaseTransition:
		delay, why = 0, "phase transition"
	case err == nil:
		base, factor, why = p.resyncInterval, WorkerResyncIntervalJitterFactor, "resync"
		delay = st.rng.Jitter(base, factor)
	case strings.Contains(errText, "network is not ready"):
		base, why = BackOffOnTransientErrorPeriod, "network not ready"
		delay = st.rng.Jitter(base, factor)
	case isBackoff:
		remaining := expiry.Sub(p.clk.Now())
		if remaining < 0 {
			remaining = 0
		}
		base = remaining
		if base > p.resyncInterval {
			base = p.resyncInterval
		}
		delay, why = st.rng.Jitter(base, factor), "back-off expiry"
		if base == 0 {
			delay = 0
		}
		if !p.recordRequeue || !p.clk.Reasons() {
			break
		}
		capped := ""
		if base < remaining {
			capped = ", capped at the resync interval " + p.durationText(base)
		}
		// fmt.Sprintf("the back-off ends in %s%s; jitter of up to %.0f%% makes it %s"),
		// built without boxing each value: this reason is recorded at every sync of a
		// pod in crash-loop back-off.
		_, percentText := jitterFactorText(factor)
		reason = trace.BecauseEach("requeueBackOff", "the back-off ends in "+remaining.Round(time.Millisecond).String()+capped+
			"; jitter of up to "+percentText+"% makes it "+delay.Round(time.Millisecond).String(),
			trace.Attr{Key: "remaining", Value: remaining.String()}, trace.Attr{Key: "cap", Value: p.resyncText},
			trace.Attr{Key: "jitterFactor", Value: strconv.FormatFloat(factor, 'g', -1, 64)}, trace.Attr{Key: "after", Value: delay.String()})
	default:
		base, why = p.backOffPeriod, "error back-off"
		delay = st.rng.Jitter(base, factor)
	}
	p.workQueue.Enqueue(uid, delay)
	if !p.recordRequeue {
		// Nobody reads the event: its texts are not made (they are kept by nothing else).
		p.s.Skip()
	} else if !p.clk.Reasons() {
		// No sink reads a reason: the event is the same but for the reason, so only its
		// attribute is made.
		b := appendDuration(p.textBuf[:0], delay)
		p.textBuf = b
		attrs := p.attrs.Make(1)
		attrs[0] = trace.Attr{Key: "after", Value: p.requeueTexts.Copy(b)}
		p.recordShared(st, KindRequeue, why, nil, attrs)
	} else if reason == nil && delay > base {
		// The same text fmt.Sprintf("%s after %s, plus a jitter of up to %.0f%%: %s") gives,
		// built without boxing each value: this reason is recorded at every resync. The
		// reason's text and the delay's ("after") are built in the worker's scratch buffer
		// and made one string, which the two share: a Duration's String that is appended
		// at once is not allocated.
		baseText := p.durationText(base)
		factorText, percentText := jitterFactorText(factor)
		b := append(p.textBuf[:0], why...)
		b = append(b, " after "...)
		b = append(b, baseText...)
		b = append(b, ", plus a jitter of up to "...)
		b = append(b, percentText...)
		b = append(b, "%: "...)
		b = append(b, delay.Round(time.Millisecond).String()...)
		n := len(b)
		b = appendDuration(b, delay)
		p.textBuf = b
		texts := p.requeueTexts.Copy(b)
		// trace.Because's reason, with its values in the same object.
		jr := p.nextJitterReason()
		jr.values = [3]trace.Attr{{Key: "base", Value: baseText}, {Key: "jitterFactor", Value: factorText},
			{Key: "after", Value: texts[n:]}}
		jr.reason = trace.Reason{Rule: "requeueJitter", Text: texts[:n], Values: jr.values[:]}
		// The event's one attribute is the reason's last value, shared read-only.
		p.recordShared(st, KindRequeue, why, &jr.reason, jr.values[2:3:3])
	} else {
		p.recordBecause(st, KindRequeue, why, reason, trace.Attr{Key: "after", Value: delay.String()})
	}
	if st.pendingUpdate != nil {
		st.doorbell = true
		p.scheduleRound(uid, st)
	} else {
		st.working = false
	}
}

// jitterReason is a requeueJitter reason and its values, allocated as one object.
type jitterReason struct {
	reason trace.Reason
	values [3]trace.Attr
}

// jitterReasonBatch is how many jitterReasons nextJitterReason allocates at once.
const jitterReasonBatch = 64

// nextJitterReason returns a zero jitterReason that nothing else refers to. They are
// allocated a batch at a time and each is handed out once: a recorded event may keep its
// reason for the whole run, so none is ever reused (a kept one keeps its batch alive).
func (p *PodWorkers) nextJitterReason() *jitterReason {
	if len(p.jitterReasons) == 0 {
		p.jitterReasons = make([]jitterReason, jitterReasonBatch)
	}
	jr := &p.jitterReasons[0]
	p.jitterReasons = p.jitterReasons[1:]
	return jr
}

// durationText is d.String(), without formatting the resync interval every time.
func (p *PodWorkers) durationText(d time.Duration) string {
	if d == p.resyncInterval {
		return p.resyncText
	}
	return d.String()
}

// appendDuration appends d.String() to b. The requeue delays it formats (a resync's
// jittered interval, a back-off's) lie between a second and an hour, with nanoseconds:
// their text is written here directly, two digits at a time: the minutes, the seconds,
// and the fraction without its trailing zeros, as Duration.String writes them. Any other
// duration is left to Duration.String.
//
// The fraction's nine digits are appended at once (one append of ten bytes is a few
// stores, with no copy from a scratch array), then its trailing zeros are cut off again:
// every resync formats one such delay.
func appendDuration(b []byte, d time.Duration) []byte {
	if d < time.Second || d >= time.Hour {
		return append(b, d.String()...)
	}
	u := uint64(d)
	frac := uint32(u % uint64(time.Second))
	secs := u / uint64(time.Second)
	if mins := secs / 60; mins > 0 {
		b = appendSmall(b, mins)
		b = append(b, 'm')
	}
	b = appendSmall(b, secs%60)
	if frac != 0 {
		// frac is d1 d23 d45 d67 d89 in decimal (d1 one digit, the others two each).
		q89 := frac / 100
		r89 := 2 * (frac - q89*100)
		q67 := q89 / 100
		r67 := 2 * (q89 - q67*100)
		q45 := q67 / 100
		r45 := 2 * (q67 - q45*100)
		d1 := q45 / 100
		r23 := 2 * (q45 - d1*100)
		b = append(b, '.', byte('0'+d1), digits.Pairs[r23], digits.Pairs[r23+1], digits.Pairs[r45], digits.Pairs[r45+1],
			digits.Pairs[r67], digits.Pairs[r67+1], digits.Pairs[r89], digits.Pairs[r89+1])
		for b[len(b)-1] == '0' { // stops at a digit: frac is not zero
			b = b[:len(b)-1]
		}
	}
	return append(b, 's')
}

// appendSmall appends v (below 100) in decimal.
func appendSmall(b []byte, v uint64) []byte {
	if v < 10 {
		return append(b, byte('0'+v))
	}
	return append(b, digits.Pairs[2*v], digits.Pairs[2*v+1])
}

// jitterFactorText formats a jitter factor as the requeue reasons show it: as the factor
// (strconv 'g') and as a percentage (%.0f). The worker's factors are constants, whose
// texts need no formatting.
func jitterFactorText(factor float64) (text, percent string) {
	if factor == 0.5 {
		return "0.5", "50"
	}
	return strconv.FormatFloat(factor, 'g', -1, 64), strconv.FormatFloat(factor*100, 'f', 0, 64)
}

// minBackoffExpiry returns the earliest back-off expiry carried anywhere in err, wrapped or
// aggregated (upstream MinBackoffExpiration): a pod with several containers in crash-loop
// back-off is requeued for the first one that may restart.
func minBackoffExpiry(err error) (time.Time, bool) {
	var earliest time.Time
	found := false
	walkBackoffExpiry(err, &earliest, &found)
	return earliest, found
}

func walkBackoffExpiry(e error, earliest *time.Time, found *bool) {
	switch u := e.(type) {
	case nil:
	case BackoffError:
		if t := u.BackoffExpiry(); !*found || t.Before(*earliest) {
			*earliest, *found = t, true
		}
	case interface{ Unwrap() []error }:
		for _, inner := range u.Unwrap() {
			walkBackoffExpiry(inner, earliest, found)
		}
	case interface{ Unwrap() error }:
		walkBackoffExpiry(u.Unwrap(), earliest, found)
	}
}

// SyncKnownPods forgets finished workers and starts terminating workers of pods that are
// no longer desired (housekeeping). It returns the remaining workers' states; the map is
// reused by the next call.
func (p *PodWorkers) SyncKnownPods(desired []*corev1.Pod) map[types.UID]PodWorkerSync {
	known := make(map[types.UID]bool, len(desired))
	for _, pod := range desired {
		known[pod.UID] = true
	}
	// A set of its own, with no version: it neither takes an earlier answer nor leaves its
	// answer for a later call.
	p.syncValid = false
	out := p.SyncKnownPodsFunc(func(uid types.UID) bool { return known[uid] }, 0)
	p.syncValid = false
	return out
}

// SyncKnownPodsFunc is SyncKnownPods with the desired set given as a lookup (the pod
// manager's), so that housekeeping need not build one every pass, and the version of that
// set: desiredVersion must change whenever isDesired may answer differently for some UID.
//
// Only workers that need action (restart requested, or not desired) change state here.
// When neither the desired set nor any worker's state (StateVersion) moved since the
// previous call returned, the workers needing action are exactly those the previous call
// acted on and kept (a restart request is never withdrawn, and no worker came or went), and
// every other worker's entry in the answer is unchanged: only those are looked at again.
func (p *PodWorkers) SyncKnownPodsFunc(isDesired func(types.UID) bool, desiredVersion uint64) map[types.UID]PodWorkerSync {
	p.podsSynced = true
	known := isDesired
	if p.syncOut == nil {
		p.syncOut = map[types.UID]PodWorkerSync{}
	}
	// The answer is only read until the next call, so one map serves every call.
	out := p.syncOut
	act := p.syncAct
	if !p.syncValid || desiredVersion != p.syncDesiredVersion || p.StateVersion() != p.syncStateVersion {
		act = act[:0]
		clear(out)
		for uid, st := range p.podSyncStatuses {
			if st.restartRequested || !known(uid) {
				act = append(act, uid)
				continue
			}
			out[uid] = workerSync(st, false)
		}
		// The workers needing action are handled in UID order so that runs are
		// reproducible. The others are just reported.
		slices.Sort(act)
	}
	kept := act[:0]
	for _, uid := range act {
		st := p.podSyncStatuses[uid]
		orphan := !known(uid)
		if p.removeTerminatedWorker(uid, st, orphan) {
			delete(out, uid)
			continue
		}
		out[uid] = workerSync(st, orphan)
		kept = append(kept, uid)
	}
	p.syncAct = kept
	p.syncValid, p.syncDesiredVersion, p.syncStateVersion = true, desiredVersion, p.StateVersion()
	return out
}

func workerSync(st *podSyncStatus, orphan bool) PodWorkerSync {
	sync := PodWorkerSync{State: st.WorkType(), Orphan: orphan}
	if st.hasConfig {
		sync.HasConfig = true
		if st.static == 0 { // a pod's source never changes: look once
			st.static = -1
			if isStaticPod(st.activeUpdate.Pod) {
				st.static = 1
			}
		}
		sync.Static = st.static > 0
	}
	return sync
}

// PodWorkerSync is one worker's state as housekeeping sees it.
type PodWorkerSync struct {
	State     WorkType
	Orphan    bool
	HasConfig bool
	Static    bool
}

// removeTerminatedWorker reports whether the worker was forgotten.
func (p *PodWorkers) removeTerminatedWorker(uid types.UID, st *podSyncStatus, orphaned bool) bool {
	if !st.finished {
		if !orphaned {
			return false
		}
		st.deleted = true
		switch {
		case !st.IsStarted() && !st.observedRuntime:
			// never started, never seen running: forget it now
		case !st.IsTerminationRequested():
			st.terminatingAt = p.clk.Now()
			p.terminationVersion++
			why := graceWhy{from: "no pod spec to read it from: the floor", value: 1}
			if st.activeUpdate != nil && st.activeUpdate.Pod != nil && st.activeUpdate.Pod.Spec.TerminationGracePeriodSeconds != nil {
				st.gracePeriod = *st.activeUpdate.Pod.Spec.TerminationGracePeriodSeconds
				why = graceWhy{from: "the pod's terminationGracePeriodSeconds", value: st.gracePeriod}
			} else {
				st.gracePeriod = 1
			}
			p.record(st, KindWorkerState, "terminating", trace.Attr{Key: "reason", Value: "orphaned"})
			p.recordGracePeriod(st, st.gracePeriod, why)
			p.requeueLastPodUpdate(st)
			p.ring(uid, st)
			return false
		default:
			p.requeueLastPodUpdate(st)
			p.ring(uid, st)
			return false
		}
	}
	st.closed = true
	delete(p.podSyncStatuses, uid)
	p.terminationVersion++
	if started, ok := p.startedStaticPodsByFullname[st.fullname]; ok && started == uid {
		delete(p.startedStaticPodsByFullname, st.fullname)
	}
	p.record(st, KindForget, "")
	return true
}

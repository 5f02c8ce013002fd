package kubelet

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/model/kuberuntime"
	"nodesim/model/podconfig"
	"nodesim/model/podworkers"
	"nodesim/model/prober"
	"nodesim/model/prober/results"
	"nodesim/model/status"
	"nodesim/trace"
)

// SyncPod is one round of a syncing pod's worker (upstream Kubelet.SyncPod): generate the
// API status from the cached runtime status, stop if the phase is terminal, otherwise store
// the status and let the runtime manager drive the containers.
//
// The pod's podSyncer is kept in the worker's HandlerState.
func (kl *Kubelet) SyncPod(updateType podworkers.UpdateType, pod, mirrorPod *corev1.Pod, podStatus *container.PodStatus, state *podworkers.HandlerState, done func(isTerminal bool, err error)) {
	ps, _ := state.Value.(*podSyncer)
	if ps == nil {
		ps = newPodSyncer(kl, pod)
		state.Value = ps
	}
	terminal, restartingAllContainers := kl.syncAPIPodStatus(&ps.memo, pod, podStatus)
	if terminal {
		done(true, nil)
		return
	}
	if ps.isStaticPod(pod) {
		kl.tryReconcileMirrorPods(pod, mirrorPod)
	}
	if kl.probeManager != nil && ps.hasProbes(pod) {
		kl.probeManager.AddPod(pod)
	}
	ps.pod, ps.mirrorPod, ps.restartingAll, ps.done = pod, mirrorPod, restartingAllContainers, done
	kl.kubeRuntime.SyncPod(pod, ps.key, podStatus, kl.crashLoop, restartingAllContainers, &ps.actions, ps.runtimeSyncedFn)
}

// podSyncer is SyncPod's state for one pod, from the pod's first sync until it terminates
// (kept in the pod worker's HandlerState): its status memo, and the runtime sync in flight. A pod's worker runs one
// SyncPod at a time, and the runtime manager answers each once (or, if the sync is
// cancelled, never: its steps are dropped with the worker's context), so the fields of
// the sync in flight and the callback bound once serve every sync of the pod in turn.
type podSyncer struct {
	kl   *Kubelet
	key  string // container.Key of the pod: its namespace and name never change
	memo syncMemo
	// actions is the runtime manager's memo of the pod's last "none" actions.
	actions kuberuntime.ActionsMemo
	// uidAttrs is the relistRequested event's attributes (the pod's UID, which never
	// changes for a podSyncer), made at the first and shared by every later one: nothing
	// writes a recorded event's attributes.
	uidAttrs []trace.Attr
	// staticOf is the pod object static was read from (see isStaticPod).
	staticOf *corev1.Pod
	static   bool
	// probesOf is the pod object probes was read from (see hasProbes).
	probesOf *corev1.Pod
	probes   bool

	// The runtime sync in flight: SyncPod's arguments its answer needs.
	pod, mirrorPod  *corev1.Pod
	restartingAll   bool
	done            func(isTerminal bool, err error)
	runtimeSyncedFn func(*kuberuntime.PodSyncResult) // runtimeSynced, bound once
}

func newPodSyncer(kl *Kubelet, pod *corev1.Pod) *podSyncer {
	ps := &podSyncer{kl: kl, key: container.Key(pod)}
	ps.memo.init(kl)
	ps.runtimeSyncedFn = ps.runtimeSynced
	return ps
}

// isStaticPod is podconfig.IsStaticPod(pod), read again only for a new object of the pod:
// a pod object is never changed in place (every change, such as a status update, makes a
// new one), and a steady pod's every resync gets the same object, whose annotations need
// not be looked up again.
func (ps *podSyncer) isStaticPod(pod *corev1.Pod) bool {
	if pod != ps.staticOf {
		ps.staticOf, ps.static = pod, podconfig.IsStaticPod(pod)
	}
	return ps.static
}

// hasProbes is prober.HasProbes(pod), read again only for a new object of the pod (a pod
// object is never changed in place, see isStaticPod). SyncPod asks the prober to add
// workers only for a pod with a probe: for one without, AddPod finds nothing to add and
// changes nothing, whatever workers exist.
func (ps *podSyncer) hasProbes(pod *corev1.Pod) bool {
	if pod != ps.probesOf {
		ps.probesOf, ps.probes = pod, prober.HasProbes(pod)
	}
	return ps.probes
}

// runtimeSynced is the runtime manager's answer to SyncPod: upstream's postSync, then the
// pod worker's done.
func (ps *podSyncer) runtimeSynced(result *kuberuntime.PodSyncResult) {
	kl, pod, mirrorPod, restartingAllContainers, done := ps.kl, ps.pod, ps.mirrorPod, ps.restartingAll, ps.done
	ps.pod, ps.mirrorPod, ps.done = nil, nil, nil
	if result.SyncError == nil && len(result.SyncResults) == 0 {
		// A sync that did nothing (every periodic resync of a steady pod): the reason
		// cache has no start to note, there is no error, and nothing acted or was removed,
		// so neither postSync nor the restart-all resync applies.
		done(false, nil)
		return
	}
	kl.reasonCache.Update(pod.UID, result)
	err := result.Error()
	if err == nil && len(result.SyncResults) > 0 {
		// postSync: the sync acted, so ask PLEG to look at this pod at once.
		if kl.pleg.OnDemand() {
			if ps.uidAttrs == nil {
				ps.uidAttrs = []trace.Attr{{Key: "uid", Value: string(pod.UID)}}
			}
			if kl.postSyncReason == nil {
				kl.postSyncReason = trace.Because("postSyncRelist", "the sync acted without error (postSync): the kubelet asks PLEG to relist this pod now (PLEGOnDemandRelist) instead of waiting for the next periodic relist")
			}
			kl.s.Record(&trace.Event{Kind: KindRelistRequested, Pod: ps.key, Attrs: ps.uidAttrs, Reason: kl.postSyncReason})
		}
		kl.pleg.RequestRelist(pod.UID)
	}
	if restartingAllContainers && err == nil && removedAny(result) {
		// The reset removed the pod's containers: sync again at once to start them,
		// rather than wait for PLEG or the resync. That sync sees every container gone
		// and clears AllContainersRestarting, so this does not repeat.
		kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{Pod: pod, MirrorPod: mirrorPod, UpdateType: podworkers.SyncPodUpdate, StartTime: kl.clk.Now()})
	}
	done(false, err)
}

// syncAPIPodStatus is SyncPod's first step: generate the pod's API status and store it
// in the status manager. It reports whether the phase is terminal and whether the pod is
// restarting all its containers (AllContainersRestarting is True, with the gate on).
//
// Most syncs are periodic resyncs of pods where nothing changed, whose status comes out
// the same as the one the status manager holds. Such a sync is recognised by the pod's
// syncMemo (see there), and then neither generates the status nor stores it: storing the
// same status again would change nothing.
func (kl *Kubelet) syncAPIPodStatus(memo *syncMemo, pod *corev1.Pod, podStatus *container.PodStatus) (terminal, restartingAllContainers bool) {
	cached := memo.cachedStatus(pod.UID)
	// The deadline check depends on the time, so it is never part of the memo: a pod past
	// its deadline is synced in full. (It reads only the pod and its start time, which
	// the readiness triggers below cannot change, so it may come first.)
	if memo.matches(pod, podStatus, cached) && (isTerminal(memo.phase) || !kl.pastActiveDeadline(pod)) {
		// What generateAPIPodStatus does besides generating: the readiness triggers
		// (UpdatePodStatus does not read the status).
		if kl.probeManager != nil {
			kl.probeManager.UpdatePodStatusRef(pod, &memo.proberRef)
		}
		return isTerminal(memo.phase), memo.restartingAll
	}
	memo.reset(pod)
	apiStatus, usedNow := kl.generateAPIPodStatusMemo(pod, podStatus, false, memo)
	kl.statusManager.SetPodStatus(pod, apiStatus)
	restartingAllContainers = false
	if kl.RestartGates.RestartAll() {
		for _, c := range apiStatus.Conditions {
			if c.Type == corev1.AllContainersRestarting && c.Status == corev1.ConditionTrue {
				restartingAllContainers = true
			}
		}
	}
	after := memo.cachedStatus(pod.UID)
	memo.store(pod, podStatus, cached, after, usedNow, apiStatus.Phase, restartingAllContainers)
	return isTerminal(apiStatus.Phase), restartingAllContainers
}

// syncMemo lets SyncPod skip generating and storing the API status of a pod whose status
// cannot have changed since its previous sync (one memo per pod, in its podSyncer).
//
// The status GenerateAPIPodStatus builds is a function of the pod object, the runtime
// status from the pod cache, the status manager's cached status, the answers of the reason
// cache and of the probe results, and the time (only when a condition changes status or
// the pod has no start time yet: GenerateAPIPodStatusUsingNow says so). The memo keeps the
// first three by identity, which is exact because none of them is ever changed in place:
// the pod config hands out a new pod object for every change, PLEG stores a new runtime
// status in the cache for every observation, and the status manager stores a new cached
// status for every change. It keeps every question status generation asked of the reason
// cache and the prober, with the answer, and asks them again to validate the memo. A sync
// that used the time is never memoized.
//
// The memo is recorded only when SetPodStatus left the cached status as it was (the
// generated status was the one already held), so the cached status the memo names is
// both the input and the outcome of that sync. A later sync with the same inputs and
// answers would generate the same status, and SetPodStatus would again keep the cached
// status (it keeps transition times and the start time from it, so storing a status a
// second time changes nothing) and record nothing. That sync is skipped, except for a pod
// being deleted, whose every status is stored again (SetPodStatus forces it).
type syncMemo struct {
	kl *Kubelet

	valid     bool
	pod       *corev1.Pod
	podStatus *container.PodStatus
	cached    *corev1.PodStatus

	// What the skipped sync would have answered.
	phase         corev1.PodPhase
	restartingAll bool

	// The questions asked while generating the status, with their answers.
	probeCalls  []probeCall
	reasonCalls []reasonCall
	// startupVersion and readinessVersion are the versions of the startup and readiness
	// results when the questions were asked (read before: a later change only makes the
	// memo ask again). While both are unchanged, every answer in probeCalls is the same,
	// unless one came from outside the results (fromPodState): a container with a
	// readiness probe and no result yet is as ready as the pod and its start time say.
	startupVersion, readinessVersion uint64
	fromPodState                     bool

	// The ProbeState and ReasonLookup handed to status generation, made once per memo.
	probes  memoProbes
	reasons status.ReasonLookup

	// entry is the status manager's PodStatusEntry of the pod (nil: none held), which
	// cachedStatus reads instead of looking the pod up at every sync.
	entry *status.PodStatusEntry
	// proberRef is the pod's entry in the prober, for the readiness triggers of every
	// sync (UpdatePodStatusRef). Unlike the rest of the memo, reset keeps it: the prober
	// checks it at every use.
	proberRef prober.PodRef
}

// cachedStatus is the status manager's PeekPodStatus of uid (nil when none is cached),
// read through the pod's PodStatusEntry. The entry is held from sync to sync: the manager
// points it at every new status of the pod and sets its Status to nil when it drops the
// pod (a pod cached again gets a new entry), so it is looked up again only when none is
// held or when it was dropped. A memo belongs to one pod syncer, kept per UID.
func (m *syncMemo) cachedStatus(uid types.UID) *corev1.PodStatus {
	if m.entry == nil || m.entry.Status == nil {
		m.entry = m.kl.statusManager.PodStatusEntry(uid)
		if m.entry == nil {
			return nil
		}
	}
	return m.entry.Status
}

type probeCallKind uint8

const (
	callStartupResult probeCallKind = iota
	callStarted
	callReady
)

// probeCall is one question status generation asked the prober, and its answer (known is
// StartupResult's second answer). key is the container's ID as the probe results are
// keyed (trimID of the ID asked about), trimmed once when the question is recorded.
type probeCall struct {
	kind          probeCallKind
	id, key       string
	c             *corev1.Container
	answer, known bool
}

// reasonCall is one reason cache lookup and its answer.
type reasonCall struct {
	name   string
	reason status.Reason
	ok     bool
}

// init readies a new memo.
func (m *syncMemo) init(kl *Kubelet) {
	m.kl = kl
	m.probes.memo = m
	m.reasons = m.lookupReason
}

// reset forgets the memo before the status of pod is generated again.
func (m *syncMemo) reset(pod *corev1.Pod) {
	m.valid = false
	m.pod, m.podStatus, m.cached = nil, nil, nil
	clear(m.probeCalls)
	clear(m.reasonCalls)
	m.probeCalls, m.reasonCalls = m.probeCalls[:0], m.reasonCalls[:0]
	m.startupVersion, m.readinessVersion = m.kl.startupManager.Version(), m.kl.readinessManager.Version()
	m.fromPodState = false
	m.probes.p = probeState{m.kl, pod}
}

// store records a sync's inputs and outcome, if a later sync may reuse them (see syncMemo).
func (m *syncMemo) store(pod *corev1.Pod, podStatus *container.PodStatus, before, after *corev1.PodStatus, usedNow bool, phase corev1.PodPhase, restartingAll bool) {
	if usedNow || before == nil || before != after || podStatus == nil || pod.DeletionTimestamp != nil {
		return
	}
	m.valid = true
	m.pod, m.podStatus, m.cached = pod, podStatus, after
	m.phase, m.restartingAll = phase, restartingAll
}

// matches reports whether a sync of pod with podStatus, the status manager holding cached,
// would generate the memo's status and leave the cached status as it is.
func (m *syncMemo) matches(pod *corev1.Pod, podStatus *container.PodStatus, cached *corev1.PodStatus) bool {
	if !m.valid || m.pod != pod || m.podStatus != podStatus || m.cached != cached || pod.DeletionTimestamp != nil {
		return false
	}
	if m.fromPodState || m.startupVersion != m.kl.startupManager.Version() || m.readinessVersion != m.kl.readinessManager.Version() {
		if !m.probesAnswerAsRecorded(pod) {
			return false
		}
	}
	for i := range m.reasonCalls {
		c := &m.reasonCalls[i]
		if e, ok := m.kl.reasonCache.Get(pod.UID, c.name); ok != c.ok || e.err != c.reason.Err || e.message != c.reason.Message {
			return false
		}
	}
	return true
}

// probesAnswerAsRecorded asks the prober the memo's questions again and reports whether
// every answer is the one recorded.
func (m *syncMemo) probesAnswerAsRecorded(pod *corev1.Pod) bool {
	p := probeState{m.kl, pod}
	for i := range m.probeCalls {
		c := &m.probeCalls[i]
		switch c.kind {
		case callStartupResult:
			if answer, known := p.startupResult(c.key); answer != c.answer || known != c.known {
				return false
			}
		case callStarted:
			if p.started(c.key, c.c) != c.answer {
				return false
			}
		case callReady:
			if p.ready(pod.UID, c.id, c.key, c.c) != c.answer {
				return false
			}
		}
	}
	return true
}

// lookupReason is the reason cache lookup status generation makes, recorded.
func (m *syncMemo) lookupReason(uid types.UID, name string) (status.Reason, bool) {
	e, ok := m.kl.reasonCache.Get(uid, name)
	r := status.Reason{Err: e.err, Message: e.message}
	m.reasonCalls = append(m.reasonCalls, reasonCall{name: name, reason: r, ok: ok})
	return r, ok
}

// memoProbes is the pod's probeState, recording every question and answer in its memo.
type memoProbes struct {
	p    probeState
	memo *syncMemo
}

func (mp *memoProbes) RestartGates() kuberuntime.RestartGates { return mp.p.RestartGates() }

func (mp *memoProbes) ChangeContainerStatusOnKubeletRestart() bool {
	return mp.p.ChangeContainerStatusOnKubeletRestart()
}

func (mp *memoProbes) StartupResult(uid types.UID, id string) (success, known bool) {
	success, known = mp.p.StartupResult(uid, id)
	mp.memo.probeCalls = append(mp.memo.probeCalls, probeCall{kind: callStartupResult, id: id, key: trimID(id), answer: success, known: known})
	return success, known
}

func (mp *memoProbes) Started(uid types.UID, id string, c *corev1.Container) bool {
	answer := mp.p.Started(uid, id, c)
	mp.memo.probeCalls = append(mp.memo.probeCalls, probeCall{kind: callStarted, id: id, key: trimID(id), c: c, answer: answer})
	return answer
}

func (mp *memoProbes) Ready(uid types.UID, id string, c *corev1.Container) bool {
	key := trimID(id)
	answer, fromPodState := mp.p.readyFrom(uid, id, key, c)
	if fromPodState {
		mp.memo.fromPodState = true
	}
	mp.memo.probeCalls = append(mp.memo.probeCalls, probeCall{kind: callReady, id: id, key: key, c: c, answer: answer})
	return answer
}

// removedAny reports whether a sync removed a container.
func removedAny(result *kuberuntime.PodSyncResult) bool {
	for _, r := range result.SyncResults {
		if r.Action == kuberuntime.RemoveContainer && r.Error == nil {
			return true
		}
	}
	return false
}

// KindRelistRequested is SyncPod's postSync asking PLEG for an on-demand relist of the
// pod it synced (RequestPodRelist), on the pod worker's goroutine. Attrs: uid.
const KindRelistRequested trace.Kind = "relistRequested"

// KindMirrorPod is SyncPod's tryReconcileMirrorPods acting for a static pod, on the pod
// worker's goroutine: Name is "create", or "delete" for a mirror pod that no longer matches
// (then a create follows). Attrs: mirrorUID.
const KindMirrorPod trace.Kind = "mirrorPod"

// tryReconcileMirrorPods makes sure a static pod has a mirror pod in the API server that
// matches it, so that the cluster can see it (upstream tryReconcileMirrorPods, called by
// SyncPod): a mirror pod being deleted, or made from another version of the static pod, is
// deleted; a missing one is created. The mirror pod comes back to this node through the
// API server's watch as an ADD that the pod manager files in its mirror-pod map.
func (kl *Kubelet) tryReconcileMirrorPods(pod, mirrorPod *corev1.Pod) {
	hash := pod.Annotations[podconfig.ConfigHashAnnotationKey]
	if mirrorPod != nil && mirrorPod.DeletionTimestamp == nil && mirrorPod.Annotations[podconfig.ConfigMirrorAnnotationKey] == hash {
		return
	}
	key := pod.Namespace + "/" + pod.Name
	if existing := kl.deps.API.GetByName(pod.Namespace, pod.Name); existing != nil {
		if existing.Annotations[podconfig.ConfigMirrorAnnotationKey] == hash && existing.DeletionTimestamp == nil {
			return
		}
		kl.s.Record(&trace.Event{Kind: KindMirrorPod, Name: "delete", Pod: key,
			Attrs:  []trace.Attr{{Key: "mirrorUID", Value: string(existing.UID)}},
			Reason: trace.Because("mirrorPodStale", "the API server's mirror pod is being deleted or was made from another version of the static pod: tryReconcileMirrorPods deletes it and creates one that matches")})
		kl.deps.API.ForceDelete(existing.UID)
	}
	mirror := pod.DeepCopy()
	mirror.UID = types.UID("mirror-" + string(pod.UID))
	mirror.Annotations = map[string]string{podconfig.ConfigMirrorAnnotationKey: hash}
	for k, v := range pod.Annotations {
		if k != podconfig.ConfigSourceAnnotationKey && k != podconfig.ConfigFirstSeenAnnotationKey {
			mirror.Annotations[k] = v
		}
	}
	mirror.Status = corev1.PodStatus{}
	kl.s.Record(&trace.Event{Kind: KindMirrorPod, Name: "create", Pod: key,
		Attrs:  []trace.Attr{{Key: "mirrorUID", Value: string(mirror.UID)}},
		Reason: trace.Because("tryReconcileMirrorPods", "a static pod comes from a file, not the API server: SyncPod's tryReconcileMirrorPods creates its mirror pod there so the cluster can see it; the pod worker keeps running the static pod")})
	kl.deps.API.Create(mirror)
}

// SyncTerminatingPod stops every container of a pod being terminated, within the grace
// period, then records the pod's final status (upstream SyncTerminatingPod).
func (kl *Kubelet) SyncTerminatingPod(pod *corev1.Pod, podStatus *container.PodStatus, gracePeriod *int64, podStatusFn func(*corev1.PodStatus), done func(err error)) {
	// A terminating pod never runs SyncPod again: its podSyncer goes with its worker.
	apiStatus := kl.generateAPIPodStatus(pod, podStatus, false)
	if podStatusFn != nil {
		podStatusFn(&apiStatus)
	}
	kl.statusManager.SetPodStatus(pod, apiStatus)
	if kl.probeManager != nil {
		kl.probeManager.StopLivenessAndStartup(pod)
	}
	running := container.ConvertPodStatusToRunningPod(podStatus)
	kl.kubeRuntime.KillPod(pod, running, gracePeriod, func(err error) {
		if err != nil {
			done(fmt.Errorf("killing pod: %w", err))
			return
		}
		if kl.probeManager != nil {
			kl.probeManager.RemovePod(pod)
		}
		// Ask the runtime again: nothing may run any more.
		kl.s.Continue(kl.runtime.StatusCost(len(podStatus.ContainerStatuses)), func() {
			st, err := kl.runtime.GetPodStatus(pod.UID, pod.Name, pod.Namespace)
			if err != nil {
				done(fmt.Errorf("unable to read pod status prior to final pod termination: %w", err))
				return
			}
			var still []string
			for _, c := range st.ContainerStatuses {
				if c.State == container.StateRunning {
					still = append(still, c.Name)
				}
			}
			if len(still) > 0 {
				done(fmt.Errorf("detected running containers after a successful KillPod, CRI violation: %s", strings.Join(still, ",")))
				return
			}
			final := kl.generateAPIPodStatus(pod, st, true)
			if podStatusFn != nil {
				podStatusFn(&final)
			}
			kl.statusManager.SetPodStatus(pod, final)
			done(nil)
		})
	})
}

// SyncTerminatingRuntimePod kills a pod the runtime has but no config knows, with a 1s
// grace period.
func (kl *Kubelet) SyncTerminatingRuntimePod(rp *container.Pod, done func(err error)) {
	one := int64(1)
	kl.kubeRuntime.KillPod(nil, rp, &one, done)
}

// SyncTerminatedPod finishes a terminated pod: final status, then TerminatePod so the status
// manager may delete a deleted pod from the API.
func (kl *Kubelet) SyncTerminatedPod(pod *corev1.Pod, podStatus *container.PodStatus, done func(err error)) {
	apiStatus := kl.generateAPIPodStatus(pod, podStatus, true)
	kl.statusManager.SetPodStatus(pod, apiStatus)
	kl.statusManager.TerminatePod(pod)
	kl.reasonCache.Remove(pod.UID)
	done(nil)
}

// generateAPIPodStatus builds the pod's API status from the runtime's view (upstream
// generateAPIPodStatus), with the active-deadline check of the pod sync handlers.
func (kl *Kubelet) generateAPIPodStatus(pod *corev1.Pod, podStatus *container.PodStatus, podIsTerminal bool) corev1.PodStatus {
	st, _ := kl.generateAPIPodStatusMemo(pod, podStatus, podIsTerminal, nil)
	return st
}

// generateAPIPodStatusMemo is generateAPIPodStatus asking its questions of the reason
// cache and the prober through memo (when not nil), and reporting whether the status
// depends on the time (GenerateAPIPodStatusUsingNow; a deadline exceeded counts).
func (kl *Kubelet) generateAPIPodStatusMemo(pod *corev1.Pod, podStatus *container.PodStatus, podIsTerminal bool, memo *syncMemo) (corev1.PodStatus, bool) {
	// The cached status is read in place: status generation only reads the old status,
	// and the status manager never changes a cached status (PeekPodStatus).
	old := &pod.Status
	if memo != nil {
		if st := memo.cachedStatus(pod.UID); st != nil {
			old = st
		}
	} else if st, ok := kl.statusManager.PeekPodStatus(pod.UID); ok {
		old = st
	}
	var reasons status.ReasonLookup
	var probes status.ProbeState
	if memo != nil {
		reasons, probes = memo.reasons, &memo.probes
	} else {
		reasons = func(uid types.UID, name string) (status.Reason, bool) {
			e, ok := kl.reasonCache.Get(uid, name)
			return status.Reason{Err: e.err, Message: e.message}, ok
		}
		probes = probeState{kl, pod}
	}
	st, usedNow := status.GenerateAPIPodStatusUsingNow(pod, podStatus, old, podIsTerminal, reasons, probes, kl.clk.Now())
	if kl.probeManager != nil {
		// The readiness triggers. The prober does not read the status (generation has
		// applied its results already), so none is passed, as a memoized sync passes
		// none: taking st's address would move every generated status to the heap.
		if memo != nil {
			kl.probeManager.UpdatePodStatusRef(pod, &memo.proberRef)
		} else {
			kl.probeManager.UpdatePodStatus(pod, nil)
		}
	}
	if !isTerminal(st.Phase) && kl.pastActiveDeadline(pod) {
		st.Phase = corev1.PodFailed
		st.Reason = "DeadlineExceeded"
		st.Message = "Pod was active on the node longer than the specified deadline"
		usedNow = true
	}
	return st, usedNow
}

// probeState answers status generation's started/ready questions from the probe results
// (upstream: the prober manager's UpdatePodStatus), for one pod as the pod manager holds it.
type probeState struct {
	kl  *Kubelet
	pod *corev1.Pod
}

// RestartGates gives status generation the run's restart-rule gates.
func (p probeState) RestartGates() kuberuntime.RestartGates { return p.kl.RestartGates }

func (p probeState) ChangeContainerStatusOnKubeletRestart() bool {
	return p.kl.ChangeContainerStatusOnKubeletRestart
}

// StartupResult: without a cached startup result (a container adopted from the previous
// kubelet, whose worker kept no initial value) status generation keeps the previous Started.
func (p probeState) StartupResult(_ types.UID, id string) (success, known bool) {
	return p.startupResult(trimID(id))
}

// startupResult is StartupResult of the container whose trimmed ID is key.
func (p probeState) startupResult(key string) (success, known bool) {
	r, ok := p.kl.startupManager.Get(key)
	return r == results.Success, ok
}

// trimID drops a container ID's runtime prefix ("containerd://"): it is
// strings.Index(id, "://") found one ':' at a time: IndexByte's scan is much
// cheaper than Index's for IDs as long as a runtime's, and every status generation (and
// every memoized sync's check) trims each container's ID.
func trimID(id string) string {
	for i := 0; ; {
		j := strings.IndexByte(id[i:], ':')
		if j < 0 {
			return id
		}
		i += j
		if strings.HasPrefix(id[i+1:], "//") {
			return id[i+3:]
		}
		i++
	}
}

func (p probeState) Started(_ types.UID, id string, c *corev1.Container) bool {
	if c == nil || c.StartupProbe == nil {
		return true
	}
	return p.started(trimID(id), c)
}

// started is Started of the container whose trimmed ID is key.
func (p probeState) started(key string, c *corev1.Container) bool {
	if c == nil || c.StartupProbe == nil {
		return true
	}
	r, ok := p.kl.startupManager.Get(key)
	return ok && r == results.Success
}

// Ready: a readiness result decides; without one, a container with a readiness probe is
// not ready, unless (ChangeContainerStatusOnKubeletRestart off) it was running before this
// kubelet started: then it is as ready as the pod was (its API Ready condition), so that a
// kubelet restart does not turn a ready pod NotReady until the first probe
// (upstream setReadyStateOnKubeletRestart).
func (p probeState) Ready(uid types.UID, id string, c *corev1.Container) bool {
	if c == nil || c.ReadinessProbe == nil {
		return true
	}
	return p.ready(uid, id, trimID(id), c)
}

// ready is Ready of the container with the given ID, whose trimmed ID is key.
func (p probeState) ready(uid types.UID, id, key string, c *corev1.Container) bool {
	answer, _ := p.readyFrom(uid, id, key, c)
	return answer
}

// readyFrom is ready, and whether the answer came from the pod's own state: a container
// with a readiness probe that has no result yet.
func (p probeState) readyFrom(uid types.UID, id, key string, c *corev1.Container) (answer, fromPodState bool) {
	if c == nil || c.ReadinessProbe == nil {
		return true, false
	}
	if r, ok := p.kl.readinessManager.Get(key); ok {
		return r == results.Success, false
	}
	if p.kl.ChangeContainerStatusOnKubeletRestart || !p.kl.probeStarted(p.startedAt(uid, id)) {
		return false, true
	}
	for _, cond := range p.pod.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue, true
		}
	}
	return false, true
}

// probeStarted reports whether a container that started at t was running before this
// kubelet started (the prober's rule).
func (kl *Kubelet) probeStarted(t time.Time) bool { return kl.prober.StartedBeforeKubeletRestart(t) }

// startedAt is when the runtime started the container with the given ID, from the pod cache.
func (p probeState) startedAt(uid types.UID, id string) time.Time {
	st, err := p.kl.podCache.Get(uid)
	if err != nil || st == nil {
		return time.Time{}
	}
	for _, cs := range st.ContainerStatuses {
		if trimID(cs.ID) == trimID(id) {
			return cs.StartedAt
		}
	}
	return time.Time{}
}

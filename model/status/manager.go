// Package status is the kubelet's status manager (upstream pkg/kubelet/status): it caches
// each pod's latest API status with a version, writes changes to the API server in batches
// (on change and every 10 seconds), withholds a terminal phase while containers may still
// run, and deletes a deleted pod from the API once the kubelet has finished with it. It also
// holds the pure functions that generate a pod's API status from the runtime's view.
package status

import (
	"maps"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/apiserver"
	"nodesim/sim"
	"nodesim/trace"
)

// SyncPeriod is how often every pod's status is reconciled with the API.
const SyncPeriod = 10 * time.Second

// Trace kinds.
const (
	// KindSetPodStatus: the cached status of a pod changed (phase, reason in attributes).
	KindSetPodStatus trace.Kind = "setPodStatus"
	KindTerminatePod trace.Kind = "terminatePod"
	KindSyncBatch    trace.Kind = "statusSyncBatch"
	KindDeletePod    trace.Kind = "statusDeletePod"
)

// PodDeletionSafetyProvider says whether a pod may still have running containers (the pod
// workers).
type PodDeletionSafetyProvider interface {
	CouldHaveRunningContainers(uid types.UID) bool
}

type versionedPodStatus struct {
	// entry is the pod's PodStatusEntry, handed from each status to the next.
	entry        *PodStatusEntry
	static       bool
	status       corev1.PodStatus
	version      uint64
	podName      string
	podNamespace string
	// podKey is namespace/name, as the trace names the pod, handed from each status to
	// the next while they stay the same (they do for a UID), so that it is built once.
	podKey string
	// attrKeys are statusAttrs' container attribute keys ("container/NAME") for this
	// status's init and regular containers, in order, handed from each status to the next
	// while the names stay the same.
	attrKeys      []string
	at            time.Time
	podIsFinished bool
}

// PodStatusEntry holds a pod's cached status for readers that look at it on every round
// (the probe workers). The manager keeps one entry per cached pod for as long as the pod
// stays cached, points it at every new status, and sets Status to nil when it drops the
// pod; a pod cached again gets a new entry. A reader that holds the entry therefore sees
// the latest status without a lookup by UID, and needs to look the pod up again
// (PodStatusEntry) only once Status is nil.
type PodStatusEntry struct {
	// Status is the cached status, shared on PeekPodStatus's terms (nil: dropped).
	Status *corev1.PodStatus
}

// Manager is the status manager.
type Manager struct {
	// terminalVersion counts the changes to which pods GetPodPhase reports terminal
	// (a cached phase becoming or ceasing to be Succeeded or Failed, a terminal status
	// dropped): admission rechecks its active pods only when it moved.
	terminalVersion uint64
	s               *sim.Sim
	clk             *sim.Clock
	api             *apiserver.Server
	safety          PodDeletionSafetyProvider
	podStatuses     map[types.UID]*versionedPodStatus
	// synced is what the manager last wrote of each pod (see syncedState).
	synced map[types.UID]*syncedState
	uids   []types.UID // sortedUIDs' answer, nil when stale
	// unsynced holds the pods whose cached version is newer than the one last written, and
	// finished the non-static pods whose status is finished (the only ones canBeDeleted may
	// accept): together every pod a batch of changes (syncBatch(false)) may write, so that
	// such a batch, run after every status change, need not visit every pod. Both are kept
	// by updateStatusInternal (a new version), syncPod (a write, a delete) and
	// RemoveOrphanedStatuses.
	unsynced map[types.UID]bool
	finished map[types.UID]bool
	// reconcile holds the pods the periodic reconcile (syncBatch(true)) has to look at:
	// every cached pod but those it last found needing nothing (no version to write, no
	// reconcile, no delete) that have not changed since. The pass's test reads only the
	// cached status (a change goes through updateStatusInternal), the manager's record of
	// its writes (syncPod) and the pod's API object (a change reaches apiPodChanged), and
	// each of those puts the pod back, so leaving the others out changes nothing. Static
	// pods never leave: their API object is the mirror pod, found by name, not by their
	// UID. Only syncBatch(true) removes a pod, right after its test found nothing to do;
	// dropping a pod from the cache removes it too.
	reconcile map[types.UID]bool
	// observing says apiPodChanged hears of every change to an API pod (the API server's
	// Observe, until stopObserving), without which reconcile cannot be kept and the
	// periodic reconcile visits every pod. narrowOff makes it do so anyway (tests).
	observing, narrowOff bool
	stopObserving        func()
	// inPass is set while syncBatch(true) walks reconcile's pods, and late collects the pods
	// put back into reconcile meanwhile, for the pass to take in those it has yet to reach;
	// todo is the pass's list, reused by every pass.
	inPass     bool
	late, todo []types.UID
	// podsVersion counts the pods entering or leaving podStatuses. orphansChecked says
	// RemoveOrphanedStatuses left only known pods when podsVersion was orphansPods and
	// its known set was at orphansKnown.
	podsVersion               uint64
	orphansChecked            bool
	orphansPods, orphansKnown uint64
	// changed is changedUIDs' buffer, reused by every batch of changes (a batch runs to
	// its end before another can start).
	changed   []types.UID
	signalled bool
	ticker    *sim.Timer
	// syncChangedFn is syncChanged, bound once.
	syncChangedFn func()
}

// syncedState is the manager's record of its writes of one pod. An entry outlives the pod's
// cached status when the pod is deleted from the API (its resource version is kept), and
// goes with RemoveOrphanedStatuses.
type syncedState struct {
	// version is the cached status version last written (0: none since the status was
	// cached).
	version uint64
	// resourceVersion is the API resource version after the last write: an API object
	// still at that version needs no reconcile.
	resourceVersion string
}

// NewManager returns a status manager writing to api.
func NewManager(s *sim.Sim, api *apiserver.Server, safety PodDeletionSafetyProvider) *Manager {
	m := &Manager{s: s, clk: s.Clock("statusManager", sim.PriorityStatus), api: api, safety: safety,
		podStatuses: map[types.UID]*versionedPodStatus{}, synced: map[types.UID]*syncedState{},
		unsynced: map[types.UID]bool{}, finished: map[types.UID]bool{}, reconcile: map[types.UID]bool{}}
	if api != nil {
		m.stopObserving, m.observing = api.Observe(m.apiPodChanged), true
	}
	return m
}

// apiPodChanged is told of every change to a pod's API object: a cached pod's reconcile
// test may answer differently.
func (m *Manager) apiPodChanged(uid types.UID) {
	if _, ok := m.podStatuses[uid]; ok {
		m.markReconcile(uid)
	}
}

// markReconcile puts a cached pod back into reconcile.
func (m *Manager) markReconcile(uid types.UID) {
	if !m.reconcile[uid] {
		m.reconcile[uid] = true
		if m.inPass {
			m.late = append(m.late, uid)
		}
	}
}

// Start begins the periodic full sync.
func (m *Manager) Start() {
	var tick func()
	tick = func() {
		m.syncBatch(true)
		m.ticker = m.clk.Schedule(SyncPeriod, tick)
	}
	m.ticker = m.clk.Schedule(SyncPeriod, tick)
}

// Stop stops syncing (kubelet restart).
func (m *Manager) Stop() {
	if m.ticker != nil {
		m.ticker.Stop()
	}
	if m.observing {
		m.stopObserving()
		m.observing = false
	}
}

// GetPodStatus returns the cached status, shared as upstream's is: its slices and pointers
// belong to the cache, and the caller only reads them. That is safe because a cached status
// is never changed in place (every update stores a new value built from a copy), and it
// spares every probe and pod sync a deep copy of the pod's status.
func (m *Manager) GetPodStatus(uid types.UID) (corev1.PodStatus, bool) {
	if st, ok := m.podStatuses[uid]; ok {
		return st.status, true
	}
	return corev1.PodStatus{}, false
}

// PeekPodStatus returns the cached status itself, shared on GetPodStatus's terms: the
// caller only reads it, and no update changes it in place. It spares a reader that runs on
// every probe of every container (the probe workers) a copy of the whole PodStatus.
func (m *Manager) PeekPodStatus(uid types.UID) (*corev1.PodStatus, bool) {
	if st, ok := m.podStatuses[uid]; ok {
		return &st.status, true
	}
	return nil, false
}

// PodStatusEntry returns the pod's entry (see PodStatusEntry), or nil when no status is
// cached for uid.
func (m *Manager) PodStatusEntry(uid types.UID) *PodStatusEntry {
	if st, ok := m.podStatuses[uid]; ok {
		return st.entry
	}
	return nil
}

// TerminalVersion changes whenever GetPodPhase may report a terminal phase differently
// for some pod.
func (m *Manager) TerminalVersion() uint64 { return m.terminalVersion }

// GetPodPhase returns the cached phase without copying the status.
func (m *Manager) GetPodPhase(uid types.UID) (corev1.PodPhase, bool) {
	if st, ok := m.podStatuses[uid]; ok {
		return st.status.Phase, true
	}
	return "", false
}

// GetStartTime returns the cached status's start time.
func (m *Manager) GetStartTime(uid types.UID) (time.Time, bool) {
	if st, ok := m.podStatuses[uid]; ok && st.status.StartTime != nil {
		return st.status.StartTime.Time, true
	}
	return time.Time{}, false
}

// SetPodStatus caches a pod's new status and schedules a write if it changed.
func (m *Manager) SetPodStatus(pod *corev1.Pod, status corev1.PodStatus) {
	m.updateStatusInternal(pod, status, pod.DeletionTimestamp != nil, false)
}

// SetContainerReadiness flips a container's ready flag in the cached status (readiness
// probe results, regular containers and sidecars alike) and recomputes the Ready conditions.
func (m *Manager) SetContainerReadiness(pod *corev1.Pod, containerID string, ready bool) {
	old, ok := m.podStatuses[pod.UID]
	if !ok {
		return
	}
	// Nothing to change: no copy (the cached status is only read here).
	if cs := findContainerStatus(&old.status, containerID); cs == nil || cs.Ready == ready {
		return
	}
	st := old.status.DeepCopy()
	cs := findContainerStatus(st, containerID)
	cs.Ready = ready
	// ContainersReady, then Ready from it and the conditions as they are then (what
	// GeneratePodReadyCondition would compute again), over the init and regular statuses.
	containersReady := generateContainersReadyCondition(pod, st, statusLists{st.InitContainerStatuses, st.ContainerStatuses}, true, st.Phase)
	replaceCondition(st, containersReady)
	replaceCondition(st, podReadyCondition(pod, st, st.Conditions, &containersReady))
	m.updateStatusInternal(pod, *st, false, false)
}

// SetContainerStartup flips a container's started flag (startup probe results).
func (m *Manager) SetContainerStartup(pod *corev1.Pod, containerID string, started bool) {
	old, ok := m.podStatuses[pod.UID]
	if !ok {
		return
	}
	// Nothing to change: no copy (the cached status is only read here).
	if cs := findContainerStatus(&old.status, containerID); cs == nil || (cs.Started != nil && *cs.Started == started) {
		return
	}
	st := old.status.DeepCopy()
	cs := findContainerStatus(st, containerID)
	cs.Started = &started
	m.updateStatusInternal(pod, *st, false, false)
}

// findContainerStatus finds a container, regular or init, by its runtime ID.
func findContainerStatus(st *corev1.PodStatus, containerID string) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{st.ContainerStatuses, st.InitContainerStatuses} {
		for i := range list {
			if id := list[i].ContainerID; id == containerID || id == ContainerIDScheme+containerID {
				return &list[i]
			}
		}
	}
	return nil
}

func replaceCondition(st *corev1.PodStatus, c corev1.PodCondition) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// TerminatePod marks every container that is not terminated as terminated with
// ContainerStatusUnknown and a pod still Pending or Running as Failed, and marks the status
// finished, so that a deleted pod may be removed from the API.
func (m *Manager) TerminatePod(pod *corev1.Pod) {
	old, ok := m.podStatuses[pod.UID]
	var st *corev1.PodStatus
	if ok {
		st = old.status.DeepCopy()
	} else {
		st = pod.Status.DeepCopy()
	}
	mark := func(list []corev1.ContainerStatus) {
		for i := range list {
			if list[i].State.Terminated != nil {
				continue
			}
			list[i].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				Reason: "ContainerStatusUnknown", Message: "The container could not be located when the pod was terminated", ExitCode: 137}}
		}
	}
	// Regular containers only once the pod has initialized: before that they never ran, and
	// they stay waiting (PodInitializing). Init containers: all but the trailing ones that
	// never left waiting.
	if hasPodInitialized(pod) {
		mark(st.ContainerStatuses)
	}
	mark(initializedContainers(st.InitContainerStatuses))
	if st.Phase == corev1.PodPending || st.Phase == corev1.PodRunning || st.Phase == "" {
		if pod.Annotations["kubernetes.io/config.source"] != "file" {
			st.Phase = corev1.PodFailed
		}
	}
	m.clk.Record(&trace.Event{Kind: KindTerminatePod, Pod: pod.Namespace + "/" + pod.Name})
	m.updateStatusInternal(pod, *st, true, true)
}

// hasPodInitialized reports, from the pod's API status, whether the pod ever got past its
// init containers (upstream hasPodInitialized): it has none; a regular container left
// waiting at some point; or the last init container completed with exit code 0 (a sidecar:
// is running and started).
func hasPodInitialized(pod *corev1.Pod) bool {
	if len(pod.Spec.InitContainers) == 0 {
		return true
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.LastTerminationState.Terminated != nil || cs.State.Waiting == nil {
			return true
		}
	}
	n := len(pod.Status.InitContainerStatuses)
	if n == 0 {
		return false
	}
	last := pod.Status.InitContainerStatuses[n-1]
	var spec *corev1.Container
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == last.Name {
			spec = &pod.Spec.InitContainers[i]
		}
	}
	if spec == nil {
		return false
	}
	if spec.RestartPolicy != nil && *spec.RestartPolicy == corev1.ContainerRestartPolicyAlways {
		return last.State.Running != nil && last.Started != nil && *last.Started
	}
	if t := last.LastTerminationState.Terminated; t != nil && t.ExitCode == 0 {
		return true
	}
	if t := last.State.Terminated; t != nil && t.ExitCode == 0 {
		return true
	}
	return false
}

// initializedContainers is the init containers up to the last one that left waiting (at
// least the first): the ones that must have run (upstream initializedContainers).
func initializedContainers(list []corev1.ContainerStatus) []corev1.ContainerStatus {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].State.Waiting == nil || list[i].LastTerminationState.Terminated != nil {
			return list[:i+1]
		}
	}
	if len(list) > 0 {
		return list[:1]
	}
	return nil
}

func isTerminal(p corev1.PodPhase) bool { return p == corev1.PodSucceeded || p == corev1.PodFailed }

func (m *Manager) updateStatusInternal(pod *corev1.Pod, status corev1.PodStatus, force, finished bool) {
	// The previous status, read in place (a cached status is never changed).
	oldStatus := &pod.Status
	cached, isCached := m.podStatuses[pod.UID]
	if isCached {
		oldStatus = &cached.status
	}
	// A pod never leaves a terminal phase.
	if isTerminal(oldStatus.Phase) && !isTerminal(status.Phase) {
		status.Phase, status.Reason, status.Message = oldStatus.Phase, oldStatus.Reason, oldStatus.Message
	}
	now := m.s.Now()
	keepTransitionTimes(&status, oldStatus, now)
	if oldStatus.StartTime != nil && !oldStatus.StartTime.IsZero() {
		status.StartTime = oldStatus.StartTime
	} else if status.StartTime == nil || status.StartTime.IsZero() {
		t := metav1.NewTime(wholeSecond(now))
		status.StartTime = &t
	}
	normalize(&status)
	if isCached && statusEqual(&cached.status, &status) && !force {
		return
	}
	if isCached && cached.podIsFinished && !finished {
		finished = true
	}
	ns := &versionedPodStatus{status: status, podName: pod.Name, podNamespace: pod.Namespace, podIsFinished: finished,
		static: pod.Annotations["kubernetes.io/config.source"] == "file"}
	if isCached {
		ns.version = cached.version + 1
		ns.at = cached.at
		ns.entry = cached.entry
	} else {
		ns.version = 1
		ns.entry = &PodStatusEntry{}
	}
	if isCached && cached.podName == pod.Name && cached.podNamespace == pod.Namespace {
		ns.podKey = cached.podKey
	} else {
		ns.podKey = pod.Namespace + "/" + pod.Name
	}
	var prevKeys []string
	if isCached {
		prevKeys = cached.attrKeys
	}
	ns.attrKeys = containerAttrKeys(&ns.status, prevKeys)
	ns.entry.Status = &ns.status
	if ns.at.IsZero() {
		ns.at = now
	}
	if !isCached {
		m.uids = nil
		m.podsVersion++
	}
	if isTerminal(ns.status.Phase) != (isCached && isTerminal(cached.status.Phase)) {
		m.terminalVersion++
	}
	m.podStatuses[pod.UID] = ns
	m.unsynced[pod.UID] = true
	m.markReconcile(pod.UID)
	if finished && !ns.static {
		m.finished[pod.UID] = true
	} else {
		delete(m.finished, pod.UID)
	}
	m.clk.Record(&trace.Event{Kind: KindSetPodStatus, Pod: ns.podKey, Attrs: statusAttrs(pod, &status, ns.version, ns.attrKeys)})
	if !m.signalled {
		m.signalled = true
		if m.syncChangedFn == nil {
			m.syncChangedFn = m.syncChanged
		}
		// Go, not Schedule: the batch is never stopped, so it needs no Timer.
		m.clk.Go(0, m.syncChangedFn)
	}
}

// syncChanged is the batch of changes a status change signals (upstream: the podStatusChannel
// wakes syncBatch).
func (m *Manager) syncChanged() {
	m.signalled = false
	m.syncBatch(false)
}

// keepTransitionTimes sets the LastTransitionTime of each condition of a type the manager
// tracks (transitionIndex): the time of old's condition of that type when its status is
// the same, else now. Of several conditions of one type, the last one of each list
// counts, and only the last one in status is set. One pass over old finds its last
// condition of each tracked type, and one pass from the end of status the conditions to
// set: every stored status goes through here, and looking each type up in old again
// compared the type strings of old's conditions over and over.
func keepTransitionTimes(status, old *corev1.PodStatus, now time.Time) {
	var olds [trackedTransitions]*corev1.PodCondition
	for j := range old.Conditions {
		if k := transitionIndex(old.Conditions[j].Type); k >= 0 {
			olds[k] = &old.Conditions[j]
		}
	}
	var done uint8
	for i := len(status.Conditions) - 1; i >= 0; i-- {
		nc := &status.Conditions[i]
		k := transitionIndex(nc.Type)
		if k < 0 || done&(1<<k) != 0 {
			continue
		}
		done |= 1 << k
		if oc := olds[k]; oc != nil && oc.Status == nc.Status {
			nc.LastTransitionTime = oc.LastTransitionTime
		} else {
			nc.LastTransitionTime = metav1.NewTime(wholeSecond(now))
		}
	}
}

// trackedTransitions is how many condition types keepTransitionTimes tracks.
const trackedTransitions = 6

// transitionIndex is a distinct index below trackedTransitions for each condition type
// whose transition time the manager keeps, -1 for the others.
func transitionIndex(t corev1.PodConditionType) int {
	switch t {
	case corev1.ContainersReady:
		return 0
	case corev1.PodReady:
		return 1
	case corev1.PodInitialized:
		return 2
	case corev1.PodReadyToStartContainers:
		return 3
	case corev1.PodScheduled:
		return 4
	case corev1.DisruptionTarget:
		return 5
	}
	return -1
}

// normalize orders the conditions by type. The sort is stable (an insertion sort: a status
// has a handful of conditions, usually already in order), so its result is that of any
// stable sort by type.
func normalize(st *corev1.PodStatus) {
	c := st.Conditions
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].Type < c[j-1].Type; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// RemoveOrphanedStatuses drops cached statuses of pods the kubelet no longer knows.
// knownVersion must change whenever known may answer differently for some UID. A pass
// leaves only known pods; while neither the cached pods (podsVersion) nor the known set
// moved since, there is nothing to drop and the walk is skipped.
func (m *Manager) RemoveOrphanedStatuses(known func(types.UID) bool, knownVersion uint64) {
	if m.orphansChecked && m.orphansPods == m.podsVersion && m.orphansKnown == knownVersion {
		return
	}
	for uid, st := range m.podStatuses { // deleting in any order has the same effect
		if !known(uid) {
			if isTerminal(st.status.Phase) {
				m.terminalVersion++
			}
			st.entry.Status = nil
			delete(m.podStatuses, uid)
			m.uids = nil
			m.podsVersion++
			delete(m.synced, uid)
			delete(m.unsynced, uid)
			delete(m.finished, uid)
			delete(m.reconcile, uid)
		}
	}
	m.orphansChecked, m.orphansPods, m.orphansKnown = true, m.podsVersion, knownVersion
}

// sortedUIDs lists the cached pods in UID order; the list is kept until a pod comes or goes.
func (m *Manager) sortedUIDs() []types.UID {
	if m.uids == nil {
		// A fresh slice: callers may still be iterating the old one.
		m.uids = slices.Sorted(maps.Keys(m.podStatuses))
	}
	return m.uids
}

// syncBatch writes the statuses that changed since the last write (all=false), or every
// status that differs from the API (all=true), in UID order.
func (m *Manager) syncBatch(all bool) {
	if all && m.observing && !m.narrowOff {
		m.reconcileBatch()
		return
	}
	var uids []types.UID
	if all {
		uids = m.sortedUIDs()
	} else {
		m.changed = m.changedUIDs(m.changed[:0])
		uids = m.changed
	}
	for _, uid := range uids {
		m.syncOne(uid, all)
	}
}

// syncOne is syncBatch's visit of one pod: it writes the pod if its test says so, and
// reports whether it did.
func (m *Manager) syncOne(uid types.UID, all bool) bool {
	st := m.podStatuses[uid]
	synced := m.synced[uid]
	if synced == nil {
		synced = &syncedState{}
		m.synced[uid] = synced
	}
	if st.version > synced.version || (all && m.needsReconcile(uid, st, synced)) || m.canBeDeleted(uid, st) {
		m.syncPod(uid, st, synced)
		return true
	}
	return false
}

// reconcileBatch is syncBatch(true) visiting only the pods in reconcile: the full pass's
// list is every cached pod in UID order, and every pod it leaves out would fail the
// pass's test, so the writes, their order and their events are the full pass's. A pod put
// back into reconcile during the pass (a write's watchers may change another pod) is
// visited if the full pass would still reach it: it was cached when the pass began and
// comes after the pod being visited.
func (m *Manager) reconcileBatch() {
	if len(m.reconcile) == 0 {
		// Nothing to visit (most passes: every pod is written and matches the API), and
		// starting a walk over the empty map is not free.
		return
	}
	all := m.sortedUIDs()
	todo := m.todo[:0]
	for uid := range m.reconcile {
		todo = append(todo, uid)
	}
	slices.Sort(todo)
	m.inPass, m.late = true, m.late[:0]
	for i := 0; i < len(todo); i++ {
		uid := todo[i]
		if !m.syncOne(uid, true) && !m.podStatuses[uid].static {
			delete(m.reconcile, uid)
		}
		for _, u := range m.late {
			if u <= uid {
				continue
			}
			if _, cached := slices.BinarySearch(all, u); !cached {
				continue
			}
			if j, found := slices.BinarySearch(todo[i+1:], u); !found {
				todo = slices.Insert(todo, i+1+j, u)
			}
		}
		m.late = m.late[:0]
	}
	m.inPass = false
	m.todo = todo[:0]
}

// changedUIDs lists, in UID order, the pods syncBatch(false) has to look at: those with a
// version not yet written and those canBeDeleted may accept. Every other pod fails both of
// the batch's tests, so leaving it out changes nothing.
func (m *Manager) changedUIDs(uids []types.UID) []types.UID {
	for uid := range m.unsynced {
		uids = append(uids, uid)
	}
	// Starting a walk costs even over an empty map, and finished is empty but for pods
	// being deleted.
	if len(m.finished) > 0 {
		for uid := range m.finished {
			if !m.unsynced[uid] {
				uids = append(uids, uid)
			}
		}
	}
	slices.Sort(uids)
	return uids
}

// apiPod is the API object a status goes to: the pod itself, or a static pod's mirror pod.
// It is the API server's own object: read it, never modify it.
func (m *Manager) apiPod(uid types.UID, st *versionedPodStatus) *corev1.Pod {
	if !st.static {
		return m.api.Peek(uid)
	}
	p := m.api.PeekByName(st.podNamespace, st.podName)
	if p == nil || p.Annotations["kubernetes.io/config.mirror"] == "" {
		return nil
	}
	return p
}

func (m *Manager) needsReconcile(uid types.UID, st *versionedPodStatus, synced *syncedState) bool {
	p := m.apiPod(uid, st)
	if p == nil || p.ResourceVersion == synced.resourceVersion {
		return false
	}
	return !apiserver.StatusSemanticEqual(&p.Status, &st.status)
}

func (m *Manager) canBeDeleted(uid types.UID, st *versionedPodStatus) bool {
	if st.static || !st.podIsFinished {
		return false
	}
	p := m.api.Peek(uid)
	if p == nil || p.DeletionTimestamp == nil {
		return false
	}
	if p.Annotations["kubernetes.io/config.mirror"] != "" {
		return false
	}
	return isTerminal(p.Status.Phase)
}

func (m *Manager) syncPod(uid types.UID, st *versionedPodStatus, synced *syncedState) {
	p := m.apiPod(uid, st)
	if p == nil {
		return
	}
	merged := mergePodStatus(&p.Status, &st.status, m.safety == nil || m.safety.CouldHaveRunningContainers(uid))
	if !apiserver.StatusSemanticEqual(&p.Status, &merged) {
		// merged shares its values with the cached status, which nothing changes in
		// place, and the API server changes no stored status in place either: it may
		// keep merged as it is.
		m.api.PatchOwnedStatus(p.UID, merged)
	}
	synced.resourceVersion = m.api.ResourceVersion(p.UID)
	synced.version = st.version
	delete(m.unsynced, uid)
	deletable := m.canBeDeleted(uid, st)
	// The write changed the manager's record of its writes, and the patch the API pod
	// (which put the pod into reconcile already): a pod the periodic reconcile's test
	// still picks goes (back) into reconcile. Any other pod leaves it, as the pass would
	// drop it: st is still its cached status (a watcher of the patch may have stored a
	// new one, or dropped the pod: then its entry no longer points at st), it has no
	// version left to write (synced.version is st's), its API object is the one just
	// written or matches the cached status (needsReconcile), and it cannot be deleted.
	// Each of those changes only as the pod goes back into reconcile (see reconcile), so
	// visiting it in the next pass, which used to be the cost of every status change,
	// would find nothing to do. Static pods never leave.
	if st.entry.Status != &st.status || st.static || deletable || m.needsReconcile(uid, st, synced) {
		m.markReconcile(uid)
	} else {
		delete(m.reconcile, uid)
	}
	if deletable {
		m.clk.Record(&trace.Event{Kind: KindDeletePod, Pod: st.podKey})
		m.api.ForceDelete(uid)
		if isTerminal(st.status.Phase) {
			m.terminalVersion++
		}
		st.entry.Status = nil
		delete(m.podStatuses, uid)
		m.uids = nil
		m.podsVersion++
		synced.version = 0
		delete(m.finished, uid)
		delete(m.reconcile, uid)
	}
}

// statusManagerOwned reports whether the status manager writes a condition type (the others
// are kept from the API status when it writes).
func statusManagerOwned(t corev1.PodConditionType) bool {
	switch t {
	case corev1.ContainersReady, corev1.PodReady, corev1.PodInitialized, corev1.PodReadyToStartContainers,
		corev1.PodScheduled, corev1.DisruptionTarget,
		// Owned with RestartAllContainersOnContainerExits; without the gate the kubelet
		// never generates it, so owning it always drops nothing another writer set.
		corev1.AllContainersRestarting:
		return true
	}
	return false
}

// mergePodStatus keeps conditions the kubelet does not own and withholds a terminal phase
// while the pod could still have running containers.
//
// Its result shares everything but its conditions with newStatus, the pod's cached status,
// and shares those too when the merge leaves them as they are (the usual case: every
// condition of newStatus is the kubelet's, the API status has none of another writer, the
// phase is not terminal). syncPod gives the result to the API server (PatchOwnedStatus),
// which is safe because nothing changes either status in place: the manager stores a new
// status for every change (the cached one is only read) and the API server replaces a
// stored status rather than writing into it. Only the conditions this function changes are
// a list of its own.
func mergePodStatus(oldStatus, newStatus *corev1.PodStatus, couldHaveRunningContainers bool) corev1.PodStatus {
	out := *newStatus
	// The merged conditions: newStatus's owned ones, then oldStatus's others. None kept
	// is nil, as it always was.
	n, allOwned := 0, true
	for i := range newStatus.Conditions {
		if statusManagerOwned(newStatus.Conditions[i].Type) {
			n++
		} else {
			allOwned = false
		}
	}
	othersKept := false
	for i := range oldStatus.Conditions {
		if !statusManagerOwned(oldStatus.Conditions[i].Type) {
			n++
			othersKept = true
		}
	}
	withheld := isTerminal(out.Phase) && !isTerminal(oldStatus.Phase) && couldHaveRunningContainers
	if withheld {
		out.Phase, out.Reason, out.Message = oldStatus.Phase, oldStatus.Reason, oldStatus.Message
	}
	terminal := isTerminal(out.Phase)
	switch {
	case n == 0:
		out.Conditions = nil
	case allOwned && !othersKept && !withheld && !terminal && conditionsInOrder(newStatus.Conditions):
		// The merge is newStatus's list as it is, and nothing below writes to it: share it.
	default:
		// One allocation for the merged conditions, of the size kept (counted above: a
		// condition is large, and most of the old status's are owned, so dropped). A
		// PodCondition holds no pointers: a copy of one is a deep copy.
		conds := make([]corev1.PodCondition, 0, n)
		for i := range newStatus.Conditions {
			if statusManagerOwned(newStatus.Conditions[i].Type) {
				conds = append(conds, newStatus.Conditions[i])
			}
		}
		for i := range oldStatus.Conditions {
			if !statusManagerOwned(oldStatus.Conditions[i].Type) {
				conds = append(conds, oldStatus.Conditions[i])
			}
		}
		out.Conditions = conds
		if withheld {
			var kept []corev1.PodCondition
			for _, c := range out.Conditions {
				if c.Type != corev1.DisruptionTarget {
					kept = append(kept, c)
				}
			}
			out.Conditions = kept
		}
		if terminal {
			for i := range out.Conditions {
				if out.Conditions[i].Type == corev1.PodReady || out.Conditions[i].Type == corev1.ContainersReady {
					out.Conditions[i].Status = corev1.ConditionFalse
				}
			}
		}
		normalize(&out)
	}
	return out
}

// conditionsInOrder reports whether normalize would leave the list as it is (every cached
// status is normalized, so this holds for the statuses syncPod merges).
func conditionsInOrder(c []corev1.PodCondition) bool {
	for i := 1; i < len(c); i++ {
		if c[i].Type < c[i-1].Type {
			return false
		}
	}
	return true
}

// containerAttrKeys returns the attribute keys "container/NAME" of st's init and regular
// containers, in order: prev when it holds exactly those (a pod's containers rarely
// change), else a new list.
func containerAttrKeys(st *corev1.PodStatus, prev []string) []string {
	const prefix = "container/"
	lists := [2][]corev1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses}
	same := len(prev) == len(lists[0])+len(lists[1])
	for i, j := 0, 0; same && j < 2; j++ {
		for k := range lists[j] {
			name := lists[j][k].Name
			same = len(prev[i]) == len(prefix)+len(name) && prev[i][:len(prefix)] == prefix && prev[i][len(prefix):] == name
			if !same {
				break
			}
			i++
		}
	}
	if same {
		return prev
	}
	keys := make([]string, 0, len(lists[0])+len(lists[1]))
	for _, list := range lists {
		for i := range list {
			keys = append(keys, prefix+list[i].Name)
		}
	}
	return keys
}

// statusAttrs summarizes a status for the trace: phase, reason, whether every regular
// container runs, and each container's state ("state=running restarts=2 last=Error:1
// ready=true"), under the keys containerAttrKeys gives.
func statusAttrs(pod *corev1.Pod, st *corev1.PodStatus, version uint64, keys []string) []trace.Attr {
	// Sized for everything below, so that the list is allocated once.
	attrs := make([]trace.Attr, 0, 6+len(st.InitContainerStatuses)+len(st.ContainerStatuses))
	attrs = append(attrs, trace.Attr{Key: "phase", Value: string(st.Phase)}, trace.Attr{Key: "reason", Value: st.Reason},
		trace.Attr{Key: "version", Value: strconv.FormatUint(version, 10)})
	allRunning := len(st.ContainerStatuses) > 0 && len(st.ContainerStatuses) == len(pod.Spec.Containers)
	for _, cs := range st.ContainerStatuses {
		if cs.State.Running == nil {
			allRunning = false
		}
	}
	attrs = append(attrs, trace.Attr{Key: "allRunning", Value: strconv.FormatBool(allRunning)})
	if st.PodIP != "" {
		attrs = append(attrs, trace.Attr{Key: "podIP", Value: st.PodIP})
	}
	k := 0
	for _, list := range [][]corev1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses} {
		for i := range list {
			attrs = append(attrs, trace.Attr{Key: keys[k], Value: ContainerSummary(&list[i])})
			k++
		}
	}
	// A pod with a RestartAllContainers rule carries the condition in every status.
	if c := findCondition(st.Conditions, corev1.AllContainersRestarting); c != nil {
		attrs = append(attrs, trace.Attr{Key: "condition/" + string(c.Type), Value: string(c.Status) + ":" + c.Reason})
	}
	return attrs
}

// ContainerSummary renders a container status compactly for the trace. It is built in a
// buffer on the stack, so that the summary is the only allocation.
func ContainerSummary(cs *corev1.ContainerStatus) string {
	var buf [128]byte
	b := append(buf[:0], "state="...)
	switch {
	case cs.State.Running != nil:
		b = append(b, "running"...)
	case cs.State.Terminated != nil:
		b = append(b, "terminated:"...)
		b = append(b, cs.State.Terminated.Reason...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(cs.State.Terminated.ExitCode), 10)
	case cs.State.Waiting != nil:
		b = append(b, "waiting:"...)
		b = append(b, cs.State.Waiting.Reason...)
	default:
		b = append(b, "waiting"...)
	}
	b = append(b, " restarts="...)
	b = strconv.AppendInt(b, int64(cs.RestartCount), 10)
	b = append(b, " ready="...)
	b = strconv.AppendBool(b, cs.Ready)
	if t := cs.LastTerminationState.Terminated; t != nil {
		b = append(b, " last="...)
		b = append(b, t.Reason...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(t.ExitCode), 10)
	}
	return string(b)
}

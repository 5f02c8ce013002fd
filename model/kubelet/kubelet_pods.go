package kubelet

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/model/podworkers"
	"nodesim/sim"
	"nodesim/trace"
)

// HandlePodCleanups is housekeeping (upstream kubelet_pods.go): forget finished workers,
// terminate workers of pods no longer desired, restart workers for desired pods that lost
// theirs, kill runtime pods nobody knows, drop stale statuses and back-off entries. It
// returns how long it took, during which the syncLoop handles nothing else.
//
// Each step skips the walks whose inputs did not move since the previous pass: the pod
// manager's UIDs (podsVersion), the workers' states (StateVersion), the runtime's listing
// (shared and immutable while nothing in the runtime changes), and the status manager's
// and the prober's own pods. See cleanupMemo.
func (kl *Kubelet) HandlePodCleanups() time.Duration {
	allPods := kl.podManager.GetPods()
	podsVersion := kl.podManager.podsVersion
	workingPods := kl.podWorkers.SyncKnownPodsFunc(kl.podManager.HasUID, podsVersion)
	// Nothing below changes a worker before the probe cleanup and the pods-without-worker
	// list have read them: this is the version of the snapshot workingPods is.
	workersVersion := kl.podWorkers.StateVersion()

	var cost time.Duration
	runtimePods, err := kl.runtime.GetPods()
	listingVersion := kl.runtime.ListingVersion()
	cost += kl.runtime.ListCost()
	kl.statusManager.RemoveOrphanedStatuses(kl.podManager.HasUID, podsVersion)
	if kl.probeManager != nil {
		kl.probeManager.CleanupPods(kl.cleanup.probeDesired(workingPods), workersVersion)
	}

	memo := &kl.cleanup
	noWorker := memo.withoutWorker(allPods, workingPods, podsVersion, workersVersion)
	restarted, killed, orphans := 0, 0, 0
	start := kl.clk.Now()
	for _, i := range noWorker {
		pod := allPods[i]
		if kl.podWorkers.IsPodKnownTerminated(pod.UID) || !kl.isActive(pod) {
			continue
		}
		// A desired, active pod without a worker (UID reuse, a restart): start it again.
		mirror, _ := kl.podManager.GetMirrorPodByPod(pod)
		kl.dispatchWork(pod, podworkers.SyncPodCreate, mirror, start)
		restarted++
	}
	for _, i := range noWorker {
		pod := allPods[i]
		if pod.DeletionTimestamp != nil && kl.isAdmittedPodTerminal(pod) {
			kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{Pod: pod, UpdateType: podworkers.SyncPodKill, StartTime: start})
			killed++
		}
	}
	if err == nil && !memo.noOrphans(runtimePods, listingVersion, podsVersion, workersVersion) {
		clean := memo.cleanListing(podsVersion, workersVersion)
		// When the clean listing has as many pods as this one (the usual case: the same
		// pods, a few of them changed), each pod is compared with the one at its own
		// place; a pod found elsewhere in it is then checked afresh, which finds it no
		// orphan again, since nothing the check reads has moved.
		if len(clean) == len(runtimePods) {
			for i := container.NextChanged(runtimePods, clean, 0); i < len(runtimePods); i = container.NextChanged(runtimePods, clean, i+1) {
				if kl.killIfOrphan(runtimePods[i], workingPods) {
					orphans++
				}
			}
		} else {
			for _, rp := range runtimePods {
				// A pod of a listing that had no orphan, as the same object, is none now.
				// Most pods are the next one of that listing: the pointer test finds them
				// before any comparison of UIDs.
				if len(clean) > 0 && clean[0] != rp {
					for len(clean) > 0 && clean[0].ID < rp.ID {
						clean = clean[1:]
					}
				}
				if len(clean) > 0 && clean[0] == rp {
					clean = clean[1:]
					continue
				}
				if kl.killIfOrphan(rp, workingPods) {
					orphans++
				}
			}
		}
		if orphans == 0 {
			memo.orphansChecked(runtimePods, listingVersion, podsVersion, workersVersion)
		}
	}
	kl.crashLoop.GC(start) // the same moment: no time passes inside a handler
	kl.imageManager.GC()
	kl.clk.Record(&trace.Event{Kind: KindHousekeeping, Name: "HandlePodCleanups", Dur: cost,
		Attrs: memo.attrs(len(workingPods), restarted, killed, orphans), Reason: memo.reason()})
	return cost
}

// killIfOrphan asks a worker to kill runtime pod rp if it is an orphan: running, with no
// worker in workingPods and not desired. It reports whether it did.
func (kl *Kubelet) killIfOrphan(rp *container.Pod, workingPods map[types.UID]podworkers.PodWorkerSync) bool {
	if _, ok := workingPods[rp.ID]; ok || kl.podManager.HasUID(rp.ID) || !hasRunning(rp) {
		return false
	}
	one := int64(1) // made per orphan: most passes find none
	kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{RunningPod: rp, UpdateType: podworkers.SyncPodKill,
		KillPodOptions: &podworkers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}})
	return true
}

// probeDesired is the prober's cleanup test: a pod is desired while it has a worker that
// has not terminated. The function is made once and reads the working pods of the pass
// under way; the prober calls it only during CleanupPods and keeps it no longer.
func (m *cleanupMemo) probeDesired(workingPods map[types.UID]podworkers.PodWorkerSync) func(types.UID) bool {
	m.working = workingPods
	if m.desiredFn == nil {
		m.desiredFn = func(uid types.UID) bool {
			w, ok := m.working[uid]
			return ok && w.State != podworkers.TerminatedPod
		}
	}
	return m.desiredFn
}

// attrs returns the housekeeping event's attributes. A pass with the same counts as the
// last one gets the same slice: a recorded event may keep its attributes, but nothing
// writes them once made, so sharing is safe.
func (m *cleanupMemo) attrs(workers, restarted, killed, orphans int) []trace.Attr {
	counts := [4]int{workers, restarted, killed, orphans}
	if m.attrsMade && m.attrsCounts == counts {
		return m.attrsKept
	}
	m.attrsKept = []trace.Attr{
		{Key: "workers", Value: strconv.Itoa(workers)}, {Key: "restarted", Value: strconv.Itoa(restarted)},
		{Key: "killed", Value: strconv.Itoa(killed)}, {Key: "orphans", Value: strconv.Itoa(orphans)}}
	m.attrsMade, m.attrsCounts = true, counts
	return m.attrsKept
}

// reason is the housekeeping event's reason, made once: it never varies, and a recorded
// reason is never written.
func (m *cleanupMemo) reason() *trace.Reason {
	if m.why == nil {
		m.why = trace.Because("housekeepingInline", "housekeeping runs inline in the syncLoop goroutine: no other case is served until it returns")
	}
	return m.why
}

// cleanupMemo is what housekeeping keeps between passes, each part with the versions of
// what it was derived from; a part is used only while those have not moved.
//
// The desired pods without a worker depend on which UIDs the pod manager holds and which
// workers exist (a worker created or forgotten moves StateVersion); the same UIDs are at
// the same places of GetPods' UID-ordered list, so they are kept as indexes. The runtime
// pods to kill as orphans depend on the runtime's listing (the same slice until something
// in the runtime changes), the pod manager's UIDs and the workers: a pass that found none
// finds none again while all three are as they were, and with the same UIDs and workers
// it need only look at the pods the runtime changed since.
type cleanupMemo struct {
	noWorkerValid                 bool
	noWorkerPods, noWorkerWorkers uint64
	noWorker                      []int
	orphansValid                  bool
	orphansListing                []*container.Pod // a copy: the runtime rewrites its own
	orphansListingVersion         uint64           // the runtime's ListingVersion of it
	orphansPods, orphansWorkers   uint64

	// working and desiredFn: see probeDesired.
	working   map[types.UID]podworkers.PodWorkerSync
	desiredFn func(types.UID) bool
	// attrsKept: the last housekeeping attributes and the counts they show (see attrs).
	attrsMade   bool
	attrsCounts [4]int
	attrsKept   []trace.Attr
	why         *trace.Reason
}

// withoutWorker returns the indexes in allPods of the pods without a worker in workingPods,
// in order.
func (m *cleanupMemo) withoutWorker(allPods []*corev1.Pod, workingPods map[types.UID]podworkers.PodWorkerSync, podsVersion, workersVersion uint64) []int {
	if m.noWorkerValid && m.noWorkerPods == podsVersion && m.noWorkerWorkers == workersVersion {
		return m.noWorker
	}
	m.noWorker = m.noWorker[:0]
	for i, pod := range allPods {
		if _, ok := workingPods[pod.UID]; !ok {
			m.noWorker = append(m.noWorker, i)
		}
	}
	m.noWorkerValid, m.noWorkerPods, m.noWorkerWorkers = true, podsVersion, workersVersion
	return m.noWorker
}

// cleanListing returns the last listing in which a pass found no orphan, if it was made
// with the same pod UIDs and workers; nil otherwise. Both listings are in UID order, and
// the runtime gives an unchanged pod as the same object: such a pod is no orphan now
// either.
func (m *cleanupMemo) cleanListing(podsVersion, workersVersion uint64) []*container.Pod {
	if !m.orphansValid || m.orphansPods != podsVersion || m.orphansWorkers != workersVersion {
		return nil
	}
	return m.orphansListing
}

// noOrphans reports whether a pass over this listing, made at the runtime's
// ListingVersion version, is known to find no orphan.
func (m *cleanupMemo) noOrphans(listing []*container.Pod, version, podsVersion, workersVersion uint64) bool {
	return m.orphansValid && m.orphansPods == podsVersion && m.orphansWorkers == workersVersion && sameListing(m.orphansListing, m.orphansListingVersion, listing, version)
}

// orphansChecked notes that a pass over this listing, made at version, found no orphan.
// The memo keeps a copy of the listing: the runtime rewrites its slice in place once it
// changes.
func (m *cleanupMemo) orphansChecked(listing []*container.Pod, version, podsVersion, workersVersion uint64) {
	n := len(m.orphansListing)
	m.orphansListing = append(m.orphansListing[:0], listing...)
	if len(listing) < n {
		clear(m.orphansListing[len(listing):n]) // drop pods no longer listed
	}
	m.orphansValid, m.orphansListingVersion, m.orphansPods, m.orphansWorkers = true, version, podsVersion, workersVersion
}

// sameListing reports whether listings a and b, made at the runtime's ListingVersion va
// and vb, are the same runtime listing.
func sameListing(a []*container.Pod, va uint64, b []*container.Pod, vb uint64) bool {
	return len(a) == len(b) && (len(a) == 0 || va == vb)
}

func hasRunning(p *container.Pod) bool {
	for _, c := range p.Containers {
		if c.State == container.StateRunning {
			return true
		}
	}
	for _, s := range p.Sandboxes {
		if s.State == container.StateRunning {
			return true
		}
	}
	return false
}

// cleanUpContainersInPod removes the older dead instances of a container that just died,
// keeping the newest one (all of them once the pod's content may go) (upstream
// podContainerDeletor).
func (kl *Kubelet) cleanUpContainersInPod(uid types.UID, exitedID string) {
	st, err := kl.podCache.Get(uid)
	if err != nil || st == nil {
		return
	}
	var name string
	for _, c := range st.ContainerStatuses {
		if c.ID == exitedID {
			name = c.Name
		}
	}
	if name == "" {
		return
	}
	keep, reason := 1, "keepNewestDead"
	if kl.podWorkers.ShouldPodContentBeRemoved(uid) {
		keep, reason = 0, "removeAllDead"
	}
	var dead []*container.Status
	for _, c := range st.ContainerStatuses {
		if c.Name == name && c.State != container.StateRunning {
			dead = append(dead, c)
		}
	}
	if len(dead) <= keep {
		return
	}
	gc := kl.s.Clock("containerDeletor", sim.PriorityDefault)
	for _, c := range dead[keep:] {
		id := c.ID
		gc.Go(0, func() { kl.runtime.RemoveContainer(id, func(error) {}) }) // never stopped
	}
	why := trace.Because("cleanUpContainersInPod", "the pod keeps its newest dead instance of a container (logs, restart count); older ones go")
	if keep == 0 {
		why = trace.Because("ShouldPodContentBeRemoved", "the pod is deleted or evicted and its worker has terminated it: ShouldPodContentBeRemoved, so every dead instance goes")
	}
	kl.clk.Record(&trace.Event{Kind: KindContainerClean, Pod: st.Namespace + "/" + st.Name, Container: name,
		Attrs: []trace.Attr{{Key: "removed", Value: strconv.Itoa(len(dead) - keep)}, {Key: "kept", Value: strconv.Itoa(keep)}, {Key: "reason", Value: reason}}, Reason: why})
}

// containerGC is the periodic container garbage collection (every minute): dead containers
// beyond one per container name, every dead container and idle sandbox of pods whose
// runtime may be removed.
//
// What it removes of a pod depends only on the pod's containers and sandboxes (their
// names, order and states) and on the two answers of the pod workers. The runtime's
// listing gives an unchanged pod as the same object, so a pod found with nothing to remove
// is remembered (gcClean) with its listing object and those answers, and passed over while
// all three are the same. A pod whose listing shows nothing dead (hasExited) is passed over
// without asking the workers at all.
func (kl *Kubelet) containerGC() {
	// containerGC runs only from gcTimer (see Run), which has just fired: resetting it
	// queues what a fresh timer of the same process would, without allocating.
	defer kl.gcTimer.Reset(containerGCPeriod)
	if kl.stopped {
		return
	}
	pods, err := kl.runtime.GetPods()
	if err != nil {
		return
	}
	allReady := kl.sourcesReady.AllReady()
	removed := 0
	// Both the listing and gcClean are in UID order: walk them together.
	prev, clean := kl.gcClean, kl.gcCleanNext[:0]
	for _, p := range pods {
		if !hasExited(p) {
			// Only dead containers and sandboxes that are not ready are ever removed, and
			// the listing shows none: whatever the workers answer, nothing goes.
			continue
		}
		removeAll := allReady && kl.podWorkers.ShouldPodContentBeRemoved(p.ID)
		podGone := allReady && kl.podWorkers.ShouldPodRuntimeBeRemoved(p.ID)
		// Most pods are the next entry's own listing object: the pointer test finds them
		// before any comparison of UIDs (as in HandlePodCleanups' orphan walk).
		if len(prev) > 0 && prev[0].pod != p {
			for len(prev) > 0 && prev[0].pod.ID < p.ID {
				prev = prev[1:]
			}
		}
		if len(prev) > 0 && prev[0] == (gcCleanPod{p, removeAll, podGone}) {
			clean = append(clean, prev[0])
			prev = prev[1:]
			continue
		}
		st, err := kl.runtime.GetPodStatus(p.ID, p.Name, p.Namespace)
		if err != nil {
			continue
		}
		removedBefore := removed
		seen := map[string]int{}
		for _, c := range st.ContainerStatuses {
			if c.State == container.StateRunning {
				continue
			}
			seen[c.Name]++
			if removeAll || seen[c.Name] > 1 {
				id := c.ID
				kl.runtime.RemoveContainer(id, func(error) {})
				removed++
			}
		}
		// Sandboxes: keep the newest; remove idle ones of pods whose runtime may go once no
		// container is left.
		kept := 0
		for _, c := range st.ContainerStatuses {
			if c.State == container.StateRunning || (!removeAll && seen[c.Name] > 0) {
				kept++
			}
		}
		podGone = allReady && kl.podWorkers.ShouldPodRuntimeBeRemoved(p.ID)
		for i, sb := range st.SandboxStatuses {
			if sb.State == container.SandboxReady {
				continue
			}
			if (podGone && kept == 0) || i > 0 {
				kl.runtime.RemovePodSandbox(sb.ID, func(error) {})
				removed++
			}
		}
		if removed == removedBefore {
			clean = append(clean, gcCleanPod{p, removeAll, podGone})
		}
	}
	kl.gcClean, kl.gcCleanNext = clean, kl.gcClean
	if removed > 0 {
		kl.s.Record(&trace.Event{Track: "gc", Kind: "containerGC", Attrs: []trace.Attr{{Key: "removed", Value: strconv.Itoa(removed)}}})
	}
}

// hasExited reports whether the runtime's listing of p shows a container that is not
// running or a sandbox that is not ready (the listing gives a sandbox the state running
// while it is ready): the only things containerGC may remove. GetPodStatus, read at the
// same moment, reports the same states.
func hasExited(p *container.Pod) bool {
	for _, c := range p.Containers {
		if c.State != container.StateRunning {
			return true
		}
	}
	for _, s := range p.Sandboxes {
		if s.State != container.StateRunning {
			return true
		}
	}
	return false
}

// gcCleanPod is a runtime pod in which containerGC found nothing to remove: its listing
// object and the pod workers' answers then.
type gcCleanPod struct {
	pod                *container.Pod
	removeAll, podGone bool
}

package kubelet

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/container"
	"nodesim/model/podconfig"
	"nodesim/model/podworkers"
	"nodesim/trace"
)

// HandlePodAdditions admits new pods, oldest first, and hands the admitted ones to pod
// workers; a rejected pod gets a Failed status and never gets a worker.
func (kl *Kubelet) HandlePodAdditions(pods []*corev1.Pod) {
	if len(pods) == 0 {
		return
	}
	start := kl.clk.Now()
	sort.SliceStable(pods, func(i, j int) bool {
		return pods[i].CreationTimestamp.Before(&pods[j].CreationTimestamp)
	})
	kl.handler("HandlePodAdditions", "configCh ADD", pods)
	// The active pods every pod of the batch is weighed against, brought up to date at the
	// first admission and kept so as each pod of the batch is handled (see activePods).
	var active *activePods
	for _, pod := range pods {
		kl.handlePodAddition(pod, start, &active)
		if active != nil && !podconfig.IsMirrorPod(pod) {
			if kl.isActive(pod) {
				kl.addActive(active, pod)
			} else {
				active.remove(pod.UID)
			}
		}
	}
}

// handlePodAddition is HandlePodAdditions for one pod.
func (kl *Kubelet) handlePodAddition(pod *corev1.Pod, start time.Time, active **activePods) {
	kl.podManager.AddPod(pod)
	key := container.Key(pod) // both events' pod: made once
	kl.clk.Record(&trace.Event{Kind: KindPodSeen, Pod: key,
		Attrs: []trace.Attr{{Key: "uid", Value: string(pod.UID)}}})
	if podconfig.IsMirrorPod(pod) {
		if static, ok := kl.podManager.GetPodByFullName(pod.Name + "_" + pod.Namespace); ok {
			kl.dispatchWork(static, podworkers.SyncPodUpdate, pod, start)
		}
		return
	}
	if !kl.podWorkers.IsPodTerminationRequested(pod.UID) && !isTerminal(pod.Status.Phase) {
		if *active == nil {
			*active = kl.refreshActivePods()
		}
		if ok, reason, message := kl.canAdmitPod(*active, pod); !ok {
			kl.rejectPod(pod, reason, message)
			return
		}
		kl.clk.Record(&trace.Event{Kind: KindAdmitted, Pod: key})
	}
	mirror, _ := kl.podManager.GetMirrorPodByPod(pod)
	kl.dispatchWork(pod, podworkers.SyncPodCreate, mirror, start)
}

// HandlePodUpdates passes spec changes and graceful deletions (DELETE) to the workers.
func (kl *Kubelet) HandlePodUpdates(pods []*corev1.Pod, op podconfig.PodOperation) {
	start := kl.clk.Now()
	kl.handler("HandlePodUpdates", "configCh "+op.String(), pods)
	for _, pod := range pods {
		kl.podManager.UpdatePod(pod)
		if podconfig.IsMirrorPod(pod) {
			if static, ok := kl.podManager.GetPodByFullName(pod.Name + "_" + pod.Namespace); ok {
				kl.dispatchWork(static, podworkers.SyncPodUpdate, pod, start)
			}
			continue
		}
		mirror, _ := kl.podManager.GetMirrorPodByPod(pod)
		kl.dispatchWork(pod, podworkers.SyncPodUpdate, mirror, start)
	}
}

// HandlePodRemoves kills pods that vanished from their source.
func (kl *Kubelet) HandlePodRemoves(pods []*corev1.Pod) {
	start := kl.clk.Now()
	kl.handler("HandlePodRemoves", "configCh REMOVE", pods)
	for _, pod := range pods {
		kl.podManager.RemovePod(pod)
		delete(kl.requests, pod.UID)
		kl.handlerAttrs.forget(pod.UID)
		if podconfig.IsMirrorPod(pod) {
			if static, ok := kl.podManager.GetPodByFullName(pod.Name + "_" + pod.Namespace); ok {
				kl.dispatchWork(static, podworkers.SyncPodUpdate, nil, start)
			}
			continue
		}
		kl.deletePod(pod)
	}
}

// deletePod asks the pod's worker to kill it; before every source has reported this is left
// to housekeeping.
func (kl *Kubelet) deletePod(pod *corev1.Pod) {
	if !kl.sourcesReady.AllReady() {
		return
	}
	kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{Pod: pod, UpdateType: podworkers.SyncPodKill, StartTime: kl.clk.Now()})
}

// HandlePodReconcile takes status-only changes from the API.
func (kl *Kubelet) HandlePodReconcile(pods []*corev1.Pod) {
	for _, pod := range pods {
		kl.podManager.UpdatePod(pod)
	}
}

// HandlePodSyncs asks each pod's worker for a sync. Every caller takes the pods from the
// pod manager's pod map (GetPodByUID, getPodsToSync), which never holds a mirror pod, so
// unlike upstream's it has no mirror pod to tell apart.
func (kl *Kubelet) HandlePodSyncs(pods []*corev1.Pod) {
	start := kl.clk.Now()
	for _, pod := range pods {
		mirror, _ := kl.podManager.GetMirrorPodByPod(pod)
		kl.dispatchWork(pod, podworkers.SyncPodSync, mirror, start)
	}
}

// handleDesiredSyncs is HandlePodSyncs for pods of the pod map given with their entries
// (entries[i] is pods[i]'s, or nil where the caller has none): see syncDesiredPod.
func (kl *Kubelet) handleDesiredSyncs(pods []*corev1.Pod, entries []*uidEntry) {
	start := kl.clk.Now()
	for i, pod := range pods {
		kl.syncDesiredPod(pod, entries[i], start)
	}
}

// syncDesiredPod is HandlePodSyncs for one pod of the pod map and its entry e (nil for
// none): the update reaches the pod's worker through the WorkerRef the entry keeps,
// without a lookup by UID on every sync of the pod.
func (kl *Kubelet) syncDesiredPod(pod *corev1.Pod, e *uidEntry, start time.Time) {
	mirror, _ := kl.podManager.GetMirrorPodByPod(pod)
	var ref *podworkers.WorkerRef
	if e != nil {
		ref = &e.worker
	}
	kl.podWorkers.UpdatePodRef(ref, podworkers.UpdatePodOptions{Pod: pod, MirrorPod: mirror, UpdateType: podworkers.SyncPodSync, StartTime: start})
}

func isTerminal(p corev1.PodPhase) bool { return p == corev1.PodSucceeded || p == corev1.PodFailed }

// filterOutInactivePods drops pods the workers finished and terminal pods not being
// terminated: what remains counts against the node's resources. The slice returned may be
// pods itself, or be returned again by later calls: callers read it and must not modify it.
//
// Given the pod manager's list (GetPods), what isActive reads of each pod other than its
// object is kept, by the pod's place in the list, with the versions it was read at; while
// none moved it is reused and only each pod's own phase is read again. The versions: which
// UIDs the pod manager holds (podsVersion: the same UIDs are at the same places), the
// workers' terminations (TerminationVersion, which covers IsPodKnownTerminated and
// IsPodTerminationRequested) and which pods the status manager holds terminal
// (TerminalVersion).
//
// The answer itself is kept too, with the list it was made from: a list GetPods handed
// out never changes (a change to the pod manager works on a copy), and the pod objects in
// it are never changed in place, so while the versions hold, the same list gives the same
// answer. The eviction manager and the stats provider list the active pods many times
// between two changes of the pod manager.
func (kl *Kubelet) filterOutInactivePods(pods []*corev1.Pod) []*corev1.Pod {
	if !kl.podManager.isHandedOut(pods) {
		out := make([]*corev1.Pod, 0, len(pods))
		for _, p := range pods {
			if kl.isActive(p) {
				out = append(out, p)
			}
		}
		return out
	}
	c := &kl.activeFilter
	podsVersion, workers, statuses := kl.podManager.podsVersion, kl.podWorkers.TerminationVersion(), kl.statusManager.TerminalVersion()
	versionsHeld := c.valid && c.pods == podsVersion && c.workers == workers && c.statuses == statuses
	if versionsHeld && c.out != nil && sameList(c.outOf, pods) {
		return c.out
	}
	if !versionsHeld {
		c.flags = c.flags[:0]
		c.noneInactive = true
		for _, p := range pods {
			var f activeFlags
			if kl.podWorkers.IsPodKnownTerminated(p.UID) {
				f |= knownTerminated
			}
			if phase, ok := kl.statusManager.GetPodPhase(p.UID); ok && isTerminal(phase) {
				f |= statusTerminal
			}
			if kl.podWorkers.IsPodTerminationRequested(p.UID) {
				f |= terminationRequested
			}
			c.flags = append(c.flags, f)
			if f&(knownTerminated|statusTerminal) != 0 {
				c.noneInactive = false
			}
		}
		c.valid, c.pods, c.workers, c.statuses = true, podsVersion, workers, statuses
	}
	if c.noneInactive && kl.podManager.terminalPods == 0 {
		// No flag makes a pod inactive and no pod's own phase is terminal: every pod is
		// active, as the walk below would find.
		c.out, c.outOf = pods, pods
		return pods
	}
	// isActive, with what it reads besides the pod object taken from the flags.
	active := func(i int, p *corev1.Pod) bool {
		f := c.flags[i]
		if f&knownTerminated != 0 {
			return false
		}
		terminal := isTerminal(p.Status.Phase) || f&statusTerminal != 0
		return !terminal || f&terminationRequested != 0
	}
	n := 0
	for i, p := range pods {
		if active(i, p) {
			n++
		}
	}
	if n == len(pods) {
		// Every pod is active (the usual case): the answer is the list itself, which
		// nobody writes to either.
		c.out, c.outOf = pods, pods
		return pods
	}
	// A new slice each time the answer is made: one handed out earlier may still be read.
	out := make([]*corev1.Pod, 0, n)
	for i, p := range pods {
		if active(i, p) {
			out = append(out, p)
		}
	}
	c.out, c.outOf = out, pods
	return out
}

// sameList reports whether a and b are the same slice (the same elements of the same
// array), not merely equal ones.
func sameList(a, b []*corev1.Pod) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// activeFilter is what filterOutInactivePods keeps of the pod manager's pods: for each, in
// GetPods' order, what isActive reads besides the pod object, and the versions it was read
// at; and its last answer (out), made from the list outOf at those versions.
type activeFilter struct {
	valid                   bool
	pods, workers, statuses uint64
	flags                   []activeFlags
	out, outOf              []*corev1.Pod
	// noneInactive: no pod's flags say known terminated or terminal in the status manager,
	// so only a pod's own terminal phase could make it inactive (see terminalPods).
	noneInactive bool
}

// activeFlags are one pod's answers from the pod workers and the status manager.
type activeFlags uint8

const (
	knownTerminated      activeFlags = 1 << iota // IsPodKnownTerminated
	statusTerminal                               // the status manager holds a terminal phase
	terminationRequested                         // IsPodTerminationRequested
)

// isActive is filterOutInactivePods' test for one pod.
func (kl *Kubelet) isActive(p *corev1.Pod) bool {
	if kl.podWorkers.IsPodKnownTerminated(p.UID) {
		return false
	}
	return !kl.isAdmittedPodTerminal(p) || kl.podWorkers.IsPodTerminationRequested(p.UID)
}

func (kl *Kubelet) isAdmittedPodTerminal(pod *corev1.Pod) bool {
	if isTerminal(pod.Status.Phase) {
		return true
	}
	if phase, ok := kl.statusManager.GetPodPhase(pod.UID); ok && isTerminal(phase) {
		return true
	}
	return false
}

package kubelet

import (
	"strconv"
	"time"

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
func (kl *Kubelet) HandlePodCleanups() time.Duration {
	allPods := kl.podManager.GetPods()
	workingPods := kl.podWorkers.SyncKnownPodsFunc(kl.podManager.HasUID)

	var cost time.Duration
	runtimePods, err := kl.runtime.GetPods()
	cost += kl.runtime.ListCost()
	if kl.cleanupKnown == nil {
		kl.cleanupKnown, kl.cleanupDesired = map[types.UID]bool{}, map[types.UID]bool{}
	}
	known := kl.cleanupKnown
	clear(known)
	for _, p := range allPods {
		known[p.UID] = true
	}
	kl.statusManager.RemoveOrphanedStatuses(known)
	if kl.probeManager != nil {
		desired := kl.cleanupDesired
		clear(desired)
		for uid, w := range workingPods {
			if w.State != podworkers.TerminatedPod {
				desired[uid] = true
			}
		}
		kl.probeManager.CleanupPods(desired)
	}

	restarted, killed, orphans := 0, 0, 0
	start := kl.clk.Now()
	for _, pod := range allPods {
		if _, ok := workingPods[pod.UID]; ok {
			continue
		}
		if kl.podWorkers.IsPodKnownTerminated(pod.UID) || !kl.isActive(pod) {
			continue
		}
		// A desired, active pod without a worker (UID reuse, a restart): start it again.
		mirror, _ := kl.podManager.GetMirrorPodByPod(pod)
		kl.dispatchWork(pod, podworkers.SyncPodCreate, mirror, start)
		restarted++
	}
	for _, pod := range allPods {
		if _, ok := workingPods[pod.UID]; ok {
			continue
		}
		if pod.DeletionTimestamp != nil && kl.isAdmittedPodTerminal(pod) {
			kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{Pod: pod, UpdateType: podworkers.SyncPodKill, StartTime: start})
			killed++
		}
	}
	if err == nil {
		one := int64(1)
		for _, rp := range runtimePods {
			if _, ok := workingPods[rp.ID]; ok || known[rp.ID] || !hasRunning(rp) {
				continue
			}
			kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{RunningPod: rp, UpdateType: podworkers.SyncPodKill,
				KillPodOptions: &podworkers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}})
			orphans++
		}
	}
	kl.crashLoop.GC(kl.clk.Now())
	kl.imageManager.GC()
	kl.clk.Record(&trace.Event{Kind: KindHousekeeping, Name: "HandlePodCleanups", Dur: cost, Attrs: []trace.Attr{
		{Key: "workers", Value: strconv.Itoa(len(workingPods))}, {Key: "restarted", Value: strconv.Itoa(restarted)},
		{Key: "killed", Value: strconv.Itoa(killed)}, {Key: "orphans", Value: strconv.Itoa(orphans)}},
		Reason: trace.Because("housekeepingInline", "housekeeping runs inline in the syncLoop goroutine: no other case is served until it returns")})
	return cost
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
		gc.Schedule(0, func() { kl.runtime.RemoveContainer(id, func(error) {}) })
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
func (kl *Kubelet) containerGC() {
	defer func() {
		kl.gcTimer = kl.s.Clock("gc", sim.PriorityDefault).Schedule(containerGCPeriod, kl.containerGC)
	}()
	if kl.stopped {
		return
	}
	pods, err := kl.runtime.GetPods()
	if err != nil {
		return
	}
	allReady := kl.sourcesReady.AllReady()
	removed := 0
	for _, p := range pods {
		removeAll := allReady && kl.podWorkers.ShouldPodContentBeRemoved(p.ID)
		st, err := kl.runtime.GetPodStatus(p.ID, p.Name, p.Namespace)
		if err != nil {
			continue
		}
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
		podGone := allReady && kl.podWorkers.ShouldPodRuntimeBeRemoved(p.ID)
		for i, sb := range st.SandboxStatuses {
			if sb.State == container.SandboxReady {
				continue
			}
			if (podGone && kept == 0) || i > 0 {
				kl.runtime.RemovePodSandbox(sb.ID, func(error) {})
				removed++
			}
		}
	}
	if removed > 0 {
		kl.s.Record(&trace.Event{Track: "gc", Kind: "containerGC", Attrs: []trace.Attr{{Key: "removed", Value: strconv.Itoa(removed)}}})
	}
}

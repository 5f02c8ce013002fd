package kubelet

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/eviction"
	"nodesim/model/podworkers"
	"nodesim/sim"
	"nodesim/trace"
)

// Image GC (upstream pkg/kubelet/images/image_gc_manager.go): every 5 minutes, when the
// image filesystem is above the high threshold, delete unused images down to the low one.
const imageGCPeriod = 5 * time.Minute

// newEvictionManager builds the eviction manager and its stats provider (upstream
// NewMainKubelet), and makes it the first admission handler.
func (kl *Kubelet) newEvictionManager() {
	if kl.deps.Eviction == nil {
		return
	}
	ec := kl.deps.Eviction
	kl.statsProvider = eviction.NewStatsProvider(kl.s, kl.runtime, ec.Resources, kl.activePods)
	cfg := eviction.Config{
		Thresholds:               ec.Thresholds,
		MaxPodGracePeriodSeconds: int64(kl.cfg.EvictionMaxPodGracePeriod),
		PressureTransitionPeriod: kl.cfg.EvictionPressureTransitionPeriod.Duration,
		KernelMemcgNotification:  kl.cfg.KernelMemcgNotification && ec.CgroupV1,
		DedicatedImageFs:         ec.Resources.DedicatedImageFs,
		LocalStorageIsolation:    true,
	}
	reclaim := eviction.Reclaimers{
		DeleteAllUnusedContainers: func() { kl.runtime.RemoveAllDeadContainers() },
		DeleteUnusedImages:        func() { kl.runtime.DeleteUnusedImages(kl.cfg.ImageMinimumGCAge.Duration, 0) },
	}
	kl.evictionManager = eviction.NewManager(kl.s, cfg, kl.statsProvider, kl.activePods, kl.killPodNow,
		kl.podResourcesAreReclaimed, reclaim, ec.Notifier)
	kl.evictionManager.PodLevelResources = kl.PodLevelResources
	kl.admitHandlers = append(kl.admitHandlers, kl.evictionManager)
	kl.nodeStatus.pressure = kl.evictionManager
}

// activePods are the pods admitted and not yet known to be terminated (upstream
// GetActivePods): what the eviction manager ranks.
func (kl *Kubelet) activePods() []*corev1.Pod {
	return kl.filterOutInactivePods(kl.podManager.GetPods())
}

// podResourcesAreReclaimed tells the eviction manager that an evicted pod is gone.
func (kl *Kubelet) podResourcesAreReclaimed(pod *corev1.Pod) bool {
	return kl.podWorkers.IsPodKnownTerminated(pod.UID) || kl.podWorkers.ShouldPodBeFinished(pod.UID)
}

// killPodNow asks the pod's worker to kill it with a grace override and waits until its
// containers have stopped, or max(10s, 1.5 × grace) has passed (upstream killPodNow).
func (kl *Kubelet) killPodNow(pod *corev1.Pod, gracePeriod int64, statusFn func(*corev1.PodStatus), done func()) {
	self := kl.s.Self()
	timeout := time.Duration(gracePeriod) * time.Second * 3 / 2
	if timeout < 10*time.Second {
		timeout = 10 * time.Second
	}
	finished := false
	var timer *sim.Timer
	finish := func() {
		if finished {
			return
		}
		finished = true
		if timer != nil {
			timer.Stop()
		}
		done()
	}
	kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{
		Pod: pod, UpdateType: podworkers.SyncPodKill, StartTime: kl.clk.Now(),
		KillPodOptions: &podworkers.KillPodOptions{
			Completed:                                func() { self.Resume(0, finish) },
			Evict:                                    true,
			PodStatusFunc:                            statusFn,
			PodTerminationGracePeriodSecondsOverride: &gracePeriod,
		},
	})
	timer = kl.s.Clock(self.Track(), sim.PriorityEviction).Schedule(timeout, func() {
		kl.s.Record(&trace.Event{Kind: "exceededGracePeriod", Pod: pod.Namespace + "/" + pod.Name})
		finish()
	})
}

// imageGC keeps the image filesystem below imageGCHighThresholdPercent by deleting unused
// images down to imageGCLowThresholdPercent.
func (kl *Kubelet) imageGC() {
	// imageGC runs only from imageGCTimer (see Run), which has just fired: resetting it
	// queues what a fresh timer of the same process would, without allocating.
	defer kl.imageGCTimer.Reset(imageGCPeriod)
	if kl.statsProvider == nil || kl.stopped {
		return
	}
	res := kl.deps.Eviction.Resources
	sum := kl.statsProvider.Get()
	capacity, used := res.NodeFsCapacity, sum.NodeFsUsed
	if res.DedicatedImageFs {
		capacity, used = res.ImageFsCapacity, sum.ImageFsUsed
	}
	if capacity <= 0 {
		return
	}
	high := float64(*kl.cfg.ImageGCHighThresholdPercent) / 100
	low := float64(*kl.cfg.ImageGCLowThresholdPercent) / 100
	if used/capacity < high {
		return
	}
	want := used - low*capacity
	freed := kl.runtime.DeleteUnusedImages(kl.cfg.ImageMinimumGCAge.Duration, want)
	kl.s.Record(&trace.Event{Track: "gc", Kind: "imageGC", Attrs: []trace.Attr{{Key: "wanted", Value: itoa64(int64(want))}, {Key: "freed", Value: itoa64(int64(freed))}}})
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }

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
	"nodesim/model/prober/results"
	"nodesim/model/status"
	"nodesim/trace"
)

// SyncPod is one round of a syncing pod's worker (upstream Kubelet.SyncPod): generate the
// API status from the cached runtime status, stop if the phase is terminal, otherwise store
// the status and let the runtime manager drive the containers.
func (kl *Kubelet) SyncPod(updateType podworkers.UpdateType, pod, mirrorPod *corev1.Pod, podStatus *container.PodStatus, done func(isTerminal bool, err error)) {
	apiStatus := kl.generateAPIPodStatus(pod, podStatus, false)
	if isTerminal(apiStatus.Phase) {
		kl.statusManager.SetPodStatus(pod, apiStatus)
		done(true, nil)
		return
	}
	kl.statusManager.SetPodStatus(pod, apiStatus)
	if podconfig.IsStaticPod(pod) {
		kl.tryReconcileMirrorPods(pod, mirrorPod)
	}
	if kl.probeManager != nil {
		kl.probeManager.AddPod(pod)
	}
	restartingAllContainers := false
	if kl.RestartGates.RestartAll() {
		for _, c := range apiStatus.Conditions {
			if c.Type == corev1.AllContainersRestarting && c.Status == corev1.ConditionTrue {
				restartingAllContainers = true
			}
		}
	}
	kl.kubeRuntime.SyncPod(pod, podStatus, kl.crashLoop, restartingAllContainers, func(result *kuberuntime.PodSyncResult) {
		kl.reasonCache.Update(pod.UID, result)
		err := result.Error()
		if err == nil && len(result.SyncResults) > 0 {
			// postSync: the sync acted, so ask PLEG to look at this pod at once.
			if kl.pleg.OnDemand() {
				kl.s.Record(&trace.Event{Kind: KindRelistRequested, Pod: pod.Namespace + "/" + pod.Name,
					Attrs:  []trace.Attr{{Key: "uid", Value: string(pod.UID)}},
					Reason: trace.Because("postSyncRelist", "the sync acted without error (postSync): the kubelet asks PLEG to relist this pod now (PLEGOnDemandRelist) instead of waiting for the next periodic relist")})
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
	})
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
	// The cached status is read in place: status generation only reads the old status,
	// and the status manager never changes a cached status (PeekPodStatus).
	old := &pod.Status
	if st, ok := kl.statusManager.PeekPodStatus(pod.UID); ok {
		old = st
	}
	reasons := func(uid types.UID, name string) (status.Reason, bool) {
		e, ok := kl.reasonCache.Get(uid, name)
		return status.Reason{Err: e.err, Message: e.message}, ok
	}
	st := status.GenerateAPIPodStatus(pod, podStatus, old, podIsTerminal, reasons, probeState{kl, pod}, kl.clk.Now())
	if kl.probeManager != nil {
		kl.probeManager.UpdatePodStatus(pod, &st)
	}
	if !isTerminal(st.Phase) && kl.pastActiveDeadline(pod) {
		st.Phase = corev1.PodFailed
		st.Reason = "DeadlineExceeded"
		st.Message = "Pod was active on the node longer than the specified deadline"
	}
	return st
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
	r, ok := p.kl.startupManager.Get(trimID(id))
	return r == results.Success, ok
}

func trimID(id string) string {
	if i := strings.Index(id, "://"); i >= 0 {
		return id[i+3:]
	}
	return id
}

func (p probeState) Started(_ types.UID, id string, c *corev1.Container) bool {
	if c == nil || c.StartupProbe == nil {
		return true
	}
	r, ok := p.kl.startupManager.Get(trimID(id))
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
	if r, ok := p.kl.readinessManager.Get(trimID(id)); ok {
		return r == results.Success
	}
	if p.kl.ChangeContainerStatusOnKubeletRestart || !p.kl.probeStarted(p.startedAt(uid, id)) {
		return false
	}
	for _, cond := range p.pod.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
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

package explain

import "nodesim/trace"

// upstreamBase is where a page's links point: the kubelet sources of the release the model
// follows. The line of each function comes from upstreamLine (pagelines.go), generated from
// those sources; TestUpstreamLinesUpToDate checks it against the module cache.
const upstreamBase = "https://github.com/kubernetes/kubernetes/blob/v1.37.2/"

// upstreamFuncs lists every function a page links to, as file (from the repository root)
// and function name. upstreamFunc returns only these; the generator of pagelines.go reads
// this list.
func upstreamFuncs() [][2]string {
	return [][2]string{
		{kubeletGo, "syncLoop"},
		{kubeletGo, "syncLoopIteration"},
		{kubeletGo, "HandlePodAdditions"},
		{kubeletGo, "HandlePodUpdates"},
		{kubeletGo, "HandlePodRemoves"},
		{kubeletGo, "HandlePodReconcile"},
		{kubeletGo, "HandlePodSyncs"},
		{kubeletGo, "rejectPod"},
		{kubeletPodsGo, "HandlePodCleanups"},
		{allocationGo, "canAdmitPod"},
		{podWorkersGo, "UpdatePod"},
		{podWorkersGo, "calculateEffectiveGracePeriod"},
		{kubeletGo, "tryReconcileMirrorPods"},
		{kubeletGo, "RequestPodRelist"},
		{podWorkersGo, "podWorkerLoop"},
		{podWorkersGo, "completeWork"},
		{podWorkersGo, "removeTerminatedWorker"},
		{podCacheGo, "GetNewerThan"},
		{runtimeManagerGo, "computePodActions"},
		{runtimeManagerGo, "SyncPod"},
		{runtimeManagerGo, "doBackOff"},
		{runtimeManagerGo, "killPodWithSyncResult"},
		{runtimeContainerGo, "startContainer"},
		{runtimeContainerGo, "executePreStopHook"},
		{runtimeContainerGo, "killContainer"},
		{runtimeContainerGo, "removeContainer"},
		{runtimeSandboxGo, "createPodSandbox"},
		{runtimeGCGo, "GarbageCollect"},
		{imageManagerGo, "EnsureImageExists"},
		{genericPLEGGo, "Relist"},
		{genericPLEGGo, "Healthy"},
		{statusManagerGo, "SetPodStatus"},
		{statusManagerGo, "TerminatePod"},
		{statusManagerGo, "syncBatch"},
		{statusManagerGo, "syncPod"},
		{podConfigGo, "Merge"},
		{evictionManagerGo, "synchronize"},
		{evictionManagerGo, "evictPod"},
		{proberWorkerGo, "doProbe"},
		{containerDeletorGo, "deleteContainersInPod"},
		{nodeSettersGo, "ReadyCondition"},
		{nodeSettersGo, "MemoryPressureCondition"},
		{nodeSettersGo, "DiskPressureCondition"},
		{nodeSettersGo, "PIDPressureCondition"},
	}
}

const (
	kubeletGo          = "pkg/kubelet/kubelet.go"
	kubeletPodsGo      = "pkg/kubelet/kubelet_pods.go"
	allocationGo       = "pkg/kubelet/allocation/allocation_manager.go"
	podWorkersGo       = "pkg/kubelet/pod_workers.go"
	podCacheGo         = "pkg/kubelet/container/cache.go"
	runtimeManagerGo   = "pkg/kubelet/kuberuntime/kuberuntime_manager.go"
	runtimeContainerGo = "pkg/kubelet/kuberuntime/kuberuntime_container.go"
	runtimeSandboxGo   = "pkg/kubelet/kuberuntime/kuberuntime_sandbox.go"
	runtimeGCGo        = "pkg/kubelet/kuberuntime/kuberuntime_gc.go"
	imageManagerGo     = "pkg/kubelet/images/image_manager.go"
	genericPLEGGo      = "pkg/kubelet/pleg/generic.go"
	statusManagerGo    = "pkg/kubelet/status/status_manager.go"
	podConfigGo        = "pkg/kubelet/config/config.go"
	evictionManagerGo  = "pkg/kubelet/eviction/eviction_manager.go"
	proberWorkerGo     = "pkg/kubelet/prober/worker.go"
	containerDeletorGo = "pkg/kubelet/pod_container_deletor.go"
	nodeSettersGo      = "pkg/kubelet/nodestatus/setters.go"
)

// upstreamFunc names the upstream function that does what e records, or "" when no kubelet
// function does (the API server, the runtime's processes, the kernel, the scenario).
func upstreamFunc(e *trace.Event) (file, fn string) {
	switch e.Kind {
	case trace.Select, kindIgnored, kindNoHandler:
		if e.Track == "syncLoop" {
			return kubeletGo, "syncLoopIteration"
		}
	case trace.Recv:
		if e.Track == "syncLoop" {
			return kubeletGo, "syncLoopIteration"
		}
	case trace.Send, trace.Drop:
		switch e.Name {
		case chanPLEG:
			return genericPLEGGo, "Relist"
		case chanConfig:
			return podConfigGo, "Merge"
		case chanLiveness, "readinessCh", "startupCh":
			return proberWorkerGo, "doProbe"
		}
	case kindSkipSync, kindIterationWait, kindSelectCases:
		return kubeletGo, "syncLoop"
	case kindGracePeriod:
		return podWorkersGo, "calculateEffectiveGracePeriod"
	case kindMirrorPod:
		return kubeletGo, "tryReconcileMirrorPods"
	case kindRelistRequest:
		return kubeletGo, "RequestPodRelist"
	case kindHandler:
		switch e.Name {
		case "HandlePodAdditions", "HandlePodUpdates", "HandlePodRemoves", "HandlePodReconcile", "HandlePodSyncs":
			return kubeletGo, e.Name
		}
	case kindHousekeeping:
		return kubeletPodsGo, "HandlePodCleanups"
	case kindPodSeen:
		// The pod manager learns of the pod as HandlePodAdditions adds it.
		return kubeletGo, "HandlePodAdditions"
	case kindAdmitted:
		return allocationGo, "canAdmitPod"
	case kindRejected:
		return kubeletGo, "rejectPod"
	case kindDispatch, kindUpdatePod, kindCancelSync:
		return podWorkersGo, "UpdatePod"
	case kindWorkerState, kindSyncStart, kindSyncEnd:
		return podWorkersGo, "podWorkerLoop"
	case kindRequeue:
		return podWorkersGo, "completeWork"
	case kindForget:
		return podWorkersGo, "removeTerminatedWorker"
	case kindWaitCache, kindCacheReady:
		return podCacheGo, "GetNewerThan"
	case kindPodActions:
		return runtimeManagerGo, "computePodActions"
	case kindBackOff:
		return runtimeManagerGo, "doBackOff"
	case kindKilling:
		return runtimeContainerGo, "killContainer"
	case kindPreStop:
		return runtimeContainerGo, "executePreStopHook"
	case kindPostStart, kindStarted, kindStartFailed:
		return runtimeContainerGo, "startContainer"
	case kindPullRequested, kindPullBackOff, kindPulled, kindPullFailed:
		return imageManagerGo, "EnsureImageExists"
	case kindCRICall:
		switch e.Name {
		case "RunPodSandbox":
			return runtimeSandboxGo, "createPodSandbox"
		case "CreateContainer", "StartContainer":
			return runtimeContainerGo, "startContainer"
		case "StopContainer":
			return runtimeContainerGo, "killContainer"
		case "StopPodSandbox":
			return runtimeManagerGo, "killPodWithSyncResult"
		case "RemoveContainer":
			if e.Track == "gc" {
				return runtimeGCGo, "GarbageCollect"
			}
			return runtimeContainerGo, "removeContainer"
		case "RemovePodSandbox":
			return runtimeGCGo, "GarbageCollect"
		case "PullImage":
			return imageManagerGo, "EnsureImageExists"
		}
		return runtimeManagerGo, "SyncPod"
	case kindContainerClean:
		return containerDeletorGo, "deleteContainersInPod"
	case kindContainerGC:
		return runtimeGCGo, "GarbageCollect"
	case kindRelist, kindRelistFailed, kindPLEGEvent:
		return genericPLEGGo, "Relist"
	case kindPLEGHealth:
		return genericPLEGGo, "Healthy"
	case kindSetPodStatus:
		return statusManagerGo, "SetPodStatus"
	case kindTerminatePod:
		return statusManagerGo, "TerminatePod"
	case kindSyncBatch:
		return statusManagerGo, "syncBatch"
	case kindStatusDelete, kindAPIPatch:
		return statusManagerGo, "syncPod"
	case kindConfigMerge:
		return podConfigGo, "Merge"
	case trace.EvictionPass:
		return evictionManagerGo, "synchronize"
	case trace.Eviction:
		return evictionManagerGo, "evictPod"
	case trace.ProbeResult:
		return proberWorkerGo, "doProbe"
	case kindNodeCondition:
		switch e.Name {
		case "Ready", "MemoryPressure", "DiskPressure", "PIDPressure":
			return nodeSettersGo, e.Name + "Condition"
		}
	}
	return "", ""
}

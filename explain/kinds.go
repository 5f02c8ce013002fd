package explain

import "nodesim/trace"

// The trace kinds the transcript reads. They are the values the model records; a test
// checks them against the model's own constants, so that explain, like reports, reads the
// trace without importing the model.
const (
	// engine
	kindRunStart      trace.Kind = "runStart"
	kindRunEnd        trace.Kind = "runEnd"
	kindScenarioEvent trace.Kind = "scenarioEvent"

	// model/kubelet
	kindSkipSync       trace.Kind = "skippingPodSynchronization"
	kindHandler        trace.Kind = "handler"
	kindNoHandler      trace.Kind = "noHandler"
	kindHousekeeping   trace.Kind = "housekeeping"
	kindDispatch       trace.Kind = "dispatchWork"
	kindAdmitted       trace.Kind = "admitted"
	kindRejected       trace.Kind = "admissionRejected"
	kindPodSeen        trace.Kind = "podSeen"
	kindIterationWait  trace.Kind = "iterationWait"
	kindContainerClean trace.Kind = "cleanUpContainersInPod"
	kindContainerGC    trace.Kind = "containerGC"
	kindIgnored        trace.Kind = "messageIgnored"
	kindSelectCases    trace.Kind = "selectCases"
	kindPodManager     trace.Kind = "podManager"
	kindMirrorPod      trace.Kind = "mirrorPod"
	kindRelistRequest  trace.Kind = "relistRequested"

	// model/podworkers
	kindUpdatePod   trace.Kind = "UpdatePod"
	kindWorkerState trace.Kind = "workerState"
	kindWaitCache   trace.Kind = "waitCache"
	kindCacheReady  trace.Kind = "cacheReady"
	kindSyncStart   trace.Kind = "syncStart"
	kindSyncEnd     trace.Kind = "syncEnd"
	kindRequeue     trace.Kind = "requeue"
	kindForget      trace.Kind = "workerForgotten"
	kindCancelSync  trace.Kind = "cancelSync"
	kindGracePeriod trace.Kind = "gracePeriod"

	// model/pleg
	kindRelist       trace.Kind = "relist"
	kindRelistFailed trace.Kind = "relistFailed"
	kindPLEGEvent    trace.Kind = "plegEvent"
	kindPLEGHealth   trace.Kind = "plegHealth"

	// model/kuberuntime
	kindPodActions  trace.Kind = "computePodActions"
	kindBackOff     trace.Kind = "crashLoopBackOff"
	kindKilling     trace.Kind = "killing"
	kindPreStop     trace.Kind = "preStop"
	kindPostStart   trace.Kind = "postStartHook"
	kindStarted     trace.Kind = "containerStartedByKubelet"
	kindStartFailed trace.Kind = "containerStartFailed"

	// model/images
	kindPullRequested trace.Kind = "imagePullRequested"
	kindPullBackOff   trace.Kind = "imagePullBackOff"
	kindPulled        trace.Kind = "imagePulled"
	kindPullFailed    trace.Kind = "imagePullFailed"

	// model/cri
	kindCRICall       trace.Kind = "criCall"
	kindContainerRun  trace.Kind = "containerRunning"
	kindContainerExit trace.Kind = "containerExited"
	kindPullStart     trace.Kind = "imagePullStarted"
	kindPullEnd       trace.Kind = "imagePullFinished"
	kindRuntimeDown   trace.Kind = "runtimeDown"
	kindRuntimeUp     trace.Kind = "runtimeUp"
	kindImageRemoved  trace.Kind = "imageRemoved"

	// model/status
	kindSetPodStatus trace.Kind = "setPodStatus"
	kindTerminatePod trace.Kind = "terminatePod"
	kindSyncBatch    trace.Kind = "statusSyncBatch"
	kindStatusDelete trace.Kind = "statusDeletePod"

	// model/apiserver
	kindAPICreate     trace.Kind = "apiCreate"
	kindAPIDelete     trace.Kind = "apiDelete"
	kindAPIUpdate     trace.Kind = "apiUpdate"
	kindAPIPatch      trace.Kind = "apiPatchStatus"
	kindAPIRemoved    trace.Kind = "apiRemoved"
	kindNodeCondition trace.Kind = "nodeCondition"

	// model/podconfig
	kindConfigMerge trace.Kind = "configMerge"
)

// Channel and select names the syncLoop uses (model/kubelet).
const (
	chanConfig       = "configCh"
	chanPLEG         = "plegCh"
	chanSync         = "syncCh"
	chanLiveness     = "livenessCh"
	chanHousekeeping = "housekeepingCh"
	// chanContainerManager is kl.containerManager.Updates(): nothing in nodesim sends on it.
	chanContainerManager = "containerManagerCh"
	selectSyncLoop       = "syncLoopIteration"
)

// categoryOf says which --only category a kind belongs to.
func categoryOf(e *trace.Event) Category {
	switch e.Kind {
	case kindRunStart, kindRunEnd, kindScenarioEvent:
		return always
	case trace.Select, trace.Send, trace.Recv, trace.Block, kindHandler, kindSkipSync, kindDispatch,
		kindAdmitted, kindRejected, kindPodSeen, kindIterationWait, kindIgnored, kindSelectCases, kindPodManager:
		return Sync
	case trace.Drop:
		if e.Name == chanConfig {
			return Config
		}
		return PLEG
	case kindHousekeeping, kindContainerClean, kindContainerGC:
		return Housekeeping
	case kindUpdatePod, kindWorkerState, kindWaitCache, kindCacheReady, kindSyncStart, kindSyncEnd, kindRequeue,
		kindForget, kindCancelSync, kindPodActions, kindBackOff, kindKilling, kindPreStop, kindPostStart, kindStarted, kindStartFailed,
		kindPullRequested, kindPullBackOff, kindPulled, kindPullFailed,
		kindSetPodStatus, kindTerminatePod, kindSyncBatch, kindStatusDelete, kindMirrorPod, kindGracePeriod, kindRelistRequest:
		return Workers
	case kindRelist, kindRelistFailed, kindPLEGEvent, kindPLEGHealth:
		return PLEG
	case kindCRICall, kindContainerRun, kindContainerExit, kindPullStart, kindPullEnd, kindRuntimeDown, kindRuntimeUp,
		kindImageRemoved:
		return CRI
	case kindAPICreate, kindAPIDelete, kindAPIUpdate, kindAPIPatch, kindAPIRemoved, kindConfigMerge:
		return Config
	case kindNodeCondition:
		if e.Name == "Ready" {
			return Sync
		}
		return Eviction
	case trace.Stats, trace.EvictionPass, trace.Eviction, trace.OOMKill, trace.ThresholdCrossed:
		return Eviction
	case trace.ProbeResult:
		return Probes
	}
	return other
}

package reports

import "nodesim/trace"

// The trace kinds reports read. They are the values the model records; a test checks them
// against the model's own constants, so that reports need not import the model.
const (
	kindRunStart      trace.Kind = "runStart"
	kindRunEnd        trace.Kind = "runEnd"
	kindPodSeen       trace.Kind = "podSeen"
	kindSetPodStatus  trace.Kind = "setPodStatus"
	kindRejected      trace.Kind = "admissionRejected"
	kindNodeCondition trace.Kind = "nodeCondition"
	kindContainerRun  trace.Kind = "containerRunning"
	kindContainerExit trace.Kind = "containerExited"
	kindCRICall       trace.Kind = "criCall"
	kindWaitCache     trace.Kind = "waitCache"
	kindCacheReady    trace.Kind = "cacheReady"
	kindSelectCases   trace.Kind = "selectCases"
	kindRelistRequest trace.Kind = "relistRequested"
	kindPodManager    trace.Kind = "podManager"
	kindPullRequested trace.Kind = "imagePullRequested"
	kindPulled        trace.Kind = "imagePulled"
	kindPullFailed    trace.Kind = "imagePullFailed"
	kindWorkerState   trace.Kind = "workerState"
	kindAPIDelete     trace.Kind = "apiDelete"
	kindAPICreate     trace.Kind = "apiCreate"
	kindRelist        trace.Kind = "relist"
	kindRelistFailed  trace.Kind = "relistFailed"
	kindSyncEnd       trace.Kind = "syncEnd"
	kindSyncStart     trace.Kind = "syncStart"
	kindUpdatePod     trace.Kind = "UpdatePod"
	kindIterationWait trace.Kind = "iterationWait"
	kindPLEGEvent     trace.Kind = "plegEvent"
	// kindKilling is killContainer; its reason attr says why (LivenessProbe, StartupProbe, ...).
	kindKilling trace.Kind = "killing"
	// Kinds the report reads nothing from, named for Builder.SkipsKinds.
	kindPodActions   trace.Kind = "computePodActions"
	kindRequeue      trace.Kind = "requeue"
	kindHandler      trace.Kind = "handler"
	kindHousekeeping trace.Kind = "housekeeping"
	kindBackOff      trace.Kind = "crashLoopBackOff"
	kindPatchStatus  trace.Kind = "apiPatchStatus"

	// Resources, evictions, OOM kills and probes: the vocabulary of trace/resources.go.
	kindStats        = trace.Stats
	kindEvictionPass = trace.EvictionPass
	kindEviction     = trace.Eviction
	kindOOMKill      = trace.OOMKill
	kindProbeResult  = trace.ProbeResult
)

// containerManagerCh is kl.containerManager.Updates() in the trace (model/kubelet).
const containerManagerCh = "containerManagerCh"

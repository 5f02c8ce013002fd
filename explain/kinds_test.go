package explain

import (
	"testing"

	"nodesim/engine"
	"nodesim/model/apiserver"
	"nodesim/model/cri"
	"nodesim/model/images"
	"nodesim/model/kubelet"
	"nodesim/model/kuberuntime"
	"nodesim/model/pleg"
	"nodesim/model/podconfig"
	"nodesim/model/podworkers"
	"nodesim/model/status"
	"nodesim/trace"
)

// explain reads the trace without importing the model; this keeps its copy of the
// vocabulary honest.
func TestKindsMatchTheModel(t *testing.T) {
	for _, c := range []struct{ ours, model trace.Kind }{
		{kindRunStart, engine.KindRunStart}, {kindRunEnd, engine.KindRunEnd}, {kindScenarioEvent, engine.KindScenarioEvent},
		{kindSkipSync, kubelet.KindSkipSync}, {kindHandler, kubelet.KindHandler}, {kindHousekeeping, kubelet.KindHousekeeping},
		{kindDispatch, kubelet.KindDispatch}, {kindAdmitted, kubelet.KindAdmitted}, {kindRejected, kubelet.KindRejected},
		{kindPodSeen, kubelet.KindPodSeen}, {kindIterationWait, kubelet.KindIterationWait}, {kindContainerClean, kubelet.KindContainerClean},
		{kindIgnored, kubelet.KindIgnored}, {kindSelectCases, kubelet.KindSelectCases}, {kindPodManager, kubelet.KindPodManager},
		{kindMirrorPod, kubelet.KindMirrorPod}, {kindRelistRequest, kubelet.KindRelistRequested},
		{kindUpdatePod, podworkers.KindUpdatePod}, {kindWorkerState, podworkers.KindWorkerState}, {kindWaitCache, podworkers.KindWaitCache},
		{kindCacheReady, podworkers.KindCacheReady}, {kindSyncStart, podworkers.KindSyncStart}, {kindSyncEnd, podworkers.KindSyncEnd},
		{kindRequeue, podworkers.KindRequeue}, {kindForget, podworkers.KindForget}, {kindGracePeriod, podworkers.KindGracePeriod},
		{kindRelist, pleg.KindRelist}, {kindRelistFailed, pleg.KindRelistFailed}, {kindPLEGEvent, pleg.KindEvent}, {kindPLEGHealth, pleg.KindHealth},
		{kindPodActions, kuberuntime.KindPodActions}, {kindBackOff, kuberuntime.KindBackOff}, {kindKilling, kuberuntime.KindKilling},
		{kindStarted, kuberuntime.KindStarted}, {kindStartFailed, kuberuntime.KindStartFailed},
		{kindPullRequested, images.KindPullRequested}, {kindPullBackOff, images.KindPullBackOff}, {kindPulled, images.KindPulled}, {kindPullFailed, images.KindPullFailed},
		{kindCRICall, cri.KindCRICall}, {kindContainerRun, cri.KindContainerRun}, {kindContainerExit, cri.KindContainerExit},
		{kindPullStart, cri.KindPullStart}, {kindPullEnd, cri.KindPullEnd}, {kindRuntimeDown, cri.KindRuntimeDown}, {kindRuntimeUp, cri.KindRuntimeUp},
		{kindSetPodStatus, status.KindSetPodStatus}, {kindTerminatePod, status.KindTerminatePod}, {kindSyncBatch, status.KindSyncBatch}, {kindStatusDelete, status.KindDeletePod},
		{kindAPICreate, apiserver.KindCreate}, {kindAPIDelete, apiserver.KindDelete}, {kindAPIUpdate, apiserver.KindUpdate},
		{kindAPIPatch, apiserver.KindPatchStatus}, {kindAPIRemoved, apiserver.KindRemoved}, {kindNodeCondition, apiserver.KindNodeCondition},
		{kindConfigMerge, podconfig.KindMerge},
	} {
		if c.ours != c.model {
			t.Errorf("explain reads %q where the model records %q", c.ours, c.model)
		}
	}
}

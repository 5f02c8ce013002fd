package reports

import (
	"testing"

	"nodesim/engine"
	"nodesim/model/apiserver"
	"nodesim/model/cri"
	"nodesim/model/images"
	"nodesim/model/kubelet"
	"nodesim/model/kuberuntime"
	"nodesim/model/pleg"
	"nodesim/model/podworkers"
	"nodesim/model/status"
	"nodesim/trace"
)

// The kinds reports read are the ones the model records: a renamed kind in the model would
// otherwise leave a report silently empty.
func TestKindsMatchTheModel(t *testing.T) {
	for _, k := range []struct{ ours, model trace.Kind }{
		{kindRunStart, engine.KindRunStart},
		{kindRunEnd, engine.KindRunEnd},
		{kindPodSeen, kubelet.KindPodSeen},
		{kindRejected, kubelet.KindRejected},
		{kindIterationWait, kubelet.KindIterationWait},
		{kindSelectCases, kubelet.KindSelectCases},
		{kindRelistRequest, kubelet.KindRelistRequested},
		{kindPodManager, kubelet.KindPodManager},
		{kindSetPodStatus, status.KindSetPodStatus},
		{kindNodeCondition, apiserver.KindNodeCondition},
		{kindAPIDelete, apiserver.KindDelete},
		{kindAPICreate, apiserver.KindCreate},
		{kindContainerRun, cri.KindContainerRun},
		{kindContainerExit, cri.KindContainerExit},
		{kindPullRequested, images.KindPullRequested},
		{kindPulled, images.KindPulled},
		{kindPullFailed, images.KindPullFailed},
		{kindWorkerState, podworkers.KindWorkerState},
		{kindSyncEnd, podworkers.KindSyncEnd},
		{kindRelist, pleg.KindRelist},
		{kindRelistFailed, pleg.KindRelistFailed},
		{kindPLEGEvent, pleg.KindEvent},
		{kindKilling, kuberuntime.KindKilling},
		{kindPodActions, kuberuntime.KindPodActions},
		{kindBackOff, kuberuntime.KindBackOff},
		{kindRequeue, podworkers.KindRequeue},
		{kindUpdatePod, podworkers.KindUpdatePod},
		{kindSyncStart, podworkers.KindSyncStart},
		{kindHandler, kubelet.KindHandler},
		{kindHousekeeping, kubelet.KindHousekeeping},
		{kindPatchStatus, apiserver.KindPatchStatus},
	} {
		if k.ours != k.model {
			t.Errorf("reports reads %q where the model records %q", k.ours, k.model)
		}
	}
}

package engine

import (
	"testing"
	"time"

	"nodesim/model/kubelet"
	"nodesim/scenarios"
	"nodesim/trace"
)

// Four pods reach the kubelet in one batch (one HandlePodAdditions), oldest first. The
// node's allocatable memory is 4Gi minus the 100Mi hard eviction threshold: 4096Mi - 100Mi
// = 3996Mi = 4190109696 bytes. a (1Gi) fits. b (3Gi) would bring the requests to 4Gi: it
// is rejected, and a rejected pod is terminal, so it counts no more. c (2Gi) then fits on
// top of a's 1Gi. d (1Gi) sees a + c = 3Gi = 3221225472 bytes in use, and 3Gi + 1Gi > 3996Mi:
// rejected, with b left out of the sum.
func TestAdmissionWithinOneBatchCountsAdmittedPodsOnly(t *testing.T) {
	const yaml = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: one-batch}
spec:
  duration: 30s
  node: {capacity: {cpu: "8", memory: 4Gi}}
  runtime:
    images: [{name: "app:v1", size: 10Mi, present: true}]
  pods:
    - pod:
        metadata: {name: a}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {memory: 1Gi}}}]}
    - pod:
        metadata: {name: b}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {memory: 3Gi}}}]}
    - pod:
        metadata: {name: c}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {memory: 2Gi}}}]}
    - pod:
        metadata: {name: d}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {memory: 1Gi}}}]}
`
	l, err := scenarios.Parse("one-batch.yaml", []byte(yaml), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(l, 1, Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"default/a": "",
		"default/b": "Node didn't have enough resource: memory, requested: 3221225472, used: 1073741824, capacity: 4190109696",
		"default/c": "",
		"default/d": "Node didn't have enough resource: memory, requested: 1073741824, used: 3221225472, capacity: 4190109696",
	}
	batches := map[time.Duration]bool{}
	for pod, msg := range want {
		rej := first(res.Trace.Events, func(e *trace.Event) bool { return e.Pod == pod && e.Kind == kubelet.KindRejected })
		adm := first(res.Trace.Events, func(e *trace.Event) bool { return e.Pod == pod && e.Kind == kubelet.KindAdmitted })
		switch {
		case msg == "" && (rej != nil || adm == nil):
			t.Errorf("%s: rejected %v, admitted %v; want admitted", pod, rej, adm)
		case msg != "" && (rej == nil || rej.Attr("reason") != "OutOfmemory" || rej.Attr("message") != msg):
			t.Errorf("%s: rejection %v, want OutOfmemory %q", pod, rej, msg)
		}
		if seen := first(res.Trace.Events, func(e *trace.Event) bool { return e.Pod == pod && e.Kind == kubelet.KindPodSeen }); seen != nil {
			batches[seen.At] = true
		}
	}
	if len(batches) != 1 {
		t.Errorf("the pods reached the kubelet at %d different times, want one", len(batches))
	}
}

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

// Pods that arrive at different times are weighed against the active pods of that moment:
// a (2Gi) is admitted at 0s and deleted at 5s (grace 0), so it no longer counts when b
// (3Gi) arrives at 30s: 3Gi fits in the 3996Mi allocatable. d (1Gi) at 40s then sees b's
// 3Gi = 3221225472 bytes in use and is rejected, 3Gi + 1Gi being over 3996Mi = 4190109696.
func TestAdmissionAcrossBatchesForgetsDeletedPods(t *testing.T) {
	const yaml = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: batches}
spec:
  duration: 1m
  node: {capacity: {cpu: "8", memory: 4Gi}}
  runtime:
    images: [{name: "app:v1", size: 10Mi, present: true}]
  pods:
    - pod:
        metadata: {name: a}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {memory: 2Gi}}}]}
    - at: 30s
      pod:
        metadata: {name: b}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {memory: 3Gi}}}]}
    - at: 40s
      pod:
        metadata: {name: d}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {memory: 1Gi}}}]}
  events:
    - {at: 5s, deletePod: default/a, gracePeriodSeconds: 0}
`
	l, err := scenarios.Parse("batches.yaml", []byte(yaml), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(l, 1, Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, pod := range []string{"default/a", "default/b"} {
		if adm := first(res.Trace.Events, func(e *trace.Event) bool { return e.Pod == pod && e.Kind == kubelet.KindAdmitted }); adm == nil {
			t.Errorf("%s was not admitted", pod)
		}
	}
	const wantMsg = "Node didn't have enough resource: memory, requested: 1073741824, used: 3221225472, capacity: 4190109696"
	rej := first(res.Trace.Events, func(e *trace.Event) bool { return e.Pod == "default/d" && e.Kind == kubelet.KindRejected })
	if rej == nil || rej.At != 40*time.Second || rej.Attr("message") != wantMsg {
		t.Errorf("d: rejection %v, want at 40s with %q", rej, wantMsg)
	}
}

package kubelet

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"

	"nodesim/model/apiserver"
	"nodesim/model/cri"
	"nodesim/model/kubeletconfig"
	"nodesim/model/podconfig"
	"nodesim/sim"
	"nodesim/trace"
)

// A static pod whose mirror pod in the API server was made from another version of it:
// SyncPod's tryReconcileMirrorPods, on the pod worker's goroutine, deletes the stale mirror
// pod and creates one that matches, each recorded with its reason; the API server's records
// name both as mirror pods.
func TestTryReconcileMirrorPodsReplacesAStaleMirror(t *testing.T) {
	var log trace.Log
	s := sim.New(1, &log)
	cfg := &kubeletconfigv1beta1.KubeletConfiguration{}
	kubeletconfig.SetDefaults(cfg, false, nil)
	api := apiserver.New(s)
	api.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-node-1", UID: "mirror-old",
		Annotations: map[string]string{podconfig.ConfigMirrorAnnotationKey: "an-older-version"}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "etcd", Image: "etcd"}}}})
	static := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-node-1", UID: "static-1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "etcd", Image: "etcd"}}}}
	kl := New(s, Dependencies{Runtime: cri.New(s, cri.Config{}), API: api, Config: cfg, Gates: noGates{},
		Node: Node{Name: "node-1"}, MemoryCapacity: 8 << 30, StaticPods: func() []*corev1.Pod { return []*corev1.Pod{static} }})
	kl.Run()
	s.RunUntil(2 * time.Second)
	var got []string
	for _, e := range log.Events {
		switch e.Kind {
		case KindMirrorPod:
			if e.Reason == nil {
				t.Errorf("%s recorded without its reason", e.String())
			}
			got = append(got, "mirrorPod "+e.Name+" on "+e.Track+" "+e.Attr("mirrorUID"))
		case apiserver.KindRemoved, apiserver.KindCreate:
			if e.At >= 0 || e.Pod == "kube-system/etcd-node-1" {
				got = append(got, string(e.Kind)+" mirror="+e.Attr("mirror"))
			}
		}
	}
	want := []string{
		"apiCreate mirror=true", // the stale mirror, set up before the kubelet ran
		"mirrorPod delete on podWorker kube-system/etcd-node-1 mirror-old",
		"apiRemoved mirror=true",
		"mirrorPod create on podWorker kube-system/etcd-node-1 mirror-static-1",
		"apiCreate mirror=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("recorded\n got  %q\n want %q", got, want)
	}
}

package kubelet

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nodesim/model/podconfig"
	"nodesim/trace"
)

// The pod manager records a pod entering or leaving its pod map or its mirror-pod map, with
// both maps' sizes after the change; an update of a pod it holds records nothing.
func TestPodManagerRecordsItsMaps(t *testing.T) {
	var got []string
	m := newPodManager(func(e *trace.Event) {
		got = append(got, fmt.Sprintf("%s %s %s pods=%s mirrorPods=%s", e.Name, e.Pod, e.Attr("map"), e.Attr("pods"), e.Attr("mirrorPods")))
	})
	static := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-n", UID: "s1"}}
	mirror := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-n", UID: "m1",
		Annotations: map[string]string{podconfig.ConfigMirrorAnnotationKey: "s1"}}}
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "w1"}}
	m.AddPod(static)
	m.AddPod(mirror)
	m.UpdatePod(static) // held already: nothing recorded
	m.UpdatePod(web)    // not held: an UpdatePod that adds
	m.RemovePod(mirror)
	m.RemovePod(mirror) // gone already: nothing recorded
	want := []string{
		"AddPod kube-system/etcd-n pods pods=1 mirrorPods=0",
		"AddPod kube-system/etcd-n mirrorPods pods=1 mirrorPods=1",
		"UpdatePod default/web pods pods=2 mirrorPods=1",
		"RemovePod kube-system/etcd-n mirrorPods pods=2 mirrorPods=0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("recorded\n got  %q\n want %q", got, want)
	}
}

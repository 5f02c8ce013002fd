package kubelet

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

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

func testPod(uid string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: "p-" + uid, Namespace: "ns", Annotations: annotations}}
}

func uidsOf(pods []*corev1.Pod) string {
	out := ""
	for _, p := range pods {
		out += string(p.UID) + ","
	}
	return out
}

// GetPods keeps the desired pods in UID order as they come and go (mirror pods aside), and
// a slice it handed out never changes afterwards.
func TestPodManagerKeepsPodsSortedAndHandedOutSlicesStable(t *testing.T) {
	m := newPodManager(func(*trace.Event) {})
	for _, uid := range []string{"c", "a", "b"} {
		m.AddPod(testPod(uid, nil))
	}
	m.AddPod(testPod("m", map[string]string{"kubernetes.io/config.mirror": "x"}))
	held := m.GetPods()
	if got := uidsOf(held); got != "a,b,c," {
		t.Fatalf("GetPods = %s, want a,b,c,", got)
	}
	newA := testPod("a", nil)
	m.AddPod(testPod("0", nil))
	m.RemovePod(testPod("b", nil))
	m.UpdatePod(newA)
	m.RemovePod(testPod("zz", nil)) // not known: nothing changes
	got := m.GetPods()
	if uidsOf(got) != "0,a,c," || got[1] != newA {
		t.Fatalf("GetPods = %s (a updated: %v), want 0,a,c, with the updated a", uidsOf(got), got[1] == newA)
	}
	if uidsOf(held) != "a,b,c," || held[0] == newA {
		t.Fatalf("the slice handed out earlier changed: %s", uidsOf(held))
	}
	// No GetPods since: changes work in place and show at the next call.
	m.AddPod(testPod("b2", nil))
	if got := uidsOf(m.GetPods()); got != "0,a,b2,c," {
		t.Fatalf("GetPods = %s, want 0,a,b2,c,", got)
	}
}

package apiserver

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/sim"
	"nodesim/trace"
)

func int64p(v int64) *int64 { return &v }

func newServer(t *testing.T) (*sim.Sim, *Server, *[]WatchEvent) {
	t.Helper()
	s := sim.New(1, nil)
	a := New(s)
	var seen []WatchEvent
	a.Watch(func([]*corev1.Pod) {}, func(e WatchEvent) {
		cp := e
		cp.Pod = e.Pod.DeepCopy()
		seen = append(seen, cp)
	})
	a.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: int64p(30)}})
	seen = seen[:0]
	return s, a, &seen
}

// A force delete (grace 0) is written first (deletion timestamp, grace 0), then removed:
// the watcher sees both, in that order (upstream updateForGracefulDeletionAndFinalizers).
func TestForceDeleteWritesGraceZeroThenRemoves(t *testing.T) {
	_, a, seen := newServer(t)
	a.Delete("u", int64p(0))
	if len(*seen) != 2 {
		t.Fatalf("%d watch events, want 2", len(*seen))
	}
	mod, del := (*seen)[0], (*seen)[1]
	if mod.Deleted || mod.Pod.DeletionTimestamp == nil || mod.Pod.DeletionGracePeriodSeconds == nil || *mod.Pod.DeletionGracePeriodSeconds != 0 {
		t.Errorf("first event %+v, want the pod with deletion grace 0", mod)
	}
	if !del.Deleted || a.Get("u") != nil {
		t.Error("the pod was not removed")
	}
}

// A second deletion may only shorten: 20s at t=0, then 5s at t=5s moves the timestamp from
// 20s to 5s (back by 15s); a longer one changes nothing; one whose whole period has passed
// becomes 1s from now (BeforeDelete).
func TestShorterDeletionMovesTheTimestampBack(t *testing.T) {
	s, a, seen := newServer(t)
	a.Delete("u", int64p(20))
	s.Step(5 * time.Second)
	a.Delete("u", int64p(5))
	p := a.Get("u")
	if got := p.DeletionTimestamp.Sub(sim.Epoch); got != 5*time.Second || *p.DeletionGracePeriodSeconds != 5 {
		t.Errorf("timestamp %s, grace %d; want 5s, 5", got, *p.DeletionGracePeriodSeconds)
	}
	n := len(*seen)
	a.Delete("u", int64p(10))
	if len(*seen) != n || *a.Get("u").DeletionGracePeriodSeconds != 5 {
		t.Error("a longer deletion changed the pod")
	}
	s.Step(10 * time.Second) // now 15s: 4s would be in the past
	a.Delete("u", int64p(4))
	p = a.Get("u")
	if got := p.DeletionTimestamp.Sub(sim.Epoch); got != 15*time.Second || *p.DeletionGracePeriodSeconds != 1 {
		t.Errorf("timestamp %s, grace %d; want now (15s) and 1", got, *p.DeletionGracePeriodSeconds)
	}
}

// An update keeps the mirror annotation (validation forbids removing or changing it) and
// cannot add one to a pod that is not a mirror pod.
func TestUpdateKeepsTheMirrorAnnotation(t *testing.T) {
	_, a, _ := newServer(t)
	a.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "m", Name: "etcd-node-1", Namespace: "kube-system",
		Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "hash"}}})
	a.Update(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "m", Name: "etcd-node-1", Namespace: "kube-system",
		Labels: map[string]string{"tier": "control-plane"}}})
	p := a.Get("m")
	if p.Annotations[corev1.MirrorPodAnnotationKey] != "hash" || p.Labels["tier"] != "control-plane" {
		t.Errorf("after a label edit: annotations %v, labels %v", p.Annotations, p.Labels)
	}
	a.Update(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "web", Namespace: "default",
		Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "forged"}}})
	if _, ok := a.Get("u").Annotations[corev1.MirrorPodAnnotationKey]; ok {
		t.Error("an update made a pod a mirror pod")
	}
}

// A lookup by name finds the pod of that name with the lowest UID, follows a rename by
// update and forgets a removed pod.
func TestGetByNameIndex(t *testing.T) {
	_, a, _ := newServer(t)
	mk := func(uid, name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name, Namespace: "default"}}
	}
	uidOf := func(name string) types.UID {
		if p := a.GetByName("default", name); p != nil {
			if q := a.PeekByName("default", name); q == nil || q.UID != p.UID {
				t.Fatalf("PeekByName(%s) and GetByName disagree", name)
			}
			return p.UID
		}
		if a.PeekByName("default", name) != nil {
			t.Fatalf("PeekByName(%s) finds a pod GetByName does not", name)
		}
		return ""
	}
	if got := uidOf("web"); got != "u" {
		t.Fatalf("web is %q, want u", got)
	}
	a.Create(mk("t", "web"))
	a.Create(mk("v", "web"))
	if got := uidOf("web"); got != "t" {
		t.Fatalf("web is %q with pods t, u, v of that name; want the lowest UID, t", got)
	}
	a.Update(mk("t", "api"))
	if got, got2 := uidOf("web"), uidOf("api"); got != "u" || got2 != "t" {
		t.Fatalf("after renaming t: web is %q, api is %q; want u and t", got, got2)
	}
	a.ForceDelete("u")
	a.ForceDelete("t")
	if got, got2 := uidOf("web"), uidOf("api"); got != "v" || got2 != "" {
		t.Fatalf("after removing u and t: web is %q, api is %q; want v and none", got, got2)
	}
	if got := uidOf("db"); got != "" {
		t.Fatalf("db is %q, want none", got)
	}
}

// A status patch's event names the pod and gives its phase and reason (and mirror=true for
// a mirror pod), whether or not the attributes of the previous patch are reused.
func TestPatchEventAttributes(t *testing.T) {
	log := &trace.Log{}
	s := sim.New(1, log)
	a := New(s)
	a.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "web", Namespace: "default"}})
	a.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "m", Name: "static", Namespace: "default",
		Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "h"}}})
	a.PatchOwnedStatus("u", corev1.PodStatus{Phase: corev1.PodRunning})
	a.PatchOwnedStatus("u", corev1.PodStatus{Phase: corev1.PodRunning})
	a.PatchOwnedStatus("u", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"})
	a.PatchOwnedStatus("m", corev1.PodStatus{Phase: corev1.PodRunning})
	a.Update(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "web", Namespace: "default", Labels: map[string]string{"k": "v"}}})
	a.PatchOwnedStatus("u", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"})
	var got []string
	for _, e := range log.Events {
		if e.Kind != KindPatchStatus {
			continue
		}
		line := e.Pod
		for _, at := range e.Attrs {
			line += " " + at.Key + "=" + at.Value
		}
		got = append(got, line)
	}
	want := []string{
		"default/web phase=Running reason=",
		"default/web phase=Running reason=",
		"default/web phase=Failed reason=Evicted",
		"default/static phase=Running reason= mirror=true",
		"default/web phase=Failed reason=Evicted",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("patch events:\n%v\nwant\n%v", got, want)
	}
}

package kuberuntime

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	api "nodesim/api/v1alpha1"
	"nodesim/model/cri"
	"nodesim/sim"
	"nodesim/trace"
)

// A sync with nothing to do finishes inside SyncPod, and the next SyncPod reuses its
// struct: each is answered once, with an empty result, and each computePodActions event
// keeps its "none" attribute after the struct was reused.
func TestSyncPodWithNothingToDoReusesItsStruct(t *testing.T) {
	log := &trace.Log{}
	s := sim.New(1, log)
	rt := cri.New(s, cri.Config{Latency: cri.DefaultLatency(),
		Behavior: func(*corev1.Pod, string) *api.Behavior { return &api.Behavior{} }})
	spec := corev1.Container{Name: "nginx", Image: "nginx"}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{spec}, RestartPolicy: corev1.RestartPolicyAlways}}
	worker := s.Clock("worker", sim.PriorityPodWorker)
	worker.Schedule(0, func() {
		rt.RunPodSandbox(pod, 0, func(sb string, _ error) {
			rt.CreateContainer(sb, &spec, 0, cri.ContainerConfig{}, func(id string, _ error) {
				rt.StartContainer(id, func(error) {})
			})
		})
	})
	s.RunUntil(time.Second)
	status, err := rt.GetPodStatus("u", "web", "default")
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(s, rt, nil, nil, nil, 0, nil)
	var answers int
	sync := func() {
		m.SyncPod(pod, "default/web", status, nil, false, nil, func(r *PodSyncResult) {
			answers++
			if len(r.SyncResults) != 0 || r.Error() != nil {
				t.Errorf("sync %d: result %+v, want nothing done", answers, r)
			}
		})
	}
	var first *podSync
	worker.Schedule(0, func() {
		sync()
		first = m.topSpareSync()
		sync()
	})
	s.RunUntil(2 * time.Second)
	if answers != 2 {
		t.Fatalf("%d answers, want 2", answers)
	}
	if first == nil || m.topSpareSync() != first || len(m.spareSyncs) != 1 {
		t.Errorf("spare sync after the syncs: %p then %p (of %d), want the same struct kept", first, m.topSpareSync(), len(m.spareSyncs))
	}
	var events int
	for _, e := range log.Events {
		if e.Kind != KindPodActions {
			continue
		}
		events++
		if len(e.Attrs) != 1 || e.Attrs[0] != (trace.Attr{Key: "actions", Value: "none"}) || e.Pod != "default/web" {
			t.Errorf("computePodActions event %+v, want actions=none for default/web", e)
		}
	}
	if events != 2 {
		t.Errorf("%d computePodActions events, want 2", events)
	}
}

// topSpareSync is the struct the next SyncPod reuses, nil if none.
func (m *Manager) topSpareSync() *podSync {
	if n := len(m.spareSyncs); n > 0 {
		return m.spareSyncs[n-1]
	}
	return nil
}

// quote must give strconv.Quote's answer for every string.
func TestQuoteMatchesStrconv(t *testing.T) {
	for _, s := range []string{"", "a", "StartContainer", "back-off 5m0s restarting failed container=app pod=web_default(uid)",
		`a"b`, `a\b`, "tab\there", "nl\n", "\x7f", "~ ", "é", "\xff", "日本", "\x00", "\u2028"} {
		if got, want := quote(s), strconv.Quote(s); got != want {
			t.Errorf("quote(%q) = %s, want %s", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		s := "x" + string([]byte{byte(c)}) + "y"
		if got, want := quote(s), strconv.Quote(s); got != want {
			t.Errorf("quote(%q) = %s, want %s", s, got, want)
		}
	}
}

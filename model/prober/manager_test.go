package prober

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/prober/results"
	"nodesim/sim"
)

// The manager's per-pod index of workers follows AddPod, StopLivenessAndStartup and
// RemovePod, and never lists a worker twice or another pod's worker.
func TestManagerIndexesWorkersByPod(t *testing.T) {
	s := sim.New(1, nil)
	m := NewManager(s, &fakeStatus{}, &fakeRunner{ok: true},
		results.NewManager(s, "livenessManager"), results.NewManager(s, "readinessManager"), results.NewManager(s, "startupManager"),
		s.Now().Add(-time.Hour))
	probe := &corev1.Probe{PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	newPod := func(uid string) *corev1.Pod {
		var cs []corev1.Container
		for _, name := range []string{"b", "a"} {
			cs = append(cs, corev1.Container{Name: name, LivenessProbe: probe, ReadinessProbe: probe})
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: uid, Namespace: "ns"}, Spec: corev1.PodSpec{Containers: cs}}
	}
	p1, p2 := newPod("u1"), newPod("u2")
	keys := func(uid string) string {
		var ks []probeKey
		for _, w := range m.workersOf(types.UID(uid)) {
			ks = append(ks, w.key())
		}
		return fmt.Sprint(ks)
	}
	m.AddPod(p1)
	m.AddPod(p2)
	m.AddPod(p1) // idempotent
	const all = "[{u1 a liveness} {u1 a readiness} {u1 b liveness} {u1 b readiness}]"
	if got := keys("u1"); got != all {
		t.Fatalf("u1 keys %s, want %s", got, all)
	}
	m.StopLivenessAndStartup(p1)
	if got := keys("u1"); got != "[{u1 a readiness} {u1 b readiness}]" {
		t.Fatalf("after StopLivenessAndStartup: %s", got)
	}
	if got := keys("u2"); got != "[{u2 a liveness} {u2 a readiness} {u2 b liveness} {u2 b readiness}]" {
		t.Fatalf("u2 keys %s", got)
	}
	m.AddPod(p1) // the liveness workers come back, once each
	if got := keys("u1"); got != all {
		t.Fatalf("after AddPod again: %s, want %s", got, all)
	}
	m.RemovePod(p1)
	if _, ok := m.byPod["u1"]; ok || len(m.workersOf("u2")) != 4 || keys("u1") != "[]" {
		t.Fatalf("after RemovePod: index %v", m.byPod)
	}
}

// workersOf returns the pod's workers, none if byPod has no entry for it.
func (m *Manager) workersOf(uid types.UID) []*worker {
	if pw := m.byPod[uid]; pw != nil {
		return pw.workers
	}
	return nil
}

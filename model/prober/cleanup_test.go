package prober

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/prober/results"
	"nodesim/sim"
)

// CleanupPods skips its walk while no worker was added and the desired set did not move.
// Two managers go through the same random history (pods' workers added, some stopped,
// pods removed, the desired set changing); one skips whenever it may, the other always
// walks. The workers they keep must stay the same.
func TestCleanupPodsMatchesTheFullPass(t *testing.T) {
	probe := &corev1.Probe{PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	mk := func() *Manager {
		s := sim.New(1, nil)
		return NewManager(s, &fakeStatus{}, &fakeRunner{ok: true},
			results.NewManager(s, "livenessManager"), results.NewManager(s, "readinessManager"), results.NewManager(s, "startupManager"),
			s.Now().Add(-time.Hour))
	}
	inc, full := mk(), mk()
	desired := map[types.UID]bool{}
	var desiredVersion uint64
	isDesired := func(uid types.UID) bool { return desired[uid] }
	pods := map[types.UID]*corev1.Pod{}
	keys := func(m *Manager) string {
		var ks []probeKey
		for _, uid := range slices.Sorted(maps.Keys(m.byPod)) {
			for _, w := range m.workersOf(uid) {
				ks = append(ks, w.key())
			}
		}
		return fmt.Sprint(ks)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	skipped := 0
	for step := 0; step < 2000; step++ {
		for n := rng.IntN(3); n > 0; n-- {
			uid := types.UID(fmt.Sprintf("u%02d", rng.IntN(20)))
			pod := pods[uid]
			if pod == nil {
				pod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid, Name: string(uid), Namespace: "ns"},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", LivenessProbe: probe, ReadinessProbe: probe}}}}
				pods[uid] = pod
			}
			switch rng.IntN(5) {
			case 0, 1:
				inc.AddPod(pod)
				full.AddPod(pod)
			case 2:
				inc.StopLivenessAndStartup(pod)
				full.StopLivenessAndStartup(pod)
			case 3:
				inc.RemovePod(pod)
				full.RemovePod(pod)
			case 4:
				desired[uid] = !desired[uid]
				desiredVersion++
			}
		}
		if inc.cleanedUp && inc.cleanedWorkers == inc.workersVersion && inc.cleanedDesired == desiredVersion {
			skipped++
		}
		inc.CleanupPods(isDesired, desiredVersion)
		full.cleanedUp = false
		full.CleanupPods(isDesired, desiredVersion)
		if got, want := keys(inc), keys(full); got != want {
			t.Fatalf("step %d: workers %s, the full pass keeps %s", step, got, want)
		}
	}
	if skipped < 300 {
		t.Fatalf("only %d of 2000 passes skipped the walk", skipped)
	}
}

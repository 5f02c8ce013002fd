package status

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

	"nodesim/model/apiserver"
	"nodesim/sim"
)

// RemoveOrphanedStatuses skips its walk while neither the cached pods nor the known set
// moved. Two managers go through the same random history (statuses set, running and
// terminal, for pods known or not, the known set changing, the API syncs running); one
// skips whenever it may, the other always walks. The pods they hold must stay the same.
func TestRemoveOrphanedStatusesMatchesTheFullPass(t *testing.T) {
	type twin struct {
		s *sim.Sim
		m *Manager
	}
	mk := func() twin {
		s := sim.New(1, nil)
		m := NewManager(s, apiserver.New(s), nil)
		m.Start()
		return twin{s, m}
	}
	inc, full := mk(), mk()
	known := map[types.UID]bool{}
	var knownVersion uint64
	isKnown := func(uid types.UID) bool { return known[uid] }
	rng := rand.New(rand.NewPCG(9, 10))
	skipped := 0
	for step := 0; step < 2000; step++ {
		for n := rng.IntN(3); n > 0; n-- {
			i := rng.IntN(30)
			uid := types.UID(fmt.Sprintf("u%02d", i))
			switch rng.IntN(4) {
			case 0, 1:
				phase := corev1.PodRunning
				if rng.IntN(3) == 0 {
					phase = corev1.PodSucceeded
				}
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid, Name: string(uid), Namespace: "ns"}}
				inc.m.SetPodStatus(pod, corev1.PodStatus{Phase: phase})
				full.m.SetPodStatus(pod, corev1.PodStatus{Phase: phase})
			case 2:
				known[uid] = !known[uid]
				knownVersion++
			}
		}
		if rng.IntN(2) == 0 {
			until := inc.s.Elapsed() + time.Duration(rng.IntN(20))*time.Second
			inc.s.RunUntil(until)
			full.s.RunUntil(until)
		}
		if inc.m.orphansChecked && inc.m.orphansPods == inc.m.podsVersion && inc.m.orphansKnown == knownVersion {
			skipped++
		}
		inc.m.RemoveOrphanedStatuses(isKnown, knownVersion)
		full.m.orphansChecked = false
		full.m.RemoveOrphanedStatuses(isKnown, knownVersion)
		got, want := slices.Sorted(maps.Keys(inc.m.podStatuses)), slices.Sorted(maps.Keys(full.m.podStatuses))
		if !slices.Equal(got, want) || inc.m.terminalVersion != full.m.terminalVersion {
			t.Fatalf("step %d: statuses of %v (terminal version %d), the full pass keeps %v (%d)", step, got, inc.m.terminalVersion, want, full.m.terminalVersion)
		}
	}
	if skipped < 300 {
		t.Fatalf("only %d of 2000 passes skipped the walk", skipped)
	}
}

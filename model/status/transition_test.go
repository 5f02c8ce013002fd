package status

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// keepTransitionTimesByLookup is keepTransitionTimes as the rule reads: for each tracked
// condition of status, from its end, the last condition of old of the same type.
func keepTransitionTimesByLookup(status, old *corev1.PodStatus, now time.Time) {
	seen := map[corev1.PodConditionType]bool{}
	for i := len(status.Conditions) - 1; i >= 0; i-- {
		nc := &status.Conditions[i]
		if transitionIndex(nc.Type) < 0 || seen[nc.Type] {
			continue
		}
		seen[nc.Type] = true
		var oc *corev1.PodCondition
		for j := len(old.Conditions) - 1; j >= 0; j-- {
			if old.Conditions[j].Type == nc.Type {
				oc = &old.Conditions[j]
				break
			}
		}
		if oc != nil && oc.Status == nc.Status {
			nc.LastTransitionTime = oc.LastTransitionTime
		} else {
			nc.LastTransitionTime = metav1.NewTime(now.Truncate(time.Second))
		}
	}
}

// keepTransitionTimes must set exactly the times the rule gives, with repeated, untracked
// and missing types in either list.
func TestKeepTransitionTimesFollowsRule(t *testing.T) {
	types := []corev1.PodConditionType{corev1.ContainersReady, corev1.PodReady, corev1.PodInitialized,
		corev1.PodReadyToStartContainers, corev1.PodScheduled, corev1.DisruptionTarget, corev1.AllContainersRestarting, "Custom"}
	statuses := []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(3, 4))
	conds := func(n int) []corev1.PodCondition {
		out := make([]corev1.PodCondition, n)
		for i := range out {
			out[i] = corev1.PodCondition{Type: types[rng.IntN(len(types))], Status: statuses[rng.IntN(2)],
				LastTransitionTime: metav1.NewTime(base.Add(time.Duration(rng.IntN(1000)) * time.Second))}
		}
		return out
	}
	for range 5000 {
		old := &corev1.PodStatus{Conditions: conds(rng.IntN(9))}
		cur := conds(rng.IntN(9))
		now := base.Add(time.Duration(rng.Int64N(int64(time.Hour))))
		got, want := &corev1.PodStatus{Conditions: slices.Clone(cur)}, &corev1.PodStatus{Conditions: slices.Clone(cur)}
		keepTransitionTimes(got, old, now)
		keepTransitionTimesByLookup(want, old, now)
		if !slices.Equal(got.Conditions, want.Conditions) {
			t.Fatalf("old %v, status %v: got %v, want %v", old.Conditions, cur, got.Conditions, want.Conditions)
		}
	}
}

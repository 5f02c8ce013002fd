package reports

import (
	"testing"
	"time"

	api "nodesim/api/v1alpha1"
	"nodesim/trace"
)

// An eviction's grace periods from a trace written by hand: the threshold's own and how long
// it was met from the eviction event, the pod's from its worker's move to terminating at the
// same instant. A pod already terminating (its worker moved earlier) gets no podGracePeriod.
func TestEvictionGracePeriods(t *testing.T) {
	tr := []trace.Event{
		ev(219*sec, kindEviction, "default/cache", "signal", "memory.available", "observed", "796Mi", "threshold", "1Gi",
			"gracePeriod", "0", "thresholdGracePeriod", "1m30s", "metFor", "1m30s"),
		named(ev(219*sec, kindWorkerState, "default/cache", "reason", "evicted", "gracePeriod", "1"), "terminating", ""),
		named(ev(300*sec, kindWorkerState, "default/leaving", "reason", "deleted", "gracePeriod", "30"), "terminating", ""),
		ev(310*sec, kindEviction, "default/leaving", "signal", "memory.available", "observed", "50Mi", "threshold", "100Mi",
			"gracePeriod", "1", "thresholdGracePeriod", "0s", "metFor", "0s"),
		// A later move of the same pod (none in a real run) must not be taken for it.
		named(ev(320*sec, kindWorkerState, "default/leaving", "gracePeriod", "7"), "terminating", ""),
	}
	r := Build(Input{Scenario: &api.Scenario{Metadata: api.Metadata{Name: "t"}}, End: 6 * time.Minute, Trace: tr, QoS: map[string]string{}})
	if len(r.Evictions) != 2 {
		t.Fatalf("%d evictions", len(r.Evictions))
	}
	soft, hard := r.Evictions[0], r.Evictions[1]
	if soft.GracePeriod != 0 || soft.PodGracePeriod == nil || *soft.PodGracePeriod != 1 || soft.ThresholdGracePeriod != 90 ||
		soft.ThresholdMetFor == nil || *soft.ThresholdMetFor != 90 {
		t.Errorf("soft eviction %+v: want asked 0, given 1, threshold grace 90, met for 90", soft)
	}
	if hard.GracePeriod != 1 || hard.PodGracePeriod != nil || hard.ThresholdGracePeriod != 0 || hard.ThresholdMetFor == nil || *hard.ThresholdMetFor != 0 {
		t.Errorf("eviction of a terminating pod %+v: want asked 1, no podGracePeriod, threshold grace 0, met for 0", hard)
	}
	rows := evictionRows(r.Evictions)
	for i, want := range [][]string{
		{"3m39s", "default/cache", "memory.available", "796Mi", "1024Mi (soft, grace 1m30s)", "1m30s", "1s (asked 0s)", ""},
		{"5m10s", "default/leaving", "memory.available", "50Mi", "100Mi (hard)", "0s", "1s (asked)", ""},
	} {
		for j := range want {
			if rows[i][j] != want[j] {
				t.Errorf("row %d column %d: %q, want %q", i, j, rows[i][j], want[j])
			}
		}
	}
}

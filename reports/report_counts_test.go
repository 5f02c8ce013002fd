package reports

import (
	"slices"
	"testing"

	api "nodesim/api/v1alpha1"
	"nodesim/scenarios"
)

// Every counter a report carries can be bounded by a `count` expectation, and the loader
// accepts no name the report lacks: the two lists are one vocabulary.
func TestEveryReportCounterIsACountMetric(t *testing.T) {
	r := NewBuilder(Input{Scenario: &api.Scenario{}}).Finish(0)
	metrics := scenarios.CountMetrics()
	for k := range r.Counts {
		if !slices.Contains(metrics, k) {
			t.Errorf("report counter %q is not accepted by count expectations", k)
		}
	}
	for _, m := range metrics {
		if _, ok := r.Counts[m]; !ok {
			t.Errorf("count metric %q is not a report counter", m)
		}
	}
}

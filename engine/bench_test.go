package engine

import (
	"fmt"
	"strings"
	"testing"

	"nodesim/scenarios"
)

// fullNode is a node at its pod limit: 100 steady pods and 10 crash-looping ones.
func fullNode(duration string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: full-node}
spec:
  duration: %s
  node: {capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
  runtime:
    images: [{name: "app:v1", size: 10Mi, present: true}]
  pods:
    - replicas: 100
      pod:
        metadata: {name: steady}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {cpu: 100m, memory: 64Mi}}}]}
    - replicas: 10
      pod:
        metadata: {name: crashy}
        spec: {containers: [{name: app, image: "app:v1"}]}
      behavior:
        app: {exit: {after: 30s, code: 1}}
`, duration)
	return b.String()
}

var benchDuration = "24h"

// BenchmarkFullNodeDay simulates a full node for 24 hours; the design budget is about a
// second of one core. It runs with the invariant checker, as every run does;
// BenchmarkFullNodeDayNoInvariants is the same run without it, to measure its cost.
func BenchmarkFullNodeDay(b *testing.B) { benchFullNodeDay(b, Options{}) }

// BenchmarkFullNodeDayNoInvariants is BenchmarkFullNodeDay without the invariant checker.
func BenchmarkFullNodeDayNoInvariants(b *testing.B) {
	benchFullNodeDay(b, Options{SkipInvariants: true})
}

func benchFullNodeDay(b *testing.B, opts Options) {
	l, err := scenarios.Parse("full.yaml", []byte(fullNode(benchDuration)), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var events uint64
	for i := 0; i < b.N; i++ {
		res, err := Run(l, 1, opts)
		if err != nil {
			b.Fatal(err)
		}
		events = res.Fired
	}
	b.ReportMetric(float64(events), "events/run")
	b.ReportMetric(86400*float64(b.N)/b.Elapsed().Seconds(), "simsec/s")
}

// BenchmarkCrashLoop is one shipped scenario end to end.
func BenchmarkCrashLoop(b *testing.B) {
	l, err := scenarios.LoadBuiltin("crashloop")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(l, 1, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFullNodeHour is the same node for one hour, for profiling.
func BenchmarkFullNodeHour(b *testing.B) { benchFullNodeHour(b, Options{}) }

// BenchmarkFullNodeHourNoInvariants is BenchmarkFullNodeHour without the invariant checker:
// short enough to count instructions under valgrind, which a loaded machine cannot skew.
func BenchmarkFullNodeHourNoInvariants(b *testing.B) {
	benchFullNodeHour(b, Options{SkipInvariants: true})
}

func benchFullNodeHour(b *testing.B, opts Options) {
	l, err := scenarios.Parse("full.yaml", []byte(fullNode("1h")), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(l, 1, opts); err != nil {
			b.Fatal(err)
		}
	}
}

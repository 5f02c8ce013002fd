package reports

import (
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/stat"
)

// LatencyStats summarizes one latency metric, in seconds.
type LatencyStats struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

type latencies struct {
	samples map[string][]float64
	// The metrics sampled every few events of a run (each relist, pod worker sync and
	// syncLoop iteration) are kept in series of their own, so that a sample costs an
	// append rather than two lookups of its name; flush moves them into samples.
	plegRelist, plegRelistInterval, podWorkerSync, iterationWait series
}

// series is the samples of one metric, in the order they were taken.
type series struct {
	metric string
	xs     []float64
}

func (s *series) add(d time.Duration) { s.xs = append(s.xs, secs(d)) }

func newLatencies() *latencies {
	return &latencies{samples: map[string][]float64{},
		plegRelist: series{metric: "plegRelist"}, plegRelistInterval: series{metric: "plegRelistInterval"},
		podWorkerSync: series{metric: "podWorkerSync"}, iterationWait: series{metric: "syncLoopIterationWait"}}
}

func (l *latencies) add(metric string, d time.Duration) {
	l.samples[metric] = append(l.samples[metric], secs(d))
}

// flush moves the series' samples into samples: a metric is there once it has a sample,
// as if each had been recorded with add.
func (l *latencies) flush() {
	for _, s := range []*series{&l.plegRelist, &l.plegRelistInterval, &l.podWorkerSync, &l.iterationWait} {
		if len(s.xs) == 0 {
			continue
		}
		l.samples[s.metric] = s.xs // no add records these metrics, and flush runs once
	}
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func (l *latencies) stats() map[string]LatencyStats {
	out := map[string]LatencyStats{}
	for metric, xs := range l.samples {
		out[metric] = Summarize(xs)
	}
	return out
}

// Summarize computes count, mean and the empirical p50, p90, p99 and max of samples.
func Summarize(xs []float64) LatencyStats {
	if len(xs) == 0 {
		return LatencyStats{}
	}
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	return LatencyStats{
		Count: len(sorted),
		Mean:  round6(stat.Mean(sorted, nil)),
		P50:   round6(stat.Quantile(0.50, stat.Empirical, sorted, nil)),
		P90:   round6(stat.Quantile(0.90, stat.Empirical, sorted, nil)),
		P99:   round6(stat.Quantile(0.99, stat.Empirical, sorted, nil)),
		Max:   round6(sorted[len(sorted)-1]),
	}
}

// percentile is the empirical p-th percentile (0 < p <= 100) of samples.
func percentile(p float64, samples []float64) float64 {
	sorted := append([]float64(nil), samples...)
	sort.Float64s(sorted)
	return stat.Quantile(p/100, stat.Empirical, sorted, nil)
}

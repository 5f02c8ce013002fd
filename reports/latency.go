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
		P50:   round6(empiricalQuantile(0.50, sorted)),
		P90:   round6(empiricalQuantile(0.90, sorted)),
		P99:   round6(empiricalQuantile(0.99, sorted)),
		Max:   round6(sorted[len(sorted)-1]),
	}
}

// percentile is the empirical p-th percentile (0 < p <= 100) of samples.
func percentile(p float64, samples []float64) float64 {
	sorted := append([]float64(nil), samples...)
	sort.Float64s(sorted)
	return empiricalQuantile(p/100, sorted)
}

// empiricalQuantile is stat.Quantile(p, stat.Empirical, sorted, nil) for samples sorted by
// sort.Float64s, found by index instead of by stat.Quantile's walks over every sample
// (a check for NaN, a check that the samples are sorted, and a running count up to the
// quantile's place): three walks of every sample, per quantile, of each metric.
//
// The empirical quantile is the first sample whose rank (1, 2, ...) reaches p·n, the
// product taken in float64 as stat.Quantile takes it; that rank is ⌈p·n⌉, and at least 1.
// sort.Float64s puts NaNs first, so there is one exactly when the first sample is NaN, and
// stat.Quantile's answer is then NaN.
func empiricalQuantile(p float64, sorted []float64) float64 {
	if !(p >= 0 && p <= 1) {
		panic("stat: percentile out of bounds")
	}
	if len(sorted) == 0 {
		panic("stat: zero length slice")
	}
	if math.IsNaN(sorted[0]) {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

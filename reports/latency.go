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
}

func newLatencies() *latencies { return &latencies{samples: map[string][]float64{}} }

func (l *latencies) add(metric string, d time.Duration) {
	l.samples[metric] = append(l.samples[metric], secs(d))
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

package reports

import (
	"math"
	"sort"
	"time"

	"nodesim/trace"
)

// ChartOptions is what report.html's charts need beyond the trace.
type ChartOptions struct {
	// Duration is the scenario's planned duration; it sets the charts' time resolution.
	Duration time.Duration
	// Pods are the scenario's pods, in the order the legend lists them.
	Pods []string
	// NodeMemory is the node's memory capacity in bytes, used until a stats sample gives it.
	NodeMemory float64
	// EvictionHard and EvictionSoft are the kubelet's thresholds (signal -> quantity or
	// percentage, as in a KubeletConfiguration).
	EvictionHard, EvictionSoft map[string]string
}

// chartPoints bounds how many points a series keeps, whatever the run's length.
const chartPoints = 1000

// ChartRecorder keeps, as the trace streams (a trace.Sink), the memory series report.html
// draws: the node's working set and each pod's, in buckets of equal width. A bucket holds
// the highest value held during it, so that a spike shorter than a bucket still shows; a
// series is at most chartPoints long, whatever the run's length.
type ChartRecorder struct {
	opts        ChartOptions
	step        time.Duration
	bucket      int // the bucket being filled
	node        *bucketSeries
	pods        map[string]*bucketSeries
	memCapacity float64
}

// bucketSeries is one series in buckets: points[i] is bucket start+i, NaN when the series
// held no value during it.
type bucketSeries struct {
	start  int
	points []float64
	cur    gauge // the value held now
	peak   gauge // the highest value held in the current bucket
	// sample is the attribute list of the pod stats sample cur was set from, nil once cur
	// is cleared. A sample with that very list (see sameAttrs) holds the same value, and
	// setting cur to the value it holds changes nothing (peak is never below cur).
	sample []trace.Attr
}

func (s *bucketSeries) set(v float64) {
	s.cur = gauge{v: v, ok: true}
	if !s.peak.ok || v > s.peak.v {
		s.peak = s.cur
	}
}

func (s *bucketSeries) close() {
	if s.peak.ok {
		s.points = append(s.points, s.peak.v)
	} else {
		s.points = append(s.points, math.NaN())
	}
	s.peak = s.cur
}

// NewChartRecorder starts recording for opts.
func NewChartRecorder(opts ChartOptions) *ChartRecorder {
	step := time.Second
	if opts.Duration > chartPoints*time.Second {
		step = (opts.Duration + chartPoints - 1) / chartPoints
		step = ((step + time.Second - 1) / time.Second) * time.Second
	}
	return &ChartRecorder{opts: opts, step: step, node: &bucketSeries{}, pods: map[string]*bucketSeries{}, memCapacity: opts.NodeMemory}
}

// advance closes every bucket before bucket to.
func (c *ChartRecorder) advance(to int) {
	for c.bucket < to {
		c.node.close()
		for _, s := range c.pods {
			s.close()
		}
		c.bucket++
	}
}

// Record takes one event.
func (c *ChartRecorder) Record(e *trace.Event) {
	if e.At >= 0 {
		c.advance(int(e.At / c.step))
	}
	switch e.Kind {
	case kindStats:
		var g gauge
		switch e.Name {
		case "node":
			if g.setAttr(e, "memoryCapacity") {
				c.memCapacity = g.v
			}
			if g.setAttr(e, "memoryWorkingSet") {
				c.node.set(g.v)
			}
		case "pod":
			s := c.pods[e.Pod]
			if s != nil && sameAttrs(s.sample, e.Attrs) {
				break
			}
			if g.setAttr(e, "memory") {
				if s == nil {
					s = &bucketSeries{start: c.bucket}
					c.pods[e.Pod] = s
				}
				s.set(g.v)
				s.sample = e.Attrs
			}
		}
	case kindWorkerState:
		if s := c.pods[e.Pod]; s != nil && e.Name == "terminated" {
			s.cur, s.sample = gauge{}, nil
		}
	}
}

// Finish closes the bucket that holds end.
func (c *ChartRecorder) Finish(end time.Duration) {
	c.advance(int(end/c.step) + 1)
}

// memorySeries is one line of the memory chart.
type memorySeries struct {
	name   string
	node   bool
	step   time.Duration
	start  int
	points []float64
}

// at returns the series' value in the bucket holding t (seconds), if it has one.
func (s memorySeries) at(t float64) (float64, bool) {
	if s.step <= 0 {
		return 0, false
	}
	i := int(t/s.step.Seconds()) - s.start
	if i < 0 || i >= len(s.points) || math.IsNaN(s.points[i]) {
		return 0, false
	}
	return s.points[i], true
}

// series returns the node's series (when it has any value) and then each pod's, the
// scenario's pods first in their order, then others by name.
func (c *ChartRecorder) series() []memorySeries {
	var out []memorySeries
	if hasValue(c.node.points) {
		out = append(out, memorySeries{name: "node working set", node: true, step: c.step, points: c.node.points})
	}
	seen := map[string]bool{}
	var names []string
	for _, p := range c.opts.Pods {
		if _, ok := c.pods[p]; ok && !seen[p] {
			names = append(names, p)
			seen[p] = true
		}
	}
	var others []string
	for p := range c.pods {
		if !seen[p] {
			others = append(others, p)
		}
	}
	sort.Strings(others)
	for _, p := range append(names, others...) {
		s := c.pods[p]
		if hasValue(s.points) {
			out = append(out, memorySeries{name: p, step: c.step, start: s.start, points: s.points})
		}
	}
	return out
}

func hasValue(xs []float64) bool {
	for _, x := range xs {
		if !math.IsNaN(x) {
			return true
		}
	}
	return false
}

package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// The three charts of report.html. Each returns one <svg class="chart"> whose data-*
// attributes say what it drew (data-series-count, data-marker-count, ...), so that a test
// can check the drawing without reading pixels.

const chartWidth, chartHeight = 1200.0, 360.0

// The time axes' labels.
const (
	sinceStart  = "time since the scenario started"
	latencyAxis = "start-up latency"
)

// legendItem is one entry of a chart's legend, written as HTML under the chart.
type legendItem struct {
	Name   string
	Color  string
	Dashed bool
}

// memoryThreshold is a horizontal line on the memory chart: the node working set at which a
// memory.available threshold is met.
type memoryThreshold struct {
	label string
	bytes float64
	soft  bool
}

// memoryThresholds turns the kubelet's memory.available thresholds into working-set levels:
// memory.available = capacity - working set, so the threshold is met above capacity - value.
func memoryThresholds(opts ChartOptions, capacity float64) []memoryThreshold {
	var out []memoryThreshold
	for _, set := range []struct {
		m    map[string]string
		soft bool
		kind string
	}{{opts.EvictionHard, false, "hard"}, {opts.EvictionSoft, true, "soft"}} {
		v, ok := set.m["memory.available"]
		if !ok || capacity <= 0 {
			continue
		}
		q, ok := thresholdBytes(v, capacity)
		if !ok {
			continue
		}
		out = append(out, memoryThreshold{label: fmt.Sprintf("eviction %s: memory.available<%s", set.kind, v), bytes: capacity - q, soft: set.soft})
	}
	return out
}

// thresholdBytes reads a threshold value: a quantity, or a percentage of capacity.
func thresholdBytes(v string, capacity float64) (float64, bool) {
	if pct, ok := strings.CutSuffix(strings.TrimSpace(v), "%"); ok {
		f, err := strconv.ParseFloat(pct, 64)
		if err != nil {
			return 0, false
		}
		return capacity * f / 100, true
	}
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return 0, false
	}
	return q.AsApproximateFloat64(), true
}

// memoryChart draws node and pod memory working sets over time, the eviction thresholds,
// and the evictions and OOM kills as markers.
func memoryChart(r *Report, c *ChartRecorder) (string, []legendItem) {
	var series []memorySeries
	capacity := 0.0
	var opts ChartOptions
	if c != nil {
		series, capacity, opts = c.series(), c.memCapacity, c.opts
	}
	thresholds := memoryThresholds(opts, capacity)
	ymax := 0.0
	for _, s := range series {
		for _, v := range s.points {
			if !math.IsNaN(v) {
				ymax = math.Max(ymax, v)
			}
		}
	}
	for _, t := range thresholds {
		ymax = math.Max(ymax, t.bytes)
	}
	if len(thresholds) > 0 {
		ymax = math.Max(ymax, capacity)
	}
	ymax *= 1.05
	height := chartHeight
	if len(series) == 0 {
		height = 140 // room for the note and the markers, not for an empty plot
	}
	p := newPlot(chartWidth, height, r.Duration, ymax)
	p.open("memory", "memory working set over time", fmt.Sprintf(`data-series-count="%d" data-threshold-count="%d" data-marker-count="%d"`,
		len(series), len(thresholds), len(r.Evictions)+len(r.OOMKills)))
	var legend []legendItem
	if len(series) == 0 {
		p.message("no memory stats in this run")
	} else {
		p.yAxis(byteStep(ymax), formatBytes)
	}
	p.xAxis(sinceStart)
	if len(thresholds) > 0 {
		y := p.y(capacity)
		p.f(`<line class="capacity" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1"><title>node memory capacity %s</title></line>`,
			num(p.left), num(y), num(p.width-p.right), num(y), nodeColor, esc(formatBytes(capacity)))
	}
	for _, t := range thresholds {
		y := p.y(t.bytes)
		dash := "8 4"
		if t.soft {
			dash = "3 3"
		}
		p.f(`<line class="threshold" data-threshold="%s" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.5" stroke-dasharray="%s"><title>%s (working set above %s)</title></line>`,
			esc(t.label), num(p.left), num(y), num(p.width-p.right), num(y), badColor, dash, esc(t.label), esc(formatBytes(t.bytes)))
		ly := y - 4 // hard above its line, soft below, so that close lines keep apart labels
		if t.soft {
			ly = y + 12
		}
		p.f(`<text class="threshold-label" x="%s" y="%s" text-anchor="end">%s</text>`, num(p.width-p.right-4), num(ly), esc(t.label))
		legend = append(legend, legendItem{Name: t.label, Color: badColor, Dashed: true})
	}
	podColor := map[string]string{}
	podSeries := map[string]memorySeries{}
	var xs, ys []float64 // a series' points on the canvas, reused from series to series
	var path []byte
	for i, s := range series {
		color := nodeColor
		if !s.node {
			color = palette(i)
			podColor[s.name] = color
			podSeries[s.name] = s
		}
		xs, ys = xs[:0], ys[:0]
		for j, v := range s.points {
			from := float64(s.start+j) * s.step.Seconds()
			to := math.Min(from+s.step.Seconds(), r.Duration)
			y := math.NaN()
			if !math.IsNaN(v) {
				y = p.y(v)
			}
			xs, ys = append(xs, p.x(from), p.x(to)), append(ys, y, y)
		}
		width := "1.5"
		if s.node {
			width = "2.5"
		}
		// The path is written straight into the plot: it is most of a long run's chart.
		p.f(`<path class="series" data-series="%s" d="`, esc(s.name))
		path = appendPath(path[:0], xs, ys)
		p.b.Write(path)
		p.f(`" fill="none" stroke="%s" stroke-width="%s"><title>%s</title></path>`, color, width, esc(s.name))
		legend = append(legend, legendItem{Name: s.name, Color: color})
	}
	top := p.top
	for _, e := range r.Evictions {
		x := p.x(e.Time)
		observed, threshold := e.Observed, e.Threshold
		if byteSignal(e.Signal) {
			var c ByteColumn // one unit for the two values compared
			c.Observe(observed)
			c.Observe(threshold)
			observed, threshold = c.Format(observed), c.Format(threshold)
		}
		p.f(`<line class="marker eviction" data-pod="%s" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"><title>%s evicted at %s: %s %s, threshold %s</title></line>`,
			esc(e.Pod), num(x), num(top), num(x), num(p.height-p.bottom), badColor, esc(e.Pod), esc(formatSeconds(e.Time)), esc(e.Signal), esc(observed), esc(threshold))
		p.f(`<text class="marker-label" x="%s" y="%s">evicted %s</text>`, num(x+3), num(top+10), esc(e.Pod))
	}
	for _, o := range r.OOMKills {
		x := p.x(o.Time)
		color := podColor[o.Pod]
		if color == "" {
			color = badColor
		}
		// The triangle points at the pod's line when it has a value then, else at the axis.
		y := p.height - p.bottom - 2
		if v, ok := podSeries[o.Pod].at(o.Time); ok {
			y = p.y(v) - 2
		}
		p.f(`<path class="marker oom" data-pod="%s" d="M%s %sL%s %sL%s %sZ" fill="%s" stroke="%s"><title>OOM kill (%s) of %s %s at %s</title></path>`,
			esc(o.Pod), num(x-6), num(y-10), num(x+6), num(y-10), num(x), num(y), color, badColor, esc(o.Kind), esc(o.Pod), esc(o.Container), esc(formatSeconds(o.Time)))
	}
	if len(r.Evictions) > 0 {
		legend = append(legend, legendItem{Name: "eviction", Color: badColor})
	}
	if len(r.OOMKills) > 0 {
		legend = append(legend, legendItem{Name: "▼ OOM kill", Color: badColor})
	}
	return p.close(), legend
}

// conditionUnhealthy says whether a condition's status is the bad one: Ready not True, a
// pressure condition True.
func conditionUnhealthy(typ, status string) bool {
	if typ == "Ready" {
		return status != "True"
	}
	return status == "True"
}

// conditionsChart draws each node condition as a lane of bands, one per status it held.
func conditionsChart(r *Report) (string, []legendItem) {
	var lanes []string
	for _, t := range conditionTypes() {
		for _, c := range r.NodeConditions {
			if c.Type == t {
				lanes = append(lanes, t)
				break
			}
		}
	}
	const laneHeight = 34.0
	height := 60 + laneHeight*float64(max(len(lanes), 1))
	p := newPlot(chartWidth, height, r.Duration, 1)
	p.left = 130
	bands := 0
	var body strings.Builder
	for i, t := range lanes {
		y := p.top + float64(i)*laneHeight
		fmt.Fprintf(&body, `<text class="lane" x="%s" y="%s" text-anchor="end">%s</text>`, num(p.left-8), num(y+laneHeight/2+4), esc(t))
		var ts []NodeCondition
		for _, c := range r.NodeConditions {
			if c.Type == t {
				ts = append(ts, c)
			}
		}
		for j, c := range ts {
			end := r.Duration
			if j+1 < len(ts) {
				end = ts[j+1].Time
			}
			if end < c.Time {
				continue
			}
			color := goodColor
			if conditionUnhealthy(t, c.Status) {
				color = badColor
			}
			w := math.Max(p.x(end)-p.x(c.Time), 1)
			reason := ""
			if c.Reason != "" {
				reason = " (" + c.Reason + ")"
			}
			fmt.Fprintf(&body, `<rect class="band" data-condition="%s" data-status="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s=%s%s from %s to %s</title></rect>`,
				esc(t), esc(c.Status), num(p.x(c.Time)), num(y+4), num(w), num(laneHeight-8), color, esc(t), esc(c.Status), esc(reason), esc(formatSeconds(c.Time)), esc(formatSeconds(end)))
			bands++
		}
	}
	p.bottom = height - p.top - laneHeight*float64(max(len(lanes), 1))
	p.open("conditions", "node conditions over time", fmt.Sprintf(`data-lane-count="%d" data-band-count="%d"`, len(lanes), bands))
	p.xAxis(sinceStart)
	if len(lanes) == 0 {
		p.message("no node condition in this run")
	}
	p.b.WriteString(body.String())
	for _, e := range r.Evictions {
		x := p.x(e.Time)
		p.f(`<line class="marker eviction" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-dasharray="2 2"><title>%s evicted</title></line>`,
			num(x), num(p.top), num(x), num(height-p.bottom), nodeColor, esc(e.Pod))
	}
	legend := []legendItem{{Name: "healthy (Ready=True, pressure False)", Color: goodColor}, {Name: "unhealthy (NotReady, pressure True)", Color: badColor}}
	return p.close(), legend
}

// startupChart draws the distribution of the pods' start-up latencies: the kubelet's SLI
// (pulls left out) and the same span with pulls, as a histogram with their p50 and p99.
func startupChart(r *Report) (string, []legendItem) {
	var sli, total []float64
	for _, pod := range r.Pods {
		if pod.StartupLatency != nil {
			sli = append(sli, *pod.StartupLatency)
		}
		if pod.StartupLatencyWithPulls != nil {
			total = append(total, *pod.StartupLatencyWithPulls)
		}
	}
	hi := 0.0
	for _, v := range append(append([]float64{}, sli...), total...) {
		hi = math.Max(hi, v)
	}
	width := timeStep(hi)
	if hi == 0 {
		width = 0.1
	}
	bins := int(math.Floor(hi/width)) + 1
	count := func(xs []float64) []int {
		out := make([]int, bins)
		for _, v := range xs {
			out[min(int(math.Floor(v/width)), bins-1)]++
		}
		return out
	}
	series := []struct {
		name   string
		color  string
		counts []int
		n      int
	}{{"start-up (pulls left out: the SLI)", palette(0), count(sli), len(sli)}, {"start-up with pulls", palette(1), count(total), len(total)}}
	ymax := 1
	for _, s := range series {
		for _, n := range s.counts {
			ymax = max(ymax, n)
		}
	}
	p := newPlot(chartWidth, 300, float64(bins)*width, float64(ymax)*1.1)
	drawn := 0
	for _, s := range series {
		if s.n > 0 {
			drawn++
		}
	}
	p.open("startup", "start-up latency distribution", fmt.Sprintf(`data-series-count="%d" data-sample-count="%d" data-bin-count="%d"`, drawn, len(sli), bins))
	if len(sli) == 0 && len(total) == 0 {
		p.message("no pod started in this run")
		p.xAxis(latencyAxis)
		return p.close(), nil
	}
	p.yAxis(countStep(float64(ymax)), func(v float64) string { return strconv.Itoa(int(v)) })
	p.xAxis(latencyAxis)
	var legend []legendItem
	for k, s := range series {
		if s.n == 0 {
			continue
		}
		for i, n := range s.counts {
			if n == 0 {
				continue
			}
			x0, x1 := p.x(float64(i)*width), p.x(float64(i+1)*width)
			w := (x1 - x0) / 2
			x := x0 + float64(k)*w
			y := p.y(float64(n))
			fmt.Fprintf(&p.b, `<rect class="bar" data-series="%d" data-count="%d" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s: %d pods in [%s, %s)</title></rect>`,
				k, n, num(x+0.5), num(y), num(math.Max(w-1, 1)), num(p.y(0)-y), s.color, esc(s.name), n, esc(formatSeconds(float64(i)*width)), esc(formatSeconds(float64(i+1)*width)))
		}
		legend = append(legend, legendItem{Name: fmt.Sprintf("%s (%d pods)", s.name, s.n), Color: s.color})
	}
	if st, ok := r.Latency["podStartup"]; ok && st.Count > 0 {
		marks := []struct {
			name string
			v    float64
		}{{"p50", st.P50}, {"p99", st.P99}}
		if st.P50 == st.P99 {
			marks = marks[:1]
			marks[0].name = "p50 = p99"
		}
		for _, q := range marks {
			x := p.x(q.v)
			p.f(`<line class="percentile" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-dasharray="4 3"><title>SLI %s %s</title></line>`,
				num(x), num(p.top), num(x), num(p.y(0)), nodeColor, q.name, esc(formatSeconds(q.v)))
			p.f(`<text class="marker-label" x="%s" y="%s">%s</text>`, num(x+3), num(p.top+10), q.name)
		}
	}
	return p.close(), legend
}

// sortedMetrics returns the latency metrics in name order.
func sortedMetrics(l map[string]LatencyStats) []string {
	out := make([]string, 0, len(l))
	for m := range l {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

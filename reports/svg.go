package reports

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// The drawing primitives of report.html's charts: plain SVG written as text, so that the
// page needs no script library and no network, and the same run always gives the same bytes.

// palette colours series in turn; the node's own series is drawn in nodeColor.
func palette(i int) string {
	colors := [...]string{"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac", "#e15759"}
	return colors[i%len(colors)]
}

const (
	nodeColor = "#222222"
	badColor  = "#d62728"
	goodColor = "#8fd19e"
)

// plot maps data coordinates onto an SVG canvas with margins for the axes.
type plot struct {
	b                        strings.Builder
	width, height            float64
	left, right, top, bottom float64
	xmax, ymax               float64
}

func newPlot(width, height, xmax, ymax float64) *plot {
	if xmax <= 0 {
		xmax = 1
	}
	if ymax <= 0 {
		ymax = 1
	}
	return &plot{width: width, height: height, left: 80, right: 20, top: 20, bottom: 40, xmax: xmax, ymax: ymax}
}

func (p *plot) x(v float64) float64 { return p.left + v/p.xmax*(p.width-p.left-p.right) }
func (p *plot) y(v float64) float64 { return p.height - p.bottom - v/p.ymax*(p.height-p.top-p.bottom) }

func (p *plot) f(format string, args ...any) { fmt.Fprintf(&p.b, format, args...) }

// num renders a coordinate with one decimal, enough for a screen and stable across runs.
func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string { return html.EscapeString(s) }

// open starts the SVG element; attrs are extra attributes (data-*) for tests and scripts.
func (p *plot) open(chart, label string, attrs string) {
	p.f(`<svg class="chart" data-chart="%s" %s viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`,
		esc(chart), attrs, num(p.width), num(p.height), num(p.width), num(p.height), esc(label))
}

func (p *plot) close() string {
	p.f(`</svg>`)
	return p.b.String()
}

// xAxis draws a time axis (seconds) with gridlines and its label.
func (p *plot) xAxis(label string) {
	step := timeStep(p.xmax)
	for v := 0.0; v <= p.xmax+1e-9; v += step {
		x := p.x(v)
		p.f(`<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`, num(x), num(p.top), num(x), num(p.height-p.bottom))
		p.f(`<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`, num(x), num(p.height-p.bottom+16), esc(formatSeconds(v)))
	}
	p.f(`<text class="axis-label" x="%s" y="%s" text-anchor="middle">%s</text>`,
		num((p.left+p.width-p.right)/2), num(p.height-4), esc(label))
}

// yAxis draws the value axis with gridlines, labelled by format.
func (p *plot) yAxis(step float64, format func(float64) string) {
	for v := 0.0; v <= p.ymax+1e-9; v += step {
		y := p.y(v)
		p.f(`<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>`, num(p.left), num(y), num(p.width-p.right), num(y))
		p.f(`<text class="tick" x="%s" y="%s" text-anchor="end">%s</text>`, num(p.left-6), num(y+4), esc(format(v)))
	}
}

// message writes a note in the middle of an empty chart.
func (p *plot) message(text string) {
	p.f(`<text class="empty" x="%s" y="%s" text-anchor="middle">%s</text>`, num(p.width/2), num(p.height/2), esc(text))
}

// timeStep picks a round gridline spacing, in seconds, for a time axis of span seconds.
func timeStep(span float64) float64 {
	for _, s := range []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400} {
		if span/s <= 10 {
			return s
		}
	}
	return math.Ceil(span/10/86400) * 86400
}

// countStep picks a round gridline spacing for counts up to max.
func countStep(max float64) float64 {
	for s := 1.0; ; s *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if max/(s*m) <= 6 {
				return s * m
			}
		}
	}
}

// byteStep picks a power-of-two gridline spacing for byte values up to max.
func byteStep(max float64) float64 {
	s := 1.0
	for max/s > 8 {
		s *= 2
	}
	return s
}

// formatSeconds writes seconds as a short duration: 90 -> 1m30s, 3600 -> 1h.
func formatSeconds(v float64) string { return FormatSeconds(v) }

// formatBytes writes a byte count in binary units, as in manifests: 512Mi, 1.5Gi.
func formatBytes(v float64) string {
	units := []struct {
		suffix string
		size   float64
	}{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}}
	for _, u := range units {
		if math.Abs(v) >= u.size {
			return strconv.FormatFloat(math.Round(v/u.size*100)/100, 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// appendPath appends the SVG path data that draws points as a line, lifting the pen over
// NaN gaps; xs and ys are canvas coordinates. A chart of a long run has tens of thousands
// of points: it appends each coordinate as num would write it, without a string for each.
func appendPath(b []byte, xs, ys []float64) []byte {
	start := len(b)
	pen := false
	for i := range xs {
		if math.IsNaN(ys[i]) {
			pen = false
			continue
		}
		if pen {
			b = append(b, 'L')
		} else {
			if len(b) > start {
				b = append(b, ' ')
			}
			b = append(b, 'M')
		}
		b = strconv.AppendFloat(b, xs[i], 'f', 1, 64)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, ys[i], 'f', 1, 64)
		pen = true
	}
	return b
}

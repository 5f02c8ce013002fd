package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
)

// HTML renders report.html: one self-contained page (styles, charts and its one small script
// inline; a Content-Security-Policy that forbids every fetch) that opens offline from disk
// and prints well. charts is the run's ChartRecorder, or nil for a page without memory
// series.
func HTML(r *Report, charts *ChartRecorder) ([]byte, error) {
	t, err := template.New("report").Funcs(template.FuncMap{
		"secs": optSecs,
		"dur":  FormatSeconds,
		"join": strings.Join,
	}).Parse(pageTemplate)
	if err != nil {
		return nil, fmt.Errorf("parsing the report page template: %w", err)
	}
	failed := 0
	for _, e := range r.Expectations {
		if !e.Pass {
			failed++
		}
	}
	var sections []chartSection
	for _, c := range []struct {
		title, note string
		draw        func() (string, []legendItem)
	}{
		{"Memory", "Working set of the node and of each pod, the highest value in each time step; dashed: the eviction thresholds as working-set levels; red lines: evictions; triangles: OOM kills.", func() (string, []legendItem) { return memoryChart(r, charts) }},
		{"Node conditions", "Each condition's status over the run.", func() (string, []legendItem) { return conditionsChart(r) }},
		{"Start-up latency", "How many pods started within each span: the kubelet's pod start SLI (image pulls left out) beside the span with pulls. Dashed: the SLI's p50 and p99.", func() (string, []legendItem) { return startupChart(r) }},
	} {
		svg, legend := c.draw()
		// The SVG is built from escaped text by this package's own drawing code.
		sections = append(sections, chartSection{Title: c.title, Note: c.note, SVG: template.HTML(svg), Legend: legend})
	}
	var b bytes.Buffer
	err = t.Execute(&b, struct {
		R         *Report
		Failed    int
		Charts    []chartSection
		Metrics   []string
		Evictions [][]string
		Headroom  []string
	}{r, failed, sections, sortedMetrics(r.Latency), evictionRows(r.Evictions), HeadroomLines(r)})
	if err != nil {
		return nil, fmt.Errorf("rendering report.html: %w", err)
	}
	return b.Bytes(), nil
}

type chartSection struct {
	Title, Note string
	SVG         template.HTML
	Legend      []legendItem
}

// pageTemplate is report.html. Its script only checks, once the page has laid out, that each
// chart drew something visible, and says so in data attributes (data-drawn on each chart,
// data-charts-drawn on the body) that a browser test reads.
const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>nodesim: {{.R.Scenario}}</title>
<style>
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; max-width: 1260px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 6px; border-bottom: 1px solid #ddd; padding-bottom: 3px; }
.meta { color: #555; }
.verdict { display: inline-block; padding: 3px 10px; border-radius: 4px; font-weight: 600; margin: 8px 0; }
.verdict.pass { background: #dff3e4; color: #1d6b35; }
.verdict.fail { background: #fbe0e0; color: #a11d1d; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f5f5f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.pass { color: #1d6b35; font-weight: 600; }
td.fail { color: #a11d1d; font-weight: 600; }
code { background: #f5f5f5; padding: 1px 4px; }
.note { color: #555; margin: 2px 0 6px; }
svg.chart { display: block; max-width: 100%; height: auto; background: #fff; border: 1px solid #eee; }
svg.chart .grid { stroke: #eee; }
svg.chart text { font: 11px system-ui, sans-serif; fill: #444; }
svg.chart text.empty { font-size: 14px; fill: #888; }
svg.chart text.lane { font-size: 12px; fill: #222; }
svg.chart text.threshold-label, svg.chart text.marker-label { fill: #a11d1d; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 4px 0; font-size: 12px; }
.legend span.swatch { display: inline-block; width: 18px; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: 4px; }
.legend span.swatch.dashed { border-top-style: dashed; }
</style>
</head>
<body data-charts="{{len .Charts}}">
<h1>{{.R.Scenario}}</h1>
{{with .R.Description}}<p>{{.}}</p>{{end}}
<p class="meta">seed {{.R.Seed}}, {{dur .R.Duration}} simulated, {{len .R.Pods}} pods. <code>{{.R.Reproduce}}</code></p>
<h2>Headroom</h2>
<ul id="headroom" class="headroom">{{range .Headroom}}<li>{{.}}</li>{{end}}</ul>
{{if .R.Expectations}}{{if .Failed}}<div class="verdict fail">{{.Failed}} of {{len .R.Expectations}} expectations failed</div>{{else}}<div class="verdict pass">all {{len .R.Expectations}} expectations held</div>{{end}}
<h2>Expectations</h2>
<table id="expectations"><tr><th>result</th><th>expectation</th><th>detail</th></tr>
{{range .R.Expectations}}<tr>{{if .Pass}}<td class="pass">PASS</td>{{else}}<td class="fail">FAIL</td>{{end}}<td>{{.Expect}}</td><td>{{.Detail}}</td></tr>
{{end}}</table>{{end}}
{{range .Charts}}<h2>{{.Title}}</h2>
<p class="note">{{.Note}}</p>
{{.SVG}}
{{if .Legend}}<div class="legend">{{range .Legend}}<span><span class="swatch{{if .Dashed}} dashed{{end}}" style="border-top-color: {{.Color}}"></span>{{.Name}}</span>{{end}}</div>{{end}}
{{end}}
<h2>Pods</h2>
<table id="pods"><tr><th>pod</th><th>QoS</th><th>phase</th><th>reason</th><th>container</th><th>state</th><th>restarts</th><th>OOM kills</th><th>start-up</th><th>with pulls</th><th>deleted</th><th>terminated</th></tr>
{{range .R.Pods}}{{$p := .}}{{if .Containers}}{{range $i, $c := .Containers}}<tr>{{if eq $i 0}}<td>{{$p.Pod}}</td><td>{{$p.QoS}}</td><td>{{$p.Phase}}</td><td>{{$p.Reason}}</td>{{else}}<td></td><td></td><td></td><td></td>{{end}}<td>{{$c.Name}}</td><td>{{$c.State}}{{with $c.WaitingReason}} ({{.}}){{end}}{{if eq $c.State "terminated"}}{{with $c.LastTermination}} ({{.Reason}}, {{.ExitCode}}){{end}}{{end}}</td><td class="num">{{$c.Restarts}}</td><td class="num">{{$c.OOMKills}}</td>{{if eq $i 0}}<td class="num">{{secs $p.StartupLatency}}</td><td class="num">{{secs $p.StartupLatencyWithPulls}}</td><td class="num">{{secs $p.DeletedAt}}</td><td class="num">{{secs $p.TerminatedAt}}</td>{{else}}<td></td><td></td><td></td><td></td>{{end}}</tr>
{{end}}{{else}}<tr><td>{{.Pod}}</td><td>{{.QoS}}</td><td>{{.Phase}}</td><td>{{.Reason}}</td><td>-</td><td>-</td><td class="num">-</td><td class="num">-</td><td class="num">{{secs .StartupLatency}}</td><td class="num">{{secs .StartupLatencyWithPulls}}</td><td class="num">{{secs .DeletedAt}}</td><td class="num">{{secs .TerminatedAt}}</td></tr>
{{end}}{{end}}</table>
{{if .Evictions}}<h2>Evictions</h2>
<table id="evictions"><tr><th>time</th><th>pod</th><th>signal</th><th>observed</th><th>threshold</th><th>met for</th><th>pod grace</th><th>why this pod</th></tr>
{{range .Evictions}}<tr>{{range $i, $c := .}}{{if or (eq $i 0) (eq $i 5) (eq $i 6)}}<td class="num">{{$c}}</td>{{else}}<td>{{$c}}</td>{{end}}{{end}}</tr>
{{end}}</table>{{end}}
{{if .R.OOMKills}}<h2>OOM kills</h2>
<table id="oomkills"><tr><th>time</th><th>pod</th><th>container</th><th>kind</th><th>oom_score_adj</th></tr>
{{range .R.OOMKills}}<tr><td class="num">{{dur .Time}}</td><td>{{.Pod}}</td><td>{{.Container}}</td><td>{{.Kind}}</td><td class="num">{{.OOMScoreAdj}}</td></tr>
{{end}}</table>{{end}}
{{if .R.AdmissionRejections}}<h2>Admission rejections</h2>
<table id="rejections"><tr><th>time</th><th>pod</th><th>reason</th><th>message</th></tr>
{{range .R.AdmissionRejections}}<tr><td class="num">{{dur .Time}}</td><td>{{.Pod}}</td><td>{{.Reason}}</td><td>{{.Message}}</td></tr>
{{end}}</table>{{end}}
<h2>Latencies</h2>
<table id="latency"><tr><th>metric</th><th>count</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>
{{range $m := .Metrics}}{{with index $.R.Latency $m}}<tr><td>{{$m}}</td><td class="num">{{.Count}}</td><td class="num">{{dur .Mean}}</td><td class="num">{{dur .P50}}</td><td class="num">{{dur .P90}}</td><td class="num">{{dur .P99}}</td><td class="num">{{dur .Max}}</td></tr>
{{end}}{{end}}</table>
<h2>syncLoop iterations by channel</h2>
<table id="syncloop"><tr><th>configCh</th><th>plegCh</th><th>syncCh</th><th>housekeepingCh</th><th>livenessCh</th><th>readinessCh</th><th>startupCh</th></tr>
<tr><td class="num">{{.R.SyncLoop.ConfigCh}}</td><td class="num">{{.R.SyncLoop.PlegCh}}</td><td class="num">{{.R.SyncLoop.SyncCh}}</td><td class="num">{{.R.SyncLoop.HousekeepingCh}}</td><td class="num">{{.R.SyncLoop.LivenessCh}}</td><td class="num">{{.R.SyncLoop.ReadinessCh}}</td><td class="num">{{.R.SyncLoop.StartupCh}}</td></tr></table>
{{if .R.NotModelled}}<p class="note">Kubelet settings given but not modelled (no effect on this run): {{join .R.NotModelled ", "}}</p>{{end}}
<script>
(function () {
  var charts = document.querySelectorAll("svg.chart");
  var drawn = 0;
  for (var i = 0; i < charts.length; i++) {
    var marks = charts[i].querySelectorAll(".series, .bar, .band");
    var visible = 0;
    for (var j = 0; j < marks.length; j++) {
      var box = marks[j].getBBox();
      if (box.width > 0 || box.height > 0) { visible++; }
    }
    charts[i].setAttribute("data-drawn", String(visible));
    if (visible > 0) { drawn++; }
  }
  document.body.setAttribute("data-charts-drawn", String(drawn));
})();
</script>
</body>
</html>
`

package reports

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"nodesim/engine"
	"nodesim/scenarios"
	"nodesim/trace"
)

// benchTrace runs bench/NAME.yaml cut to duration once and keeps its trace, so that a
// benchmark measures what the report and file writers do per event, without the engine.
func benchTrace(b *testing.B, name, duration string) (*scenarios.Loaded, []trace.Event, *engine.Result) {
	b.Helper()
	path := filepath.Join("..", "bench", name+".yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	data = regexp.MustCompile(`(?m)^  duration: .*$`).ReplaceAll(data, []byte("  duration: "+duration))
	l, err := scenarios.Parse(path, data, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	res, err := engine.Run(l, 1, engine.Options{KeepTrace: true, SkipInvariants: true})
	if err != nil {
		b.Fatal(err)
	}
	return l, res.Trace.Events, res
}

func podKeys(l *scenarios.Loaded) []string {
	var pods []string
	for _, p := range l.Pods {
		pods = append(pods, p.Key())
	}
	return pods
}

// BenchmarkBuilderBusyNode replays ten minutes of the busy node's trace into a Builder and
// finishes the report: the report's share of every run.
func BenchmarkBuilderBusyNode(b *testing.B) {
	l, events, res := benchTrace(b, "busy-node", "10m")
	pods := podKeys(l)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bl := NewBuilder(Input{Scenario: l.Scenario, Seed: 1, PodOrder: pods})
		for j := range events {
			bl.Record(&events[j])
		}
		bl.Finish(res.End)
	}
	b.ReportMetric(float64(len(events)), "events/op")
}

// BenchmarkWritersPods1000 replays two minutes of the 1,000-pod node's trace into the
// streamed files of --out (trace.jsonl, trace.perfetto.json, timeline.csv) and the chart
// recorder of report.html, writing to nothing.
func BenchmarkWritersPods1000(b *testing.B) {
	l, events, res := benchTrace(b, "pods-1000", "2m")
	pods := podKeys(l)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tw := NewTraceWriter(io.Discard)
		pw := NewPerfettoWriter(io.Discard, "bench")
		tl := NewTimelineWriter(io.Discard, pods)
		cr := NewChartRecorder(ChartOptions{Duration: res.End, Pods: pods})
		for j := range events {
			e := &events[j]
			tw.Record(e)
			pw.Record(e)
			tl.Record(e)
			cr.Record(e)
		}
		if err := tw.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := pw.Finish(); err != nil {
			b.Fatal(err)
		}
		if err := tl.Finish(res.End); err != nil {
			b.Fatal(err)
		}
		cr.Finish(res.End)
	}
	b.ReportMetric(float64(len(events)), "events/op")
}

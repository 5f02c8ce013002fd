package main

import (
	"io"
	"os"
	"time"

	"nodesim/internal/progress"
	"nodesim/trace"
)

// progressSink passes every trace event on and moves a progress bar to the event's
// simulated time. It looks at the bar only once per thousandth of the run (and at least a
// simulated second apart), so a run with millions of events pays a comparison per event.
type progressSink struct {
	next trace.Sink
	bar  *progress.Reporter
	step time.Duration
	due  time.Duration
}

func newProgressSink(next trace.Sink, bar *progress.Reporter, duration time.Duration) trace.Sink {
	if !bar.On() {
		return next
	}
	return &progressSink{next: next, bar: bar, step: max(duration/1000, time.Second)}
}

func (p *progressSink) Record(e *trace.Event) {
	p.next.Record(e)
	if e.At >= p.due {
		p.due = e.At + p.step
		p.bar.SetSimulated(e.At)
	}
}

// newProgress is the progress bar of run and sweep: on a terminal's stderr, never with
// --quiet. NODESIM_PROGRESS_DELAY (a duration, "0s" for at once) changes how long the work
// goes on before the bar appears; the tests set it so that the bar's presence does not
// depend on how fast the machine is.
func newProgress(stderr io.Writer, quiet bool) *progress.Reporter {
	bar := progress.New(stderr, isTerminal(stderr), quiet)
	if d, err := time.ParseDuration(os.Getenv("NODESIM_PROGRESS_DELAY")); err == nil && d >= 0 {
		bar.Delay = d
	}
	return bar
}

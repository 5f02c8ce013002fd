package main

import (
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

// Package trace is the vocabulary shared by the simulated node and everything that reports
// on a run. Components record what they do as Events; reports, expectations and the
// `explain` transcript are built from the recorded events alone, never by reaching back into
// component state, so that every number a user sees can be traced to a step of the run.
package trace

import (
	"fmt"
	"strings"
	"time"
)

// Kind says what happened. Kinds are plain strings so that model packages can add their own
// without this package knowing Kubernetes; the common ones are listed below.
type Kind string

// Kernel kinds, recorded by package sim.
const (
	// Send: a value entered a channel (Flow identifies the message).
	Send Kind = "send"
	// Recv: a value left a channel.
	Recv Kind = "recv"
	// Drop: a non-blocking send found the channel full and the value was discarded.
	Drop Kind = "drop"
	// Block: a blocking send found the channel full and its sender parked.
	Block Kind = "block"
	// Select: a select statement woke with Ready channels and picked Name.
	Select Kind = "select"
)

// Attr is one key/value detail of an event. Values are preformatted strings so that the
// trace stays a plain, comparable record.
type Attr struct {
	Key   string
	Value string
}

// Event is one step of a run.
type Event struct {
	// At is the simulated time since the scenario started.
	At time.Duration
	// Seq orders events recorded at the same instant.
	Seq uint64
	// Track is the goroutine the upstream kubelet would run this step on ("syncLoop",
	// "podWorker default/web", "pleg", "evictionManager", ...).
	Track string
	// Kind is what happened; Name narrows it (a channel, a handler, a CRI call, ...).
	Kind Kind
	Name string
	// Pod is namespace/name when the step concerns one pod; Container narrows it.
	Pod       string
	Container string
	// Flow links a Send to its Recv (channel messages), 0 when unused.
	Flow uint64
	// Dur is the span of a step that takes time (a CRI call, a relist), else 0.
	Dur time.Duration
	// Ready lists the channels that were ready when a select woke.
	Ready []string
	// Attrs carries the remaining details.
	Attrs []Attr
	// Reason, when set, is why the recording component decided what this event shows:
	// the rule it applied and the values it applied it to. It is recorded at decision
	// time by the deciding component; `explain` prints a "why:" line only from it.
	Reason *Reason
}

// Reason is a decision's recorded cause.
type Reason struct {
	// Rule names the rule applied, in upstream's terms ("crashLoopBackOff",
	// "requeueBackOffCapped", ...); explain states each rule once per run.
	Rule string
	// Text is the one-line explanation, with the decision's values already in it.
	Text string
	// Values are the inputs the rule was applied to (a back-off key, a cap, a jitter).
	Values []Attr
	// Each says the reason is worth stating at every decision, not once per run: its
	// values are what the line is about (a back-off's end, a capped, jittered requeue).
	Each bool
}

// Because builds a Reason stated once per run.
func Because(rule, text string, values ...Attr) *Reason {
	return &Reason{Rule: rule, Text: text, Values: values}
}

// BecauseEach builds a Reason stated at every decision.
func BecauseEach(rule, text string, values ...Attr) *Reason {
	return &Reason{Rule: rule, Text: text, Values: values, Each: true}
}

// Attr returns the value of key, or "" when the event has no such attribute.
func (e *Event) Attr(key string) string {
	for _, a := range e.Attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// String renders the event on one line, for debugging and test failure messages.
func (e *Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%9.3fs %-18s %s", e.At.Seconds(), e.Track, e.Kind)
	if e.Name != "" {
		fmt.Fprintf(&b, " %s", e.Name)
	}
	if e.Pod != "" {
		fmt.Fprintf(&b, " pod=%s", e.Pod)
	}
	if e.Container != "" {
		fmt.Fprintf(&b, " container=%s", e.Container)
	}
	if len(e.Ready) > 0 {
		fmt.Fprintf(&b, " ready=%s", strings.Join(e.Ready, ","))
	}
	if e.Dur > 0 {
		fmt.Fprintf(&b, " dur=%s", e.Dur)
	}
	for _, a := range e.Attrs {
		fmt.Fprintf(&b, " %s=%s", a.Key, a.Value)
	}
	if e.Reason != nil {
		fmt.Fprintf(&b, " reason=%s", e.Reason.Rule)
	}
	return b.String()
}

// Sink receives events as they are recorded. The event is lent for the call only: the
// recorder reuses it for the next event, so a sink that keeps an event past Record copies
// it (as Log does). Its slices (Ready, Attrs, a Reason's Values) may be shared with other
// events and must never be written; keeping them is safe.
type Sink interface {
	Record(e *Event)
}

// Skipper is a Sink that reads nothing from the events of some kinds. A recorder that
// tells kinds apart anyway may leave those events out of its calls; a Skipper handed them
// all the same does with them what it does with no event at all. When the Skipper is a
// run's only reader of such a kind, the events need not even be built: the engine tells
// the simulation (sim.Sim.SetSkips), and their components only take their sequence
// numbers, so that every other event is recorded exactly as it would have been.
type Skipper interface {
	Sink
	// SkipsKinds lists the kinds; it is asked once, before the first event.
	SkipsKinds() []Kind
}

// Log keeps every event in memory, in order. It is the sink reports are built from.
type Log struct {
	Events []Event
}

// Record appends a copy of e.
func (l *Log) Record(e *Event) { l.Events = append(l.Events, *e) }

// Filter returns the events for which keep is true, in order.
func (l *Log) Filter(keep func(*Event) bool) []*Event {
	var out []*Event
	for i := range l.Events {
		if keep(&l.Events[i]) {
			out = append(out, &l.Events[i])
		}
	}
	return out
}

// Discard is a sink that keeps nothing (benchmarks of the kernel alone).
type Discard struct{}

// Record does nothing.
func (Discard) Record(*Event) {}

package reports

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"nodesim/trace"
)

// TraceLine is one event of trace.jsonl.
type TraceLine struct {
	Time      float64           `json:"t"`
	Seq       uint64            `json:"seq"`
	Track     string            `json:"track,omitempty"`
	Kind      string            `json:"kind"`
	Name      string            `json:"name,omitempty"`
	Pod       string            `json:"pod,omitempty"`
	Container string            `json:"container,omitempty"`
	Flow      uint64            `json:"flow,omitempty"`
	Duration  float64           `json:"dur,omitempty"`
	Ready     []string          `json:"ready,omitempty"`
	Attrs     map[string]string `json:"attrs,omitempty"`
	Reason    *TraceReason      `json:"reason,omitempty"`
}

// TraceReason is the recorded cause of a decision (trace.Reason).
type TraceReason struct {
	Rule   string            `json:"rule"`
	Text   string            `json:"text"`
	Values map[string]string `json:"values,omitempty"`
	Each   bool              `json:"each,omitempty"`
}

// TraceWriter streams the run's trace as JSON lines, one event per line, as it is
// recorded (a trace.Sink).
type TraceWriter struct {
	w   *bufio.Writer
	enc *json.Encoder
	cap eventCap
	err error
}

// NewTraceWriter writes to w; call Flush at the end.
func NewTraceWriter(w io.Writer) *TraceWriter {
	bw := bufio.NewWriterSize(w, 1<<16)
	return &TraceWriter{w: bw, enc: json.NewEncoder(bw)}
}

// SetMaxEvents keeps at most n events in the file (0: all); Flush then ends a cut file with
// one line of kind "truncated" that says how many events were left out and from when.
func (t *TraceWriter) SetMaxEvents(n int) { t.cap.max = n }

// Record writes one event.
func (t *TraceWriter) Record(e *trace.Event) {
	if t.err != nil || !t.cap.admit(e) {
		return
	}
	l := TraceLine{Time: secs(e.At), Seq: e.Seq, Track: e.Track, Kind: string(e.Kind), Name: e.Name, Pod: e.Pod,
		Container: e.Container, Flow: e.Flow, Ready: e.Ready}
	if e.Dur > 0 {
		l.Duration = secs(e.Dur.Round(time.Microsecond))
	}
	if len(e.Attrs) > 0 {
		l.Attrs = make(map[string]string, len(e.Attrs))
		for _, a := range e.Attrs {
			l.Attrs[a.Key] = a.Value
		}
	}
	if r := e.Reason; r != nil {
		l.Reason = &TraceReason{Rule: r.Rule, Text: r.Text, Each: r.Each}
		if len(r.Values) > 0 {
			l.Reason.Values = make(map[string]string, len(r.Values))
			for _, a := range r.Values {
				l.Reason.Values[a.Key] = a.Value
			}
		}
	}
	t.err = t.enc.Encode(&l)
}

// Flush writes what is buffered and returns the first error met.
func (t *TraceWriter) Flush() error {
	if t.err != nil {
		return t.err
	}
	if note := t.cap.note(); note != "" {
		l := TraceLine{Time: secs(t.cap.firstDropped), Kind: "truncated", Name: "trace-max-events", Attrs: map[string]string{
			"maxEvents": strconv.Itoa(t.cap.max), "dropped": strconv.FormatInt(t.cap.dropped, 10), "note": note}}
		if err := t.enc.Encode(&l); err != nil {
			return err
		}
	}
	return t.w.Flush()
}

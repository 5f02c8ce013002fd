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
// recorded (a trace.Sink). Each line is the JSON encoding of a TraceLine, written by hand
// (see jsonenc.go) into a buffer reused from line to line.
type TraceWriter struct {
	w     *bufio.Writer
	enc   *json.Encoder // for the truncation note only
	line  []byte
	attrs []trace.Attr // sortedAttrs' scratch
	cap   eventCap
	err   error
}

// NewTraceWriter writes to w; call Flush at the end.
func NewTraceWriter(w io.Writer) *TraceWriter {
	bw := bufio.NewWriterSize(w, 1<<16)
	return &TraceWriter{w: bw, enc: json.NewEncoder(bw)}
}

// SetMaxEvents keeps at most n events in the file (0: all); Flush then ends a cut file with
// one line of kind "truncated" that says how many events were left out and from when.
func (t *TraceWriter) SetMaxEvents(n int) { t.cap.max = n }

// Record writes one event: the bytes json.Encoder writes for its TraceLine, fields in
// the struct's order, empty ones left out, attributes and reason values sorted by key.
func (t *TraceWriter) Record(e *trace.Event) {
	if t.err != nil || !t.cap.admit(e) {
		return
	}
	b := append(t.line[:0], `{"t":`...)
	b = appendJSONFloat(b, secs(e.At))
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	if e.Track != "" {
		b = append(b, `,"track":`...)
		b = appendJSONString(b, e.Track)
	}
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, string(e.Kind))
	if e.Name != "" {
		b = append(b, `,"name":`...)
		b = appendJSONString(b, e.Name)
	}
	if e.Pod != "" {
		b = append(b, `,"pod":`...)
		b = appendJSONString(b, e.Pod)
	}
	if e.Container != "" {
		b = append(b, `,"container":`...)
		b = appendJSONString(b, e.Container)
	}
	if e.Flow != 0 {
		b = append(b, `,"flow":`...)
		b = strconv.AppendUint(b, e.Flow, 10)
	}
	if e.Dur > 0 {
		if d := secs(e.Dur.Round(time.Microsecond)); d != 0 {
			b = append(b, `,"dur":`...)
			b = appendJSONFloat(b, d)
		}
	}
	if len(e.Ready) > 0 {
		b = append(b, `,"ready":`...)
		b = appendJSONStrings(b, e.Ready)
	}
	if len(e.Attrs) > 0 {
		t.attrs = sortedAttrs(t.attrs, e.Attrs)
		b = append(b, `,"attrs":`...)
		b = appendJSONAttrs(b, t.attrs)
	}
	if r := e.Reason; r != nil {
		b = append(b, `,"reason":{"rule":`...)
		b = appendJSONString(b, r.Rule)
		b = append(b, `,"text":`...)
		b = appendJSONString(b, r.Text)
		if len(r.Values) > 0 {
			t.attrs = sortedAttrs(t.attrs, r.Values)
			b = append(b, `,"values":`...)
			b = appendJSONAttrs(b, t.attrs)
		}
		if r.Each {
			b = append(b, `,"each":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, '}', '\n')
	t.line = b
	_, t.err = t.w.Write(b)
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

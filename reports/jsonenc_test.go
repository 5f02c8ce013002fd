package reports

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"nodesim/trace"
)

// jsonTrickyStrings are strings whose JSON encoding takes every rule of appendJSONString.
var jsonTrickyStrings = []string{
	"", "plain", "default/web-0", `quo"te`, `back\slash`, "<html>&amp;", "tab\tnew\nline\r", "\b\f\x00\x01\x1f\x7f",
	"é ü ß 日本", "\u2028line\u2029para", "bad\xffutf8\xc3", "\xe2\x80", "emoji 🙂", "a=b;c=d", " spaced ",
}

// referenceTraceLine is how trace.jsonl lines were written with encoding/json: the bytes the
// hand-written encoder must reproduce.
func referenceTraceLine(t *testing.T, e *trace.Event) []byte {
	t.Helper()
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
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(&l); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// randomEvent draws an event from the tricky strings and from times and durations of every
// magnitude, with repeated attribute keys.
func randomEvent(r *rand.Rand) *trace.Event {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return jsonTrickyStrings[r.IntN(len(jsonTrickyStrings))]
	}
	attrs := func() []trace.Attr {
		var as []trace.Attr
		for range r.IntN(6) {
			as = append(as, trace.Attr{Key: []string{"a", "b", "len", "pod", "flow", "ready", "Z", "é", "<k>"}[r.IntN(9)], Value: str()})
		}
		return as
	}
	times := []time.Duration{0, 1, 499, 500, 999, time.Microsecond, 1500 * time.Nanosecond, time.Millisecond, time.Second,
		-time.Second, -1234567, 86400 * time.Second, 1<<62 + 12345, time.Duration(r.Int64N(1 << 50)), -time.Duration(r.Int64N(1 << 40))}
	e := &trace.Event{At: times[r.IntN(len(times))], Seq: r.Uint64N(1 << 40), Track: str(), Kind: trace.Kind(str()), Name: str(),
		Pod: str(), Container: str(), Attrs: attrs()}
	if r.IntN(2) == 0 {
		e.Flow = r.Uint64N(1 << 50)
	}
	if r.IntN(2) == 0 {
		e.Dur = times[r.IntN(len(times))]
	}
	for range r.IntN(4) {
		e.Ready = append(e.Ready, str())
	}
	if r.IntN(3) == 0 {
		e.Reason = &trace.Reason{Rule: str(), Text: str(), Values: attrs(), Each: r.IntN(2) == 0}
	}
	return e
}

// TestTraceWriterMatchesEncodingJSON: every line is the bytes encoding/json writes for it.
func TestTraceWriterMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		e := randomEvent(r)
		var got bytes.Buffer
		w := NewTraceWriter(&got)
		w.Record(e)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := referenceTraceLine(t, e); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("event %d (%s):\ngot  %s\nwant %s", i, e, got.Bytes(), want)
		}
	}
}

func TestAppendJSONStringAndFloat(t *testing.T) {
	for _, s := range jsonTrickyStrings {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
	for b := range 256 {
		s := strings.Repeat(string(rune(b)), 2) + string([]byte{byte(b)})
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
	for _, f := range []float64{0, -0.0, 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.234e22, -1e-7, 86400.000001, 9223372036.854775807, 3600.25} {
		want, _ := json.Marshal(f)
		if got := appendJSONFloat(nil, f); !bytes.Equal(got, want) {
			t.Errorf("appendJSONFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

// TestNameDetailEscapesAsJoined: a slice's name written in two parts (chromeEvent's Name
// and NameDetail) is the JSON string of the joined name, whatever either part holds.
func TestNameDetailEscapesAsJoined(t *testing.T) {
	for _, a := range jsonTrickyStrings {
		for _, d := range jsonTrickyStrings {
			if d == "" {
				continue
			}
			want, _ := json.Marshal(a + " " + d)
			got := append(appendJSONStringBody([]byte{'"'}, a), ' ')
			got = append(appendJSONStringBody(got, d), '"')
			if !bytes.Equal(got, want) {
				t.Errorf("name %q + %q: got %s, want %s", a, d, got, want)
			}
		}
	}
}

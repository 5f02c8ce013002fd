package explain

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"nodesim/reports"
	"nodesim/trace"
)

// readTrace reads a trace.jsonl file (the format `nodesim run --out` writes) back into
// events, attributes in key order.
func readTrace(t *testing.T, path string) []trace.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []trace.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var l reports.TraceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		e := trace.Event{At: secs(l.Time), Seq: l.Seq, Track: l.Track, Kind: trace.Kind(l.Kind), Name: l.Name,
			Pod: l.Pod, Container: l.Container, Flow: l.Flow, Dur: secs(l.Duration), Ready: l.Ready}
		keys := make([]string, 0, len(l.Attrs))
		for k := range l.Attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e.Attrs = append(e.Attrs, trace.Attr{Key: k, Value: l.Attrs[k]})
		}
		if r := l.Reason; r != nil {
			e.Reason = &trace.Reason{Rule: r.Rule, Text: r.Text, Each: r.Each}
			for _, k := range slices.Sorted(maps.Keys(r.Values)) {
				e.Reason.Values = append(e.Reason.Values, trace.Attr{Key: k, Value: r.Values[k]})
			}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// transcript renders events with options and returns the text.
func transcript(t *testing.T, o Options, events []trace.Event) string {
	t.Helper()
	var b bytes.Buffer
	tr := New(&b, o)
	for i := range events {
		tr.Record(&events[i])
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// ev builds an event: kind, then "key=value" attributes.
func ev(at time.Duration, track string, kind trace.Kind, name, pod string, attrs ...string) trace.Event {
	e := trace.Event{At: at, Track: track, Kind: kind, Name: name, Pod: pod}
	for _, a := range attrs {
		k, v, _ := strings.Cut(a, "=")
		e.Attrs = append(e.Attrs, trace.Attr{Key: k, Value: v})
	}
	return e
}

// body drops the column heads, leaving the steps.
func body(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 0 && strings.Contains(lines[0], "goroutine") {
		lines = lines[1:]
	}
	return lines
}

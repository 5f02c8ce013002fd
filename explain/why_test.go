package explain

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"nodesim/engine"
	"nodesim/scenarios"
	"nodesim/trace"
)

// tee records each event in two sinks.
type tee [2]trace.Sink

func (t tee) Record(e *trace.Event) {
	t[0].Record(e)
	t[1].Record(e)
}

// whyLines returns the text of every "why:" line of a transcript.
func whyLines(transcript string) []string {
	var out []string
	for _, l := range strings.Split(transcript, "\n") {
		if i := strings.Index(l, "why: "); i >= 0 && strings.TrimSpace(l[:i]) == "" {
			out = append(out, l[i+len("why: "):])
		}
	}
	return out
}

// checkWhys fails for every why line that is not the text of a reason the model recorded
// in the run's trace: explain may only state what the model decided.
func checkWhys(t *testing.T, name, transcript string, events []trace.Event) {
	t.Helper()
	for _, w := range unbackedWhys(transcript, events) {
		t.Errorf("%s: why line with no recorded reason behind it: %q", name, w)
	}
}

// unbackedWhys lists the why lines whose text no event's recorded reason carries.
func unbackedWhys(transcript string, events []trace.Event) []string {
	recorded := map[string]bool{}
	for i := range events {
		if r := events[i].Reason; r != nil {
			recorded[r.Text] = true
		}
	}
	var out []string
	for _, w := range whyLines(transcript) {
		if !recorded[w] {
			out = append(out, w)
		}
	}
	return out
}

// Every why line of every golden transcript is a reason recorded in the trace of the run
// the golden was made from.
func TestGoldenWhysAreRecordedReasons(t *testing.T) {
	for _, c := range []struct{ golden, scenario string }{
		{"crashloop", "crashloop"}, {"graceful-deletion", "graceful-deletion"}, {"runtime-outage", "runtime-outage"},
		{"admission", "admission"}, {"crashloop-pod-workers", "crashloop"}, {"besteffort-evicted-first", "besteffort-evicted-first"},
		{"liveness-restart", "liveness-restart"}, {"static-pod", "static-pod"},
	} {
		t.Run(c.golden, func(t *testing.T) {
			l, err := scenarios.LoadBuiltin(c.scenario)
			if err != nil {
				t.Fatal(err)
			}
			var log trace.Log
			if _, err := engine.Run(l, l.Seed(), engine.Options{Sink: &log}); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", c.golden+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if len(whyLines(string(want))) == 0 {
				t.Fatalf("%s has no why lines: the check would prove nothing", c.golden)
			}
			checkWhys(t, c.golden, string(want), log.Events)
		})
	}
	t.Run("memory-pressure", func(t *testing.T) {
		want, err := os.ReadFile(filepath.Join("testdata", "memory-pressure.txt"))
		if err != nil {
			t.Fatal(err)
		}
		checkWhys(t, "memory-pressure", string(want), readTrace(t, filepath.Join("testdata", "memory-pressure.trace.jsonl")))
	})
}

// The same holds for the whole transcript of every shipped scenario.
func TestEveryScenarioWhyIsRecorded(t *testing.T) {
	list, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range list {
		t.Run(b.Name, func(t *testing.T) {
			l, err := scenarios.LoadBuiltin(b.Name)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			var log trace.Log
			tr := New(&buf, Options{To: 10 * time.Minute})
			if _, err := engine.Run(l, l.Seed(), engine.Options{Sink: tee{tr, &log}}); err != nil {
				t.Fatal(err)
			}
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			checkWhys(t, b.Name, buf.String(), log.Events)
		})
	}
}

// A why line that no recorded reason backs is caught (the check can fail), and one that
// is backed passes.
func TestUnbackedWhyIsCaught(t *testing.T) {
	transcript := "  1.000s  syncLoop  a\n                why: recorded\n  2.000s  syncLoop  b\n                why: invented here\n"
	events := []trace.Event{{Reason: trace.Because("r", "recorded")}}
	if got := unbackedWhys(transcript, events); len(got) != 1 || got[0] != "invented here" {
		t.Fatalf("unbackedWhys = %q, want only the invented one", got)
	}
}

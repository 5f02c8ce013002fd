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

// why is one "why:" line of a transcript and the time of the line it explains.
type why struct{ at, text string }

// whyLines returns every "why:" line of a transcript with the time column of the step
// line above it.
func whyLines(transcript string) []why {
	var out []why
	at := ""
	for _, l := range strings.Split(transcript, "\n") {
		if i := strings.Index(l, "why: "); i >= 0 && strings.TrimSpace(l[:i]) == "" {
			out = append(out, why{at: at, text: l[i+len("why: "):]})
			continue
		}
		if len(l) > timeWidth && isTimeColumn(strings.TrimSpace(l[:timeWidth])) {
			at = strings.TrimSpace(l[:timeWidth])
		}
	}
	return out
}

// checkWhys fails for every why line that is not the text of a reason the model recorded
// in the run's trace, at the time of the step the line explains: explain may only state
// what the model decided, where it decided it.
func checkWhys(t *testing.T, name, transcript string, events []trace.Event) {
	t.Helper()
	for _, w := range unbackedWhys(transcript, events) {
		t.Errorf("%s: why line at %s with no reason recorded there behind it: %q", name, w.at, w.text)
	}
}

// unbackedWhys lists the why lines whose text no event recorded at the line's time carries.
func unbackedWhys(transcript string, events []trace.Event) []why {
	recorded := map[why]bool{}
	for i := range events {
		if r := events[i].Reason; r != nil {
			recorded[why{at: at(events[i].At), text: r.Text}] = true
		}
	}
	var out []why
	for _, w := range whyLines(transcript) {
		if !recorded[w] {
			out = append(out, w)
		}
	}
	return out
}

// goldenScenario is the shipped scenario a golden transcript was made from: its title
// line names it ("nodesim explain NAME ..."), or "" for one made from a saved trace.
func goldenScenario(t *testing.T, transcript string) string {
	t.Helper()
	title, _, _ := strings.Cut(transcript, "\n")
	f := strings.Fields(title)
	if len(f) < 3 || f[0] != "nodesim" || f[1] != "explain" {
		return ""
	}
	return f[2]
}

// Every why line of every golden transcript in testdata is a reason recorded in the trace
// of the run the golden was made from, at the time of the line it explains.
func TestGoldenWhysAreRecordedReasons(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden transcripts: %v", err)
	}
	var withWhys int
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(whyLines(string(want))) > 0 {
				withWhys++
			}
			scenario := goldenScenario(t, string(want))
			var events []trace.Event
			if scenario == "" {
				events = readTrace(t, strings.TrimSuffix(f, ".txt")+".trace.jsonl")
			} else {
				load := scenarios.LoadBuiltin
				if strings.HasSuffix(scenario, ".yaml") {
					load = scenarios.LoadFile // a scenario of this package's testdata
				}
				l, err := load(scenario)
				if err != nil {
					t.Fatal(err)
				}
				var log trace.Log
				if _, err := engine.Run(l, l.Seed(), engine.Options{Sink: &log}); err != nil {
					t.Fatal(err)
				}
				events = log.Events
			}
			checkWhys(t, name, string(want), events)
		})
	}
	if withWhys < len(files)/2 {
		t.Errorf("only %d of %d goldens have why lines: the check would prove little", withWhys, len(files))
	}
}

// The same holds for the whole transcript of every shipped scenario, boot included.
func TestEveryScenarioWhyIsRecorded(t *testing.T) {
	list, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	var whys int
	for _, b := range list {
		t.Run(b.Name, func(t *testing.T) {
			l, err := scenarios.LoadBuiltin(b.Name)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			var log trace.Log
			tr := New(&buf, Options{Boot: true})
			if _, err := engine.Run(l, l.Seed(), engine.Options{Sink: tee{tr, &log}}); err != nil {
				t.Fatal(err)
			}
			if err := tr.Close(); err != nil {
				t.Fatal(err)
			}
			whys += len(whyLines(buf.String()))
			checkWhys(t, b.Name, buf.String(), log.Events)
		})
	}
	t.Logf("%d why lines checked in %d scenarios", whys, len(list))
}

// A why line that no recorded reason backs is caught (the check can fail), and one that
// is backed passes.
func TestUnbackedWhyIsCaught(t *testing.T) {
	// The first is recorded at its line's time; the second is recorded, but at another
	// time than the line it stands under; the third is recorded nowhere.
	transcript := "         1s  syncLoop  a\n                why: recorded\n         2s  syncLoop  b\n                why: recorded\n" +
		"         3s  syncLoop  c\n                why: invented here\n"
	events := []trace.Event{{At: time.Second, Reason: trace.Because("r", "recorded")}}
	got := unbackedWhys(transcript, events)
	want := []why{{"2s", "recorded"}, {"3s", "invented here"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("unbackedWhys = %q, want %q", got, want)
	}
}

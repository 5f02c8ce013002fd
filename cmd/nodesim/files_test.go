package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"nodesim/reports"
	"nodesim/scenarios"
)

// outFileNames are the files `run --out` writes.
func outFileNames() []string {
	return []string{"report.json", "report.html", "junit.xml", "timeline.csv", "trace.jsonl", "trace.perfetto.json"}
}

// runOut runs a scenario with --out into a new directory and returns it.
func runOut(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	if _, errOut, code := nodesim(t, append(append([]string{"run"}, args...), "--out", dir)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return dir
}

// Every shipped scenario's --out files: all there, whole (no temporary file left), the
// Perfetto trace valid trace-event JSON, the timeline one row per second, and the same bytes
// on a second run.
func TestOutFiles(t *testing.T) {
	for _, name := range builtinNames(t) {
		t.Run(name, func(t *testing.T) {
			dir := runOut(t, name)
			for _, f := range outFileNames() {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("--out did not write %s: %v", f, err)
				}
			}
			if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*")); len(leftovers) > 0 {
				t.Errorf("temporary files left behind: %v", leftovers)
			}
			perfetto := readFile(t, dir, "trace.perfetto.json")
			checkTraceEventFormat(t, perfetto)
			checkTimeline(t, name, readFile(t, dir, "timeline.csv"), readFile(t, dir, "report.json"))

			again := runOut(t, name)
			for _, f := range outFileNames() {
				if !bytes.Equal(readFile(t, dir, f), readFile(t, again, f)) {
					t.Errorf("%s differs between two runs of the same scenario and seed", f)
				}
			}
		})
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// checkTraceEventFormat validates a Chrome trace-event JSON object: every event has name, ph,
// ts, pid and tid of the right types, dur on complete events, thread names for every thread,
// and each flow start ("s") its end ("f") with the same id, category and name, no earlier.
func checkTraceEventFormat(t *testing.T, data []byte) {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("trace.perfetto.json is not a JSON object: %v", err)
	}
	if string(doc["displayTimeUnit"]) != `"ms"` {
		t.Errorf("displayTimeUnit = %s, want \"ms\"", doc["displayTimeUnit"])
	}
	var events []map[string]any
	if err := json.Unmarshal(doc["traceEvents"], &events); err != nil {
		t.Fatalf("traceEvents: %v", err)
	}
	type flowEnd struct {
		ts        float64
		cat, name string
	}
	starts, ends := map[float64]flowEnd{}, map[float64]flowEnd{}
	named, used := map[float64]bool{}, map[float64]bool{}
	phases := map[string]int{}
	for i, e := range events {
		name, okName := e["name"].(string)
		ph, okPh := e["ph"].(string)
		ts, okTs := e["ts"].(float64)
		_, okPid := e["pid"].(float64)
		tid, okTid := e["tid"].(float64)
		if !okName || name == "" || !okPh || !okTs || !okPid || !okTid {
			t.Fatalf("event %d lacks a required field (name, ph, ts, pid, tid): %v", i, e)
		}
		if ts < 0 {
			t.Errorf("event %d at a negative time: %v", i, e)
		}
		phases[ph]++
		switch ph {
		case "M":
			if name == "thread_name" {
				named[tid] = true
			}
		case "X":
			if dur, ok := e["dur"].(float64); !ok || dur < 0 {
				t.Errorf("complete event %d without a valid dur: %v", i, e)
			}
			used[tid] = true
		case "i":
			if e["s"] != "t" {
				t.Errorf("instant event %d not thread-scoped: %v", i, e)
			}
			used[tid] = true
		case "s", "f":
			id, ok := e["id"].(float64)
			if !ok {
				t.Fatalf("flow event %d without an id: %v", i, e)
			}
			if e["bp"] != "e" {
				t.Errorf("flow event %d without bp \"e\": %v", i, e)
			}
			cat, _ := e["cat"].(string)
			m := starts
			if ph == "f" {
				m = ends
			}
			if _, dup := m[id]; dup {
				t.Errorf("flow %v has two %q events", id, ph)
			}
			m[id] = flowEnd{ts: ts, cat: cat, name: name}
			used[tid] = true
		case "C":
			// A counter: a process-wide track whose values are numbers.
			args, _ := e["args"].(map[string]any)
			if len(args) == 0 {
				t.Errorf("counter event %d without values: %v", i, e)
			}
			for k, v := range args {
				if _, ok := v.(float64); !ok {
					t.Errorf("counter event %d: %s is not a number: %v", i, k, e)
				}
			}
		default:
			t.Errorf("event %d has an unexpected phase %q", i, ph)
		}
	}
	for id, s := range starts {
		f, ok := ends[id]
		if !ok {
			t.Errorf("flow %v starts (%s at %vus) but never ends", id, s.name, s.ts)
			continue
		}
		if f.cat != s.cat || f.name != s.name || f.ts < s.ts {
			t.Errorf("flow %v: start %+v, end %+v", id, s, f)
		}
	}
	for id := range ends {
		if _, ok := starts[id]; !ok {
			t.Errorf("flow %v ends but never starts", id)
		}
	}
	checkNesting(t, events)
	for tid := range used {
		if !named[tid] {
			t.Errorf("thread %v has no thread_name", tid)
		}
	}
	if phases["X"] == 0 || phases["i"] == 0 || phases["s"] == 0 {
		t.Errorf("expected complete, instant and flow events, got %v", phases)
	}
}

// checkNesting checks that the complete slices of each thread nest: one that starts inside
// another ends inside it too, as a call stack does (Perfetto drops slices that do not).
func checkNesting(t *testing.T, events []map[string]any) {
	t.Helper()
	type span struct{ from, to float64 }
	byTid := map[float64][]span{}
	for _, e := range events {
		if e["ph"] == "X" {
			ts, dur := e["ts"].(float64), e["dur"].(float64)
			byTid[e["tid"].(float64)] = append(byTid[e["tid"].(float64)], span{ts, ts + dur})
		}
	}
	for tid, spans := range byTid {
		sort.Slice(spans, func(i, j int) bool {
			if spans[i].from != spans[j].from {
				return spans[i].from < spans[j].from
			}
			return spans[i].to > spans[j].to
		})
		var stack []span
		for _, s := range spans {
			for len(stack) > 0 && stack[len(stack)-1].to <= s.from {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && s.to > stack[len(stack)-1].to {
				t.Errorf("thread %v: slice %v overlaps %v without nesting in it", tid, s, stack[len(stack)-1])
				return
			}
			stack = append(stack, s)
		}
	}
}

// checkTimeline checks timeline.csv against the report: the header for the scenario's pods
// and one row per second from 0 to the end of the run.
func checkTimeline(t *testing.T, name string, data, reportJSON []byte) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("timeline.csv: %v", err)
	}
	l, err := scenarios.LoadBuiltin(name)
	if err != nil {
		t.Fatal(err)
	}
	var pods []string
	for _, p := range l.Pods {
		pods = append(pods, p.Key())
	}
	if want := reports.TimelineHeader(pods); strings.Join(rows[0], ",") != strings.Join(want, ",") {
		t.Errorf("timeline header %q, want %q", rows[0], want)
	}
	var r struct{ Duration float64 }
	if err := json.Unmarshal(reportJSON, &r); err != nil {
		t.Fatal(err)
	}
	if got, want := len(rows)-1, int(r.Duration)+1; got != want {
		t.Errorf("%d timeline rows for a %gs run, want %d", got, r.Duration, want)
	}
	for i, row := range rows[1:] {
		if row[0] != strconv.Itoa(i) {
			t.Fatalf("row %d has time %s", i, row[0])
		}
	}
}

// A scenario with one failing expectation among passing ones: exit 1, and junit.xml marks
// that one failed with its detail, the others passed.
func TestJUnitMarksFailedExpectation(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	src, err := scenarios.BuiltinSource("crashloop")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "min: 8, max: 12", "min: 1, max: 2", 1)
	s = strings.Replace(s, "  expect:\n", "  expect:\n    - count: {metric: podsStarted, min: 1}\n", 1)
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := nodesim(t, "run", f, "--out", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (%s)", code, errOut)
	}
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(readFile(t, dir, "junit.xml"), &suite); err != nil {
		t.Fatalf("junit.xml: %v", err)
	}
	if suite.Tests != 3 || suite.Failures != 1 || len(suite.Cases) != 3 {
		t.Fatalf("junit.xml: %d tests, %d failures, %d cases; want 3, 1, 3", suite.Tests, suite.Failures, len(suite.Cases))
	}
	for _, c := range suite.Cases {
		failing := strings.Contains(c.Name, "restarts default/crashy app in [1, 2]")
		if failing && (c.Failure == nil || c.Failure.Message != "observed 10") {
			t.Errorf("%q should have failed with \"observed 10\": %+v", c.Name, c.Failure)
		}
		if !failing && c.Failure != nil {
			t.Errorf("%q should have passed: %+v", c.Name, c.Failure)
		}
	}
}

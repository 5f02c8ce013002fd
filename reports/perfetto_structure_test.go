package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"nodesim/engine"
	"nodesim/reports"
	"nodesim/scenarios"
)

// perfettoEvent is the part of a trace event the structural checks read. Ts and Dur are
// kept as decimal strings parsed into nanoseconds, so that nanosecond steps compare exactly.
type perfettoEvent struct {
	Name, Cat, Ph, Bp string
	Ts, Dur           json.Number
	Pid, Tid          int
	ID                uint64
	Args              map[string]any
}

// nanos parses a microsecond decimal with at most three fractional digits.
func nanos(t *testing.T, n json.Number) int64 {
	t.Helper()
	if n == "" {
		return 0
	}
	var us, frac int64
	s := string(n)
	dot := bytes.IndexByte([]byte(s), '.')
	if dot < 0 {
		if _, err := fmt.Sscan(s, &us); err != nil {
			t.Fatalf("time %q: %v", s, err)
		}
		return us * 1000
	}
	if _, err := fmt.Sscan(s[:dot], &us); err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	f := s[dot+1:]
	if len(f) > 3 {
		t.Fatalf("time %q finer than a nanosecond", s)
	}
	for len(f) < 3 {
		f += "0"
	}
	if _, err := fmt.Sscan(f, &frac); err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return us*1000 + frac
}

type span struct {
	start, end int64
	name       string
}

// perfettoProblems checks what Perfetto's JSON importer needs to keep every event: complete
// slices with a non-negative duration; slices on one thread that nest (two slices are
// disjoint or one contains the other); every flow event ("s", "t", "f") inside a slice on
// its own pid/tid at its ts, which is the slice the importer binds it to; every flow id
// started once and finished once, in the same category, the finish no earlier than the
// start. It returns the problems found and the number of unbound flow events.
func perfettoProblems(t *testing.T, data []byte) (problems []string, unbound int) {
	t.Helper()
	var doc struct{ TraceEvents []perfettoEvent }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	type thread struct{ pid, tid int }
	slices := map[thread][]span{}
	type flowEnd struct {
		n     int
		ts    int64
		cat   string
		first string
	}
	starts, finishes := map[uint64]*flowEnd{}, map[uint64]*flowEnd{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			ts, dur := nanos(t, e.Ts), nanos(t, e.Dur)
			if dur < 0 {
				problems = append(problems, fmt.Sprintf("slice %s at %s has dur %s", e.Name, e.Ts, e.Dur))
			}
			th := thread{e.Pid, e.Tid}
			slices[th] = append(slices[th], span{ts, ts + dur, e.Name})
		}
		if e.Ph == "B" || e.Ph == "E" {
			problems = append(problems, "B/E slices are not expected: "+e.Name)
		}
	}
	for th, ss := range slices {
		// Sorted by start, longest first: each slice must end within every open slice.
		sort.SliceStable(ss, func(i, j int) bool {
			if ss[i].start != ss[j].start {
				return ss[i].start < ss[j].start
			}
			return ss[i].end > ss[j].end
		})
		var open []span
		for _, s := range ss {
			for len(open) > 0 && open[len(open)-1].end <= s.start {
				open = open[:len(open)-1]
			}
			if len(open) > 0 && s.end > open[len(open)-1].end {
				o := open[len(open)-1]
				problems = append(problems, fmt.Sprintf("tid %d: slice %s [%d,%d] overlaps %s [%d,%d] partly", th.tid, s.name, s.start, s.end, o.name, o.start, o.end))
			}
			open = append(open, s)
		}
		slices[th] = ss
	}
	var strictlyInside func([]span, int64) bool
	inside := func(th thread, ts int64) bool {
		ss := slices[th]
		// Any slice starting at or before ts that has not ended before it.
		i := sort.Search(len(ss), func(i int) bool { return ss[i].start > ts })
		for j := i - 1; j >= 0; j-- {
			if ss[j].end >= ts {
				return true
			}
		}
		return false
	}
	// strictlyInside: the importer binds a flow event to the slice open at its ts; at a
	// slice's very end it may already be closed, so a flow must lie before the end of a
	// slice that lasts, or at the start of a one-nanosecond step.
	strictlyInside = func(ss []span, ts int64) bool {
		for _, s := range ss {
			if s.start <= ts && (ts < s.end || s.start == s.end && ts == s.start) {
				return true
			}
		}
		return false
	}
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "s", "t", "f":
		default:
			continue
		}
		ts := nanos(t, e.Ts)
		if !inside(thread{e.Pid, e.Tid}, ts) || !strictlyInside(slices[thread{e.Pid, e.Tid}], ts) {
			unbound++
			if unbound <= 5 {
				problems = append(problems, fmt.Sprintf("flow %s %q id %d at %s on tid %d is in no slice", e.Ph, e.Name, e.ID, e.Ts, e.Tid))
			}
		}
		m := starts
		if e.Ph == "f" {
			m = finishes
		} else if e.Ph == "t" {
			continue
		}
		f := m[e.ID]
		if f == nil {
			f = &flowEnd{ts: ts, cat: e.Cat}
			m[e.ID] = f
		}
		f.n++
		if f.cat != e.Cat {
			problems = append(problems, fmt.Sprintf("flow id %d in categories %s and %s", e.ID, f.cat, e.Cat))
		}
	}
	ids := map[uint64]bool{}
	for id := range starts {
		ids[id] = true
	}
	for id := range finishes {
		ids[id] = true
	}
	for id := range ids {
		s, f := starts[id], finishes[id]
		switch {
		case s == nil || f == nil || s.n != 1 || f.n != 1:
			problems = append(problems, fmt.Sprintf("flow id %d not started once and finished once", id))
		case s.cat != f.cat:
			problems = append(problems, fmt.Sprintf("flow id %d: start in %s, finish in %s", id, s.cat, f.cat))
		case f.ts < s.ts:
			problems = append(problems, fmt.Sprintf("flow id %d finishes before it starts", id))
		}
	}
	if unbound > 5 {
		problems = append(problems, fmt.Sprintf("... %d flow events in no slice in all", unbound))
	}
	sort.Strings(problems)
	return problems, unbound
}

// Every shipped scenario's trace.perfetto.json is one Perfetto's importer keeps whole.
func TestPerfettoStructureInEveryShippedScenario(t *testing.T) {
	list, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	// What the library draws in all: each kind of arrow, the waits and the counter must occur
	// somewhere (graceful-deletion alone has a StopContainer wait and a GetNewerThan wait).
	drawn := map[string]int{}
	for _, b := range list {
		t.Run(b.Name, func(t *testing.T) {
			l, err := scenarios.LoadBuiltin(b.Name)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			p := reports.NewPerfettoWriter(&out, "nodesim "+b.Name)
			if _, err := engine.Run(l, l.Seed(), engine.Options{Sink: p}); err != nil {
				t.Fatal(err)
			}
			if err := p.Finish(); err != nil {
				t.Fatal(err)
			}
			var doc struct{ TraceEvents []perfettoEvent }
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			for k, n := range arrowsOf(t, doc.TraceEvents) {
				drawn[k] += n
			}
			for _, e := range doc.TraceEvents {
				switch {
				case e.Ph == "X" && e.Cat == "wait":
					drawn["wait "+e.Name]++
				case e.Ph == "C":
					drawn["counter "+e.Name]++
				case e.Ph == "i" && strings.HasPrefix(e.Name, "containerManagerCh: "):
					drawn["containerManagerCh named"]++
				}
			}
			problems, unbound := perfettoProblems(t, out.Bytes())
			t.Logf("%d flow events in no slice", unbound)
			for _, pr := range problems {
				t.Error(pr)
			}
		})
	}
	t.Logf("drawn in all shipped scenarios: %v", drawn)
	// The loop as upstream has it: every producer into the syncLoop (the podConfig mux, PLEG,
	// the prober, the two tickers), the syncLoop and the eviction manager into pod workers,
	// PLEG into the pod cache a worker waits on; the blocking waits; the counters.
	for _, k := range []string{
		"arrow channel configCh: config -> syncLoop", "arrow channel plegCh: pleg -> syncLoop",
		"arrow channel livenessCh: prober -> syncLoop", "arrow channel readinessCh: prober -> syncLoop",
		"arrow channel startupCh: prober -> syncLoop",
		"arrow ticker syncCh: ticker syncCh -> syncLoop", "arrow ticker housekeepingCh: ticker housekeepingCh -> syncLoop",
		"arrow UpdatePod: syncLoop -> podWorker", "arrow UpdatePod: evictionManager -> podWorker",
		"arrow podCache: pleg -> podWorker", "arrow relistRequest: podWorker -> pleg",
		"wait GetNewerThan (waiting)", "wait StopContainer (waiting for exit)",
		"counter node memory (bytes)", "counter configCh depth", "counter plegCh depth", "counter livenessCh depth",
		"containerManagerCh named", "counter podManager",
	} {
		if drawn[k] == 0 {
			t.Errorf("no %s in any shipped scenario", k)
		}
	}
}

// threadKind is a Perfetto thread's name up to its first space ("podWorker default/web" is
// podWorker, "prober default/web/c/liveness" prober), except for tickers, named whole.
func threadKind(name string) string {
	if strings.HasPrefix(name, "ticker ") {
		return name
	}
	k, _, _ := strings.Cut(name, " ")
	return k
}

// arrowsOf names each arrow of a trace by category, name and the kinds of thread it joins,
// and fails for an arrow that joins the wrong threads: a syncLoop channel's and a ticker's
// arrows end on the syncLoop, an UpdatePod's on a pod worker from another goroutine, a
// pod cache wake-up's on a pod worker from PLEG.
func arrowsOf(t *testing.T, evs []perfettoEvent) map[string]int {
	t.Helper()
	names := map[int]string{}
	for _, e := range evs {
		if e.Ph == "M" && e.Name == "thread_name" {
			names[e.Tid], _ = e.Args["name"].(string)
		}
	}
	syncLoopChans := map[string]bool{"configCh": true, "plegCh": true, "livenessCh": true, "readinessCh": true,
		"startupCh": true, "containerManagerCh": true}
	start := map[uint64]perfettoEvent{}
	out := map[string]int{}
	for _, e := range evs {
		switch e.Ph {
		case "s":
			start[e.ID] = e
		case "f":
			s := start[e.ID]
			from, to := threadKind(names[s.Tid]), threadKind(names[e.Tid])
			key := "arrow " + s.Cat + ": " + from + " -> " + to
			if s.Cat == "channel" || s.Cat == "ticker" {
				key = "arrow " + s.Cat + " " + s.Name + ": " + from + " -> " + to
			}
			out[key]++
			var wrong bool
			switch s.Cat {
			case "channel":
				wrong = syncLoopChans[s.Name] && to != "syncLoop"
			case "ticker":
				wrong = to != "syncLoop" || from != "ticker "+s.Name
			case "UpdatePod":
				wrong = to != "podWorker" || s.Tid == e.Tid
			case "podCache":
				wrong = from != "pleg" || to != "podWorker"
			case "relistRequest":
				wrong = from != "podWorker" || to != "pleg"
			}
			if wrong {
				t.Errorf("%s (id %d at %s) joins the wrong threads", key, e.ID, e.Ts)
			}
		}
	}
	return out
}

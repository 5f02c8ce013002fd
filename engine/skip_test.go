package engine

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"reflect"
	"slices"
	"strings"
	"testing"

	"nodesim/scenarios"
	"nodesim/trace"
)

// skipSink keeps the events it is handed and skips the kinds it names.
type skipSink struct {
	kinds  []trace.Kind
	events []trace.Event
}

func (s *skipSink) Record(e *trace.Event)    { s.events = append(s.events, *e) }
func (s *skipSink) SkipsKinds() []trace.Kind { return s.kinds }

// A sink that skips some kinds (trace.Skipper) is handed every other event of the run, in
// order; the kinds the recorder does not tell apart, and those the checker looks at, it is
// handed all the same.
func TestSkipperSeesEveryOtherEvent(t *testing.T) {
	l, err := scenarios.LoadBuiltin("liveness-restart")
	if err != nil {
		t.Fatal(err)
	}
	full, err := Run(l, l.Seed(), Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	// Stats (checked for the node), syncStart and send are skippable; probeResult is a kind
	// the recorder does not tell apart, containerRunning one the checker looks at.
	sink := &skipSink{kinds: []trace.Kind{trace.Stats, "syncStart", trace.Send, trace.ProbeResult, "containerRunning"}}
	if _, err := Run(l, l.Seed(), Options{Sink: sink}); err != nil {
		t.Fatal(err)
	}
	skipped := map[trace.Kind]bool{trace.Stats: true, "syncStart": true, trace.Send: true}
	var want []trace.Event
	seen := map[trace.Kind]int{}
	for _, e := range full.Trace.Events {
		seen[e.Kind]++
		if !skipped[e.Kind] {
			want = append(want, e)
		}
	}
	for _, k := range []trace.Kind{trace.Stats, "syncStart", trace.Send, trace.ProbeResult, "containerRunning"} {
		if seen[k] == 0 {
			t.Fatalf("the run records no %s event: pick another scenario", k)
		}
	}
	if len(sink.events) != len(want) {
		t.Fatalf("the sink was handed %d events, want %d", len(sink.events), len(want))
	}
	for i := range want {
		if sink.events[i].Seq != want[i].Seq || sink.events[i].Kind != want[i].Kind {
			t.Fatalf("event %d: handed %s, want %s", i, sink.events[i].String(), want[i].String())
		}
	}
}

// The recorder's common path hands the checker the kinds checks names: its switch's first
// case lists the same kinds as checks' first case, and both look at stats of the node.
func TestRecorderChecksWhatChecksNames(t *testing.T) {
	fset := token.NewFileSet()
	cases := func(file, recv, name string) []string {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != name || (fn.Recv != nil) != (recv != "") {
				continue
			}
			for _, st := range fn.Body.List {
				sw, ok := st.(*ast.SwitchStmt)
				if !ok {
					continue
				}
				var out []string
				for _, x := range sw.Body.List[0].(*ast.CaseClause).List {
					var b strings.Builder
					if err := printer.Fprint(&b, fset, x); err != nil {
						t.Fatal(err)
					}
					out = append(out, b.String())
				}
				slices.Sort(out)
				return out
			}
		}
		t.Fatalf("no switch in %s's %s", file, name)
		return nil
	}
	want := cases("invariants.go", "", "checks")
	got := cases("engine.go", "recorder", "Record")
	if len(want) < 9 || !slices.Equal(got, want) {
		t.Errorf("recorder.Record checks %v, checks names %v", got, want)
	}
	for _, k := range []trace.Kind{trace.Stats} {
		if !checks(&trace.Event{Kind: k, Name: "node"}) || checks(&trace.Event{Kind: k, Name: "pod"}) {
			t.Errorf("checks looks at stats other than the node's")
		}
	}
}

// Each kind of skippableKinds is skipped by its own bit of recorder.skip, and by no other.
func TestSkipBitsMatchTheirKinds(t *testing.T) {
	for i, k := range skippableKinds() {
		for _, mask := range []uint64{1 << i, ^uint64(0) &^ (1 << i)} {
			sink := &skipSink{}
			r := &recorder{sink: sink, fast: newInvariantChecker(), skip: mask}
			r.interrupt = &r.noInterrupt
			r.Record(&trace.Event{Kind: k, Name: "pod"})
			if handed, want := len(sink.events) == 1, mask != 1<<i; handed != want {
				t.Errorf("%s with skip %b: handed to the sink %v, want %v", k, mask, handed, want)
			}
		}
	}
}

// A sink that skips every skippable kind is the only reader of those events, so the Sim
// tells the components, which then build none of them (sim.Sim.SetSkips): the sink is
// handed every other event exactly as a run that keeps its trace records it, with the same
// sequence numbers, with and without the checker.
func TestUnreadKindsAreNotBuilt(t *testing.T) {
	all := skippableKinds()
	for _, name := range []string{"crashloop", "liveness-restart", "mirror-pod-update"} {
		l, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, skipInv := range []bool{false, true} {
			full, err := Run(l, l.Seed(), Options{KeepTrace: true, SkipInvariants: skipInv})
			if err != nil {
				t.Fatal(err)
			}
			sink := &skipSink{kinds: all[:]}
			if _, err := Run(l, l.Seed(), Options{Sink: sink, SkipInvariants: skipInv}); err != nil {
				t.Fatal(err)
			}
			var want []trace.Event
			for _, e := range full.Trace.Events {
				if !slices.Contains(all[:], e.Kind) {
					want = append(want, e)
				}
			}
			if len(sink.events) != len(want) {
				t.Fatalf("%s: the sink was handed %d events, want %d", name, len(sink.events), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(sink.events[i], want[i]) {
					t.Fatalf("%s: event %d: handed %s, want %s", name, i, sink.events[i].String(), want[i].String())
				}
			}
		}
	}
}

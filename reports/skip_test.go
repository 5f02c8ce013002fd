package reports

import (
	"reflect"
	"testing"

	"nodesim/engine"
	"nodesim/scenarios"
	"nodesim/trace"
)

// A recorder may leave out the kinds Builder.SkipsKinds names (trace.Skipper): every
// built-in scenario's report is the same without them.
func TestSkippedKindsChangeNothing(t *testing.T) {
	list, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, bi := range list {
		l, err := scenarios.LoadBuiltin(bi.Name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Run(l, l.Seed(), engine.Options{KeepTrace: true, SkipInvariants: true})
		if err != nil {
			t.Fatalf("%s: %v", bi.Name, err)
		}
		in := Input{Scenario: l.Scenario, Seed: l.Seed()}
		for _, p := range l.Pods {
			in.PodOrder = append(in.PodOrder, p.Key())
		}
		all, some := NewBuilder(in), NewBuilder(in)
		skipped := map[trace.Kind]bool{}
		for _, k := range some.SkipsKinds() {
			skipped[k] = true
		}
		left := 0
		for i := range res.Trace.Events {
			e := &res.Trace.Events[i]
			all.Record(e)
			if skipped[e.Kind] {
				left++
				continue
			}
			some.Record(e)
		}
		if left == 0 {
			t.Errorf("%s: no event of a skipped kind", bi.Name)
		}
		if a, b := all.Finish(res.End), some.Finish(res.End); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: the report differs without the %d events of skipped kinds", bi.Name, left)
		}
	}
}

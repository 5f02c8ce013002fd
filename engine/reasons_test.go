package engine

import (
	"reflect"
	"testing"

	"nodesim/scenarios"
)

// A run that records no reasons (SkipReasons, as `nodesim run` without a trace file and every
// sweep run) must be the run that records them, event for event, but for the reasons: the
// model builds a reason only to explain a decision it takes either way.
func TestSkipReasonsChangesOnlyReasons(t *testing.T) {
	builtins, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range builtins {
		t.Run(b.Name, func(t *testing.T) {
			l, err := scenarios.LoadBuiltin(b.Name)
			if err != nil {
				t.Fatal(err)
			}
			with, err := Run(l, 7, Options{KeepTrace: true})
			if err != nil {
				t.Fatal(err)
			}
			without, err := Run(l, 7, Options{KeepTrace: true, SkipReasons: true})
			if err != nil {
				t.Fatal(err)
			}
			a, z := with.Trace.Events, without.Trace.Events
			if len(a) != len(z) {
				t.Fatalf("%d events with reasons, %d without", len(a), len(z))
			}
			reasons := 0
			for i := range a {
				if a[i].Reason != nil {
					reasons++
				}
				if z[i].Reason != nil {
					t.Fatalf("event %d kept its reason without reasons: %s", i, &z[i])
				}
				e := a[i]
				e.Reason = nil
				if !reflect.DeepEqual(e, z[i]) {
					t.Fatalf("event %d differs but for its reason:\nwith:    %s\nwithout: %s", i, &a[i], &z[i])
				}
			}
			if reasons == 0 {
				t.Fatalf("no event of %d had a reason with reasons on", len(a))
			}
			if with.End != without.End || with.Fired != without.Fired {
				t.Fatalf("end %s / %d events fired with reasons, %s / %d without", with.End, with.Fired, without.End, without.Fired)
			}
		})
	}
}

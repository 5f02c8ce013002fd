package explain

import (
	"testing"

	"nodesim/engine"
	"nodesim/scenarios"
	"nodesim/trace"
)

// Every reason a component records in any shipped scenario has its sentence, and every
// sentence belongs to a reason some component can record: the transcript never invents a
// why, and never lacks one for a recorded decision.
func TestEveryRecordedReasonIsExplained(t *testing.T) {
	list, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, b := range list {
		l, err := scenarios.LoadBuiltin(b.Name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Run(l, l.Seed(), engine.Options{KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Trace.Events {
			e := &res.Trace.Events[i]
			var reason string
			switch e.Kind {
			case trace.ProbeResult, kindNoHandler, kindStarted, kindContainerClean:
				reason = e.Attr("reason")
			case kindKilling:
				if e.Attr("graceRaisedTo") != "" {
					reason = "minimumGrace"
				}
			case kindContainerExit:
				reason = map[string]string{"relist": "exitedOnItsOwn", "stopContainer": "exitedWhenStopped"}[e.Attr("kubeletLearnsBy")]
				if reason == "" {
					t.Errorf("%s: %s records no kubeletLearnsBy", b.Name, e)
				}
			}
			if reason == "" {
				continue
			}
			seen[reason] = true
			if reasonText(reason) == "" {
				t.Errorf("%s: reason %q recorded (%s) has no sentence", b.Name, reason, e)
			}
		}
	}
	for r := range reasons {
		if !seen[r] {
			t.Errorf("reason %q has a sentence but no shipped scenario records it", r)
		}
	}
}

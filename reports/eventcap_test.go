package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"nodesim/engine"
	"nodesim/reports"
	"nodesim/scenarios"
	"nodesim/trace"
)

// A perfetto trace cut by SetMaxEvents at any point is still one Perfetto imports whole
// (the structure checks of perfettoProblems), and says where it was cut.
func TestPerfettoCutAnywhereKeepsItsStructure(t *testing.T) {
	for _, name := range []string{"crashloop", "graceful-deletion", "besteffort-evicted-first"} {
		l, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, max := range []int{1, 37, 500, 5000} {
			var out bytes.Buffer
			p := reports.NewPerfettoWriter(&out, "nodesim "+name)
			p.SetMaxEvents(max)
			var n fromZero
			if _, err := engine.Run(l, l.Seed(), engine.Options{Sink: tee{p, &n}}); err != nil {
				t.Fatal(err)
			}
			if err := p.Finish(); err != nil {
				t.Fatal(err)
			}
			problems, _ := perfettoProblems(t, out.Bytes())
			for _, pr := range problems {
				t.Errorf("%s cut at %d: %s", name, max, pr)
			}
			var doc struct {
				Metadata map[string]string `json:"metadata"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("--trace-max-events %d: the first %d events are here, the %d from", max, max, int(n)-max)
			if int(n) <= max {
				want = "" // the run never reached the cap: nothing is cut, nothing noted
			}
			if got := doc.Metadata["truncated"]; (want == "") != (got == "") || !strings.Contains(got, want) {
				t.Errorf("%s cut at %d: metadata %q", name, max, doc.Metadata["truncated"])
			}
		}
	}
}

// fromZero counts the events from time zero on, those the perfetto trace draws.
type fromZero int

func (n *fromZero) Record(e *trace.Event) {
	if e.At >= 0 {
		*n++
	}
}

type tee []trace.Sink

func (t tee) Record(e *trace.Event) {
	for _, s := range t {
		s.Record(e)
	}
}

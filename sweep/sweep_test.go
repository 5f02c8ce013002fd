package sweep

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"nodesim/engine"
	"nodesim/reports"
	"nodesim/scenarios"
)

func TestParsePath(t *testing.T) {
	segs, err := parsePath("spec.kubelet.evictionHard[memory.available]")
	if err != nil {
		t.Fatal(err)
	}
	want := []segment{{key: "spec"}, {key: "kubelet"}, {key: "evictionHard"}, {key: "memory.available"}}
	if !reflect.DeepEqual(segs, want) {
		t.Fatalf("got %+v", segs)
	}
	segs, _ = parsePath("spec.pods[1].behavior.app")
	if !segs[2].isIdx || segs[2].index != 1 || segs[3].key != "behavior" {
		t.Fatalf("index segment: %+v", segs)
	}
	if _, err := parsePath("spec.pods[1"); err == nil {
		t.Fatal("unclosed bracket accepted")
	}
}

func TestSplitValues(t *testing.T) {
	got := splitValues(`100Mi, 1Gi,[{set: 1Gi}, {rampTo: 2Gi, over: 1m}],"a,b"`)
	want := []string{"100Mi", "1Gi", "[{set: 1Gi}, {rampTo: 2Gi, over: 1m}]", `"a,b"`}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
}

func TestSetCreatesAndReplaces(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("spec:\n  pods:\n    - pod: {}\n"), &doc); err != nil {
		t.Fatal(err)
	}
	path, _ := parsePath("spec.kubelet.evictionHard[memory.available]")
	if err := set(doc.Content[0], path, &yaml.Node{Kind: yaml.ScalarNode, Value: "1Gi"}, "t"); err != nil {
		t.Fatal(err)
	}
	out, _ := yaml.Marshal(&doc)
	if !strings.Contains(string(out), "memory.available: 1Gi") {
		t.Fatalf("key not created:\n%s", out)
	}
	bad, _ := parsePath("spec.pods[3].pod")
	if err := set(doc.Content[0], bad, &yaml.Node{Kind: yaml.ScalarNode, Value: "x"}, "t"); err == nil {
		t.Fatal("an index past the end was accepted")
	}
}

func run(l *scenarios.Loaded, seed uint64) (*reports.Report, error) {
	b := reports.NewBuilder(reports.Input{Scenario: l.Scenario, Seed: seed})
	res, err := engine.Run(l, seed, engine.Options{Sink: b})
	if err != nil {
		return nil, err
	}
	r := b.Finish(res.End)
	reports.Evaluate(r, l.Scenario.Spec.Expect)
	return r, nil
}

// The threshold moves the outcome, and running in parallel gives the same result as one
// at a time.
func TestSweepIsDeterministicAndMovesWithTheThreshold(t *testing.T) {
	src, err := scenarios.OpenBuiltin("besteffort-evicted-first")
	if err != nil {
		t.Fatal(err)
	}
	axis, err := ParseAxis("spec.kubelet.evictionHard[memory.available]=200Mi,500Mi")
	if err != nil {
		t.Fatal(err)
	}
	seeds := []uint64{1, 2}
	par, err := Run(src, []Axis{axis}, seeds, 4, run)
	if err != nil {
		t.Fatal(err)
	}
	seq, err := Run(src, []Axis{axis}, seeds, 1, run)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(par)
	b, _ := json.Marshal(seq)
	if string(a) != string(b) {
		t.Fatal("parallel and sequential sweeps differ")
	}
	if par.Rows[0].AllPassed != 2 || par.Rows[1].AllPassed != 0 {
		t.Fatalf("200Mi should pass every expectation and 500Mi miss the MemoryPressure window: %+v", par.Rows)
	}
	if par.Rows[1].FailedChecks["nodeCondition MemoryPressure=True first within [5m0s, 6m0s]"] != 2 {
		t.Fatalf("failed checks: %v", par.Rows[1].FailedChecks)
	}
}

func TestInvalidVariantIsReported(t *testing.T) {
	src, _ := scenarios.OpenBuiltin("crashloop")
	axis, _ := ParseAxis("spec.kubelet.evictionHard[memory.avail]=1Gi")
	_, err := Run(src, []Axis{axis}, []uint64{1}, 1, run)
	if err == nil || !strings.Contains(err.Error(), "unsupported eviction signal memory.avail") {
		t.Fatalf("err = %v", err)
	}
}

// Rows reach Options.Row in grid order whatever the parallelism; Stop ends the sweep with
// the rows finished so far; a grid above MaxRuns is refused before anything runs.
func TestSweepStreamsRowsInOrderAndStops(t *testing.T) {
	src, err := scenarios.OpenBuiltin("crashloop")
	if err != nil {
		t.Fatal(err)
	}
	a1, _ := ParseAxis("spec.pods[0].behavior.app.exit.after=5s,10s,20s")
	a2, _ := ParseAxis("spec.pods[0].behavior.app.exit.code=1,2")
	var order []int
	res, err := RunWith(src, []Axis{a1, a2}, []uint64{1, 2}, Options{Parallel: 3, Row: func(i int, r *Row) { order = append(order, i) }}, run)
	if err != nil {
		t.Fatal(err)
	}
	// 3 × 2 values make 6 rows; the last axis varies fastest.
	if len(order) != 6 || len(res.Rows) != 6 {
		t.Fatalf("rows %v", order)
	}
	for i, v := range order {
		if v != i {
			t.Fatalf("rows reported in order %v, want 0..5", order)
		}
	}
	if got := strings.Join(res.Rows[3].Values, ","); got != "10s,2" {
		t.Errorf("row 3 is %s, want 10s,2", got)
	}

	rowsDone := 0
	res, err = RunWith(src, []Axis{a1, a2}, []uint64{1}, Options{Parallel: 1,
		Row: func(int, *Row) { rowsDone++ }, Stop: func() bool { return rowsDone >= 2 }}, run)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if len(res.Rows) != 2 || res.Rows[1].Runs != 1 {
		t.Fatalf("%d rows after the stop, want the 2 finished", len(res.Rows))
	}

	// 3 × 2 values × 2 seeds = 12 runs, above a cap of 11.
	if _, err := RunWith(src, []Axis{a1, a2}, []uint64{1, 2}, Options{MaxRuns: 11}, run); err == nil || !strings.Contains(err.Error(), "more than 11 runs") {
		t.Fatalf("err = %v, want the cap", err)
	}
}

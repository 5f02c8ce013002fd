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
	res, err := engine.Run(l, seed, engine.Options{Sink: b, SkipReasons: true}) // as nodesim sweep runs
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

// The columns on a shipped scenario, by hand. soft-eviction-grace's pod steps from 1Gi to
// 3300Mi of a 4Gi node 2m after it starts running (at 0.45s): memory.available 4096Mi -
// 3300Mi = 796Mi, under the 1Gi soft threshold and 696Mi above the 100Mi hard one. The
// eviction manager passes every 10s from -1s, so its 129s pass is the first to see it: it
// raises MemoryPressure, which the node status update posts at 129.1s (the updater runs
// 0.1s after the pass: every 10s from its start-up burst). With a 2m grace the threshold
// clears at 3m30s before the grace ends: no eviction. With 1m, the first pass at least 60s
// after 129s, at 189s (3m9s), evicts the pod.
func TestSweepColumnsOnShippedScenario(t *testing.T) {
	src, err := scenarios.OpenBuiltin("soft-eviction-grace")
	if err != nil {
		t.Fatal(err)
	}
	axis, err := ParseAxis("spec.kubelet.evictionSoftGracePeriod[memory.available]=2m,1m")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(src, []Axis{axis}, []uint64{1}, 2, run)
	if err != nil {
		t.Fatal(err)
	}
	const mi = 1 << 20
	mem := LowestHeadroom{SignalHeadroom: reports.SignalHeadroom{Signal: "memory.available", Lowest: 796 * mi, At: 129, Threshold: 100 * mi, Above: 696 * mi}, Seed: 1}
	for i, want := range []struct {
		passed        int
		pressure      Timing
		firstEviction Timing
		evicted       map[string]int
	}{
		{1, Timing{Runs: 1, Spread: Spread{129.1, 129.1, 129.1}}, Timing{}, nil},
		{0, Timing{Runs: 1, Spread: Spread{129.1, 129.1, 129.1}}, Timing{Runs: 1, Spread: Spread{189, 189, 189}}, map[string]int{"default/cache": 1}},
	} {
		r := res.Rows[i]
		if r.AllPassed != want.passed || r.FirstPressure != want.pressure || r.FirstEviction != want.firstEviction || !reflect.DeepEqual(r.Evicted, want.evicted) {
			t.Errorf("row %d (%v): passed %d, first pressure %+v, first eviction %+v, evicted %v; want %+v", i, r.Values, r.AllPassed, r.FirstPressure, r.FirstEviction, r.Evicted, want)
		}
		if len(r.Headroom) != 1 || r.Headroom[0] != mem {
			t.Errorf("row %d headroom %+v, want only %+v (no nodefs.available hard threshold)", i, r.Headroom, mem)
		}
	}
	if res.Runs != 2 || res.Passed != 1 {
		t.Errorf("%d of %d runs passed, want 1 of 2", res.Passed, res.Runs)
	}
	var b strings.Builder
	if err := Write(&b, res, "table"); err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Rows {
		if !reflect.DeepEqual(r.PressureConditions, map[string]int{"MemoryPressure": 1}) {
			t.Errorf("row %d pressure conditions %v", i, r.PressureConditions)
		}
	}
	for _, want := range []string{"796Mi at 2m9s (threshold +696Mi)", "MemoryPressure 2m9.1s", "3m9s", "1 of 2 runs passed every expectation",
		"1m: failed in 1 of 1 runs: count evictions <= 0"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestBytesAndDurationText(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {512, "512"}, {1024, "1Ki"}, {796 << 20, "796Mi"}, {-(42 << 20), "-42Mi"},
		// 102380Mi = 99.98046875Gi, to four significant digits.
		{102380 << 20, "99.98Gi"}, {3 << 30, "3Gi"}} {
		if got := bytesText(c.n); got != c.want {
			t.Errorf("bytesText(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		s    float64
		want string
	}{{129.1, "2m9.1s"}, {0.4629, "463ms"}, {8829, "2h27m9s"}} {
		if got := durationText(c.s); got != c.want {
			t.Errorf("durationText(%g) = %q, want %q", c.s, got, c.want)
		}
	}
}

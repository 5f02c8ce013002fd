package sweep

import (
	"encoding/json"
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

package reports

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	api "nodesim/api/v1alpha1"
	"nodesim/engine"
	"nodesim/scenarios"
	"nodesim/trace"
)

// A hand-written trace: the hard levels come with the first pass, during boot (before time
// 0); the boot pass's observations are not part of the run; a tie keeps the earlier pass; a
// signal with no hard level has no headroom.
func TestHeadroomFromTrace(t *testing.T) {
	const mi = 1 << 20
	pass := func(at time.Duration, attrs ...string) trace.Event {
		e := ev(at, kindEvictionPass, "", attrs...)
		e.Name = "synchronize"
		return e
	}
	tr := []trace.Event{
		pass(-time.Second, "hard", "memory.available=104857600,nodefs.available=5368709200",
			"signals", "memory.available=50Mi,nodefs.available=40Gi,pid.available=100"),
		pass(9*time.Second, "signals", "memory.available=3Gi,nodefs.available=40Gi,pid.available=90"),
		pass(19*time.Second, "signals", "memory.available=412Mi,nodefs.available=6Gi,pid.available=80"),
		pass(29*time.Second, "signals", "memory.available=412Mi,nodefs.available=4Gi,pid.available=80"),
		pass(39*time.Second, "signals", "memory.available=1Gi,nodefs.available=30Gi,pid.available=85"),
	}
	r := Build(Input{Scenario: &api.Scenario{Metadata: api.Metadata{Name: "t"}}, End: time.Minute, Trace: tr})
	got := Headroom(r)
	// memory.available: lowest 412Mi, first at 19s (29s ties); 412Mi - 100Mi = 312Mi above.
	// nodefs.available: lowest 4Gi at 29s; 4Gi - 5368709200 (10% of 50Gi as float32) =
	// 4294967296 - 5368709200 = -1073741904, below the threshold.
	want := []SignalHeadroom{
		{Signal: "memory.available", Lowest: 412 * mi, At: 19, Threshold: 100 * mi, Above: 312 * mi},
		{Signal: "nodefs.available", Lowest: 4 << 30, At: 29, Threshold: 5368709200, Above: -1073741904},
	}
	if len(got) != len(want) {
		t.Fatalf("headroom %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("headroom[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, ok := HeadroomOf(r, "pid.available"); ok {
		t.Error("pid.available has no hard level, so no headroom")
	}
}

// soft-eviction-grace on a 4Gi node: the pod's working set steps from 1Gi to 3300Mi at 2m
// after its start (running at 0.45s, so at 120.45s). The eviction manager passes every 10s
// from its boot pass at -1s, so the first pass to see it is at 129s: memory.available =
// 4096Mi - 3300Mi = 796Mi. The hard threshold is 100Mi (the soft 1Gi one does not count),
// so the node stayed 696Mi above it. allocatableMemory.available (no reservations: the same
// figure, and the same 100Mi level, which upstream derives from memory.available's hard
// threshold) agrees.
func TestHeadroomOnShippedScenario(t *testing.T) {
	r := runBuiltin(t, "soft-eviction-grace")
	const mi = 1 << 20
	for _, s := range []string{"memory.available", "allocatableMemory.available"} {
		h, ok := HeadroomOf(r, s)
		want := SignalHeadroom{Signal: s, Lowest: 796 * mi, At: 129, Threshold: 100 * mi, Above: 696 * mi}
		if !ok || h != want {
			t.Errorf("%s headroom %+v (found %v), want %+v", s, h, ok, want)
		}
	}
	if _, ok := HeadroomOf(r, "nodefs.available"); ok {
		t.Error("evictionHard names memory.available only, so nodefs.available has no hard threshold")
	}
}

// allocatable-nodefs-threshold: 100Gi of ephemeral storage, nothing written but the 10Mi
// image, so every pass observes nodefs.available = 100Gi - 10Mi = 102390Mi; the first pass
// from time 0 is at 9s (passes every 10s from -1s), and ties keep it. The default hard
// threshold is 10% of capacity, the percentage a float32: 10737418400 bytes. Headroom:
// 102390 × 1048576 - 10737418400 = 107363696640 - 10737418400 = 96626278240 bytes.
func TestNodefsHeadroomOnShippedScenario(t *testing.T) {
	r := runBuiltin(t, "allocatable-nodefs-threshold")
	want := SignalHeadroom{Signal: "nodefs.available", Lowest: 102390 << 20, At: 9, Threshold: 10737418400, Above: 96626278240}
	if h, ok := HeadroomOf(r, "nodefs.available"); !ok || h != want {
		t.Errorf("nodefs.available headroom %+v (found %v), want %+v", h, ok, want)
	}
}

func runBuiltin(t *testing.T, name string) *Report {
	t.Helper()
	src, err := scenarios.OpenBuiltin(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := src.Parse(src.Data)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder(Input{Scenario: l.Scenario, Seed: l.Seed()})
	res, err := engine.Run(l, l.Seed(), engine.Options{Sink: b})
	if err != nil {
		t.Fatal(err)
	}
	return b.Finish(res.End)
}

// quantityValue agrees with resource.ParseQuantity wherever it answers, and answers for the
// forms the eviction manager writes.
func TestQuantityValueIsParseQuantity(t *testing.T) {
	for _, v := range []string{"0", "7", "007", "6552960", "32568", "1984032Ki", "102380Mi", "4Gi", "0Ki",
		"999999999999999999", "9223372036854775807", "8589934591Gi", "8589934592Gi", "123456789012345678Ki",
		"Ki", "", "-5", "+5", "1.5Gi", "5G", "5k", "5m", "5e3", "1Ti", " 5", "5 ", "5Ki ", "0x10", "1_0"} {
		got, ok := quantityValue(v)
		q, err := resource.ParseQuantity(v)
		if ok && (err != nil || q.Value() != got) {
			t.Errorf("quantityValue(%q) = %d, ParseQuantity: %v %v", v, got, q.Value(), err)
		}
	}
	for _, v := range []string{"6552960", "1984032Ki", "102380Mi", "4Gi"} {
		if _, ok := quantityValue(v); !ok {
			t.Errorf("quantityValue(%q) does not answer", v)
		}
	}
}

package reports

import (
	"reflect"
	"testing"
	"time"

	api "nodesim/api/v1alpha1"
	"nodesim/trace"
)

const sec = time.Second

func named(e trace.Event, name, container string) trace.Event {
	e.Name, e.Container = name, container
	return e
}

// Evictions, OOM kills and probe-driven restarts, from a trace written by hand in the
// vocabulary of trace/resources.go.
func TestPressureFromTrace(t *testing.T) {
	tr := []trace.Event{
		ev(0, kindSetPodStatus, "default/leaky", "phase", "Running", "container/app", "state=running restarts=0"),
		// A threshold met at 20s (held for its grace period), still met at 30s: evicted then,
		// and terminated 2s later.
		ev(10*sec, kindEvictionPass, "", "signals", "memory.available=900Mi", "met", ""),
		ev(20*sec, kindEvictionPass, "", "signals", "memory.available=150Mi", "met", "memory.available<100Mi", "held", "true"),
		ev(30*sec, kindEvictionPass, "", "signals", "memory.available=80Mi", "met", "memory.available<100Mi"),
		// Reclaiming node-level resources first: a pass with no "met" changes nothing.
		named(ev(30*sec, kindEvictionPass, "", "signal", "memory.available", "stillMet", "memory.available<100Mi"), "reclaimNodeLevelResources", ""),
		ev(30*sec, kindEviction, "default/be", "signal", "memory.available", "observed", "80Mi", "threshold", "100Mi",
			"gracePeriod", "0", "ranking", "default/be;true;0;300Mi|default/bu;false;5;0"),
		named(ev(32*sec, kindWorkerState, "default/be"), "terminated", ""),
		// A second eviction in the same episode counts from the pass after the first.
		ev(40*sec, kindEvictionPass, "", "met", "memory.available"),
		ev(50*sec, kindEvictionPass, "", "met", "memory.available"),
		ev(50*sec, kindEviction, "default/bu", "signal", "memory.available"),
		ev(60*sec, kindEvictionPass, "", "met", ""),
		// A failure ended by a success does not count; the run of three that kills does.
		named(ev(100*sec, kindProbeResult, "default/web", "result", "failure"), "liveness", "app"),
		named(ev(110*sec, kindProbeResult, "default/web", "result", "success"), "liveness", "app"),
		named(ev(120*sec, kindProbeResult, "default/web", "result", "failure"), "liveness", "app"),
		named(ev(130*sec, kindProbeResult, "default/web", "result", "failure"), "liveness", "app"),
		named(ev(140*sec, kindProbeResult, "default/web", "result", "failure"), "liveness", "app"),
		named(ev(140*sec, kindKilling, "default/web", "reason", "LivenessProbe"), "", "app"),
		named(ev(141*sec, kindContainerExit, "default/web"), "", "app"),
		named(ev(155*sec, kindContainerRun, "default/web", "attempt", "1"), "", "app"),
		// A container killed for another reason is no probe restart.
		named(ev(160*sec, kindKilling, "default/web", "reason", "SpecChanged"), "", "app"),
		named(ev(170*sec, kindContainerRun, "default/web", "attempt", "2"), "", "app"),
		named(ev(200*sec, kindOOMKill, "default/leaky", "kind", "cgroup", "oomScoreAdj", "1000"), "", "app"),
		named(ev(210*sec, kindOOMKill, "default/leaky", "kind", "node", "oomScoreAdj", "1000"), "", "app"),
	}
	r := Build(Input{Scenario: &api.Scenario{Metadata: api.Metadata{Name: "t"}}, End: 5 * time.Minute, Trace: tr,
		PodOrder: []string{"default/leaky"}})

	want := []Eviction{
		{Time: 30, Pod: "default/be", Signal: "memory.available", Observed: "80Mi", Threshold: "100Mi", Ranking: []RankedCandidate{
			{Pod: "default/be", ExceedsRequests: true, UsageAboveRequests: "300Mi"}, {Pod: "default/bu", Priority: 5, UsageAboveRequests: "0"}}},
		{Time: 50, Pod: "default/bu", Signal: "memory.available", Ranking: []RankedCandidate{}},
	}
	if !reflect.DeepEqual(r.Evictions, want) {
		t.Errorf("evictions\n got %+v\nwant %+v", r.Evictions, want)
	}
	for metric, want := range map[string]LatencyStats{
		"evictionDetection":     {Count: 2, Mean: 10, P50: 10, P90: 10, P99: 10, Max: 10},
		"evictionCompletion":    {Count: 1, Mean: 2, P50: 2, P90: 2, P99: 2, Max: 2},
		"probeFailureToRestart": {Count: 1, Mean: 35, P50: 35, P90: 35, P99: 35, Max: 35},
	} {
		if got := r.Latency[metric]; got != want {
			t.Errorf("%s = %+v, want %+v", metric, got, want)
		}
	}
	wantOOM := []OOMKill{{Time: 200, Pod: "default/leaky", Container: "app", Kind: "cgroup", OOMScoreAdj: 1000},
		{Time: 210, Pod: "default/leaky", Container: "app", Kind: "node", OOMScoreAdj: 1000}}
	if !reflect.DeepEqual(r.OOMKills, wantOOM) {
		t.Errorf("oomKills %+v", r.OOMKills)
	}
	for k, want := range map[string]int64{"evictions": 2, "oomKills": 2, "cgroupOOMKills": 1, "nodeOOMKills": 1} {
		if r.Counts[k] != want {
			t.Errorf("counts[%s] = %d, want %d", k, r.Counts[k], want)
		}
	}
	if c := r.Pods[0].Containers[0]; c.OOMKills != 2 {
		t.Errorf("default/leaky app oomKills = %d, want 2", c.OOMKills)
	}
}

func TestThresholdSignal(t *testing.T) {
	for in, want := range map[string]string{"memory.available": "memory.available", "nodefs.available<10%": "nodefs.available",
		"pid.available (soft)": "pid.available"} {
		if got := thresholdSignal(in); got != want {
			t.Errorf("thresholdSignal(%q) = %q, want %q", in, got, want)
		}
	}
}

package reports

import (
	"testing"
	"time"

	api "nodesim/api/v1alpha1"
	"nodesim/trace"
)

func ev(at time.Duration, kind trace.Kind, pod string, attrs ...string) trace.Event {
	e := trace.Event{At: at, Kind: kind, Pod: pod}
	for i := 0; i+1 < len(attrs); i += 2 {
		e.Attrs = append(e.Attrs, trace.Attr{Key: attrs[i], Value: attrs[i+1]})
	}
	return e
}

const ms = time.Millisecond

// Start-up latency from a trace written by hand: seen at 1s, pulling from 1.3s to 3.3s,
// every container running at 3.454s. A later pull (an image update at 2m) is not part
// of the start-up.
func TestStartupLatencyFromTrace(t *testing.T) {
	tr := []trace.Event{
		ev(-500*ms, kindNodeCondition, "", "type", "Ready", "status", "False"),
		ev(-400*ms, kindNodeCondition, "", "type", "Ready", "status", "True"),
		ev(time.Second, kindPodSeen, "default/web", "uid", "u1"),
		ev(1300*ms, kindPullRequested, "default/web"),
		ev(3300*ms, kindPulled, "default/web"),
		ev(3454*ms, kindSetPodStatus, "default/web", "phase", "Running", "allRunning", "true", "container/app", "state=running restarts=0 ready=true"),
		ev(120*time.Second, kindPullRequested, "default/web"),
		ev(122*time.Second, kindPulled, "default/web"),
		ev(125*time.Second, kindSetPodStatus, "default/web", "phase", "Running", "allRunning", "true", "container/app", "state=running restarts=1 ready=true last=Error:143"),
	}
	r := Build(Input{Scenario: &api.Scenario{Metadata: api.Metadata{Name: "t"}}, End: 5 * time.Minute, Trace: tr, PodOrder: []string{"default/web"}})
	p := r.Pods[0]
	if *p.StartupLatencyWithPulls != 2.454 || *p.StartupLatency != 0.454 {
		t.Errorf("start-up %v / with pulls %v, want 0.454 / 2.454", *p.StartupLatency, *p.StartupLatencyWithPulls)
	}
	c := p.Containers[0]
	if c.Restarts != 1 || c.State != "running" || c.LastTermination == nil || c.LastTermination.ExitCode != 143 {
		t.Errorf("container %+v", c)
	}
	if len(r.NodeConditions) != 1 || r.NodeConditions[0].Time != 0 || r.NodeConditions[0].Status != "True" {
		t.Errorf("node conditions before time zero must fold into the initial value: %+v", r.NodeConditions)
	}
}

// Percentiles are empirical: the smallest sample at or above the rank.
func TestSummarize(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 6, 7, 8, 9}
	got := Summarize(xs)
	want := LatencyStats{Count: 10, Mean: 5.5, P50: 5, P90: 9, P99: 10, Max: 10}
	if got != want {
		t.Errorf("Summarize = %+v, want %+v", got, want)
	}
	if (Summarize(nil) != LatencyStats{}) {
		t.Error("no samples must give zeros")
	}
}

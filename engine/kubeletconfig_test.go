package engine

import (
	"math"
	"strings"
	"testing"
	"time"

	"nodesim/scenarios"
)

// restartGaps returns, for a pod's crash-looping container, each restart's delay after the
// exit before it.
func restartGaps(t *testing.T, res *Result, pod string) []time.Duration {
	t.Helper()
	var exits, starts []time.Duration
	for _, e := range res.Trace.Events {
		if e.Pod != pod {
			continue
		}
		switch e.Kind {
		case "containerExited":
			exits = append(exits, e.At)
		case "containerRunning":
			starts = append(starts, e.At)
		}
	}
	var gaps []time.Duration
	for i := 1; i < len(starts) && i-1 < len(exits); i++ {
		gaps = append(gaps, starts[i]-exits[i-1])
	}
	return gaps
}

// crashloop-max-restart-period sets crashLoopBackOff.maxContainerRestartPeriod: 30s. With
// KubeletCrashLoopBackOffMax on (its v1.37 default) the back-off runs 0 (first restart), 10s,
// 20s, then 30s for good; each restart comes within [back-off, back-off + half the capped
// remainder + 3s] of the exit, as TestCrashLoopBackOffGaps bounds it. With the gate off the
// kubelet refuses a config that sets the cap (ValidateKubeletConfiguration), and without the
// setting the sixth restart waits the default's 160s.
func TestCrashLoopCapFollowsTheConfigUnderTheGate(t *testing.T) {
	res := runBuiltin(t, "crashloop-max-restart-period", nil)
	gaps := restartGaps(t, res, "default/crashy")
	if len(gaps) < 40 {
		t.Fatalf("%d restarts in 30m, want over 40 with a 30s cap", len(gaps))
	}
	for i, g := range gaps {
		b := []time.Duration{0, 10 * time.Second, 20 * time.Second}[min(i, 2)]
		if i >= 3 {
			b = 30 * time.Second
		}
		slack := time.Duration(0.5*math.Min(b.Seconds(), 60)*float64(time.Second)) + 3*time.Second
		if g < b || g > b+slack {
			t.Errorf("restart %d came %s after the exit; want within [%s, %s]", i+1, g, b, b+slack)
		}
	}

	src, err := scenarios.OpenBuiltin("crashloop-max-restart-period")
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(string(src.Data), "crashLoopBackOff: {maxContainerRestartPeriod: 30s}",
		"crashLoopBackOff: {maxContainerRestartPeriod: 30s}\n    featureGates: {KubeletCrashLoopBackOffMax: false}", 1)
	if _, err := src.Parse([]byte(off)); err == nil || !strings.Contains(err.Error(),
		"FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set") {
		t.Errorf("gate off with the cap set: %v; want the kubelet's refusal", err)
	}
	off = strings.Replace(string(src.Data), "crashLoopBackOff: {maxContainerRestartPeriod: 30s}",
		"featureGates: {KubeletCrashLoopBackOffMax: false}", 1)
	l, err := src.Parse([]byte(off))
	if err != nil {
		t.Fatal(err)
	}
	res, err = Run(l, l.Seed(), Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	gaps = restartGaps(t, res, "default/crashy")
	if len(gaps) != 10 || gaps[5] < 160*time.Second {
		t.Errorf("gate off: %d restarts, sixth after %v; want crashloop's 10, the sixth after 160s or more", len(gaps), gaps)
	}
}

// The node's pod capacity is maxPods: with maxPods 250, 150 pods are all admitted.
func TestMaxPodsIsThePodCapacity(t *testing.T) {
	res := runBuiltin(t, "max-pods-250", nil)
	started, rejected := map[string]bool{}, 0
	for _, e := range res.Trace.Events {
		switch e.Kind {
		case "admissionRejected":
			rejected++
		case "containerRunning":
			started[e.Pod] = true
		}
	}
	if rejected != 0 || len(started) != 150 {
		t.Errorf("%d pods started, %d rejected; want 150 and 0", len(started), rejected)
	}
}

// Node allocatable reserves the hard nodefs.available threshold, a percentage of capacity
// taken as upstream takes it (a float32 fraction): 100Gi = 107374182400 bytes, times
// float32(0.1) = 0.100000001490116..., is 10737418400 (truncated), leaving 96636764000
// allocatable. 80Gi fits; 80Gi + 15Gi = 102005473280 does not.
func TestAllocatableReservesTheNodefsThreshold(t *testing.T) {
	res := runBuiltin(t, "allocatable-nodefs-threshold", nil)
	var msg string
	for _, e := range res.Trace.Events {
		if e.Kind == "admissionRejected" && e.Pod == "default/more" {
			msg = e.Attr("message")
		}
	}
	want := "Node didn't have enough resource: ephemeral-storage, requested: 16106127360, used: 85899345920, capacity: 96636764000"
	if msg != want {
		t.Errorf("rejection %q, want %q", msg, want)
	}
}

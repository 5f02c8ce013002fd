package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"nodesim/scenarios"
	"nodesim/trace"
)

func runBuiltin(t *testing.T, name string, sink trace.Sink) *Result {
	t.Helper()
	l, err := scenarios.LoadBuiltin(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(l, l.Seed(), Options{Sink: sink, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func first(events []trace.Event, keep func(*trace.Event) bool) *trace.Event {
	for i := range events {
		if keep(&events[i]) {
			return &events[i]
		}
	}
	return nil
}

// The start-up of scenarios/startup.yaml, summed by hand from the scenario: the kubelet
// sees the pod at 1s; its worker syncs at once (the pod cache is fresh from the boot
// relists); the sandbox takes 300ms, the 100Mi pull at 50Mi/s 2s, create 50ms and start
// 100ms. The sync then asks PLEG for an on-demand relist of the pod (handed over in 1µs);
// listing costs 2ms plus 50µs for each of the sandbox and the container, and reading the
// pod's status 1ms for each of them. The container-started event wakes the pod's worker,
// whose next sync stores a status with every container running.
func TestStartupLatencyIsTheHandComputedSum(t *testing.T) {
	res := runBuiltin(t, "startup", nil)
	const (
		sandbox  = 300 * time.Millisecond
		pull     = 2 * time.Second // 100Mi / 50Mi per second
		create   = 50 * time.Millisecond
		start    = 100 * time.Millisecond
		handoff  = time.Microsecond
		list     = 2*time.Millisecond + 2*50*time.Microsecond
		status   = 2 * time.Millisecond
		seenAt   = time.Second
		withPull = sandbox + pull + create + start + handoff + list + status
	)
	ev := res.Trace.Events
	seen := first(ev, func(e *trace.Event) bool { return e.Kind == "podSeen" && e.Pod == "default/web" })
	running := first(ev, func(e *trace.Event) bool {
		return e.Kind == "setPodStatus" && e.Pod == "default/web" && e.Attr("allRunning") == "true"
	})
	if seen == nil || running == nil {
		t.Fatal("the pod was never seen or never ran")
	}
	if seen.At != seenAt {
		t.Errorf("pod seen at %s, want %s", seen.At, seenAt)
	}
	if got := running.At - seen.At; got != withPull {
		t.Errorf("start-up with pulls = %s, want the hand-computed %s", got, withPull)
	}
	pullStart := first(ev, func(e *trace.Event) bool { return e.Kind == "imagePullRequested" })
	pullEnd := first(ev, func(e *trace.Event) bool { return e.Kind == "imagePulled" })
	if got := pullEnd.At - pullStart.At; got != pull {
		t.Errorf("pull took %s, want %s", got, pull)
	}
	if got := running.At - seen.At - (pullEnd.At - pullStart.At); got != withPull-pull {
		t.Errorf("start-up SLI = %s, want %s", got, withPull-pull)
	}
}

// Over 30 minutes the crash-looping container is restarted at once after its first exit,
// then after back-offs of 10s, 20s, 40s, 80s, 160s and 300s counted from each exit. Each
// restart comes no earlier than its back-off, and no later than the pod worker's requeue
// jitter allows (up to half the remaining back-off, itself capped at the 60s resync
// interval) plus the syncLoop's own latencies (a relist and a tick).
func TestCrashLoopBackOffGaps(t *testing.T) {
	res := runBuiltin(t, "crashloop", nil)
	restarts := restartGaps(t, res, "default/crashy")
	if len(restarts) < 8 {
		t.Fatalf("only %d restarts in 30m", len(restarts))
	}
	backoffs := []time.Duration{0, 10, 20, 40, 80, 160, 300, 300, 300, 300, 300}
	var gaps []string
	for i, gap := range restarts {
		b := backoffs[i] * time.Second
		slack := time.Duration(0.5*math.Min(b.Seconds(), 60)*float64(time.Second)) + 3*time.Second
		gaps = append(gaps, fmt.Sprintf("%.1fs", gap.Seconds()))
		if gap < b || gap > b+slack {
			t.Errorf("restart %d came %s after the exit; want within [%s, %s]", i+1, gap, b, b+slack)
		}
	}
	t.Logf("gaps between exit and restart: %s", strings.Join(gaps, " "))
	if len(restarts) != 10 {
		t.Errorf("%d restarts in 30m, want 10 (0+10+20+40+80+160+300×4 plus 5s runs fit 10)", len(restarts))
	}
}

// A kubelet restart adopts running containers: no container restarts, and the new
// kubelet's workers sync every pod.
func TestKubeletRestartAdoptsContainers(t *testing.T) {
	res := runBuiltin(t, "kubelet-restart", nil)
	restartAt := 5 * time.Minute
	seenAgain := map[string]bool{}
	for _, e := range res.Trace.Events {
		if e.At >= restartAt && e.Kind == "podSeen" {
			seenAgain[e.Pod] = true
		}
		if e.Kind == "containerRunning" && strings.HasPrefix(e.Pod, "default/web-") && e.Attr("attempt") != "0" {
			t.Errorf("%s restarted at %s", e.Pod, e.At)
		}
	}
	for _, p := range []string{"default/web-0", "default/web-1", "default/crashy"} {
		if !seenAgain[p] {
			t.Errorf("%s did not come back to the new kubelet as an ADD", p)
		}
	}
}

// While the runtime is down the syncLoop skips pod synchronization, and resumes after.
func TestRuntimeOutageGatesTheSyncLoop(t *testing.T) {
	res := runBuiltin(t, "runtime-outage", nil)
	var skipped []time.Duration
	for _, e := range res.Trace.Events {
		if e.Kind == "skippingPodSynchronization" && e.At >= 0 {
			skipped = append(skipped, e.At)
		}
	}
	if len(skipped) == 0 {
		t.Fatal("the syncLoop never skipped")
	}
	if skipped[0] < 89*time.Second || skipped[len(skipped)-1] > 310*time.Second {
		t.Errorf("skipping from %s to %s; want within the outage seen by the runtime check (~90s to ~305s)", skipped[0], skipped[len(skipped)-1])
	}
	pleg := first(res.Trace.Events, func(e *trace.Event) bool {
		return e.At >= 0 && e.Kind == "skippingPodSynchronization" && strings.Contains(e.Attr("error"), "PLEG is not healthy")
	})
	if pleg == nil || pleg.At < 60*time.Second+3*time.Minute {
		t.Errorf("PLEG should turn unhealthy 3m after its last good relist (~4m): %v", pleg)
	}
}

// The liveness restart of scenarios/liveness-restart.yaml: the container runs again at the
// first failing probe, plus (failureThreshold-1) × periodSeconds until the third failure,
// plus the kill (the process exits at once on SIGTERM; StopContainer takes 50ms) and the
// start (create 50ms, start 100ms). No crash-loop back-off applies to the killed instance.
func TestLivenessRestartTiming(t *testing.T) {
	res := runBuiltin(t, "liveness-restart", nil)
	var firstFail, restarted time.Duration
	for _, e := range res.Trace.Events {
		if e.Kind == trace.ProbeResult && e.Attr("result") == "failure" && firstFail == 0 {
			firstFail = e.At
		}
		if e.Kind == "containerRunning" && e.Attr("attempt") == "1" {
			restarted = e.At
		}
	}
	const period, threshold = 10 * time.Second, 3
	want := firstFail + (threshold-1)*period + 50*time.Millisecond + 50*time.Millisecond + 100*time.Millisecond
	if firstFail == 0 || restarted != want {
		t.Fatalf("first failing probe at %s, restarted at %s; want %s", firstFail, restarted, want)
	}
	// The container turned unhealthy 2m after it started; the probe period's phase (from the
	// seeded start-up jitter) decides how soon the first failing probe sees it.
	started := first(res.Trace.Events, func(e *trace.Event) bool { return e.Kind == "containerRunning" })
	if d := firstFail - started.At - 2*time.Minute; d < 0 || d >= period {
		t.Errorf("first failing probe %s after the container turned unhealthy; want within one period", d)
	}
}

// stopWhen: allPodsTerminal ends the run once every scenario pod is Succeeded or Failed.
func TestStopWhenAllPodsTerminal(t *testing.T) {
	src, err := scenarios.BuiltinSource("sidecar")
	if err != nil {
		t.Fatal(err)
	}
	data := strings.Replace(string(src), "  duration: 5m\n", "  duration: 5m\n  stopWhen: allPodsTerminal\n", 1)
	l, err := scenarios.Parse("sidecar.yaml", []byte(data), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(l, 1, Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.End < 90*time.Second || res.End > 100*time.Second {
		t.Fatalf("the run ended at %s; the pod is Succeeded at about 93s", res.End)
	}
	end := res.Trace.Events[len(res.Trace.Events)-1]
	if end.Kind != KindRunEnd || end.Attr("reason") != "all pods terminal" {
		t.Fatalf("last event %v", end.String())
	}
}

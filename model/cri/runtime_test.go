package cri

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	api "nodesim/api/v1alpha1"
	"nodesim/model/container"
	"nodesim/sim"
)

func dur(d time.Duration) *api.Duration { v := api.D(d); return &v }

// startOne creates and starts one container with behaviour b, returning its ID once it runs.
func startOne(t *testing.T, b *api.Behavior) (*sim.Sim, *Runtime, string) {
	t.Helper()
	s := sim.New(1, nil)
	r := New(s, Config{Latency: DefaultLatency(), Behavior: func(*corev1.Pod, string) *api.Behavior { return b }})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"}}
	spec := &corev1.Container{Name: "c", Image: "i"}
	var id string
	s.Clock("worker", sim.PriorityPodWorker).Schedule(0, func() {
		r.RunPodSandbox(pod, 0, func(sb string, err error) {
			r.CreateContainer(sb, spec, 0, ContainerConfig{}, func(cid string, err error) {
				id = cid
				r.StartContainer(cid, func(error) {})
			})
		})
	})
	s.RunUntil(time.Second)
	if id == "" || r.ctrs[id].state != container.StateRunning {
		t.Fatal("the container did not start")
	}
	return s, r, id
}

// A process that exits within the grace period dies of SIGTERM (143) after its shutdown time;
// one that would take longer is killed when the grace period runs out (137).
func TestStopContainer(t *testing.T) {
	for _, c := range []struct {
		shutdown, grace time.Duration
		code            int
		after           time.Duration
	}{{2 * time.Second, 10 * time.Second, ExitSIGTERM, 2 * time.Second}, {30 * time.Second, 5 * time.Second, ExitSIGKILL, 5 * time.Second}} {
		s, r, id := startOne(t, &api.Behavior{Shutdown: dur(c.shutdown)})
		start := s.Elapsed()
		var returned time.Duration
		s.Clock("worker", sim.PriorityPodWorker).Schedule(0, func() {
			r.StopContainer(id, c.grace, func(error) { returned = s.Elapsed() })
		})
		s.RunUntil(time.Minute)
		ct := r.ctrs[id]
		if ct.exitCode != c.code || ct.finished.Sub(sim.Epoch)-start != c.after {
			t.Errorf("shutdown %s, grace %s: exit %d after %s; want %d after %s", c.shutdown, c.grace, ct.exitCode, ct.finished.Sub(sim.Epoch)-start, c.code, c.after)
		}
		if returned != start+c.after+DefaultLatency().StopContainer {
			t.Errorf("StopContainer returned at %s, want when the process was gone plus its latency", returned-start)
		}
	}
}

// Runs override the behaviour per run and the last override repeats.
func TestEffectiveRuns(t *testing.T) {
	b := &api.Behavior{Exit: &api.Exit{After: api.D(time.Minute), Code: 0},
		Runs: []api.Behavior{{Exit: &api.Exit{After: api.D(time.Second), Code: 1}}, {}}}
	if e := Effective(b, 1).Exit; e.After.Duration != time.Second || e.Code != 1 {
		t.Errorf("run 1: %+v", e)
	}
	for _, run := range []int{2, 3, 10} {
		if e := Effective(b, run).Exit; e.After.Duration != time.Minute {
			t.Errorf("run %d: %+v, want the base behaviour (the empty last override repeats)", run, e)
		}
	}
}

// Probe scripts decide by the time since the container started; without a step, a probe
// passes once the process is up.
func TestRunProbe(t *testing.T) {
	b := &api.Behavior{Startup: dur(10 * time.Second), Probes: &api.ProbeScripts{
		Liveness:  []api.ProbeStep{{From: dur(30 * time.Second), To: dur(40 * time.Second), Result: api.ProbeFailure}},
		Readiness: []api.ProbeStep{{From: dur(20 * time.Second), Latency: dur(3 * time.Second)}},
	}}
	s, r, id := startOne(t, b)
	check := func(at time.Duration, probe string, want bool, wantTook time.Duration) {
		t.Helper()
		s.RunUntil(at)
		ok, took := r.RunProbe(id, probe)
		if ok != want || took != wantTook {
			t.Errorf("%s at %s: %v in %s, want %v in %s", probe, at, ok, took, want, wantTook)
		}
	}
	started := s.Elapsed()
	check(started+5*time.Second, "liveness", false, 0)  // not up yet
	check(started+15*time.Second, "liveness", true, 0)  // up
	check(started+35*time.Second, "liveness", false, 0) // scripted failure
	check(started+45*time.Second, "liveness", true, 0)  // the window is over
	check(started+50*time.Second, "readiness", true, 3*time.Second)
}

// A target settles only once every probe succeeds at once (no steps, the process up), and
// its container's exit calls the function Settle kept, once; a scripted or ended target
// does not settle.
func TestProbeTargetSettle(t *testing.T) {
	b := &api.Behavior{Startup: dur(10 * time.Second), Shutdown: dur(time.Second),
		Probes: &api.ProbeScripts{Readiness: []api.ProbeStep{{From: dur(time.Hour), Result: api.ProbeFailure}}}}
	s, r, id := startOne(t, b)
	live, ready := r.ProbeTarget(id, "liveness"), r.ProbeTarget(id, "readiness")
	ends := 0
	ended := func() { ends++ }
	live.RunProbe()
	if live.Settle(ended) {
		t.Fatal("a target settled before its process was up")
	}
	s.RunUntil(s.Elapsed() + 15*time.Second)
	if ok, took := live.RunProbe(); !ok || took != 0 || !live.Settle(ended) {
		t.Fatal("an up container without probe steps did not settle")
	}
	if ok, _ := ready.RunProbe(); !ok || ready.Settle(ended) {
		t.Fatal("a target with probe steps settled")
	}
	s.Clock("worker", sim.PriorityPodWorker).Schedule(0, func() { r.StopContainer(id, time.Minute, func(error) {}) })
	s.RunUntil(s.Elapsed() + time.Minute)
	if ends != 1 {
		t.Fatalf("the exit called the settled target's function %d times, want once", ends)
	}
	if ok, _ := live.RunProbe(); ok || live.Settle(ended) {
		t.Error("an ended target succeeded or settled")
	}
}

// CRI calls take their configured latency and fail while the runtime is down.
func TestLatencyAndRuntimeDown(t *testing.T) {
	s := sim.New(1, nil)
	r := New(s, Config{Latency: DefaultLatency()})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"}}
	var at time.Duration
	var failed error
	w := s.Clock("worker", sim.PriorityPodWorker)
	w.Schedule(0, func() { r.RunPodSandbox(pod, 0, func(string, error) { at = s.Elapsed() }) })
	s.RunUntil(time.Second)
	if at != DefaultLatency().RunPodSandbox {
		t.Errorf("RunPodSandbox returned at %s, want %s", at, DefaultLatency().RunPodSandbox)
	}
	r.SetDown(time.Minute)
	w.Schedule(0, func() { r.RunPodSandbox(pod, 1, func(_ string, err error) { failed = err }) })
	s.RunUntil(2 * time.Second)
	if failed == nil || r.Ready() {
		t.Errorf("a call during the outage: %v (ready %v)", failed, r.Ready())
	}
}

// StopContainer returns when the process is gone, whatever ended it: here the cgroup-free
// equivalent, the process's own scripted exit 20s into a 60s grace period (its shutdown
// would take 10m). It returns at the exit + its 50ms latency, not at the grace's end.
func TestStopContainerReturnsWhenTheProcessExitsOnItsOwn(t *testing.T) {
	s, r, id := startOne(t, &api.Behavior{Shutdown: dur(10 * time.Minute)})
	start := s.Elapsed()
	var returned time.Duration
	worker := s.Clock("worker", sim.PriorityPodWorker)
	worker.Schedule(0, func() {
		r.StopContainer(id, time.Minute, func(error) { returned = s.Elapsed() })
	})
	// 20s into the grace period the process ends by another cause (the OOM killer's path).
	s.Clock("kernel", sim.PriorityDefault).Schedule(20*time.Second, func() { r.exit(r.ctrs[id], ExitSIGKILL, "OOMKilled") })
	s.RunUntil(5 * time.Minute)
	if ct := r.ctrs[id]; ct.reason != "OOMKilled" || ct.finished.Sub(sim.Epoch)-start != 20*time.Second {
		t.Errorf("exit %s after %s, want OOMKilled after 20s", ct.reason, ct.finished.Sub(sim.Epoch)-start)
	}
	if want := start + 20*time.Second + DefaultLatency().StopContainer; returned != want {
		t.Errorf("StopContainer returned after %s, want %s", returned-start, want-start)
	}
}

// A second StopContainer of a container already stopping does not start its shutdown over:
// a longer grace keeps the first deadline (a restarted kubelet: SIGKILL at 20s, not at
// 5s + 20s), a shorter one brings the kill forward (5s + 5s = 10s). Both calls return
// when the process is gone.
func TestRepeatedStopContainer(t *testing.T) {
	for _, c := range []struct {
		name         string
		second       time.Duration
		wantKilledAt time.Duration
	}{
		{"longer grace keeps the first deadline", 20 * time.Second, 20 * time.Second},
		{"shorter grace brings the kill forward", 5 * time.Second, 10 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, r, id := startOne(t, &api.Behavior{Shutdown: dur(30 * time.Second)})
			start := s.Elapsed()
			var returned []time.Duration
			worker := s.Clock("worker", sim.PriorityPodWorker)
			worker.Schedule(0, func() {
				r.StopContainer(id, 20*time.Second, func(error) { returned = append(returned, s.Elapsed()-start) })
			})
			worker.Schedule(5*time.Second, func() {
				r.StopContainer(id, c.second, func(error) { returned = append(returned, s.Elapsed()-start) })
			})
			s.RunUntil(5 * time.Minute)
			ct := r.ctrs[id]
			if got := ct.finished.Sub(sim.Epoch) - start; got != c.wantKilledAt || ct.exitCode != ExitSIGKILL {
				t.Errorf("exit %d after %s, want SIGKILL after %s", ct.exitCode, got, c.wantKilledAt)
			}
			want := c.wantKilledAt + DefaultLatency().StopContainer
			if len(returned) != 2 || returned[0] != want || returned[1] != want {
				t.Errorf("StopContainer calls returned at %v, want both at %s", returned, want)
			}
		})
	}
}

// A container removed with its logs kept (a RestartAllContainers reset) leaves its attempt
// behind: the next instance's restart count is that attempt + 1 (attempt 0 here, so 1),
// as upstream's calcRestartCountByLogDir finds 0.log and counts 1. A plain removal keeps
// nothing.
func TestRemoveContainerKeepLogs(t *testing.T) {
	s, r, id := startOne(t, &api.Behavior{Exit: &api.Exit{After: api.D(time.Second), Code: 42}})
	s.RunUntil(3 * time.Second)
	if got := r.LogRestartCount("u", "c"); got != 0 {
		t.Fatalf("before removal: %d", got)
	}
	s.Clock("worker", sim.PriorityPodWorker).Schedule(0, func() { r.RemoveContainerKeepLogs(id, func(error) {}) })
	s.RunUntil(4 * time.Second)
	if _, ok := r.ctrs[id]; ok {
		t.Fatal("the container was not removed")
	}
	if got := r.LogRestartCount("u", "c"); got != 1 {
		t.Errorf("restart count from kept logs = %d, want 1", got)
	}
	if got := r.LogRestartCount("u", "other"); got != 0 {
		t.Errorf("another container: %d, want 0", got)
	}

	s2, r2, id2 := startOne(t, &api.Behavior{Exit: &api.Exit{After: api.D(time.Second), Code: 1}})
	s2.RunUntil(3 * time.Second)
	s2.Clock("worker", sim.PriorityPodWorker).Schedule(0, func() { r2.RemoveContainer(id2, func(error) {}) })
	s2.RunUntil(4 * time.Second)
	if got := r2.LogRestartCount("u", "c"); got != 0 {
		t.Errorf("after a plain removal: %d, want 0", got)
	}
}

// GetPodStatus hands out a new status per call; its lists are shared while the pod does
// not change, and a change makes new ones, leaving the statuses handed out before intact.
func TestGetPodStatusListsFollowChanges(t *testing.T) {
	s, r, id := startOne(t, &api.Behavior{Exit: &api.Exit{After: api.D(time.Minute), Code: 3}})
	first, err := r.GetPodStatus("u", "p", "ns")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := r.GetPodStatus("u", "p", "ns")
	if again == first || len(again.ContainerStatuses) != 1 || again.ContainerStatuses[0] != first.ContainerStatuses[0] {
		t.Fatalf("an unchanged pod: %+v then %+v", first, again)
	}
	s.RunUntil(2 * time.Minute) // the process exits
	after, _ := r.GetPodStatus("u", "p", "ns")
	if c := after.ContainerStatuses[0]; c.ID != id || c.State != container.StateExited || c.ExitCode != 3 {
		t.Errorf("after the exit: %+v", *c)
	}
	if c := first.ContainerStatuses[0]; c.State != container.StateRunning || c.ExitCode != 0 {
		t.Errorf("a status handed out before the exit changed: %+v", *c)
	}
	if len(after.SandboxStatuses) != 1 || len(after.IPs) != 1 || after.IPs[0] != after.SandboxStatuses[0].IP {
		t.Errorf("sandbox and IPs: %+v, %v", after.SandboxStatuses, after.IPs)
	}
}

package prober

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/kuberuntime"
	"nodesim/model/prober/results"
	"nodesim/model/status"
	"nodesim/sim"
	"nodesim/trace"
)

// fakeStatus caches one pod's status st; the entry it hands out points at st, as the status
// manager's does.
type fakeStatus struct {
	st    *corev1.PodStatus
	entry *status.PodStatusEntry
}

func (f *fakeStatus) PodStatusEntry(types.UID) *status.PodStatusEntry {
	if f.st == nil {
		return nil
	}
	if f.entry == nil {
		f.entry = &status.PodStatusEntry{}
	}
	f.entry.Status = f.st
	return f.entry
}

// update replaces the status with a changed copy, as the status manager does: a cached
// status is never changed in place, and workers rely on that.
func (f *fakeStatus) update(change func(*corev1.PodStatus)) {
	st := f.st.DeepCopy()
	change(st)
	f.st = st
	if f.entry != nil {
		f.entry.Status = st
	}
}

type fakeRunner struct {
	ok   bool
	took time.Duration
}

func (f *fakeRunner) ProbeTarget(string, ProbeType) Target { return f }

func (f *fakeRunner) RunProbe() (bool, time.Duration) { return f.ok, f.took }

type harness struct {
	s      *sim.Sim
	log    *trace.Log
	status *fakeStatus
	runner *fakeRunner
	m      *Manager
	w      *worker
}

func boolPtr(b bool) *bool { return &b }

// newHarness builds one worker of probe type pt for a running container started at time
// zero, with the given probe settings.
func newHarness(pt ProbeType, probe corev1.Probe) *harness {
	log := &trace.Log{}
	s := sim.New(1, log)
	h := &harness{s: s, log: log, runner: &fakeRunner{ok: true}}
	started := metav1.NewTime(s.Now())
	h.status = &fakeStatus{st: &corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
		Name: "c", ContainerID: "containerd://c1", Started: boolPtr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}}}
	live, ready, startup := results.NewManager(s, "livenessManager"), results.NewManager(s, "readinessManager"), results.NewManager(s, "startupManager")
	// A kubelet started long ago: no start-up jitter.
	h.m = NewManager(s, h.status, h.runner, live, ready, startup, s.Now().Add(-time.Hour))
	if probe.PeriodSeconds == 0 {
		probe.PeriodSeconds = 10
	}
	if probe.TimeoutSeconds == 0 {
		probe.TimeoutSeconds = 1
	}
	if probe.SuccessThreshold == 0 {
		probe.SuccessThreshold = 1
	}
	if probe.FailureThreshold == 0 {
		probe.FailureThreshold = 3
	}
	c := corev1.Container{Name: "c"}
	switch pt {
	case Liveness:
		c.LivenessProbe = &probe
	case Readiness:
		c.ReadinessProbe = &probe
	default:
		c.StartupProbe = &probe
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}
	h.w = newWorker(h.m, pod, &pod.Spec.Containers[0], pt, &probe)
	return h
}

func (h *harness) probe(t *testing.T) results.Result {
	t.Helper()
	if !h.w.doProbe() {
		t.Fatal("the worker stopped")
	}
	// Drain the update channel as the syncLoop would.
	for _, m := range []*results.Manager{h.m.liveness, h.m.readiness, h.m.startup} {
		for m.Updates().Len() > 0 {
			m.Updates().TryRecv()
		}
	}
	h.s.Step(0)
	r, _ := h.w.results.Get("c1")
	return r
}

// After upstream's TestFailureThreshold and TestSuccessThreshold: a result changes only
// after the threshold's worth of consecutive probes, and a single contrary result resets the
// count.
func TestThresholds(t *testing.T) {
	h := newHarness(Readiness, corev1.Probe{FailureThreshold: 3, SuccessThreshold: 2})
	h.runner.ok = false
	if r := h.probe(t); r != results.Failure {
		t.Fatalf("readiness starts as Failure, got %v", r)
	}
	h.runner.ok = true
	if r := h.probe(t); r != results.Failure {
		t.Fatalf("one success below successThreshold 2 flipped readiness")
	}
	if r := h.probe(t); r != results.Success {
		t.Fatalf("two successes: want Success, got %v", r)
	}
	h.runner.ok = false
	for i := 1; i <= 2; i++ {
		if r := h.probe(t); r != results.Success {
			t.Fatalf("failure %d below failureThreshold 3 flipped readiness", i)
		}
	}
	h.runner.ok = true
	h.probe(t) // a success in between resets the failure count
	h.runner.ok = false
	for i := 1; i <= 2; i++ {
		if r := h.probe(t); r != results.Success {
			t.Fatalf("the count was not reset by the success (failure %d)", i)
		}
	}
	if r := h.probe(t); r != results.Failure {
		t.Fatalf("three consecutive failures: want Failure, got %v", r)
	}
}

// After upstream's TestOnHoldOnLivenessOrStartupCheckFailure: once liveness fails, the
// worker holds until a new container ID appears, then starts from the initial value.
func TestLivenessFailureHoldsUntilANewContainer(t *testing.T) {
	h := newHarness(Liveness, corev1.Probe{FailureThreshold: 1})
	if r := h.probe(t); r != results.Success {
		t.Fatalf("liveness starts as Success, got %v", r)
	}
	h.runner.ok = false
	if r := h.probe(t); r != results.Failure {
		t.Fatalf("want Failure at failureThreshold 1, got %v", r)
	}
	h.runner.ok = true
	if r := h.probe(t); r != results.Failure || !h.w.onHold {
		t.Fatalf("on hold: the result must stay Failure, got %v (onHold %v)", r, h.w.onHold)
	}
	h.status.update(func(st *corev1.PodStatus) { st.ContainerStatuses[0].ContainerID = "containerd://c2" })
	h.probe(t)
	if h.w.onHold || h.w.containerID != "c2" {
		t.Fatalf("a new container must lift the hold: onHold %v id %s", h.w.onHold, h.w.containerID)
	}
	if r, _ := h.w.results.Get("c2"); r != results.Success {
		t.Fatalf("the new container's liveness = %v, want Success", r)
	}
}

// After upstream's TestInitialDelay: no probe runs before initialDelaySeconds.
func TestInitialDelay(t *testing.T) {
	h := newHarness(Readiness, corev1.Probe{InitialDelaySeconds: 10, FailureThreshold: 1})
	h.probe(t)
	if h.w.resultRun != 0 {
		t.Fatal("a probe ran within the initial delay")
	}
	h.s.Step(10 * time.Second)
	h.probe(t)
	if h.w.resultRun != 1 {
		t.Fatal("no probe after the initial delay")
	}
}

// A probe that takes longer than timeoutSeconds fails, whatever it would have said.
func TestTimeoutFails(t *testing.T) {
	h := newHarness(Readiness, corev1.Probe{TimeoutSeconds: 1, FailureThreshold: 1})
	h.runner.took = 2 * time.Second
	if r := h.probe(t); r != results.Failure {
		t.Fatalf("a 2s probe with a 1s timeout: %v, want Failure", r)
	}
}

// After upstream's TestLivenessProbeDisabledByStarted / TestStartupProbeDisabledByStarted:
// liveness waits while the container has not started; startup idles once it has.
func TestStartupGating(t *testing.T) {
	h := newHarness(Liveness, corev1.Probe{FailureThreshold: 1})
	h.status.update(func(st *corev1.PodStatus) { st.ContainerStatuses[0].Started = boolPtr(false) })
	h.runner.ok = false
	h.probe(t)
	if h.w.resultRun != 0 {
		t.Fatal("liveness probed a container that has not started")
	}
	s := newHarness(Startup, corev1.Probe{FailureThreshold: 1})
	s.runner.ok = false
	s.probe(t)
	if s.w.resultRun != 0 {
		t.Fatal("the startup probe ran although the container has started")
	}
}

// A terminal pod stops the worker.
func TestTerminalPodStopsWorker(t *testing.T) {
	h := newHarness(Readiness, corev1.Probe{})
	h.status.update(func(st *corev1.PodStatus) { st.Phase = corev1.PodSucceeded })
	if h.w.doProbe() {
		t.Fatal("the worker kept going for a terminal pod")
	}
}

// A container that was running 10s or more before this kubelet started (adopted after a
// restart): with ChangeContainerStatusOnKubeletRestart off the worker does not reset its
// result to the initial value, so a readiness probe that has not yet failed
// failureThreshold times leaves no result (status generation keeps the previous Ready), and
// the startup probe of a started container sets none (Started is kept). On, the initial
// values come back: readiness Failure, startup Unknown.
func TestAdoptedContainerKeepsItsResults(t *testing.T) {
	for _, gate := range []bool{false, true} {
		for _, pt := range []ProbeType{Readiness, Startup} {
			h := newHarness(pt, corev1.Probe{})
			h.runner.ok = false
			// The container started at time zero; this kubelet a minute later.
			h.m.kubeletStartedAt = h.s.Now().Add(time.Minute)
			h.m.ChangeContainerStatusOnKubeletRestart = gate
			h.probe(t)
			r, known := h.w.results.Get("c1")
			switch {
			case !gate && known:
				t.Errorf("gate off, %s: result %s set for an adopted container, want none", pt, r)
			case gate && pt == Readiness && (!known || r != results.Failure):
				t.Errorf("gate on, readiness: %s (known %v), want the initial Failure", r, known)
			case gate && pt == Startup && (!known || r != results.Unknown):
				t.Errorf("gate on, startup: %s (known %v), want the initial Unknown", r, known)
			}
		}
	}
	// A container started after the kubelet (by less than the 10s grace before it, too)
	// gets the initial value whatever the gate.
	h := newHarness(Readiness, corev1.Probe{})
	h.runner.ok = false
	h.m.kubeletStartedAt = h.s.Now().Add(5 * time.Second)
	h.probe(t)
	if r, known := h.w.results.Get("c1"); !known || r != results.Failure {
		t.Errorf("container started 5s before the kubelet: %s (known %v), want the initial Failure", r, known)
	}
}

// A worker whose container has exited keeps going only while the container will run again
// (upstream doProbe with ContainerRestartRules): in a restartPolicy Never pod, a container
// with restartPolicy Never and Restart In [42] keeps its worker after exit 42 and loses it
// after exit 1; with the gate off the pod's Never stops it after either.
func TestWorkerStopsWhenTheContainerWillNotRestart(t *testing.T) {
	for _, tc := range []struct {
		code  int32
		gates kuberuntime.RestartGates
		keep  bool
	}{
		{42, kuberuntime.DefaultRestartGates(), true},
		{1, kuberuntime.DefaultRestartGates(), false},
		{42, kuberuntime.RestartGates{}, false},
	} {
		h := newHarness(Readiness, corev1.Probe{})
		h.m.RestartGates = tc.gates
		never := corev1.ContainerRestartPolicyNever
		h.w.pod.Spec.RestartPolicy = corev1.RestartPolicyNever
		h.w.container.RestartPolicy = &never
		h.w.container.RestartPolicyRules = []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
			ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
		h.status.update(func(st *corev1.PodStatus) {
			st.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: tc.code}}
		})
		if got := h.w.doProbe(); got != tc.keep {
			t.Errorf("exit %d, gates %+v: worker keeps going = %v, want %v", tc.code, tc.gates, got, tc.keep)
		}
	}
}

// A worker keeps one period timer and one trigger timer for its life: the ticker probes on
// every period, a manual trigger probes at once, and triggers asked for while one is
// pending make a single probe.
func TestWorkerTimersReArm(t *testing.T) {
	h := newHarness(Readiness, corev1.Probe{PeriodSeconds: 10})
	h.w.start() // the kubelet started an hour ago: no start-up jitter
	h.s.Step(0)
	if h.w.resultRun != 1 {
		t.Fatalf("after start: %d probes, want 1", h.w.resultRun)
	}
	h.s.Step(35 * time.Second) // probes at 10s, 20s and 30s
	if h.w.resultRun != 4 {
		t.Fatalf("after 35s: %d probes, want 4", h.w.resultRun)
	}
	for round := 1; round <= 2; round++ {
		h.w.trigger()
		h.w.trigger()
		h.s.Step(0)
		if want := 4 + round; h.w.resultRun != want {
			t.Fatalf("trigger round %d: %d probes, want %d", round, h.w.resultRun, want)
		}
	}
	h.w.stop()
	h.w.trigger()
	h.s.Step(time.Minute)
	if h.w.resultRun != 6 {
		t.Fatalf("a stopped worker probed: %d probes, want 6", h.w.resultRun)
	}
}

// The counted attribute's table gives what strconv gives, inside it and past its end.
func TestCounted(t *testing.T) {
	h := newHarness(Readiness, corev1.Probe{})
	for _, n := range []int{0, 1, 99, 100, 12345, maxCounted - 1, maxCounted, maxCounted + 1, 1 << 20} {
		if got, want := h.m.counted(n), strconv.Itoa(n); got != want {
			t.Errorf("counted(%d) = %q, want %q", n, got, want)
		}
	}
}

// A probe below its threshold records that it was held, and why, in the words of the
// threshold that held it; the other probes record whether they changed the result.
func TestResultEvents(t *testing.T) {
	h := newHarness(Readiness, corev1.Probe{FailureThreshold: 2, SuccessThreshold: 2})
	for _, ok := range []bool{true, true, true, false, false, false, true} {
		h.runner.ok = ok
		h.probe(t)
	}
	var got []string
	for _, e := range h.log.Filter(func(e *trace.Event) bool { return e.Kind == trace.ProbeResult }) {
		line := fmt.Sprint(e.Name, " ", e.Pod, " ", e.Container, " ", e.Attrs)
		if e.Reason != nil {
			line += fmt.Sprint(" ", e.Reason.Rule, ": ", e.Reason.Text, " ", e.Reason.Values)
		}
		got = append(got, line)
	}
	want := []string{
		"readiness ns/p c [{result success} {counted 1} {held true}] probeThreshold/successThreshold: the readiness probe needs 2 success results in a row (successThreshold) before its result changes [{successThreshold 2}]",
		"readiness ns/p c [{result success} {counted 2} {changed true}]",
		"readiness ns/p c [{result success} {counted 3}]",
		"readiness ns/p c [{result failure} {counted 1} {held true}] probeThreshold/failureThreshold: the readiness probe needs 2 failure results in a row (failureThreshold) before its result changes [{failureThreshold 2}]",
		"readiness ns/p c [{result failure} {counted 2} {changed true}]",
		"readiness ns/p c [{result failure} {counted 3}]",
		"readiness ns/p c [{result success} {counted 1} {held true}] probeThreshold/successThreshold: the readiness probe needs 2 success results in a row (successThreshold) before its result changes [{successThreshold 2}]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("probe results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A round on the same status as the last one skips the status checks it passed, but still
// sees what may change without a new status: the pod's deletion stops a liveness worker
// (publishing Success), and a new status is checked afresh.
func TestUnchangedStatusRound(t *testing.T) {
	h := newHarness(Liveness, corev1.Probe{FailureThreshold: 1})
	h.probe(t)
	if !h.w.seenProbes || h.w.resultRun != 1 {
		t.Fatalf("first round: seenProbes %v, resultRun %d", h.w.seenProbes, h.w.resultRun)
	}
	h.probe(t)
	if h.w.resultRun != 2 {
		t.Fatalf("a round on the same status did not probe: resultRun %d", h.w.resultRun)
	}
	h.status.update(func(st *corev1.PodStatus) { st.ContainerStatuses[0].Started = boolPtr(false) })
	h.probe(t)
	if h.w.resultRun != 2 || h.w.seenProbes {
		t.Fatalf("liveness probed a container the new status says has not started: resultRun %d", h.w.resultRun)
	}
	h.status.update(func(st *corev1.PodStatus) { st.ContainerStatuses[0].Started = boolPtr(true) })
	h.probe(t)
	h.runner.ok = false
	h.w.pod.DeletionTimestamp = &metav1.Time{Time: h.s.Now()}
	if h.w.doProbe() {
		t.Fatal("a liveness worker kept going for a deleted pod")
	}
	if r, _ := h.w.results.Get("c1"); r != results.Success {
		t.Fatalf("a deleted pod's liveness = %v, want Success", r)
	}
}

// BenchmarkUnchangedProbe is one round of a readiness worker whose pod status and result do
// not change: the common case, every period, for every probed container of a steady node.
func BenchmarkUnchangedProbe(b *testing.B) {
	s := sim.New(1, trace.Discard{})
	started := metav1.NewTime(s.Now())
	st := &fakeStatus{st: &corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
		Name: "c", ContainerID: "containerd://c1", Started: boolPtr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}}}
	m := NewManager(s, st, &fakeRunner{ok: true}, results.NewManager(s, "livenessManager"),
		results.NewManager(s, "readinessManager"), results.NewManager(s, "startupManager"), s.Now().Add(-time.Hour))
	probe := corev1.Probe{PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", ReadinessProbe: &probe}}}}
	w := newWorker(m, pod, &pod.Spec.Containers[0], Readiness, &probe)
	w.doProbe()
	m.readiness.Updates().TryRecv()
	s.Step(0)
	b.ReportAllocs()
	for b.Loop() {
		w.resultRun = 1 // stay within the shared attribute table
		if !w.doProbe() || w.blocked {
			b.Fatal("the worker stopped or blocked")
		}
	}
}

// settlingTarget is a target that settles while it answers Success at once, and counts
// the probes it runs.
type settlingTarget struct {
	fakeRunner
	runs  int
	ended func()
}

func (f *settlingTarget) ProbeTarget(string, ProbeType) Target { return f }

func (f *settlingTarget) RunProbe() (bool, time.Duration) { f.runs++; return f.ok, f.took }

func (f *settlingTarget) Settle(ended func()) bool {
	if !f.ok || f.took != 0 {
		return false
	}
	f.ended = ended
	return true
}

// A steady worker whose target settled records a success every period without running the
// probe, until the target says its container ended: the next round runs it again.
func TestSettledTargetIsNotProbedUntilItEnds(t *testing.T) {
	h := newHarness(Liveness, corev1.Probe{PeriodSeconds: 10, FailureThreshold: 1})
	target := &settlingTarget{fakeRunner: fakeRunner{ok: true}}
	h.m.runner = target
	probeEvents := func() []*trace.Event {
		return h.log.Filter(func(e *trace.Event) bool { return e.Kind == trace.ProbeResult })
	}
	h.w.start()
	h.s.RunUntil(h.s.Elapsed() + 35*time.Second)
	if target.ended == nil {
		t.Fatalf("the worker never settled its target (%d probes run)", target.runs)
	}
	runs, recorded := target.runs, len(probeEvents())
	h.s.RunUntil(h.s.Elapsed() + time.Minute)
	if target.runs != runs {
		t.Errorf("a settled target was probed %d more times", target.runs-runs)
	}
	if n := len(probeEvents()) - recorded; n != 6 {
		t.Errorf("%d results recorded in a minute of 10s periods, want 6", n)
	}
	for _, e := range probeEvents()[recorded:] {
		if e.Attr("result") != "success" {
			t.Fatalf("a settled round recorded %s", e.Attr("result"))
		}
	}
	target.ok = false
	target.ended()
	h.s.RunUntil(h.s.Elapsed() + 10*time.Second)
	if target.runs != runs+1 {
		t.Errorf("after the end, %d probes ran in a period, want 1", target.runs-runs)
	}
	if all := probeEvents(); all[len(all)-1].Attr("result") != "failure" {
		t.Errorf("the round after the end recorded %s, want failure", all[len(all)-1].Attr("result"))
	}
}

// A steady liveness worker whose probe starts failing counts the failures from one, is put
// on hold at the threshold and then probes no more; a success in between counts from one
// again. The rounds run on the worker's own ticker, steady ones included.
func TestSteadyWorkerFailsLikeAnyOther(t *testing.T) {
	h := newHarness(Liveness, corev1.Probe{PeriodSeconds: 10, FailureThreshold: 2})
	h.w.start()
	period := func(ok bool) {
		h.runner.ok = ok
		h.s.RunUntil(h.s.Elapsed() + 10*time.Second)
	}
	for range 4 {
		period(true)
	}
	first := len(h.log.Events)
	period(false)
	period(true)
	period(false)
	period(false) // the threshold: Failure, then on hold
	period(true)
	period(true)
	var got []string
	for _, e := range h.log.Events[first:] {
		if e.Kind == trace.ProbeResult {
			got = append(got, e.Attr("result")+"/"+e.Attr("counted"))
		}
	}
	want := []string{"failure/1", "success/1", "failure/1", "failure/2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("probe results %v, want %v", got, want)
	}
}

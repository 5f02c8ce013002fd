package podworkers

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/model/kuberuntime"
	"nodesim/sim"
	"nodesim/trace"
)

// --- fakes

// syncCall is one call of a sync function, recorded when it starts.
type syncCall struct {
	fn         string
	at         time.Duration
	updateType UpdateType
	pod        *corev1.Pod
	runningPod *container.Pod
	grace      *int64
	statusFn   bool
}

func (c syncCall) String() string {
	name := "-"
	if c.pod != nil {
		name = c.pod.Name + "/" + c.pod.ResourceVersion
	} else if c.runningPod != nil {
		name = "runtime:" + c.runningPod.Name
	}
	g := "nil"
	if c.grace != nil {
		g = fmt.Sprint(*c.grace)
	}
	if c.fn == "SyncPod" {
		return fmt.Sprintf("%s(%s, %s)@%s", c.fn, c.updateType, name, c.at)
	}
	return fmt.Sprintf("%s(%s, grace=%s)@%s", c.fn, name, g, c.at)
}

// fakeSyncer records every sync call and completes it delay later (simulated time).
// syncPod decides SyncPod's outcome; the other functions succeed unless told otherwise.
type fakeSyncer struct {
	s        *sim.Sim
	delay    time.Duration
	calls    []syncCall
	syncPod  func(pod *corev1.Pod) (bool, error)
	termErr  error
	finalErr error
}

func (f *fakeSyncer) record(c syncCall) {
	c.at = f.s.Elapsed()
	if c.grace != nil {
		g := *c.grace
		c.grace = &g
	}
	f.calls = append(f.calls, c)
}

func (f *fakeSyncer) SyncPod(updateType UpdateType, pod, _ *corev1.Pod, _ *container.PodStatus, _ *HandlerState, done func(bool, error)) {
	f.record(syncCall{fn: "SyncPod", updateType: updateType, pod: pod})
	terminal, err := false, error(nil)
	if f.syncPod != nil {
		terminal, err = f.syncPod(pod)
	}
	f.s.Continue(f.delay, func() { done(terminal, err) })
}

func (f *fakeSyncer) SyncTerminatingPod(pod *corev1.Pod, _ *container.PodStatus, grace *int64, statusFn func(*corev1.PodStatus), done func(error)) {
	f.record(syncCall{fn: "SyncTerminatingPod", pod: pod, grace: grace, statusFn: statusFn != nil})
	f.s.Continue(f.delay, func() { done(f.termErr) })
}

func (f *fakeSyncer) SyncTerminatingRuntimePod(runningPod *container.Pod, done func(error)) {
	f.record(syncCall{fn: "SyncTerminatingRuntimePod", runningPod: runningPod})
	f.s.Continue(f.delay, func() { done(nil) })
}

func (f *fakeSyncer) SyncTerminatedPod(pod *corev1.Pod, _ *container.PodStatus, done func(error)) {
	f.record(syncCall{fn: "SyncTerminatedPod", pod: pod})
	f.s.Continue(f.delay, func() { done(f.finalErr) })
}

func (f *fakeSyncer) fns() []string {
	var out []string
	for _, c := range f.calls {
		out = append(out, c.fn)
	}
	return out
}

type queued struct {
	uid   types.UID
	delay time.Duration
	at    time.Duration
}

// fakeQueue captures the worker's requeue requests.
type fakeQueue struct {
	s     *sim.Sim
	items []queued
}

func (q *fakeQueue) Enqueue(uid types.UID, delay time.Duration) {
	q.items = append(q.items, queued{uid: uid, delay: delay, at: q.s.Elapsed()})
}

type env struct {
	s     *sim.Sim
	cache *container.Cache
	h     *fakeSyncer
	q     *fakeQueue
	pw    *PodWorkers
	test  *sim.Clock
}

func newEnv(delay time.Duration) *env {
	s := sim.New(7, nil)
	cache := container.NewCache(s)
	h := &fakeSyncer{s: s, delay: delay}
	q := &fakeQueue{s: s}
	return &env{s: s, cache: cache, h: h, q: q, pw: New(s, h, q, cache, time.Minute), test: s.Clock("test", sim.PriorityConfig)}
}

// relistEvery stands in for PLEG: from now on, every period, a relist completes and bumps
// the cache's global timestamp, releasing workers that wait for a newer status.
func (e *env) relistEvery(period time.Duration) {
	clk := e.s.Clock("pleg", sim.PriorityPLEG)
	var tick func()
	tick = func() {
		e.cache.UpdateTime(clk.Now())
		clk.Schedule(period, tick)
	}
	clk.Schedule(0, tick)
}

// freshCache makes every GetNewerThan succeed at once (a global timestamp far ahead), so
// that rounds are paced only by the sync functions.
func (e *env) freshCache() { e.cache.UpdateTime(sim.Epoch.Add(1000 * time.Hour)) }

// at runs fn at simulated time d (as a config source or the syncLoop would).
func (e *env) at(d time.Duration, fn func()) {
	e.test.Schedule(d-e.s.Elapsed(), fn)
}

func int64p(v int64) *int64 { return &v }

func newPod(uid, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name, Namespace: "ns", ResourceVersion: "1"},
		Spec:       corev1.PodSpec{TerminationGracePeriodSeconds: int64p(30)},
	}
}

// version returns a copy of pod with another resource version (a newer spec).
func version(pod *corev1.Pod, rv string) *corev1.Pod {
	p := pod.DeepCopy()
	p.ResourceVersion = rv
	return p
}

func deleted(pod *corev1.Pod, grace int64) *corev1.Pod {
	p := pod.DeepCopy()
	ts := metav1.NewTime(sim.Epoch)
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, int64p(grace)
	return p
}

func staticPod(uid, name string) *corev1.Pod {
	p := newPod(uid, name)
	p.Annotations = map[string]string{"kubernetes.io/config.source": "file"}
	return p
}

func (e *env) expectCalls(t *testing.T, want ...string) {
	t.Helper()
	var got []string
	for _, c := range e.h.calls {
		got = append(got, c.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("sync calls\n got  %q\n want %q", got, want)
	}
}

func inRange(d, lo, hi time.Duration) bool { return d >= lo && d < hi }

// --- UpdatePod and the worker loop

// While a sync is in flight, later updates replace each other: the next round sees only
// the newest, with the oldest StartTime; it waits for a cache refresh after the sync ended.
func TestUpdatePodCoalescesPendingUpdates(t *testing.T) {
	e := newEnv(500 * time.Millisecond)
	e.relistEvery(time.Second)
	v1 := newPod("u1", "web")
	v2, v3 := version(v1, "2"), version(v1, "3")
	e.at(0, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: v1, StartTime: e.s.Now()}) })
	e.at(100*time.Millisecond, func() {
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: v2, StartTime: e.s.Now()})
	})
	e.at(200*time.Millisecond, func() {
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: v3, StartTime: e.s.Now()})
	})
	e.s.RunUntil(300 * time.Millisecond)

	st := e.pw.podSyncStatuses["u1"]
	if st.pendingUpdate == nil || st.pendingUpdate.Pod != v3 {
		t.Fatalf("pending update %+v, want v3", st.pendingUpdate)
	}
	if want := sim.Epoch.Add(100 * time.Millisecond); !st.pendingUpdate.StartTime.Equal(want) {
		t.Errorf("pending StartTime %s, want the older one (100ms)", st.pendingUpdate.StartTime.Sub(sim.Epoch))
	}
	if !st.IsWorking() {
		t.Error("worker not marked working with a pending update")
	}

	e.s.RunUntil(3 * time.Second)
	// The first sync ends at 0.5s; the next round waits for the relist at 1s.
	e.expectCalls(t, "SyncPod(create, web/1)@0s", "SyncPod(update, web/3)@1s")
	if st.activeUpdate == nil || st.activeUpdate.Pod != v3 {
		t.Errorf("active update %+v, want v3", st.activeUpdate)
	}
	if st.IsWorking() || st.pendingUpdate != nil {
		t.Errorf("worker still working=%v pending=%v with nothing to do", st.IsWorking(), st.pendingUpdate)
	}
	if len(e.q.items) != 2 {
		t.Fatalf("requeues %v, want one per round", e.q.items)
	}
	for _, it := range e.q.items {
		if !inRange(it.delay, 60*time.Second, 90*time.Second) {
			t.Errorf("resync after success in %s, want [60s, 90s)", it.delay)
		}
	}
}

// A kill that arrives while SyncPod runs cancels that sync (upstream: UpdatePod calls the
// worker's cancelFn when the pod becomes terminating): SyncPod's own completion, due at
// 500ms, never comes; the round ends at 200ms with context.Canceled (error back-off
// requeue, but the pending kill runs at once). The kill is latched: the next round,
// waiting for a cache newer than the cancelled sync (the relist at 1s), terminates with
// the kill's grace, and a later plain update (300ms) does not undo it; the terminated round
// follows with the latest spec.
func TestKillDuringSyncCancelsItAndIsLatched(t *testing.T) {
	e := newEnv(500 * time.Millisecond)
	e.relistEvery(time.Second)
	v1 := newPod("u1", "web")
	v2 := version(v1, "2")
	completed := 0
	var completedAt time.Duration
	e.at(0, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: v1}) })
	e.at(200*time.Millisecond, func() {
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: v1, KillPodOptions: &KillPodOptions{
			Evict:     true,
			Completed: func() { completed++; completedAt = e.s.Elapsed() },
			PodStatusFunc: func(s *corev1.PodStatus) {
				s.Reason = "Evicted"
			},
			PodTerminationGracePeriodSecondsOverride: int64p(5),
		}})
	})
	e.at(300*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: v2}) })

	e.s.RunUntil(400 * time.Millisecond)
	if !e.pw.IsPodTerminationRequested("u1") {
		t.Error("termination not requested after the kill")
	}
	if w, _ := e.pw.State("u1"); w != TerminatingPod {
		t.Errorf("state %s, want terminating", w)
	}
	if e.pw.ShouldPodContainersBeTerminating("u1") {
		t.Error("containers marked terminating before the worker saw the request")
	}

	e.s.RunUntil(time.Second)
	if !e.pw.ShouldPodContainersBeTerminating("u1") {
		t.Error("terminating round started but not acknowledged")
	}
	e.s.RunUntil(5 * time.Second)
	e.expectCalls(t,
		"SyncPod(create, web/1)@0s",
		"SyncTerminatingPod(web/1, grace=5)@1s",
		"SyncTerminatedPod(web/2, grace=nil)@2s",
	)
	if !e.h.calls[1].statusFn {
		t.Error("SyncTerminatingPod did not get the kill's status function")
	}
	if completed != 1 || completedAt != 1500*time.Millisecond {
		t.Errorf("kill completion called %d times, at %s; want once, when terminating finished (1.5s)", completed, completedAt)
	}
	if !e.pw.IsPodKnownTerminated("u1") || !e.pw.ShouldPodBeFinished("u1") || e.pw.CouldHaveRunningContainers("u1") {
		t.Error("pod not known terminated and finished")
	}
	if !e.pw.ShouldPodContentBeRemoved("u1") {
		t.Error("an evicted pod's content is not removable")
	}
	// Requeues: the error back-off of the cancelled SyncPod (10s jittered by up to 50%) at
	// 200ms, immediate after the terminating transition, none after the worker finished.
	if len(e.q.items) != 2 || !inRange(e.q.items[0].delay, 10*time.Second, 15*time.Second) || e.q.items[0].at != 200*time.Millisecond ||
		e.q.items[1].delay != 0 || e.q.items[1].at != 1500*time.Millisecond {
		t.Errorf("requeues %+v", e.q.items)
	}

	// A finished worker ignores everything.
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: v2})
	e.s.RunUntil(10 * time.Second)
	if len(e.h.calls) != 3 {
		t.Errorf("finished worker ran %v", e.h.calls[3:])
	}
}

// With a fresh cache the sync → terminating → terminated chain runs back to back: each
// transition requeues the last update itself.
func TestPhaseTransitionsRequeueAtOnce(t *testing.T) {
	e := newEnv(500 * time.Millisecond)
	e.freshCache()
	pod := newPod("u1", "job")
	e.h.syncPod = func(*corev1.Pod) (bool, error) { return true, nil } // the pod reached a terminal phase
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
	e.s.RunUntil(5 * time.Second)
	e.expectCalls(t,
		"SyncPod(create, job/1)@0s",
		"SyncTerminatingPod(job/1, grace=nil)@500ms",
		"SyncTerminatedPod(job/1, grace=nil)@1s",
	)
	if len(e.q.items) != 2 || e.q.items[0].delay != 0 || e.q.items[1].delay != 0 {
		t.Errorf("requeues %+v, want two immediate ones", e.q.items)
	}
	if !e.pw.ShouldPodBeFinished("u1") {
		t.Error("not finished")
	}
}

// Without a fresh status the terminating and terminated rounds each wait for the next relist.
func TestRoundsWaitForNewerCacheEntry(t *testing.T) {
	e := newEnv(300 * time.Millisecond)
	e.relistEvery(time.Second)
	pod := newPod("u1", "web")
	e.at(2500*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod}) })
	// SyncPod runs 2.5s–2.8s; the deletion at 2.9s must wait for an observation made after
	// 2.8s: the relist at 3s.
	e.at(2900*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 10)}) })
	// The terminating sync ends at 3.3s. A status written for this pod at 3.5s (as by an
	// on-demand relist) releases the terminated round before the 4s relist.
	e.at(3500*time.Millisecond, func() {
		e.cache.Set("u1", &container.PodStatus{ID: "u1"}, nil, e.s.Now())
	})
	e.s.RunUntil(3400 * time.Millisecond)
	if !e.cache.Waiting("u1") {
		t.Error("terminated round is not waiting for a newer pod status")
	}
	e.s.RunUntil(10 * time.Second)
	e.expectCalls(t,
		"SyncPod(create, web/1)@2.5s", // the global timestamp (2s) is newer than "never"
		"SyncTerminatingPod(web/1, grace=10)@3s",
		"SyncTerminatedPod(web/1, grace=nil)@3.5s",
	)
	if !e.pw.ShouldPodContentBeRemoved("u1") {
		t.Error("a deleted, terminated pod's content is not removable")
	}
}

func TestSyncErrorIsRetriedByTheQueue(t *testing.T) {
	e := newEnv(100 * time.Millisecond)
	e.freshCache()
	fail := true
	e.h.syncPod = func(*corev1.Pod) (bool, error) {
		if fail {
			return false, errors.New("failed to mount volumes")
		}
		return false, nil
	}
	pod := newPod("u1", "web")
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
	e.s.RunUntil(time.Second)
	if len(e.q.items) != 1 || !inRange(e.q.items[0].delay, 10*time.Second, 15*time.Second) {
		t.Fatalf("requeues %+v, want one in [10s, 15s)", e.q.items)
	}
	if w, _ := e.pw.State("u1"); w != SyncPodWork || e.pw.IsPodTerminationRequested("u1") {
		t.Error("a failed sync changed the worker's state")
	}
	// The syncLoop calls UpdatePod(sync) when the queue item is due.
	fail = false
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodSync, Pod: pod})
	e.s.RunUntil(2 * time.Second)
	if len(e.h.calls) != 2 || e.h.calls[1].updateType != SyncPodSync {
		t.Errorf("calls %v", e.h.calls)
	}
}

// A cache read that fails ends the round with that error, without calling any sync function.
func TestCacheErrorFailsTheRound(t *testing.T) {
	e := newEnv(100 * time.Millisecond)
	e.cache.Set("u1", nil, errors.New("rpc error: status unavailable"), sim.Epoch)
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: newPod("u1", "web")})
	e.s.RunUntil(time.Second)
	if len(e.h.calls) != 0 {
		t.Errorf("sync functions ran on a cache error: %v", e.h.calls)
	}
	if len(e.q.items) != 1 || !inRange(e.q.items[0].delay, 10*time.Second, 15*time.Second) {
		t.Errorf("requeues %+v, want the error back-off", e.q.items)
	}
}

// A CREATE for a UID whose termination was requested is remembered (restartRequested) and
// otherwise ignored; housekeeping forgets the finished worker so the UID can start again.
func TestCreateWhileTerminatingRequestsRestart(t *testing.T) {
	e := newEnv(500 * time.Millisecond)
	e.freshCache()
	v1 := newPod("u1", "static-ish")
	again := version(v1, "9")
	e.at(0, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: v1}) })
	e.at(100*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: v1}) })
	e.at(200*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: again}) })
	e.s.RunUntil(300 * time.Millisecond)
	st := e.pw.podSyncStatuses["u1"]
	if !st.restartRequested {
		t.Error("restartRequested not set by a CREATE during termination")
	}
	// The kill cancelled SyncPod at 100ms and its round took the kill at once (the cache is
	// fresh): the CREATE left nothing pending.
	if st.pendingUpdate != nil {
		t.Errorf("the ignored CREATE became a pending update: %+v", st.pendingUpdate)
	}

	// Housekeeping while the old pod still terminates (until 600ms) keeps the worker.
	known := e.pw.SyncKnownPods([]*corev1.Pod{again})
	if s, ok := known["u1"]; !ok || s.State != TerminatingPod || s.Orphan || !s.HasConfig {
		t.Errorf("SyncKnownPods during termination: %+v (present %v)", s, ok)
	}

	e.s.RunUntil(2 * time.Second)
	e.expectCalls(t,
		"SyncPod(create, static-ish/1)@0s",
		"SyncTerminatingPod(static-ish/1, grace=30)@100ms",
		"SyncTerminatedPod(static-ish/1, grace=nil)@600ms",
	)
	known = e.pw.SyncKnownPods([]*corev1.Pod{again})
	if _, ok := known["u1"]; ok {
		t.Error("finished worker with a restart request was not forgotten")
	}
	if _, ok := e.pw.State("u1"); ok {
		t.Error("worker status still present")
	}
	// The new CREATE starts a fresh worker for the same UID.
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: again})
	e.s.RunUntil(3 * time.Second)
	if n := len(e.h.calls); n != 4 || e.h.calls[3].fn != "SyncPod" || e.h.calls[3].pod != again {
		t.Errorf("after the restart: %v", e.h.calls[3:])
	}
}

func TestRuntimePods(t *testing.T) {
	t.Run("only kills are accepted, and the worker ends with the pod", func(t *testing.T) {
		e := newEnv(200 * time.Millisecond)
		orphan := &container.Pod{ID: "u9", Name: "orphan", Namespace: "ns"}
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, RunningPod: orphan})
		if _, ok := e.pw.State("u9"); ok {
			t.Fatal("a non-kill runtime-pod update created a worker")
		}
		// No relist ever ran: a runtime-only kill does not wait for the pod cache.
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: orphan})
		st := e.pw.podSyncStatuses["u9"]
		if !st.deleted || !st.observedRuntime || st.gracePeriod != 1 {
			t.Errorf("orphan status deleted=%v observed=%v grace=%d", st.deleted, st.observedRuntime, st.gracePeriod)
		}
		e.s.RunUntil(time.Second)
		if len(e.h.calls) != 1 || e.h.calls[0].fn != "SyncTerminatingRuntimePod" || e.h.calls[0].runningPod != orphan || e.h.calls[0].at != 0 {
			t.Fatalf("calls %v", e.h.calls)
		}
		if _, ok := e.pw.State("u9"); ok || e.pw.IsPodKnownTerminated("u9") {
			t.Error("the runtime pod's worker is still tracked")
		}
	})

	t.Run("a runtime kill for a pod with a known spec uses the spec and marks it deleted", func(t *testing.T) {
		e := newEnv(500 * time.Millisecond)
		e.freshCache()
		pod := newPod("u1", "web")
		e.at(0, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod}) })
		e.at(200*time.Millisecond, func() {
			e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &container.Pod{ID: "u1", Name: "web", Namespace: "ns"}})
		})
		e.s.RunUntil(300 * time.Millisecond)
		st := e.pw.podSyncStatuses["u1"]
		if !st.deleted || !st.observedRuntime {
			t.Errorf("deleted=%v observedRuntime=%v, want both", st.deleted, st.observedRuntime)
		}
		e.s.RunUntil(3 * time.Second)
		// The kill cancelled SyncPod at 200ms; the terminating round runs at once (fresh
		// cache) with the known spec in place of the running pod.
		e.expectCalls(t,
			"SyncPod(create, web/1)@0s",
			"SyncTerminatingPod(web/1, grace=30)@200ms",
			"SyncTerminatedPod(web/1, grace=nil)@700ms",
		)
		if c := e.h.calls[1]; c.pod != pod || c.runningPod != nil {
			t.Errorf("terminating round got pod %v, running pod %v; want the known spec", c.pod, c.runningPod)
		}
		if !e.pw.ShouldPodContentBeRemoved("u1") {
			t.Error("content of an orphan-killed, terminated pod not removable")
		}
	})

	t.Run("a runtime kill for a terminated pod is ignored", func(t *testing.T) {
		e := newEnv(500 * time.Millisecond)
		e.freshCache()
		pod := newPod("u1", "web")
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod})
		e.s.RunUntil(700 * time.Millisecond) // terminating 0–0.5s, terminated round running
		if !e.pw.IsPodKnownTerminated("u1") {
			t.Fatal("not terminated yet")
		}
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &container.Pod{ID: "u1", Name: "web", Namespace: "ns"}})
		if st := e.pw.podSyncStatuses["u1"]; st.pendingUpdate != nil {
			t.Errorf("runtime kill queued %+v for a terminated pod", st.pendingUpdate)
		}
		e.s.RunUntil(3 * time.Second)
		if got := e.h.fns(); !slices.Equal(got, []string{"SyncTerminatingPod", "SyncTerminatedPod"}) {
			t.Errorf("calls %v", got)
		}
	})
}

// A pod seen for the first time in a terminal phase: if the runtime shows nothing running,
// only SyncTerminatedPod runs (kubelet restart); otherwise it is terminated normally.
func TestTerminalPodSeenFirstTime(t *testing.T) {
	succeeded := func() *corev1.Pod {
		p := newPod("u1", "done")
		p.Status.Phase = corev1.PodSucceeded
		return p
	}
	t.Run("runtime shows it stopped", func(t *testing.T) {
		e := newEnv(100 * time.Millisecond)
		e.freshCache()
		e.cache.Set("u1", &container.PodStatus{ID: "u1",
			SandboxStatuses:   []*container.SandboxStatus{{ID: "sb", State: container.SandboxNotReady}},
			ContainerStatuses: []*container.Status{{ID: "c", Name: "main", State: container.StateExited}},
		}, nil, sim.Epoch)
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: succeeded()})
		if !e.pw.IsPodKnownTerminated("u1") || e.pw.CouldHaveRunningContainers("u1") {
			t.Error("a stopped terminal pod is not known terminated at once")
		}
		e.s.RunUntil(time.Second)
		if got := e.h.fns(); !slices.Equal(got, []string{"SyncTerminatedPod"}) {
			t.Errorf("calls %v, want only SyncTerminatedPod", got)
		}
		if !e.pw.ShouldPodBeFinished("u1") {
			t.Error("not finished")
		}
	})
	t.Run("runtime shows a running container", func(t *testing.T) {
		e := newEnv(100 * time.Millisecond)
		e.freshCache()
		e.cache.Set("u1", &container.PodStatus{ID: "u1",
			ContainerStatuses: []*container.Status{{ID: "c", Name: "main", State: container.StateRunning}},
		}, nil, sim.Epoch)
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: succeeded()})
		if e.pw.IsPodKnownTerminated("u1") || !e.pw.IsPodTerminationRequested("u1") {
			t.Error("a running terminal pod should be terminating, not terminated")
		}
		e.s.RunUntil(time.Second)
		e.expectCalls(t, "SyncTerminatingPod(done/1, grace=30)@0s", "SyncTerminatedPod(done/1, grace=nil)@100ms")
	})
}

// Static pods with the same full name run one at a time, first come first served; one whose
// termination is requested before it starts never runs a sync function.
func TestStaticPods(t *testing.T) {
	t.Run("second UID waits for the first to finish", func(t *testing.T) {
		e := newEnv(200 * time.Millisecond)
		e.freshCache()
		first, second := staticPod("s1", "etcd"), staticPod("s2", "etcd")
		e.at(0, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: first}) })
		e.at(100*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: second}) })
		e.at(time.Second, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(first, 0)}) })
		e.s.RunUntil(900 * time.Millisecond)
		var waits []queued
		for _, it := range e.q.items {
			if it.uid == "s2" {
				waits = append(waits, it)
			}
		}
		if len(waits) != 1 || !inRange(waits[0].delay, 10*time.Second, 15*time.Second) {
			t.Errorf("second static pod requeued %+v, want once in [10s, 15s)", waits)
		}
		if e.pw.podSyncStatuses["s2"].IsStarted() {
			t.Error("second static pod started while the first runs")
		}
		e.s.RunUntil(2 * time.Second)
		// The syncLoop retries the waiting pod when its queue item is due.
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodSync, Pod: second})
		e.s.RunUntil(3 * time.Second)
		e.expectCalls(t,
			"SyncPod(create, etcd/1)@0s",
			"SyncTerminatingPod(etcd/1, grace=1)@1s",
			"SyncTerminatedPod(etcd/1, grace=nil)@1.2s",
			"SyncPod(sync, etcd/1)@2s",
		)
		if e.h.calls[3].pod != second {
			t.Error("the last SyncPod is not for the second UID")
		}
	})
	t.Run("deleted before it started: never runs", func(t *testing.T) {
		e := newEnv(200 * time.Millisecond)
		e.freshCache()
		pod := staticPod("s3", "kube-proxy")
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 30)})
		e.s.RunUntil(time.Second)
		if len(e.h.calls) != 0 {
			t.Errorf("a static pod deleted before it started ran %v", e.h.calls)
		}
		if !e.pw.IsPodKnownTerminated("s3") || !e.pw.ShouldPodBeFinished("s3") {
			t.Error("the never-started static pod is not finished")
		}
	})
	t.Run("an ordinary pod deleted before its first round still terminates through the sync functions", func(t *testing.T) {
		e := newEnv(200 * time.Millisecond)
		e.freshCache()
		pod := newPod("u3", "web")
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
		e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 30)})
		e.s.RunUntil(time.Second)
		if got := e.h.fns(); !slices.Equal(got, []string{"SyncTerminatingPod", "SyncTerminatedPod"}) {
			t.Errorf("calls %v", got)
		}
	})
}

// Housekeeping: orphans are driven to termination, finished orphans are forgotten, and the
// answers for unknown pods change once the pod set has been synced.
func TestSyncKnownPods(t *testing.T) {
	e := newEnv(200 * time.Millisecond)
	e.freshCache()
	running, done := newPod("a", "running"), newPod("b", "done")
	if !e.pw.CouldHaveRunningContainers("zz") || e.pw.ShouldPodBeFinished("zz") || e.pw.ShouldPodRuntimeBeRemoved("zz") {
		t.Error("before the first SyncKnownPods an unknown pod must be assumed to run")
	}
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: running})
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodKill, Pod: done})
	e.s.RunUntil(time.Second)
	if !e.pw.ShouldPodBeFinished("b") {
		t.Fatal("b not finished")
	}

	known := e.pw.SyncKnownPods(nil)
	if _, ok := known["b"]; ok {
		t.Error("finished orphan b still reported")
	}
	if _, ok := e.pw.State("b"); ok {
		t.Error("finished orphan b not forgotten")
	}
	a, ok := known["a"]
	if !ok || !a.Orphan || a.State != TerminatingPod || !a.HasConfig || a.Static {
		t.Errorf("orphan a: %+v (present %v)", a, ok)
	}
	st := e.pw.podSyncStatuses["a"]
	if !st.deleted || st.gracePeriod != 30 {
		t.Errorf("orphan a deleted=%v grace=%d, want true and the spec's 30", st.deleted, st.gracePeriod)
	}
	if e.pw.CouldHaveRunningContainers("zz") || !e.pw.ShouldPodBeFinished("zz") || !e.pw.ShouldPodContainersBeTerminating("zz") {
		t.Error("after SyncKnownPods an unknown pod must be treated as gone")
	}

	e.s.RunUntil(2 * time.Second)
	var aCalls []string
	for _, c := range e.h.calls {
		if c.pod == running {
			aCalls = append(aCalls, c.fn)
		}
	}
	if !slices.Equal(aCalls, []string{"SyncPod", "SyncTerminatingPod", "SyncTerminatedPod"}) {
		t.Errorf("orphan a ran %v", aCalls)
	}
	if !e.pw.ShouldPodContentBeRemoved("a") {
		t.Error("orphaned, terminated pod's content not removable")
	}
	if known := e.pw.SyncKnownPods(nil); len(known) != 0 {
		t.Errorf("workers left after every orphan finished: %v", known)
	}
}

// --- calculateEffectiveGracePeriod

func TestCalculateEffectiveGracePeriod(t *testing.T) {
	spec := func(grace *int64) *corev1.Pod {
		p := newPod("u", "p")
		p.Spec.TerminationGracePeriodSeconds = grace
		return p
	}
	withDeletion := func(p *corev1.Pod, grace int64) *corev1.Pod { return deleted(p, grace) }
	override := func(g int64) *KillPodOptions {
		return &KillPodOptions{PodTerminationGracePeriodSecondsOverride: int64p(g)}
	}
	cases := []struct {
		name      string
		current   int64
		pod       *corev1.Pod
		opts      *KillPodOptions
		want      int64
		shortened bool
	}{
		{name: "nothing set: the spec's grace", pod: spec(int64p(30)), want: 30},
		{name: "no spec grace either: floor of 1s", pod: spec(nil), want: 1},
		{name: "spec grace 0: floor of 1s", pod: spec(int64p(0)), want: 1},
		{name: "deletion grace wins over the spec", pod: withDeletion(spec(int64p(30)), 10), want: 10},
		{name: "deletion grace longer than the spec still wins when nothing is set yet", pod: withDeletion(spec(int64p(30)), 45), want: 45},
		{name: "force delete (grace 0) gives 1s, not the spec", pod: withDeletion(spec(int64p(30)), 0), want: 1},
		{name: "kill override wins over the spec", pod: spec(int64p(30)), opts: override(5), want: 5},
		{name: "kill override of 0 gives 1s, not the spec", pod: spec(int64p(30)), opts: override(0), want: 1},
		{name: "override shorter than the deletion grace", pod: withDeletion(spec(int64p(30)), 15), opts: override(5), want: 5},
		{name: "override longer than the deletion grace is ignored", pod: withDeletion(spec(int64p(30)), 15), opts: override(20), want: 15},
		{name: "running value kept when nothing new", current: 10, pod: spec(int64p(30)), want: 10},
		{name: "longer deletion grace cannot extend it", current: 10, pod: withDeletion(spec(int64p(30)), 20), want: 10},
		{name: "longer override cannot extend it", current: 10, pod: spec(int64p(30)), opts: override(60), want: 10},
		{name: "same override is not a shortening", current: 10, pod: spec(int64p(30)), opts: override(10), want: 10},
		{name: "shorter override shortens", current: 10, pod: spec(int64p(30)), opts: override(3), want: 3, shortened: true},
		{name: "shorter deletion grace shortens", current: 30, pod: withDeletion(spec(int64p(30)), 2), want: 2, shortened: true},
		{name: "override 0 on a running grace shortens to 1s", current: 5, pod: spec(int64p(30)), opts: override(0), want: 1, shortened: true},
		{name: "runtime-only pod (no spec)", pod: nil, want: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := &podSyncStatus{gracePeriod: tc.current}
			got, shortened := calculateEffectiveGracePeriod(st, tc.pod, tc.opts)
			if got != tc.want || shortened != tc.shortened {
				t.Errorf("got %d (shortened %v), want %d (shortened %v)", got, shortened, tc.want, tc.shortened)
			}
			if st.gracePeriod != got {
				t.Errorf("status grace %d, want it to follow the result %d", st.gracePeriod, got)
			}
		})
	}
}

// --- completeWork's requeue delays

// expiring is a crash-loop back-off error ending at a given time.
type expiring struct{ at time.Time }

func (e *expiring) Error() string            { return "back-off restarting failed container" }
func (e *expiring) BackoffExpiry() time.Time { return e.at }

func TestCompleteWorkRequeueDelays(t *testing.T) {
	e := newEnv(0)
	e.s.Step(100 * time.Second)
	now := e.s.Now()
	in := func(d time.Duration) error { return &expiring{at: now.Add(d)} }
	runtimeResult := func() error {
		r := &kuberuntime.PodSyncResult{SyncResults: []*kuberuntime.SyncResult{
			{Action: kuberuntime.StartContainer, Target: "a", Error: &kuberuntime.BackoffError{Msg: "back-off 40s", Expiry: now.Add(40 * time.Second)}},
			{Action: kuberuntime.StartContainer, Target: "b", Error: &kuberuntime.BackoffError{Msg: "back-off 20s", Expiry: now.Add(20 * time.Second)}},
			{Action: kuberuntime.StartContainer, Target: "c"},
		}}
		return r.Error()
	}
	cases := []struct {
		name   string
		phase  bool
		err    error
		lo, hi time.Duration // delay in [lo, hi); lo == hi means exactly lo
	}{
		{name: "success: resync interval with jitter", lo: 60 * time.Second, hi: 90 * time.Second},
		{name: "phase transition: at once", phase: true, lo: 0, hi: 0},
		{name: "error: back-off period with jitter", err: errors.New("failed to sync"), lo: 10 * time.Second, hi: 15 * time.Second},
		{name: "network not ready: short back-off", err: errors.New("network is not ready: container runtime network not ready"), lo: time.Second, hi: 1500 * time.Millisecond},
		{name: "crash-loop back-off 20s away", err: in(20 * time.Second), lo: 20 * time.Second, hi: 30 * time.Second},
		{name: "wrapped crash-loop back-off", err: fmt.Errorf("sync: %w", in(20*time.Second)), lo: 20 * time.Second, hi: 30 * time.Second},
		{name: "several back-offs: the earliest counts", err: errors.Join(errors.New("other"), in(40*time.Second), fmt.Errorf("x: %w", in(8*time.Second))), lo: 8 * time.Second, hi: 12 * time.Second},
		{name: "runtime sync result with two containers in back-off", err: runtimeResult(), lo: 20 * time.Second, hi: 30 * time.Second},
		{name: "back-off beyond the resync interval is clamped to it", err: in(5 * time.Minute), lo: 60 * time.Second, hi: 90 * time.Second},
		{name: "back-off already over: at once", err: in(-3 * time.Second), lo: 0, hi: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.q.items = nil
			st := &podSyncStatus{key: "ns/p", rng: e.s.RNG("podWorker/u")}
			minSeen, maxSeen := time.Duration(1<<62), time.Duration(0)
			for i := 0; i < 400; i++ {
				e.pw.completeWork("u", st, tc.phase, tc.err)
			}
			for _, it := range e.q.items {
				minSeen, maxSeen = min(minSeen, it.delay), max(maxSeen, it.delay)
				if it.uid != "u" {
					t.Fatalf("enqueued %q", it.uid)
				}
			}
			if len(e.q.items) != 400 {
				t.Fatalf("%d requeues for 400 completions", len(e.q.items))
			}
			if tc.lo == tc.hi {
				if minSeen != tc.lo || maxSeen != tc.lo {
					t.Errorf("delays in [%s, %s], want exactly %s", minSeen, maxSeen, tc.lo)
				}
				return
			}
			if minSeen < tc.lo || maxSeen >= tc.hi {
				t.Errorf("delays in [%s, %s], want within [%s, %s)", minSeen, maxSeen, tc.lo, tc.hi)
			}
			// The jitter is spread over the range, not stuck at one end.
			if spread := maxSeen - minSeen; spread < (tc.hi-tc.lo)*8/10 {
				t.Errorf("delays only span %s of [%s, %s)", spread, tc.lo, tc.hi)
			}
			if st.IsWorking() {
				t.Error("worker left working with nothing pending")
			}
		})
	}
}

// completeWork rings the doorbell when an update arrived during the round.
func TestCompleteWorkTakesPendingUpdate(t *testing.T) {
	e := newEnv(300 * time.Millisecond)
	e.freshCache()
	pod := newPod("u1", "web")
	e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod})
	e.at(100*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: version(pod, "2")}) })
	e.s.RunUntil(time.Second)
	e.expectCalls(t, "SyncPod(create, web/1)@0s", "SyncPod(update, web/2)@300ms")
}

// A shorter grace period while SyncTerminatingPod runs cancels that sync (upstream:
// wasGracePeriodShortened cancels the worker's context): its completion, due 10s after it
// started, never comes; the worker kills again with the shorter grace as soon as the
// cache is newer than the cancelled sync (relist every second: at 6s). The second kill
// ends at 16s; the terminated round waits for the next relist, at 17s.
func TestShorterGracePeriodCancelsTheKillInFlight(t *testing.T) {
	e := newEnv(10 * time.Second)
	e.relistEvery(time.Second)
	pod := newPod("u1", "web")
	e.h.syncPod = func(*corev1.Pod) (bool, error) { return false, nil }
	e.at(0, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod}) })
	// SyncPod takes 10s too; the first deletion (20s) at 500ms cancels it.
	e.at(500*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 20)}) })
	e.at(5500*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 5)}) })
	// A third deletion with the same grace is no shortening: nothing is cancelled.
	e.at(6500*time.Millisecond, func() { e.pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 5)}) })
	e.s.RunUntil(time.Minute)
	e.expectCalls(t,
		"SyncPod(create, web/1)@0s",
		"SyncTerminatingPod(web/1, grace=20)@1s",
		"SyncTerminatingPod(web/1, grace=5)@6s",
		"SyncTerminatedPod(web/1, grace=nil)@17s",
	)
	if !e.pw.IsPodKnownTerminated("u1") {
		t.Error("the pod did not terminate")
	}
}

// The kill's grace period is recorded with where it came from when the pod starts
// terminating and each time it shrinks, and not when an update leaves it as it is.
func TestGracePeriodDecisionIsRecorded(t *testing.T) {
	log := &trace.Log{}
	s := sim.New(7, log)
	cache := container.NewCache(s)
	h := &fakeSyncer{s: s, delay: 10 * time.Second}
	pw := New(s, h, &fakeQueue{s: s}, cache, time.Minute)
	test := s.Clock("test", sim.PriorityConfig)
	pod := newPod("u1", "web")
	h.syncPod = func(*corev1.Pod) (bool, error) { return false, nil }
	cache.UpdateTime(sim.Epoch.Add(1000 * time.Hour))
	test.Schedule(0, func() { pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod}) })
	// A graceful deletion of 20s, the same again (no change: nothing recorded), then a
	// force delete: 0s, raised to the 1s floor.
	test.Schedule(time.Second, func() { pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 20)}) })
	test.Schedule(2*time.Second, func() { pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 20)}) })
	test.Schedule(3*time.Second, func() { pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, 0)}) })
	s.RunUntil(time.Minute)
	var got []string
	for _, e := range log.Events {
		if e.Kind == KindGracePeriod {
			got = append(got, fmt.Sprintf("%s %s", e.At, e.Reason.Text))
		}
	}
	want := []string{
		"1s the kill's grace period is 20s, from the pod's deletionGracePeriodSeconds (20s); a later update can only shorten it",
		"3s the kill's grace period is 1s, from the pod's deletionGracePeriodSeconds (0s), raised to the pod worker's floor of 1s; a later update can only shorten it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("recorded\n got  %q\n want %q", got, want)
	}
}

// An orphan that housekeeping drives to termination gets the spec's grace period (30s in
// newPod), recorded with where it came from.
func TestOrphanGracePeriodIsRecorded(t *testing.T) {
	log := &trace.Log{}
	s := sim.New(7, log)
	cache := container.NewCache(s)
	cache.UpdateTime(sim.Epoch.Add(1000 * time.Hour))
	pw := New(s, &fakeSyncer{s: s, delay: 200 * time.Millisecond}, &fakeQueue{s: s}, cache, time.Minute)
	pw.UpdatePod(UpdatePodOptions{UpdateType: SyncPodCreate, Pod: newPod("a", "running")})
	s.RunUntil(time.Second)
	pw.SyncKnownPods(nil)
	var got []string
	for _, e := range log.Events {
		if e.Kind == KindGracePeriod {
			got = append(got, e.Reason.Text)
		}
	}
	want := []string{"the kill's grace period is 30s, from the pod's terminationGracePeriodSeconds (30s); a later update can only shorten it"}
	if !slices.Equal(got, want) {
		t.Errorf("recorded\n got  %q\n want %q", got, want)
	}
}

// SyncKnownPodsFunc re-examines only the workers it acted on while neither the desired set
// nor any worker's state moved. Two identical pod workers go through the same random
// history (pods created, killed, deleted, made desired or not, runtime-only kills,
// creations during termination that request a restart); housekeeping on one takes the
// incremental path whenever it may, on the other always walks every worker. Their answers
// and everything they record must stay identical.
func TestSyncKnownPodsFuncMatchesTheFullPass(t *testing.T) {
	type twin struct {
		e   *env
		log *trace.Log
	}
	mk := func() twin {
		log := &trace.Log{}
		s := sim.New(7, log)
		cache := container.NewCache(s)
		h := &fakeSyncer{s: s, delay: 300 * time.Millisecond}
		e := &env{s: s, cache: cache, h: h, q: &fakeQueue{s: s}, pw: New(s, h, &fakeQueue{s: s}, cache, time.Minute), test: s.Clock("test", sim.PriorityConfig)}
		e.relistEvery(time.Second)
		return twin{e, log}
	}
	inc, full := mk(), mk()
	desired := map[types.UID]bool{}
	var desiredVersion uint64
	isDesired := func(uid types.UID) bool { return desired[uid] }
	pods := map[types.UID]*corev1.Pod{}
	rng := rand.New(rand.NewPCG(5, 6))
	incremental, compared := 0, 0
	for step := 0; step < 1500; step++ {
		for n := rng.IntN(3); n > 0; n-- {
			uid := types.UID(fmt.Sprintf("u%02d", rng.IntN(25)))
			var o *UpdatePodOptions
			switch rng.IntN(8) {
			case 0, 1:
				pod := newPod(string(uid), "p-"+string(uid))
				pods[uid] = pod
				o = &UpdatePodOptions{UpdateType: SyncPodCreate, Pod: pod}
			case 2:
				desired[uid] = !desired[uid]
				desiredVersion++
			case 3:
				if pod := pods[uid]; pod != nil {
					o = &UpdatePodOptions{UpdateType: SyncPodKill, Pod: pod}
				}
			case 4:
				if pod := pods[uid]; pod != nil {
					o = &UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: deleted(pod, int64(rng.IntN(3)))}
				}
			case 5:
				o = &UpdatePodOptions{UpdateType: SyncPodKill, RunningPod: &container.Pod{ID: uid, Name: "p-" + string(uid), Namespace: "ns"}}
			}
			if o != nil {
				inc.e.pw.UpdatePod(*o)
				full.e.pw.UpdatePod(*o)
			}
		}
		// Now and then housekeeping comes before the workers' next rounds.
		if rng.IntN(3) > 0 {
			until := inc.e.s.Elapsed() + time.Duration(rng.IntN(1500))*time.Millisecond
			inc.e.s.RunUntil(until)
			full.e.s.RunUntil(until)
		}

		pw := inc.e.pw
		if pw.syncValid && pw.syncDesiredVersion == desiredVersion && pw.syncStateVersion == pw.StateVersion() {
			incremental++
		}
		got := maps.Clone(pw.SyncKnownPodsFunc(isDesired, desiredVersion))
		full.e.pw.syncValid = false
		want := full.e.pw.SyncKnownPodsFunc(isDesired, desiredVersion)
		if !maps.Equal(got, want) {
			t.Fatalf("step %d: answer %v, the full pass gives %v", step, got, want)
		}
		if len(inc.log.Events) != len(full.log.Events) {
			t.Fatalf("step %d: %d events recorded, %d with the full pass", step, len(inc.log.Events), len(full.log.Events))
		}
		for i := compared; i < len(inc.log.Events); i++ {
			if a, b := inc.log.Events[i].String(), full.log.Events[i].String(); a != b {
				t.Fatalf("step %d: event %d is %s, with the full pass %s", step, i, a, b)
			}
		}
		compared = len(inc.log.Events)
	}
	t.Logf("%d events, %d incremental passes", compared, incremental)
	if incremental < 300 {
		t.Fatalf("only %d of 1500 passes took the incremental path", incremental)
	}
}

// A WorkerRef is used only while its worker is open: once the worker is forgotten, the
// next update through the ref finds the UID's new worker and the ref follows it.
func TestWorkerRefFollowsTheUIDsWorker(t *testing.T) {
	e := newEnv(500 * time.Millisecond)
	e.freshCache()
	v1 := newPod("u1", "restarted")
	again := version(v1, "9")
	var ref WorkerRef
	e.at(0, func() { e.pw.UpdatePodRef(&ref, UpdatePodOptions{UpdateType: SyncPodCreate, Pod: v1}) })
	e.at(100*time.Millisecond, func() { e.pw.UpdatePodRef(&ref, UpdatePodOptions{UpdateType: SyncPodKill, Pod: v1}) })
	e.s.RunUntil(300 * time.Millisecond)
	first := e.pw.podSyncStatuses["u1"]
	if ref.st != first {
		t.Fatalf("the ref holds %p, the UID's worker is %p", ref.st, first)
	}
	e.s.RunUntil(2 * time.Second)
	if known := e.pw.SyncKnownPods(nil); len(known) != 0 {
		t.Fatalf("the terminated worker was not forgotten: %v", known)
	}
	if !ref.st.closed {
		t.Fatal("a forgotten worker must be closed, or a ref to it would still be trusted")
	}
	e.pw.UpdatePodRef(&ref, UpdatePodOptions{UpdateType: SyncPodCreate, Pod: again})
	second := e.pw.podSyncStatuses["u1"]
	if second == nil || second == first || ref.st != second {
		t.Fatalf("after the restart: worker %p (first %p), ref %p", second, first, ref.st)
	}
	e.s.RunUntil(3 * time.Second)
	if n := len(e.h.calls); n != 4 || e.h.calls[3].fn != "SyncPod" || e.h.calls[3].pod != again {
		t.Errorf("after the restart: %v", e.h.calls[2:])
	}
}

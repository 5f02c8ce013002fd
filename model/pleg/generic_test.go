package pleg

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/sim"
)

// --- a fake runtime

// ctr describes one listed container or sandbox: its ID and runtime state.
type ctr struct {
	id    string
	state container.State
}

// fakePod is one pod the fake runtime lists.
type fakePod struct {
	uid        types.UID
	sandboxes  []ctr
	containers []ctr
}

type fakeRuntime struct {
	pods       []fakePod
	listErr    error
	statusErr  map[types.UID]error
	listCost   time.Duration
	statusCost time.Duration

	listCalls   int
	statusCalls map[types.UID]int

	// stable makes GetPods hand out the same objects until set is called again, as the
	// real runtime keeps each pod's listing immutable until the pod changes.
	stable bool
	listed []*container.Pod
	// shared (with stable) hands out the very same slice, as the real runtime does.
	shared bool
	// version is ListingVersion: it moves whenever GetPods hands out another listing.
	version uint64
}

func (r *fakeRuntime) ListingVersion() uint64 { return r.version }

func newFakeRuntime() *fakeRuntime {
	return &fakeRuntime{statusErr: map[types.UID]error{}, statusCalls: map[types.UID]int{}}
}

func (r *fakeRuntime) set(pods ...fakePod) { r.pods, r.listed = pods, nil; r.version++ }

// update replaces one pod's listing with a new object and keeps every other pod's object
// (with stable), as the real runtime does when one pod changes.
func (r *fakeRuntime) update(fp fakePod) {
	for i := range r.pods {
		if r.pods[i].uid == fp.uid {
			r.pods[i] = fp
		}
	}
	if r.listed == nil {
		return
	}
	fresh := &fakeRuntime{pods: []fakePod{fp}, statusCalls: map[types.UID]int{}}
	pods, _ := fresh.GetPods()
	listed := slices.Clone(r.listed)
	for i, p := range listed {
		if p.ID == fp.uid {
			listed[i] = pods[0]
		}
	}
	r.listed = listed
	r.version++
}

// GetPods returns fresh objects on every call, as a real listing would, so that PLEG's
// records of earlier listings are never changed behind its back.
func (r *fakeRuntime) GetPods() ([]*container.Pod, error) {
	r.listCalls++
	if r.listErr != nil {
		return nil, r.listErr
	}
	if r.stable && r.listed != nil {
		if r.shared {
			return r.listed, nil
		}
		r.version++
		return slices.Clone(r.listed), nil
	}
	r.version++
	var out []*container.Pod
	for _, fp := range r.pods {
		p := &container.Pod{ID: fp.uid, Name: "pod-" + string(fp.uid), Namespace: "ns"}
		for _, s := range fp.sandboxes {
			p.Sandboxes = append(p.Sandboxes, &container.Container{ID: s.id, State: s.state})
		}
		for _, c := range fp.containers {
			p.Containers = append(p.Containers, &container.Container{ID: c.id, Name: "name-" + c.id, State: c.state})
		}
		out = append(out, p)
	}
	if r.stable {
		r.listed = slices.Clone(out)
		if r.shared {
			return r.listed, nil
		}
	}
	return out, nil
}

// GetPod is the pod's entry in GetPods' answer (the last, should one be listed twice).
func (r *fakeRuntime) GetPod(uid types.UID) (*container.Pod, error) {
	pods, err := r.GetPods()
	if err != nil {
		return nil, err
	}
	var out *container.Pod
	for _, p := range pods {
		if p.ID == uid {
			out = p
		}
	}
	return out, nil
}

func (r *fakeRuntime) GetPodStatus(uid types.UID, name, namespace string) (*container.PodStatus, error) {
	r.statusCalls[uid]++
	if err := r.statusErr[uid]; err != nil {
		return nil, err
	}
	st := &container.PodStatus{ID: uid, Name: name, Namespace: namespace}
	for _, fp := range r.pods {
		if fp.uid != uid {
			continue
		}
		for _, s := range fp.sandboxes {
			state := container.SandboxNotReady
			if s.state == container.StateRunning {
				state = container.SandboxReady
			}
			st.SandboxStatuses = append(st.SandboxStatuses, &container.SandboxStatus{ID: s.id, State: state})
		}
		for _, c := range fp.containers {
			st.ContainerStatuses = append(st.ContainerStatuses, &container.Status{ID: c.id, Name: "name-" + c.id, State: c.state})
		}
	}
	return st, nil
}

func (r *fakeRuntime) ListCost() time.Duration      { return r.listCost }
func (r *fakeRuntime) StatusCost(int) time.Duration { return r.statusCost }

// --- helpers

const (
	running = container.StateRunning
	exited  = container.StateExited
	created = container.StateCreated
	unknown = container.StateUnknown
)

type harness struct {
	s     *sim.Sim
	rt    *fakeRuntime
	cache *container.Cache
	g     *GenericPLEG
}

func newHarness(onDemand bool) *harness {
	s := sim.New(1, nil)
	rt := newFakeRuntime()
	cache := container.NewCache(s)
	return &harness{s: s, rt: rt, cache: cache, g: NewGenericPLEG(s, rt, cache, onDemand)}
}

// drain takes every event waiting on plegCh, in order.
func (h *harness) drain() []PodLifecycleEvent {
	var out []PodLifecycleEvent
	for {
		e, ok := h.g.Watch().TryRecv()
		if !ok {
			return out
		}
		out = append(out, *e)
	}
}

func ev(uid types.UID, t PodLifeCycleEventType, id string) PodLifecycleEvent {
	return PodLifecycleEvent{ID: uid, Type: t, Data: id}
}

func sortEvents(es []PodLifecycleEvent) []PodLifecycleEvent {
	out := slices.Clone(es)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		if out[i].Data != out[j].Data {
			return out[i].Data < out[j].Data
		}
		return out[i].Type < out[j].Type
	})
	return out
}

func sameEvents(t *testing.T, what string, got, want []PodLifecycleEvent) {
	t.Helper()
	if !slices.Equal(sortEvents(got), sortEvents(want)) {
		t.Errorf("%s: events\n got  %v\n want %v", what, got, want)
	}
}

// waiter is a pod worker parked in GetNewerThan.
type waiter struct {
	released bool
	at       time.Duration
	status   *container.PodStatus
	err      error
}

func (h *harness) wait(uid types.UID, after time.Time) *waiter {
	w := &waiter{}
	h.cache.GetNewerThan(uid, after, func(st *container.PodStatus, err error) {
		w.released, w.at, w.status, w.err = true, h.s.Elapsed(), st, err
	})
	return w
}

// --- generateEvents: the §4.3 table

func TestGenerateEvents(t *testing.T) {
	states := map[plegState]string{plegRunning: "running", plegExited: "exited", plegUnknown: "unknown", plegNonExistent: "non-existent"}
	cases := []struct {
		old, new plegState
		want     []PodLifeCycleEventType
	}{
		{plegRunning, plegRunning, nil},
		{plegExited, plegExited, nil},
		{plegUnknown, plegUnknown, nil},
		{plegNonExistent, plegNonExistent, nil},

		{plegNonExistent, plegRunning, []PodLifeCycleEventType{ContainerStarted}},
		{plegExited, plegRunning, []PodLifeCycleEventType{ContainerStarted}},
		{plegUnknown, plegRunning, []PodLifeCycleEventType{ContainerStarted}},

		{plegNonExistent, plegExited, []PodLifeCycleEventType{ContainerDied}},
		{plegRunning, plegExited, []PodLifeCycleEventType{ContainerDied}},
		{plegUnknown, plegExited, []PodLifeCycleEventType{ContainerDied}},

		{plegNonExistent, plegUnknown, []PodLifeCycleEventType{ContainerChanged}},
		{plegRunning, plegUnknown, []PodLifeCycleEventType{ContainerChanged}},
		{plegExited, plegUnknown, []PodLifeCycleEventType{ContainerChanged}},

		{plegExited, plegNonExistent, []PodLifeCycleEventType{ContainerRemoved}},
		{plegRunning, plegNonExistent, []PodLifeCycleEventType{ContainerDied, ContainerRemoved}},
		{plegUnknown, plegNonExistent, []PodLifeCycleEventType{ContainerDied, ContainerRemoved}},
	}
	for _, tc := range cases {
		t.Run(states[tc.old]+"→"+states[tc.new], func(t *testing.T) {
			got := generateEvents(nil, nil, "uid-1", "cid-1", tc.old, tc.new)
			var types []PodLifeCycleEventType
			for _, e := range got {
				if e.ID != "uid-1" || e.Data != "cid-1" {
					t.Errorf("event %+v does not name the pod and container", *e)
				}
				types = append(types, e.Type)
			}
			if !slices.Equal(types, tc.want) {
				t.Errorf("got %v, want %v", types, tc.want)
			}
		})
	}
}

func TestConvertState(t *testing.T) {
	for s, want := range map[container.State]plegState{running: plegRunning, exited: plegExited, created: plegUnknown, unknown: plegUnknown} {
		if got := convertState(s); got != want {
			t.Errorf("convertState(%s) = %d, want %d", s, got, want)
		}
	}
}

// Sandboxes are compared like containers; every ID of the old and the new listing counts.
func TestComputeEventsCoversSandboxesAndBothListings(t *testing.T) {
	old := &container.Pod{ID: "p",
		Sandboxes:  []*container.Container{{ID: "sb-1", State: running}},
		Containers: []*container.Container{{ID: "c-run", State: running}, {ID: "c-gone", State: exited}, {ID: "c-same", State: exited}},
	}
	cur := &container.Pod{ID: "p",
		Sandboxes:  []*container.Container{{ID: "sb-1", State: exited}, {ID: "sb-2", State: running}},
		Containers: []*container.Container{{ID: "c-run", State: exited}, {ID: "c-same", State: exited}, {ID: "c-new", State: created}},
	}
	var got []PodLifecycleEvent
	for _, e := range computeEvents("p", old, cur) {
		got = append(got, *e)
	}
	sameEvents(t, "old→current", got, []PodLifecycleEvent{
		ev("p", ContainerDied, "sb-1"),
		ev("p", ContainerStarted, "sb-2"),
		ev("p", ContainerDied, "c-run"),
		ev("p", ContainerRemoved, "c-gone"),
		ev("p", ContainerChanged, "c-new"),
	})

	// A pod seen for the first time, and a pod that vanished.
	got = nil
	for _, e := range computeEvents("p", nil, old) {
		got = append(got, *e)
	}
	sameEvents(t, "first sight", got, []PodLifecycleEvent{
		ev("p", ContainerStarted, "sb-1"), ev("p", ContainerStarted, "c-run"),
		ev("p", ContainerDied, "c-gone"), ev("p", ContainerDied, "c-same"),
	})
	got = nil
	for _, e := range computeEvents("p", cur, nil) {
		got = append(got, *e)
	}
	sameEvents(t, "vanished", got, []PodLifecycleEvent{
		ev("p", ContainerRemoved, "sb-1"),
		ev("p", ContainerDied, "sb-2"), ev("p", ContainerRemoved, "sb-2"),
		ev("p", ContainerRemoved, "c-run"), ev("p", ContainerRemoved, "c-same"),
		ev("p", ContainerDied, "c-new"), ev("p", ContainerRemoved, "c-new"),
	})
}

// --- GenericPLEG

func TestRelistEventsCacheAndTimestamps(t *testing.T) {
	h := newHarness(false)
	h.rt.listCost, h.rt.statusCost = 100*time.Millisecond, 50*time.Millisecond
	h.rt.set(
		fakePod{uid: "a", containers: []ctr{{"a-1", exited}, {"a-2", running}, {"a-3", unknown}}},
		fakePod{uid: "b", containers: []ctr{{"b-1", exited}}},
	)
	// A worker that synced 10ms into the run waits for an observation made after that.
	late := h.wait("a", sim.Epoch.Add(10*time.Millisecond))
	early := h.wait("a", sim.Epoch.Add(-time.Nanosecond))

	// The relist starts at 0: listing takes 100ms, then each changed pod's status read 50ms.
	// The cache writes and the events land together once the reads are done, at 200ms.
	h.g.Start()
	h.s.Step(199 * time.Millisecond)
	if n := h.g.Watch().Len(); n != 0 {
		t.Fatalf("%d events before the pod statuses were read", n)
	}
	if early.released {
		t.Fatal("waiter released before the cache was written")
	}
	h.s.Step(time.Millisecond)
	got := h.drain()
	want := []PodLifecycleEvent{
		ev("a", ContainerDied, "a-1"), ev("a", ContainerStarted, "a-2"), // a-3 unknown: ContainerChanged, never sent
		ev("b", ContainerDied, "b-1"),
	}
	sameEvents(t, "first relist", got, want)
	// Pods are reconciled in UID order, so a's events come before b's.
	if len(got) == 3 && got[2].ID != "b" {
		t.Errorf("events not in pod order: %v", got)
	}

	st, err := h.cache.Get("a")
	if err != nil || st == nil || len(st.ContainerStatuses) != 3 {
		t.Fatalf("cache for a: %+v, %v", st, err)
	}
	if !early.released {
		t.Error("a waiter for an observation after the epoch was not released by the first relist")
	}
	// The cache entries carry the time the relist started (before listing), not when the
	// statuses were read: a worker whose last sync was 10ms in still waits.
	if late.released {
		t.Fatalf("waiter for >10ms released at %s by a relist that started at 0", late.at)
	}
	if ok, err := h.g.Healthy(); !ok {
		t.Fatalf("unhealthy after a relist: %v", err)
	}

	// The next relist starts a period after the previous one returned (at 200ms: list 100ms +
	// 2×50ms), i.e. at 1.2s; nothing changed, so no event and no status read, but the
	// global timestamp moves and releases the waiter.
	reads := h.rt.statusCalls["a"]
	h.s.RunUntil(1199 * time.Millisecond)
	if late.released {
		t.Fatal("waiter released before the second relist")
	}
	h.s.RunUntil(1400 * time.Millisecond)
	if !late.released || late.at != 1300*time.Millisecond {
		t.Fatalf("waiter released=%v at %s, want at 1.3s (relist at 1.2s + 100ms listing)", late.released, late.at)
	}
	if late.status == nil || late.status.ID != "a" || late.err != nil {
		t.Errorf("waiter got %+v, %v", late.status, late.err)
	}
	if got := h.drain(); len(got) != 0 {
		t.Errorf("unchanged runtime produced %v", got)
	}
	if h.rt.statusCalls["a"] != reads {
		t.Error("an unchanged pod was inspected again")
	}
	if h.rt.listCalls != 2 {
		t.Errorf("%d listings by 1.4s, want 2", h.rt.listCalls)
	}

	// Containers come and go.
	h.rt.set(
		fakePod{uid: "a", containers: []ctr{{"a-2", exited}, {"a-3", running}}},
		fakePod{uid: "b", containers: []ctr{{"b-4", running}}},
	)
	h.s.RunUntil(2600 * time.Millisecond)
	sameEvents(t, "third relist", h.drain(), []PodLifecycleEvent{
		ev("a", ContainerRemoved, "a-1"), ev("a", ContainerDied, "a-2"), ev("a", ContainerStarted, "a-3"),
		ev("b", ContainerRemoved, "b-1"), ev("b", ContainerStarted, "b-4"),
	})

	// b vanishes while its container runs: Died then Removed, and its cache entry goes.
	h.rt.set(fakePod{uid: "a", containers: []ctr{{"a-2", exited}, {"a-3", running}}})
	h.s.RunUntil(3800 * time.Millisecond)
	got = h.drain()
	if !slices.Equal(got, []PodLifecycleEvent{ev("b", ContainerDied, "b-4"), ev("b", ContainerRemoved, "b-4")}) {
		t.Errorf("vanished pod: %v", got)
	}
	if st, err := h.cache.Get("b"); err != nil || st.ID != "b" || len(st.ContainerStatuses) != 0 {
		t.Errorf("cache entry of a vanished pod: %+v, %v", st, err)
	}
	if r, _ := h.g.record("b"); r != nil {
		t.Error("record of a vanished pod kept")
	}
}

// A container that stops and is removed between two relists is reported dead, then
// removed; an exited one that is garbage-collected is only reported removed.
func TestRelistReportsMissingContainers(t *testing.T) {
	for _, relists := range []int{1, 3} {
		t.Run(fmt.Sprintf("after %d relists", relists), func(t *testing.T) {
			h := newHarness(false)
			h.rt.set(fakePod{uid: "p", sandboxes: []ctr{{"sb", running}}, containers: []ctr{{"c1", running}, {"c2", running}, {"c3", exited}}})
			h.g.Start()
			for i := 0; i < relists; i++ {
				h.s.Step(time.Second)
				h.drain()
			}
			h.rt.set(fakePod{uid: "p", sandboxes: []ctr{{"sb", running}}, containers: []ctr{{"c1", running}}})
			h.s.Step(time.Second)
			sameEvents(t, "relist", h.drain(), []PodLifecycleEvent{
				ev("p", ContainerDied, "c2"), ev("p", ContainerRemoved, "c2"), ev("p", ContainerRemoved, "c3"),
			})
		})
	}
}

// Events that do not fit into plegCh are dropped, the cache and the records still advance,
// and the dropped events are not produced again.
func TestRelistDropsEventsWhenChannelFull(t *testing.T) {
	h := newHarness(false)
	if c := h.g.Watch().Cap(); ChannelCapacity != 1000 || c != ChannelCapacity {
		t.Fatalf("plegCh capacity %d, want 1000", c)
	}
	filler := &PodLifecycleEvent{ID: "filler", Type: PodSync}
	for i := 0; i < ChannelCapacity-2; i++ {
		if !h.g.Watch().TrySend(filler) {
			t.Fatalf("could not prefill slot %d", i)
		}
	}
	h.rt.set(
		fakePod{uid: "a", containers: []ctr{{"a-1", running}, {"a-2", running}}},
		fakePod{uid: "b", containers: []ctr{{"b-1", exited}}},
	)
	h.g.Start()
	h.s.Step(0)

	_, _, dropped := h.g.Watch().Stats()
	if dropped != 1 {
		t.Errorf("dropped %d events, want 1", dropped)
	}
	got := h.drain()
	if len(got) != ChannelCapacity {
		t.Fatalf("channel held %d events, want %d", len(got), ChannelCapacity)
	}
	sameEvents(t, "delivered", got[ChannelCapacity-2:], []PodLifecycleEvent{ev("a", ContainerStarted, "a-1"), ev("a", ContainerStarted, "a-2")})
	if st, err := h.cache.Get("b"); err != nil || len(st.ContainerStatuses) != 1 {
		t.Errorf("cache of the pod whose event was dropped: %+v, %v", st, err)
	}

	// Nothing changed: the dropped ContainerDied of b-1 is gone for good.
	h.s.Step(time.Second)
	if got := h.drain(); len(got) != 0 {
		t.Errorf("dropped events came back: %v", got)
	}
}

// A pod whose status cannot be read gets no events and no record update, so its events come
// again at the next relist; the error is kept in the cache for the pod worker to see.
func TestRelistWithStatusErrorReinspects(t *testing.T) {
	h := newHarness(false)
	broken := errors.New("rpc error: container status unavailable")
	h.rt.set(
		fakePod{uid: "a", containers: []ctr{{"a-1", running}}},
		fakePod{uid: "b", containers: []ctr{{"b-1", running}}},
	)
	h.rt.statusErr["b"] = broken
	h.g.Start()
	h.s.Step(0)
	sameEvents(t, "first relist", h.drain(), []PodLifecycleEvent{ev("a", ContainerStarted, "a-1")})
	if _, err := h.cache.Get("b"); !errors.Is(err, broken) {
		t.Errorf("cache error for b = %v, want the inspection error", err)
	}
	// A worker waiting for b gets the error.
	w := h.wait("b", sim.Epoch.Add(-time.Nanosecond))
	h.s.Step(0)
	if !w.released || !errors.Is(w.err, broken) {
		t.Errorf("waiter on b: released=%v err=%v", w.released, w.err)
	}

	delete(h.rt.statusErr, "b")
	h.s.Step(time.Second)
	sameEvents(t, "second relist", h.drain(), []PodLifecycleEvent{ev("b", ContainerStarted, "b-1")})
	if st, err := h.cache.Get("b"); err != nil || st == nil || len(st.ContainerStatuses) != 1 {
		t.Errorf("cache of b after recovery: %+v, %v", st, err)
	}
	if h.rt.statusCalls["b"] != 2 || h.rt.statusCalls["a"] != 1 {
		t.Errorf("status reads a=%d b=%d, want 1 and 2", h.rt.statusCalls["a"], h.rt.statusCalls["b"])
	}
}

// A reinspected pod whose listing ends up unchanged gets one PodSync event.
func TestRelistReinspectionWithoutChangeSendsPodSync(t *testing.T) {
	h := newHarness(false)
	h.rt.set(fakePod{uid: "p", containers: []ctr{{"c1", running}}})
	h.g.Start()
	h.s.Step(0)
	h.drain()

	// A container appears, but the pod cannot be inspected; by the next relist it is gone
	// again, so the listing matches the last recorded one.
	h.rt.set(fakePod{uid: "p", containers: []ctr{{"c1", running}, {"c2", created}}})
	h.rt.statusErr["p"] = errors.New("busy")
	h.s.Step(time.Second)
	if got := h.drain(); len(got) != 0 {
		t.Fatalf("events from a failed inspection: %v", got)
	}
	delete(h.rt.statusErr, "p")
	h.rt.set(fakePod{uid: "p", containers: []ctr{{"c1", running}}})
	h.s.Step(time.Second)
	if got := h.drain(); !slices.Equal(got, []PodLifecycleEvent{{ID: "p", Type: PodSync}}) {
		t.Errorf("reinspection: %v, want one PodSync", got)
	}
	h.s.Step(time.Second)
	if got := h.drain(); len(got) != 0 {
		t.Errorf("PodSync repeated: %v", got)
	}
}

// A relist that gets back the very listing of the last one has nothing to compare, but a
// pod whose inspection failed is still inspected again, and the cache time still advances.
func TestRelistOfTheSameListing(t *testing.T) {
	h := newHarness(false)
	h.rt.stable, h.rt.shared = true, true
	h.rt.set(fakePod{uid: "p", containers: []ctr{{"c1", running}}})
	h.g.Start()
	h.s.Step(0)
	sameEvents(t, "first relist", h.drain(), []PodLifecycleEvent{ev("p", ContainerStarted, "c1")})

	h.rt.set(fakePod{uid: "p", containers: []ctr{{"c1", running}, {"c2", running}}})
	h.rt.statusErr["p"] = errors.New("busy")
	h.s.Step(time.Second)
	if got := h.drain(); len(got) != 0 {
		t.Fatalf("events from a failed inspection: %v", got)
	}
	delete(h.rt.statusErr, "p")
	h.s.Step(time.Second) // the same listing again
	sameEvents(t, "reinspection", h.drain(), []PodLifecycleEvent{ev("p", ContainerStarted, "c2")})
	if h.rt.statusCalls["p"] != 3 {
		t.Errorf("status reads: %d, want 3", h.rt.statusCalls["p"])
	}

	w := h.wait("p", h.s.Now())
	h.s.Step(time.Second) // and again: nothing to do
	if got := h.drain(); len(got) != 0 {
		t.Errorf("events from an unchanged listing: %v", got)
	}
	if h.rt.statusCalls["p"] != 3 {
		t.Errorf("status reads after an unchanged listing: %d, want 3", h.rt.statusCalls["p"])
	}
	if !w.released {
		t.Error("the cache time did not advance with a relist of an unchanged listing")
	}
}

// A relist of a listing that changed one pod's object reads that pod's status only, and
// gives the same events a relist comparing every pod would.
func TestRelistOfOneChangedPod(t *testing.T) {
	h := newHarness(false)
	h.rt.stable = true
	h.rt.set(
		fakePod{uid: "a", containers: []ctr{{"a1", running}}},
		fakePod{uid: "b", containers: []ctr{{"b1", running}}},
		fakePod{uid: "c", containers: []ctr{{"c1", running}}},
	)
	h.g.Start()
	h.s.Step(0)
	sameEvents(t, "first relist", h.drain(), []PodLifecycleEvent{
		ev("a", ContainerStarted, "a1"), ev("b", ContainerStarted, "b1"), ev("c", ContainerStarted, "c1")})

	h.rt.update(fakePod{uid: "b", containers: []ctr{{"b1", exited}}})
	h.s.Step(time.Second)
	sameEvents(t, "b changed", h.drain(), []PodLifecycleEvent{ev("b", ContainerDied, "b1")})
	for uid, want := range map[types.UID]int{"a": 1, "b": 2, "c": 1} {
		if got := h.rt.statusCalls[uid]; got != want {
			t.Errorf("status reads of %s: %d, want %d", uid, got, want)
		}
	}

	// A failed read is inspected again at the next relist, with the listing unchanged.
	h.rt.update(fakePod{uid: "c", containers: []ctr{{"c1", exited}}})
	h.rt.statusErr["c"] = errors.New("busy")
	h.s.Step(time.Second)
	if got := h.drain(); len(got) != 0 {
		t.Fatalf("events from a failed inspection: %v", got)
	}
	delete(h.rt.statusErr, "c")
	h.rt.update(fakePod{uid: "a", containers: []ctr{{"a1", exited}}})
	h.s.Step(time.Second)
	sameEvents(t, "a changed, c reinspected", h.drain(), []PodLifecycleEvent{
		ev("a", ContainerDied, "a1"), ev("c", ContainerDied, "c1")})

	// Another pod in place of one, with as many pods as before.
	h.rt.pods[1] = fakePod{uid: "b2", containers: []ctr{{"b21", running}}}
	h.rt.listed = nil
	h.s.Step(time.Second)
	sameEvents(t, "b replaced", h.drain(), []PodLifecycleEvent{
		ev("b", ContainerRemoved, "b1"), ev("b2", ContainerStarted, "b21")})
	if _, err := h.cache.Get("b"); err != nil || h.cache.Waiting("b") {
		t.Errorf("cache of b: %v", err)
	}
	h.rt.update(fakePod{uid: "b2", containers: []ctr{{"b21", exited}}})
	h.s.Step(time.Second)
	sameEvents(t, "b2 changed", h.drain(), []PodLifecycleEvent{ev("b2", ContainerDied, "b21")})
	if got := h.rt.statusCalls["a"]; got != 2 {
		t.Errorf("status reads of a: %d, want 2", got)
	}
}

// Single-pod relists between global relists: the global relist after them compares only
// the pods listed by a new object, and gives the events and status reads a relist
// comparing every pod would.
func TestRelistAfterSinglePodRelists(t *testing.T) {
	h := newHarness(true)
	h.rt.stable = true
	h.rt.set(
		fakePod{uid: "a", containers: []ctr{{"a1", running}}},
		fakePod{uid: "b", containers: []ctr{{"b1", running}}},
		fakePod{uid: "c", containers: []ctr{{"c1", running}}},
	)
	h.g.Start()
	h.s.Step(0)
	h.drain()

	// b changes and its single-pod relist reports it; then a changes.
	h.s.Step(300 * time.Millisecond)
	h.rt.update(fakePod{uid: "b", containers: []ctr{{"b1", exited}}})
	h.g.RequestRelist("b")
	h.s.Step(100 * time.Millisecond)
	sameEvents(t, "single-pod relist of b", h.drain(), []PodLifecycleEvent{ev("b", ContainerDied, "b1")})
	h.rt.update(fakePod{uid: "a", containers: []ctr{{"a1", exited}}})
	h.s.Step(time.Second)
	sameEvents(t, "global relist", h.drain(), []PodLifecycleEvent{ev("a", ContainerDied, "a1")})
	for uid, want := range map[types.UID]int{"a": 2, "b": 2, "c": 1} {
		if got := h.rt.statusCalls[uid]; got != want {
			t.Errorf("status reads of %s: %d, want %d", uid, got, want)
		}
	}

	// A single-pod relist of a pod the runtime does not have adds a record and drops it
	// again; the next global relist still finds what changed.
	h.g.RequestRelist("z")
	h.s.Step(100 * time.Millisecond)
	if got := h.drain(); len(got) != 0 {
		t.Errorf("relist of an unknown pod: %v", got)
	}
	h.rt.update(fakePod{uid: "c", containers: []ctr{{"c1", exited}}})
	h.s.Step(time.Second)
	sameEvents(t, "global relist after z", h.drain(), []PodLifecycleEvent{ev("c", ContainerDied, "c1")})
	// And again, now aligned: b changes once more.
	h.rt.update(fakePod{uid: "b", containers: []ctr{{"b1", exited}, {"b2", running}}})
	h.s.Step(time.Second)
	sameEvents(t, "b restarted", h.drain(), []PodLifecycleEvent{ev("b", ContainerStarted, "b2")})
	for uid, want := range map[types.UID]int{"a": 2, "b": 3, "c": 2} {
		if got := h.rt.statusCalls[uid]; got != want {
			t.Errorf("status reads of %s: %d, want %d", uid, got, want)
		}
	}
}

func TestHealthyAndListingFailures(t *testing.T) {
	h := newHarness(false)
	if ok, err := h.g.Healthy(); ok || err == nil || !strings.Contains(err.Error(), "yet to be successful") {
		t.Fatalf("before any relist: %v %v", ok, err)
	}
	h.s.Step(10 * time.Minute)
	if ok, _ := h.g.Healthy(); ok {
		t.Fatal("healthy without ever relisting")
	}

	h.rt.set(fakePod{uid: "p", containers: []ctr{{"c1", running}}})
	h.g.Start() // first relist at 10m
	h.s.Step(0)
	okAt := h.s.Now()
	if ok, err := h.g.Healthy(); !ok {
		t.Fatalf("after a relist: %v", err)
	}
	h.drain()

	// The runtime stops answering lists: relists keep being attempted every period but the
	// relist time and the cache timestamp stay put.
	h.rt.listErr = errors.New("runtime down")
	w := h.wait("p", okAt)
	calls := h.rt.listCalls
	h.s.Step(time.Minute)
	if h.rt.listCalls-calls < 59 {
		t.Errorf("only %d relist attempts in a minute", h.rt.listCalls-calls)
	}
	if w.released {
		t.Error("a failed relist released a worker waiting for a newer status")
	}
	if ok, _ := h.g.Healthy(); !ok {
		t.Error("unhealthy one minute after the last success")
	}
	h.s.RunUntil(okAt.Sub(sim.Epoch) + RelistThreshold)
	if ok, err := h.g.Healthy(); !ok {
		t.Errorf("unhealthy exactly at the threshold: %v", err)
	}
	h.s.Step(time.Second)
	if ok, err := h.g.Healthy(); ok || err == nil || !strings.Contains(err.Error(), "threshold is 3m0s") {
		t.Errorf("after threshold + 1s: %v %v", ok, err)
	}

	// The runtime recovers: the next relist makes the PLEG healthy and frees the worker.
	h.rt.listErr = nil
	h.s.Step(time.Second)
	if ok, err := h.g.Healthy(); !ok {
		t.Errorf("after recovery: %v", err)
	}
	if !w.released || w.err != nil {
		t.Errorf("waiter after recovery: released=%v err=%v", w.released, w.err)
	}
}

func TestRequestRelist(t *testing.T) {
	run := func(onDemand bool) (events []time.Duration, released time.Duration, other bool) {
		h := newHarness(onDemand)
		h.rt.listCost, h.rt.statusCost = 10*time.Millisecond, 5*time.Millisecond
		h.rt.set(fakePod{uid: "p", sandboxes: []ctr{{"sb", running}}}, fakePod{uid: "q", containers: []ctr{{"q-1", running}}})
		h.g.Start()
		h.s.Step(100 * time.Millisecond)
		h.drain()

		// A sync at 300ms starts a container and asks for a relist of its pod.
		h.s.Step(200 * time.Millisecond)
		syncEnd := h.s.Now()
		h.rt.set(fakePod{uid: "p", sandboxes: []ctr{{"sb", running}}, containers: []ctr{{"p-1", running}}}, fakePod{uid: "q", containers: []ctr{{"q-1", running}}})
		w := h.wait("p", syncEnd)
		wq := h.wait("q", syncEnd)
		h.g.RequestRelist("p")
		for i := 0; i < 1000 && h.s.Elapsed() < 1100*time.Millisecond; i++ {
			h.s.Step(time.Millisecond)
			for _, e := range h.drain() {
				if e.Type == ContainerStarted && e.Data == "p-1" {
					events = append(events, h.s.Elapsed())
				}
			}
		}
		return events, w.at, wq.released && wq.at < time.Second
	}

	events, released, other := run(true)
	// 300ms + handoff + 10ms listing + 5ms status read, seen at the next 1ms step.
	if len(events) != 1 || events[0] > 320*time.Millisecond {
		t.Errorf("on-demand: ContainerStarted at %v, want once shortly after 300ms", events)
	}
	if released == 0 || released > 320*time.Millisecond {
		t.Errorf("on-demand: worker released at %s, want shortly after 300ms", released)
	}
	if other {
		t.Error("on-demand relist of p released a worker waiting on q")
	}

	events, released, _ = run(false)
	// The global relists run at 0 and then a period after each returns: 1.015s + 10ms + 5ms.
	if len(events) != 1 || events[0] < time.Second {
		t.Errorf("disabled: ContainerStarted at %v, want only at the next periodic relist", events)
	}
	if released < time.Second {
		t.Errorf("disabled: worker released at %s, before the next periodic relist", released)
	}
}

// An on-demand relist marks its pod observed even when the runtime's listing of the pod is
// the very same (unchanged) object, so the worker that asked is released promptly.
func TestRequestRelistObservesUnchangedPod(t *testing.T) {
	h := newHarness(true)
	h.rt.stable = true
	h.rt.listCost, h.rt.statusCost = 10*time.Millisecond, 5*time.Millisecond
	h.rt.set(fakePod{uid: "p", sandboxes: []ctr{{"sb", running}}, containers: []ctr{{"c1", running}}})
	h.g.Start()
	h.s.Step(300 * time.Millisecond)
	h.drain()
	w := h.wait("p", h.s.Now())
	h.g.RequestRelist("p")
	h.s.Step(100 * time.Millisecond)
	if !w.released || w.at > 320*time.Millisecond {
		t.Errorf("worker released=%v at %s, want shortly after the 300ms request", w.released, w.at)
	}
	if got := h.drain(); len(got) != 0 {
		t.Errorf("unchanged pod produced %v", got)
	}
}

// A request made before a global relist starts is covered by it and skipped; one made
// while the global relist is listing is served after it.
func TestRequestRelistSkippedAfterGlobalRelist(t *testing.T) {
	h := newHarness(true)
	h.rt.listCost = 500 * time.Millisecond
	h.rt.set(fakePod{uid: "p", containers: []ctr{{"c1", running}}})
	h.g.RequestRelist("p") // handed over at 1µs, when the first global relist is due too
	h.g.Start()
	h.s.Step(1200 * time.Millisecond) // global relist: 1µs → 500ms; next one at 1.5s
	if h.rt.listCalls != 1 || len(h.g.requests) != 0 {
		t.Errorf("%d listings and %d queued requests by 1.2s, want 1 and 0 (request skipped)", h.rt.listCalls, len(h.g.requests))
	}

	h2 := newHarness(true)
	h2.rt.listCost = 500 * time.Millisecond
	h2.rt.set(fakePod{uid: "p", containers: []ctr{{"c1", running}}})
	h2.g.Start()
	h2.s.Step(time.Millisecond) // the global relist started at 0 and is listing
	h2.g.RequestRelist("p")
	h2.s.Step(1200 * time.Millisecond) // global done at 500ms, then the request: 500ms → 1s
	if h2.rt.listCalls != 2 {
		t.Errorf("%d listings by 1.2s, want 2 (global, then the request made during it)", h2.rt.listCalls)
	}
}

func TestRequestRelistQueueBounded(t *testing.T) {
	h := newHarness(true)
	h.rt.listCost = time.Second
	h.g.Start()
	h.s.Step(time.Millisecond)
	for i := 0; i < OnDemandQueueLength+50; i++ {
		h.g.RequestRelist(types.UID(fmt.Sprintf("p-%03d", i)))
	}
	if n := len(h.g.requests); n != OnDemandQueueLength {
		t.Errorf("queued %d requests, want the capacity %d", n, OnDemandQueueLength)
	}
}

package pleg

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/sim"
	"nodesim/trace"
)

// Runtime is what PLEG needs of the container runtime.
type Runtime interface {
	GetPods() ([]*container.Pod, error)
	GetPodStatus(uid types.UID, name, namespace string) (*container.PodStatus, error)
	// ListCost is how long listing everything takes now; StatusCost how long one
	// GetPodStatus of a pod with n containers takes.
	ListCost() time.Duration
	StatusCost(n int) time.Duration
}

// Trace kinds recorded by PLEG.
const (
	KindRelist       trace.Kind = "relist"
	KindRelistFailed trace.Kind = "relistFailed"
	KindEvent        trace.Kind = "plegEvent"
	KindHealth       trace.Kind = "plegHealth"
)

type podRecord struct {
	old, current *container.Pod
}

type relistRequest struct {
	uid types.UID
	at  time.Time
}

// handoff is the time it takes a relist request to reach the PLEG goroutine.
const handoff = time.Microsecond

// GenericPLEG relists the runtime periodically and on demand.
type GenericPLEG struct {
	clk     *sim.Clock
	runtime Runtime
	cache   *container.Cache
	ch      *sim.Chan[*PodLifecycleEvent]

	records      map[types.UID]*podRecord
	uids         []types.UID // records' keys in order, nil when stale
	reinspect    map[types.UID]bool
	relistTime   time.Time
	lastRelistAt time.Time // when the last global relist started
	busy         bool
	globalDue    bool
	timer        *sim.Timer
	onDemand     bool
	requests     []relistRequest
}

// NewGenericPLEG returns a PLEG that writes to cache and sends on a plegCh of upstream's
// capacity. onDemand enables single-pod relists (PLEGOnDemandRelist).
func NewGenericPLEG(s *sim.Sim, runtime Runtime, cache *container.Cache, onDemand bool) *GenericPLEG {
	return &GenericPLEG{
		clk:       s.Clock("pleg", sim.PriorityPLEG),
		runtime:   runtime,
		cache:     cache,
		ch:        sim.NewChan[*PodLifecycleEvent](s, "plegCh", ChannelCapacity),
		records:   map[types.UID]*podRecord{},
		reinspect: map[types.UID]bool{},
		onDemand:  onDemand,
	}
}

// Watch is plegCh.
func (g *GenericPLEG) Watch() *sim.Chan[*PodLifecycleEvent] { return g.ch }

// Start runs the first relist now; each next one starts a period after the previous one
// returns.
func (g *GenericPLEG) Start() {
	g.timer = g.clk.Schedule(0, g.timerFired)
}

// Stop stops relisting (kubelet restart).
func (g *GenericPLEG) Stop() {
	if g.timer != nil {
		g.timer.Stop()
	}
}

// Healthy reports whether the last successful relist is recent enough.
func (g *GenericPLEG) Healthy() (bool, error) {
	if g.relistTime.IsZero() {
		return false, fmt.Errorf("pleg has yet to be successful")
	}
	if elapsed := g.clk.Since(g.relistTime); elapsed > RelistThreshold {
		return false, fmt.Errorf("pleg was last seen active %v ago; threshold is %v", elapsed, RelistThreshold)
	}
	return true, nil
}

// OnDemand reports whether single-pod relists on request are on (PLEGOnDemandRelist).
func (g *GenericPLEG) OnDemand() bool { return g.onDemand }

// RequestRelist asks for a relist of one pod as soon as the PLEG is free (on-demand relist,
// after a sync that acted). A no-op when on-demand relists are off.
func (g *GenericPLEG) RequestRelist(uid types.UID) {
	if !g.onDemand {
		return
	}
	if len(g.requests) >= OnDemandQueueLength {
		g.clk.Record(&trace.Event{Kind: trace.Drop, Name: "relistRequest"})
		return
	}
	g.requests = append(g.requests, relistRequest{uid: uid, at: g.clk.Now()})
	if !g.busy {
		g.busy = true
		// Handing the request to the PLEG goroutine is not free: upstream's relist always
		// starts strictly after the sync that asked for it, which GetNewerThan relies on.
		g.clk.Schedule(handoff, g.next)
	}
}

func (g *GenericPLEG) timerFired() {
	g.timer = nil
	g.globalDue = true
	if !g.busy {
		g.busy = true
		g.next()
	}
}

// next serves the worker loop's priorities: the global relist timer first, then one queued
// single-pod request.
func (g *GenericPLEG) next() {
	if g.globalDue {
		g.globalDue = false
		g.relist()
		return
	}
	for len(g.requests) > 0 {
		req := g.requests[0]
		g.requests = g.requests[1:]
		if g.lastRelistAt.After(req.at) {
			continue // a global relist since the request covered it
		}
		g.relistPod(req.uid)
		return
	}
	g.busy = false
}

// relist is one global relist (upstream Relist).
func (g *GenericPLEG) relist() {
	timestamp := g.clk.Now()
	g.lastRelistAt = timestamp
	start := g.clk.Elapsed()
	g.clk.Sim().Continue(g.runtime.ListCost(), func() {
		pods, err := g.runtime.GetPods()
		if err != nil {
			g.clk.Record(&trace.Event{Kind: KindRelistFailed, Dur: g.clk.Elapsed() - start, Attrs: []trace.Attr{{Key: "error", Value: err.Error()}},
				Reason: trace.Because("relistFailed", "the relist time stays put: after 3m without a good relist PLEG is unhealthy and syncLoop stops syncing pods")})
			g.finishGlobal()
			return
		}
		g.relistTime = timestamp
		for _, r := range g.records {
			r.current = nil
		}
		for _, p := range pods {
			r := g.records[p.ID]
			if r == nil {
				r = &podRecord{}
				g.records[p.ID] = r
				g.uids = nil
			}
			r.current = p
		}
		if g.uids == nil {
			g.uids = slices.Sorted(maps.Keys(g.records))
		}
		g.reconcile(g.uids, timestamp, start, true)
	})
}

// relistPod is a single-pod relist (on-demand).
func (g *GenericPLEG) relistPod(uid types.UID) {
	timestamp := g.clk.Now()
	start := g.clk.Elapsed()
	g.clk.Sim().Continue(g.runtime.ListCost(), func() {
		pods, err := g.runtime.GetPods()
		if err != nil {
			g.clk.Record(&trace.Event{Kind: KindRelistFailed, Name: "pod", Dur: g.clk.Elapsed() - start, Attrs: []trace.Attr{{Key: "error", Value: err.Error()}}})
			g.finishSingle()
			return
		}
		r := g.records[uid]
		if r == nil {
			r = &podRecord{}
			g.records[uid] = r
			g.uids = nil
		}
		r.current = nil
		for _, p := range pods {
			if p.ID == uid {
				r.current = p
			}
		}
		g.reconcile([]types.UID{uid}, timestamp, start, false)
	})
}

type pending struct {
	uid    types.UID
	events []*PodLifecycleEvent
	status *container.PodStatus
	err    error
	gone   bool
	name   string
}

// reconcile computes each pod's events, reads the statuses of pods that changed, and after
// the time those reads take, writes the cache and sends the events.
func (g *GenericPLEG) reconcile(uids []types.UID, timestamp time.Time, start time.Duration, global bool) {
	var work []*pending
	var cost time.Duration
	for _, uid := range uids {
		r := g.records[uid]
		if global && r.current != nil && r.current == r.old && !g.reinspect[uid] {
			// The runtime handed out the same listing: nothing changed. (A single-pod relist
			// still inspects the pod, to mark it observed for the worker that asked.)
			continue
		}
		events := computeEvents(uid, r.old, r.current)
		if len(events) == 0 && !g.reinspect[uid] && global {
			continue
		}
		p := &pending{uid: uid, events: events}
		pod := r.current
		if pod == nil {
			pod = r.old
		}
		if pod != nil {
			p.name = pod.Namespace + "/" + pod.Name
		}
		if r.current == nil {
			p.gone = true
		} else {
			p.status, p.err = g.runtime.GetPodStatus(uid, r.current.Name, r.current.Namespace)
			cost += g.runtime.StatusCost(len(r.current.Containers))
		}
		work = append(work, p)
	}
	g.clk.Sim().Continue(cost, func() {
		failed := map[types.UID]bool{}
		sent, dropped := 0, 0
		for _, p := range work {
			r := g.records[p.uid]
			if p.gone {
				g.cache.Delete(p.uid)
			} else {
				if p.err != nil {
					// The cache keeps the error (a waiting pod worker sees it); inspect again
					// next time and do not advance the record, so the same events come again.
					g.cache.Set(p.uid, p.status, p.err, timestamp)
					failed[p.uid] = true
					continue
				}
				g.cache.Set(p.uid, p.status, nil, timestamp)
				if !global {
					g.cache.MarkObserved(p.uid, timestamp)
				}
			}
			if len(p.events) == 0 && g.reinspect[p.uid] {
				p.events = append(p.events, &PodLifecycleEvent{ID: p.uid, Type: PodSync})
			}
			if r.current == nil {
				delete(g.records, p.uid)
				g.uids = nil
			} else {
				r.old = r.current
			}
			for _, e := range p.events {
				if e.Type == ContainerChanged {
					continue
				}
				ok := g.ch.TrySend(e)
				attrs := []trace.Attr{{Key: "type", Value: string(e.Type)}, {Key: "id", Value: e.Data}}
				if !ok {
					dropped++
					attrs = append(attrs, trace.Attr{Key: "dropped", Value: "true"})
				} else {
					sent++
				}
				g.clk.Record(&trace.Event{Kind: KindEvent, Name: string(e.Type), Pod: p.name, Attrs: attrs})
			}
		}
		if global {
			g.reinspect = failed
			g.cache.UpdateTime(timestamp)
		} else {
			for uid := range failed {
				g.reinspect[uid] = true
			}
		}
		name := "relist"
		attrs := []trace.Attr{{Key: "pods", Value: strconv.Itoa(len(work))}, {Key: "events", Value: strconv.Itoa(sent)}, {Key: "dropped", Value: strconv.Itoa(dropped)}}
		if !global {
			name = "relistPod"
			if len(uids) == 1 {
				// The pod whose request this relist serves, to match it with the request.
				attrs = append(attrs, trace.Attr{Key: "uid", Value: string(uids[0])})
			}
		}
		g.clk.Record(&trace.Event{Kind: KindRelist, Name: name, Dur: g.clk.Elapsed() - start, Attrs: attrs})
		if global {
			g.finishGlobal()
		} else {
			g.finishSingle()
		}
	})
}

func (g *GenericPLEG) finishGlobal() {
	g.timer = g.clk.Schedule(RelistPeriod, g.timerFired)
	g.next()
}

func (g *GenericPLEG) finishSingle() { g.next() }

// plegState maps runtime states onto the four states PLEG compares.
type plegState int

const (
	plegRunning plegState = iota
	plegExited
	plegUnknown
	plegNonExistent
)

func convertState(s container.State) plegState {
	switch s {
	case container.StateRunning:
		return plegRunning
	case container.StateExited:
		return plegExited
	default: // created and unknown both count as unknown
		return plegUnknown
	}
}

func stateOf(p *container.Pod, id string) plegState {
	if p == nil {
		return plegNonExistent
	}
	for _, c := range p.Containers {
		if c.ID == id {
			return convertState(c.State)
		}
	}
	for _, c := range p.Sandboxes {
		if c.ID == id {
			return convertState(c.State)
		}
	}
	return plegNonExistent
}

// computeEvents compares every container and sandbox ID in the old and new lists.
func computeEvents(uid types.UID, old, cur *container.Pod) []*PodLifecycleEvent {
	seen := map[string]bool{}
	var ids []string
	for _, p := range []*container.Pod{old, cur} {
		if p == nil {
			continue
		}
		for _, list := range [][]*container.Container{p.Sandboxes, p.Containers} {
			for _, c := range list {
				if !seen[c.ID] {
					seen[c.ID] = true
					ids = append(ids, c.ID)
				}
			}
		}
	}
	var out []*PodLifecycleEvent
	for _, id := range ids {
		out = append(out, generateEvents(uid, id, stateOf(old, id), stateOf(cur, id))...)
	}
	return out
}

// generateEvents is upstream's table of state transitions to events.
func generateEvents(uid types.UID, id string, oldState, newState plegState) []*PodLifecycleEvent {
	if oldState == newState {
		return nil
	}
	ev := func(t PodLifeCycleEventType) *PodLifecycleEvent {
		return &PodLifecycleEvent{ID: uid, Type: t, Data: id}
	}
	switch newState {
	case plegRunning:
		return []*PodLifecycleEvent{ev(ContainerStarted)}
	case plegExited:
		return []*PodLifecycleEvent{ev(ContainerDied)}
	case plegUnknown:
		return []*PodLifecycleEvent{ev(ContainerChanged)}
	case plegNonExistent:
		if oldState == plegExited {
			return []*PodLifecycleEvent{ev(ContainerRemoved)}
		}
		return []*PodLifecycleEvent{ev(ContainerDied), ev(ContainerRemoved)}
	}
	return nil
}

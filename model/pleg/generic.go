package pleg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/sim"
	"nodesim/trace"
)

// Runtime is what PLEG needs of the container runtime.
type Runtime interface {
	// GetPods lists the runtime's pods, best in UID order (a listing in any other order is
	// sorted). The runtime may rewrite the slice at a later GetPods (PLEG keeps a copy),
	// but never changes a pod object it listed: PLEG tells unchanged pods by pointer.
	GetPods() ([]*container.Pod, error)
	// ListingVersion changes whenever GetPods' answer may have changed: PLEG tells an
	// unchanged listing by it.
	ListingVersion() uint64
	// GetPod is one pod's listing, the object GetPods would list for it (nil when the
	// runtime has nothing of the pod), failing as GetPods would: a single-pod relist reads
	// it instead of the whole listing.
	GetPod(uid types.UID) (*container.Pod, error)
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

// podRecord is what PLEG knows of one pod: the listing it last acted on (old) and the one
// of the relist in progress (current).
type podRecord struct {
	uid          types.UID
	old, current *container.Pod
	// fullName is "namespace/name" of the pod named nameOf, kept so that a relist does not
	// join the strings again for every pod it reports on. A pod's name never changes, so
	// the check in podName is only a guard.
	fullName string
	nameOf   struct{ namespace, name string }
	// removed marks a record of a vanished pod, dropped from records at the end of the
	// relist that saw it go.
	removed bool
	// podAttrs are the attributes of this pod's last single-pod relist: its counts, then
	// the UID.
	podAttrs []trace.Attr
}

// relistPodAttrs are the attributes of a single-pod relist of this pod with the counts
// given: the counts and the pod's UID. The pod's next relist with the same counts gets
// the same attributes (recorded attributes are never written).
func (r *podRecord) relistPodAttrs(counts []trace.Attr) []trace.Attr {
	if len(r.podAttrs) != len(counts)+1 || !slices.Equal(r.podAttrs[:len(counts)], counts) {
		r.podAttrs = append(counts[:len(counts):len(counts)], trace.Attr{Key: "uid", Value: string(r.uid)})
	}
	return r.podAttrs
}

// podName is "namespace/name" of pod, which is the record's pod.
func (r *podRecord) podName(pod *container.Pod) string {
	if r.fullName == "" || r.nameOf.namespace != pod.Namespace || r.nameOf.name != pod.Name {
		r.fullName = pod.Namespace + "/" + pod.Name
		r.nameOf.namespace, r.nameOf.name = pod.Namespace, pod.Name
	}
	return r.fullName
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

	// records are the pods PLEG knows, sorted by UID, the order the runtime lists pods
	// in: a global relist walks them alongside the listing instead of looking each pod up.
	// spare is the previous relist's array, reused to build the next merge.
	records, spare []*podRecord
	reinspect      map[types.UID]bool
	// inflight is the relist in progress. Only one relist runs at a time (busy), and each
	// is done with this state before the next starts, so its lists are reused.
	inflight struct {
		timestamp time.Time     // when the relist started
		start     time.Duration // the same, as elapsed time, for the relist's duration
		global    bool
		uid       types.UID            // the pod of a single-pod relist
		work      []pending            // what reconcile found to do
		events    []*PodLifecycleEvent // the events of work's pods, one part each
		single    [1]*podRecord
	}
	// lastListing is the listing the last global relist reconciled, and touched tells
	// whether a single-pod relist has changed a record since. A global relist that gets
	// the same listing back (the runtime hands out the same slice until a pod changes)
	// with nothing touched and nothing to reinspect has nothing to compare: every record
	// is as that relist left it.
	lastListing []*container.Pod
	// lastListingVersion is the runtime's ListingVersion when lastListing (a copy of the
	// runtime's slice, which the runtime may rewrite) was listed; lastListingOK says
	// lastListing is set.
	lastListingVersion uint64
	lastListingOK      bool
	touched            bool
	// aligned: lastListing lists exactly the pods of records, in their order (the last
	// merge found the same pods as the one before, and no single-pod relist has added or
	// dropped a record since; see changedSinceLastListing).
	aligned bool
	// arena makes the events PLEG sends and records (see eventArena).
	arena eventArena
	// changed is changedSinceLastListing's answer, reused from relist to relist.
	changed []*podRecord
	// idleAttrs are the attributes of a relist that inspected no pod, shared by every such
	// relist's event and never written (capacity is length, so an append copies).
	idleAttrs []trace.Attr
	// lastAttrs and lastCounts: the last non-idle relist's attributes (see relistAttrs).
	lastAttrs  []trace.Attr
	lastCounts [3]int

	relistTime time.Time
	// relistElapsed is relistTime as elapsed run time: Healthy, asked at every syncLoop
	// pass, subtracts durations instead of times.
	relistElapsed time.Duration
	lastRelistAt  time.Time // when the last global relist started
	busy          bool
	globalDue     bool
	timer         *sim.Timer
	onDemand      bool
	requests      []relistRequest

	// The continuations of a relist, made once: a method value allocates each time it is
	// taken.
	timerFiredFn, nextFn, listedFn, listedPodFn, reconciledFn func()
}

// NewGenericPLEG returns a PLEG that writes to cache and sends on a plegCh of upstream's
// capacity. onDemand enables single-pod relists (PLEGOnDemandRelist).
func NewGenericPLEG(s *sim.Sim, runtime Runtime, cache *container.Cache, onDemand bool) *GenericPLEG {
	g := &GenericPLEG{
		clk:       s.Clock("pleg", sim.PriorityPLEG),
		runtime:   runtime,
		cache:     cache,
		ch:        sim.NewChan[*PodLifecycleEvent](s, "plegCh", ChannelCapacity),
		reinspect: map[types.UID]bool{},
		onDemand:  onDemand,
		idleAttrs: []trace.Attr{{Key: "pods", Value: "0"}, {Key: "events", Value: "0"}, {Key: "dropped", Value: "0"}},
	}
	g.timerFiredFn, g.nextFn = g.timerFired, g.next
	g.listedFn, g.listedPodFn, g.reconciledFn = g.listed, g.listedPod, g.reconciled
	return g
}

// Watch is plegCh.
func (g *GenericPLEG) Watch() *sim.Chan[*PodLifecycleEvent] { return g.ch }

// Start runs the first relist now; each next one starts a period after the previous one
// returns.
func (g *GenericPLEG) Start() {
	g.timer = g.clk.Schedule(0, g.timerFiredFn)
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
	if elapsed := g.clk.Elapsed() - g.relistElapsed; elapsed > RelistThreshold {
		return false, fmt.Errorf("pleg was last seen active %v ago; threshold is %v", elapsed, RelistThreshold)
	}
	return true, nil
}

// IsHealthy is Healthy's verdict alone: the syncLoop's health gate asks at every pass and
// needs the error only when the answer is no.
func (g *GenericPLEG) IsHealthy() bool {
	return !g.relistTime.IsZero() && g.clk.Elapsed()-g.relistElapsed <= RelistThreshold
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
		g.clk.Go(handoff, g.nextFn)
	}
}

func (g *GenericPLEG) timerFired() {
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
		// Shifted down rather than resliced, so that the queue's array serves every later
		// request instead of being outgrown and made anew (the queue is short: at most
		// OnDemandQueueLength, usually one).
		g.requests = slices.Delete(g.requests, 0, 1)
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
	g.inflight.timestamp, g.inflight.start, g.inflight.global = timestamp, g.clk.Elapsed(), true
	g.clk.Sim().Continue(g.runtime.ListCost(), g.listedFn)
}

// listed is a global relist once the listing has returned.
func (g *GenericPLEG) listed() {
	pods, err := g.runtime.GetPods()
	version := g.runtime.ListingVersion()
	if err != nil {
		g.clk.Record(&trace.Event{Kind: KindRelistFailed, Dur: g.clk.Elapsed() - g.inflight.start, Attrs: []trace.Attr{{Key: "error", Value: err.Error()}},
			Reason: trace.Because("relistFailed", "the relist time stays put: after 3m without a good relist PLEG is unhealthy and syncLoop stops syncing pods")})
		g.finishGlobal()
		return
	}
	g.relistTime, g.relistElapsed = g.inflight.timestamp, g.inflight.start
	if len(g.reinspect) == 0 {
		if !g.touched && g.sameListing(pods, version) {
			g.reconcile(nil)
			return
		}
		if changed, ok := g.changedSinceLastListing(pods); ok {
			g.keepListing(pods, version)
			g.reconcile(changed)
			clear(changed) // reconcile keeps what it needs in its work list
			return
		}
	}
	g.merge(pods)
	g.keepListing(pods, version)
	g.reconcile(g.records)
}

// changedSinceLastListing handles a global relist whose listing holds the same pods, in the
// same order, as the last global relist's, while nothing is to be reinspected. Then
// (aligned) records[i] is the record of lastListing[i], and a pod listed by the same
// object again gives reconcile nothing to do: the runtime makes a new object for every
// change of a pod, so that object is also the one any single-pod relist since has seen,
// and the record's current listing; the last relist that looked at it either found no
// events or advanced the record's old listing to it (a failed status read would be in
// reinspect). So only the records of pods listed by a new object are updated and
// returned, in UID order, as reconcile would meet them walking every record; the walk
// compares the pointers of two arrays and loads neither the pods nor the records of
// unchanged pods. ok is false when the pods differ: the caller then merges the listing
// (which sets every record's current listing again).
func (g *GenericPLEG) changedSinceLastListing(pods []*container.Pod) (changed []*podRecord, ok bool) {
	if !g.aligned || len(pods) != len(g.lastListing) {
		return nil, false
	}
	changed = g.changed[:0]
	for i := container.NextChanged(pods, g.lastListing, 0); i < len(pods); i = container.NextChanged(pods, g.lastListing, i+1) {
		p, r := pods[i], g.records[i]
		if p.ID != r.uid {
			clear(changed)
			return nil, false
		}
		r.current = p
		changed = append(changed, r)
	}
	g.changed = changed
	return changed, true
}

// sameListing reports whether pods, listed at version, is the listing the last global
// relist got.
func (g *GenericPLEG) sameListing(pods []*container.Pod, version uint64) bool {
	return len(pods) == len(g.lastListing) && (len(pods) == 0 || g.lastListingOK && version == g.lastListingVersion)
}

// keepListing makes pods, listed at version, the last listing (a copy: the runtime may
// rewrite its slice), with nothing touched since.
func (g *GenericPLEG) keepListing(pods []*container.Pod, version uint64) {
	n := len(g.lastListing)
	g.lastListing = append(g.lastListing[:0], pods...)
	if len(pods) < n {
		clear(g.lastListing[len(pods):n]) // drop pods no longer listed
	}
	g.lastListingVersion, g.lastListingOK, g.touched = version, true, false
}

// merge sets every record's current listing: the listed pod, or nil for a pod no longer
// listed, adding records for pods seen for the first time. The result is the records
// sorted by UID, as sorting the keys of a map of them would give.
func (g *GenericPLEG) merge(pods []*container.Pod) {
	if g.sameUIDs(pods) {
		// The usual relist: the same pods as last time, in the same order.
		for i, p := range pods {
			g.records[i].current = p
		}
		g.aligned = true
		return
	}
	g.aligned = false
	if !slices.IsSortedFunc(pods, comparePodIDs) {
		// The runtime lists pods in UID order; any other order is sorted here. (A UID
		// listed twice counts as its last listing, the stable sort keeps that one last.)
		pods = slices.Clone(pods)
		slices.SortStableFunc(pods, comparePodIDs)
	}
	old := g.records
	merged := g.spare[:0]
	i := 0
	for _, p := range pods {
		for i < len(old) && old[i].uid < p.ID {
			old[i].current = nil
			merged = append(merged, old[i])
			i++
		}
		if n := len(merged); n > 0 && merged[n-1].uid == p.ID {
			merged[n-1].current = p
			continue
		}
		var r *podRecord
		if i < len(old) && old[i].uid == p.ID {
			r = old[i]
			i++
		} else {
			r = &podRecord{uid: p.ID}
		}
		r.current = p
		merged = append(merged, r)
	}
	for ; i < len(old); i++ {
		old[i].current = nil
		merged = append(merged, old[i])
	}
	clear(old)
	g.records, g.spare = merged, old[:0]
}

// sameUIDs reports whether pods lists exactly the pods of records, in their order.
func (g *GenericPLEG) sameUIDs(pods []*container.Pod) bool {
	if len(pods) != len(g.records) {
		return false
	}
	for i, p := range pods {
		if g.records[i].uid != p.ID {
			return false
		}
	}
	return true
}

func comparePodIDs(a, b *container.Pod) int { return strings.Compare(string(a.ID), string(b.ID)) }

// record returns the record of uid, nil if there is none, and where it is or would go.
func (g *GenericPLEG) record(uid types.UID) (*podRecord, int) {
	i, found := slices.BinarySearchFunc(g.records, uid, func(r *podRecord, uid types.UID) int { return strings.Compare(string(r.uid), string(uid)) })
	if !found {
		return nil, i
	}
	return g.records[i], i
}

// relistPod is a single-pod relist (on-demand).
func (g *GenericPLEG) relistPod(uid types.UID) {
	g.inflight.timestamp, g.inflight.start, g.inflight.global = g.clk.Now(), g.clk.Elapsed(), false
	g.inflight.uid = uid
	g.clk.Sim().Continue(g.runtime.ListCost(), g.listedPodFn)
}

// listedPod is a single-pod relist once the listing has returned.
func (g *GenericPLEG) listedPod() {
	pod, err := g.runtime.GetPod(g.inflight.uid)
	if err != nil {
		g.clk.Record(&trace.Event{Kind: KindRelistFailed, Name: "pod", Dur: g.clk.Elapsed() - g.inflight.start, Attrs: []trace.Attr{{Key: "error", Value: err.Error()}}})
		g.finishSingle()
		return
	}
	uid := g.inflight.uid
	r, i := g.record(uid)
	if r == nil {
		r = &podRecord{uid: uid}
		g.records = slices.Insert(g.records, i, r)
		g.aligned = false
	}
	g.touched = true
	r.current = pod
	g.inflight.single[0] = r
	g.reconcile(g.inflight.single[:])
}

type pending struct {
	r      *podRecord
	events []*PodLifecycleEvent
	status *container.PodStatus
	err    error
	gone   bool
	name   string
	// reinspect: the pod failed an earlier status read and is inspected again.
	reinspect bool
}

// reconcile computes each pod's events, reads the statuses of pods that changed, and after
// the time those reads take (reconciled), writes the cache and sends the events.
func (g *GenericPLEG) reconcile(records []*podRecord) {
	global := g.inflight.global
	work := g.inflight.work[:0]
	var cost time.Duration
	for _, r := range records {
		reinspect := len(g.reinspect) > 0 && g.reinspect[r.uid]
		if global && r.current != nil && r.current == r.old && !reinspect {
			// The runtime handed out the same listing: nothing changed. (A single-pod relist
			// still inspects the pod, to mark it observed for the worker that asked.)
			continue
		}
		// Every pod's events go to one array, reused from relist to relist; each pod's
		// part is capped at its length, so that appending to it copies.
		n := len(g.inflight.events)
		g.inflight.events = appendEvents(&g.arena, g.inflight.events, r.uid, r.old, r.current)
		events := g.inflight.events[n:len(g.inflight.events):len(g.inflight.events)]
		if len(events) == 0 && !reinspect && global {
			continue
		}
		p := pending{r: r, events: events, reinspect: reinspect}
		pod := r.current
		if pod == nil {
			pod = r.old
		}
		if pod != nil {
			p.name = r.podName(pod)
		}
		if r.current == nil {
			p.gone = true
		} else {
			p.status, p.err = g.runtime.GetPodStatus(r.uid, r.current.Name, r.current.Namespace)
			cost += g.runtime.StatusCost(len(r.current.Containers))
		}
		work = append(work, p)
	}
	g.inflight.work = work
	g.clk.Sim().Continue(cost, g.reconciledFn)
}

// reconciled is the second half of reconcile, once the status reads have returned.
func (g *GenericPLEG) reconciled() {
	global, timestamp, work := g.inflight.global, g.inflight.timestamp, g.inflight.work
	var failed []types.UID
	sent, dropped := 0, 0
	removed := false
	for i := range work {
		p := &work[i]
		r := p.r
		if p.gone {
			g.cache.Delete(r.uid)
		} else {
			if p.err != nil {
				// The cache keeps the error (a waiting pod worker sees it); inspect again
				// next time and do not advance the record, so the same events come again.
				g.cache.Set(r.uid, p.status, p.err, timestamp)
				failed = append(failed, r.uid)
				continue
			}
			g.cache.Set(r.uid, p.status, nil, timestamp)
			if !global {
				g.cache.MarkObserved(r.uid, timestamp)
			}
		}
		if len(p.events) == 0 && p.reinspect {
			p.events = append(p.events, &PodLifecycleEvent{ID: r.uid, Type: PodSync})
		}
		if r.current == nil {
			r.removed = true
			removed = true
		} else {
			r.old = r.current
		}
		for _, e := range p.events {
			if e.Type == ContainerChanged {
				continue
			}
			ok := g.ch.TrySend(e)
			attrs := g.arena.attrs(trace.Attr{Key: "type", Value: string(e.Type)}, trace.Attr{Key: "id", Value: e.Data})
			if !ok {
				dropped++
				attrs = append(attrs, trace.Attr{Key: "dropped", Value: "true"})
			} else {
				sent++
			}
			g.clk.Record(&trace.Event{Kind: KindEvent, Name: string(e.Type), Pod: p.name, Attrs: attrs})
		}
	}
	if removed {
		g.records = slices.DeleteFunc(g.records, func(r *podRecord) bool { return r.removed })
		g.aligned = false
	}
	if global {
		if len(g.reinspect) > 0 { // clearing even an empty map walks its table
			clear(g.reinspect)
		}
		g.cache.UpdateTime(timestamp)
	}
	for _, uid := range failed {
		g.reinspect[uid] = true
	}
	name := "relist"
	var attrs []trace.Attr
	if len(work) == 0 { // nothing to send either
		attrs = g.idleAttrs
	} else {
		attrs = g.relistAttrs(len(work), sent, dropped)
	}
	if !global {
		name = "relistPod"
		// The pod whose request this relist serves, to match it with the request.
		attrs = g.inflight.single[0].relistPodAttrs(attrs)
	}
	clear(work)
	clear(g.inflight.events) // sent or dropped: the array keeps none of them
	g.inflight.events = g.inflight.events[:0]
	g.inflight.single[0] = nil
	g.clk.Record(&trace.Event{Kind: KindRelist, Name: name, Dur: g.clk.Elapsed() - g.inflight.start, Attrs: attrs})
	if global {
		g.finishGlobal()
	} else {
		g.finishSingle()
	}
}

// finishGlobal arms the relist timer a period from now. The PLEG keeps one Timer for its
// whole life and resets it here (it fired to start this relist, so it is not pending):
// the same firing time, track, priority and lifetime as a fresh one, without allocating.
func (g *GenericPLEG) finishGlobal() {
	g.timer.Reset(RelistPeriod)
	g.next()
}

func (g *GenericPLEG) finishSingle() { g.next() }

// relistAttrs returns a relist event's counts as attributes. A relist with the same counts
// as the last one that had any gets the same slice: recorded attributes are never written,
// and the slice's capacity is its length, so the uid a single-pod relist appends goes to a
// copy.
func (g *GenericPLEG) relistAttrs(pods, events, dropped int) []trace.Attr {
	counts := [3]int{pods, events, dropped}
	if g.lastAttrs == nil || g.lastCounts != counts {
		g.lastAttrs = []trace.Attr{{Key: "pods", Value: strconv.Itoa(pods)}, {Key: "events", Value: strconv.Itoa(events)}, {Key: "dropped", Value: strconv.Itoa(dropped)}}
		g.lastCounts = counts
	}
	return g.lastAttrs
}

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

// computeEvents compares every container and sandbox ID in the old and new lists: the
// old pod's sandboxes and containers, then the new pod's, each ID once, in that order.
func computeEvents(uid types.UID, old, cur *container.Pod) []*PodLifecycleEvent {
	return appendEvents(nil, nil, uid, old, cur)
}

// appendEvents is computeEvents appending to out, the events made by arena (nil: one
// allocation each).
func appendEvents(arena *eventArena, out []*PodLifecycleEvent, uid types.UID, old, cur *container.Pod) []*PodLifecycleEvent {
	var buf [16]string // a pod's IDs fit here; more spill to the heap
	ids := buf[:0]
	for _, p := range [2]*container.Pod{old, cur} {
		if p == nil {
			continue
		}
		for _, list := range [2][]*container.Container{p.Sandboxes, p.Containers} {
			for _, c := range list {
				if !slices.Contains(ids, c.ID) {
					ids = append(ids, c.ID)
				}
			}
		}
	}
	for _, id := range ids {
		out = generateEvents(arena, out, uid, id, stateOf(old, id), stateOf(cur, id))
	}
	return out
}

// generateEvents is upstream's table of state transitions to events, appended to out.
func generateEvents(arena *eventArena, out []*PodLifecycleEvent, uid types.UID, id string, oldState, newState plegState) []*PodLifecycleEvent {
	if oldState == newState {
		return out
	}
	ev := func(t PodLifeCycleEventType) *PodLifecycleEvent {
		return arena.event(PodLifecycleEvent{ID: uid, Type: t, Data: id})
	}
	switch newState {
	case plegRunning:
		return append(out, ev(ContainerStarted))
	case plegExited:
		return append(out, ev(ContainerDied))
	case plegUnknown:
		return append(out, ev(ContainerChanged))
	case plegNonExistent:
		if oldState == plegExited {
			return append(out, ev(ContainerRemoved))
		}
		return append(out, ev(ContainerDied), ev(ContainerRemoved))
	}
	return out
}

// eventArena hands out the lifecycle events PLEG sends and the attributes of the events
// it records, many to an allocation: a crash-looping pod's every restart makes a few of
// each. What it hands out is kept by whoever receives it (the syncLoop, a trace sink), as
// long as it likes, so no part of a chunk is ever handed out twice; a full chunk is left
// to the events that refer to it and a new one started.
type eventArena struct {
	events []PodLifecycleEvent
	pairs  trace.AttrArena
}

// eventArenaChunk is how many events a chunk holds.
const eventArenaChunk = 64

// event returns a new event holding e (allocated alone when a is nil).
func (a *eventArena) event(e PodLifecycleEvent) *PodLifecycleEvent {
	var p *PodLifecycleEvent
	if a == nil {
		p = new(PodLifecycleEvent) // not &e, which would move every e to the heap
	} else {
		if len(a.events) == 0 {
			a.events = make([]PodLifecycleEvent, eventArenaChunk)
		}
		p = &a.events[0]
		a.events = a.events[1:]
	}
	*p = e
	return p
}

// attrs returns the attributes x and y in a slice of their own, capacity 2 (an append
// copies).
func (a *eventArena) attrs(x, y trace.Attr) []trace.Attr {
	out := a.pairs.Make(2)
	out[0], out[1] = x, y
	return out
}

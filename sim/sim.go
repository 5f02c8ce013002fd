package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"nodesim/trace"
)

// Priority orders events scheduled for the same instant; lower runs first.
type Priority int8

// The same-instant order of the node's components.
const (
	// PriorityRuntime: processes in the fake runtime start, exit and change usage.
	PriorityRuntime Priority = 10
	// PriorityPLEG: relists observe the runtime after its changes at that instant.
	PriorityPLEG Priority = 20
	// PriorityConfig: config sources deliver pods and outside events happen.
	PriorityConfig Priority = 30
	// PriorityTicker: periodic tickers fire.
	PriorityTicker Priority = 35
	// PriorityDefault is for anything without a stronger claim.
	PriorityDefault Priority = 40
	// PrioritySyncLoop: the syncLoop's select wakes once every same-instant send has landed,
	// so that it sees every channel that became ready at that instant.
	PrioritySyncLoop Priority = 50
	// PriorityPodWorker: pod workers run their rounds.
	PriorityPodWorker Priority = 60
	// PriorityStatus: the status manager writes statuses.
	PriorityStatus Priority = 70
	// PriorityEviction: the eviction manager's pass sees everything else at that instant.
	PriorityEviction Priority = 80
)

// Epoch is the wall-clock time a run starts at. It is fixed so that every timestamp a run
// produces is the same on every machine.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// event is one entry of the queue. A Timer's event is part of the Timer and is queued again
// by each Reset and each period; any other event (a continuation, a select's wake-up) comes
// from the Sim's free list and goes back to it once popped, since nothing outside the queue
// refers to it.
type event struct {
	at time.Duration
	// key is the ordering key (see order) the event waits under, and zero while it does
	// not wait: a heap slot whose key is not its event's key is stale (see Timer.Stop)
	// and is skipped when it comes up. Sequence numbers start at one, so no key is zero,
	// and RunUntil tells a live slot from a stale one with a single comparison.
	key uint64
	// prioKey is prio's part of a key, order(prio, 0), set with prio: push makes the key by
	// adding the sequence number's bits to it.
	prioKey uint64
	// next and prev link the event into its bucket of the wheel while it waits there
	// (wheeled; see wheel). next also links the Sim's free list while the event is on it
	// (see release), never at the same time.
	next, prev *event
	prio       Priority
	wheeled    bool
	seq        uint64 // the sequence number the event was last queued under
	fn         func() // what a free-list event runs (nil for a timer's event)
	timer      *Timer // the timer this event belongs to, nil for a free-list event
	track      string
	life       *Lifetime
}

// queued reports whether the event waits in the queue.
func (ev *event) queued() bool { return ev.key != 0 }

// Lifetime is the life of a group of processes, such as every goroutine of one kubelet
// process. Ending it drops every event its processes have scheduled, including the
// continuations of calls they were waiting on, as the death of an OS process would.
type Lifetime struct {
	name   string
	ended  bool
	parent *Lifetime
	// context: a lifetime for one piece of work of the parent's processes (see Context)
	context bool
}

// NewLifetime returns a live lifetime.
func NewLifetime(name string) *Lifetime { return &Lifetime{name: name} }

// End ends the lifetime.
func (l *Lifetime) End() {
	if l != nil {
		l.ended = true
	}
}

// Ended reports whether the lifetime, or one it was made from, has ended.
func (l *Lifetime) Ended() bool {
	for ; l != nil; l = l.parent {
		if l.ended {
			return true
		}
	}
	return false
}

// Context returns a lifetime for one piece of work done by l's processes, as a cancellable
// context is for a goroutine's call chain (a pod worker's sync): ending it drops the
// continuations of that work, the calls it is waiting on included; ending l ends it too.
// Processes created while it runs still belong to l, since a context bounds calls, not the
// goroutines they start.
func (l *Lifetime) Context(name string) *Lifetime {
	return &Lifetime{name: name, parent: l, context: true}
}

// owner is the lifetime processes created under l belong to: l without its contexts.
func (l *Lifetime) owner() *Lifetime {
	for l != nil && l.context {
		l = l.parent
	}
	return l
}

// Sim is one simulation: a virtual clock, its event queue, the run's seed and the trace.
type Sim struct {
	now time.Duration
	// near and queue hold the pending events: near those due soon, queue (a heap) the
	// others (see wheel). farAt is when the heap's first is due (the end of time when the
	// heap is empty), kept by every change to the heap so that RunUntil need not look
	// into the heap while the wheel's first comes before it.
	near  wheel
	queue []qslot
	farAt time.Duration
	// nowTime is Now at the instant nowFor (see Now); New starts them at Epoch and zero.
	nowTime time.Time
	nowFor  time.Duration
	stale   int    // slots in queue left behind by a stopped or reset timer (see unqueue)
	free    *event // popped free-list events, linked by next, for schedule to reuse
	seq     uint64
	flows   uint64
	seed    uint64
	track   string
	prio    Priority
	life    *Lifetime
	sink    trace.Sink
	traceN  uint64
	// rec is the event handed to the sink (see Record); recording is set while it is lent.
	rec       trace.Event
	recording bool
	// depth holds the channel depth attributes made so far (see depthAttrs).
	depth   [][]trace.Attr
	stopped bool
	fired   uint64
	// noReasons says no sink reads a decision's Reason (see SetReasons).
	noReasons bool
	// skips are the kinds of event nobody reads (see SetSkips); skipSend and skipRecv say
	// whether the channels' own kinds are among them, for Chan to test at every step.
	skips              []trace.Kind
	skipSend, skipRecv bool
	// skipPodStats says nobody reads a pod's stats sample (see SkipPodStats).
	skipPodStats bool

	// The watchdog (see watchdog.go): its bounds, the instant and the simulated second
	// (window) whose events it counts, the fired count of each one's first event (one
	// before the first event, as if it began them), and the fired count up to which no
	// bound can break.
	bounds       Watchdog
	instant      time.Duration
	instantFirst uint64
	window       time.Duration
	windowFirst  uint64
	windowed     bool // a window has begun (the first event begins one)
	limit        uint64
	// windowTest is when an event may be a second or more after window: window + 1s, or
	// the end of time; before the first event, the start of time, so that the first
	// event opens a window (see watch).
	windowTest time.Duration
	stall      *Stalled
}

// New returns a simulation at time zero whose randomness derives from seed and whose
// trace goes to sink (nil keeps nothing).
func New(seed uint64, sink trace.Sink) *Sim {
	if sink == nil {
		sink = trace.Discard{}
	}
	s := &Sim{seed: seed, sink: sink, prio: PriorityDefault, bounds: DefaultWatchdog, instantFirst: 1, windowFirst: 1, windowTest: math.MinInt64, farAt: math.MaxInt64, nowTime: Epoch}
	s.setLimit()
	return s
}

// SetReasons says whether any sink reads the Reason of an event: a run whose output has no
// transcript and no trace file (a report, a sweep) turns them off. Off, Record drops every
// event's Reason, so that no sink sees one, and Clock.Reasons tells components they may skip
// building them: a reason's text is the costliest part of the most frequent events (a
// resync's jittered requeue), and nothing else about an event changes.
func (s *Sim) SetReasons(on bool) { s.noReasons = !on }

// SetSkips names the kinds of event that no sink and no checker reads (the kinds a report
// builder skips, in a run that writes no trace). A component may ask Records once, when it
// is built, and then leave the events of such a kind unbuilt: it calls Skip in place of
// Record, which keeps the sequence numbers of every later event what they would have
// been. The set is fixed before anything is scheduled, so that every component built
// afterwards sees the same answer for the whole run; the default records every kind.
func (s *Sim) SetSkips(kinds []trace.Kind) {
	if s.seq > 0 {
		panic("sim: SetSkips after events were scheduled")
	}
	s.skips = slices.Clone(kinds)
	s.skipSend, s.skipRecv = !s.Records(trace.Send), !s.Records(trace.Recv)
}

// Records reports whether events of kind are read by anyone (see SetSkips). It is meant to
// be asked when a component is built, not at every event.
func (s *Sim) Records(kind trace.Kind) bool { return !slices.Contains(s.skips, kind) }

// SkipPodStats says that nobody reads the stats samples of pods (trace.Stats events named
// "pod"), the most frequent events of a run, while a node's samples may still be read (the
// invariant checker reads them): Record drops the pods' samples itself, once they have
// their sequence number, as their recorder does not ask Records. Like SetSkips, it is set
// before anything is scheduled and holds for the whole run.
func (s *Sim) SkipPodStats() {
	if s.seq > 0 {
		panic("sim: SkipPodStats after events were scheduled")
	}
	s.skipPodStats = true
}

// Skip stands for an event of a kind nobody records (see SetSkips): it takes the event's
// sequence number, so that the events recorded after it are numbered as if it had been.
func (s *Sim) Skip() { s.traceN++ }

// StartAt sets the clock before anything is scheduled, for a run that has a prologue before
// its time zero (a kubelet that boots before the scenario begins).
func (s *Sim) StartAt(t time.Duration) {
	if s.seq > 0 {
		panic("sim: StartAt after events were scheduled")
	}
	s.now = t
}

// Elapsed is the simulated time since the run started.
func (s *Sim) Elapsed() time.Duration { return s.now }

// Now is the simulated wall-clock time. Components ask for it many times at one instant,
// so the last one made is kept with the instant it is for: a time.Time is a value, and the
// same offset from Epoch always gives the same one.
func (s *Sim) Now() time.Time {
	if s.now != s.nowFor {
		s.nowTime, s.nowFor = Epoch.Add(s.now), s.now
	}
	return s.nowTime
}

// Seed is the run's seed.
func (s *Sim) Seed() uint64 { return s.seed }

// Fired is how many events have run so far.
func (s *Sim) Fired() uint64 { return s.fired }

// Pending is how many events are queued.
func (s *Sim) Pending() int { return s.slots() - s.stale }

// slots is how many slots the queue holds, stale ones included.
func (s *Sim) slots() int { return s.near.n + len(s.queue) }

// Track is the process whose event is running now.
func (s *Sim) Track() string { return s.track }

// Stop ends Run after the current event.
func (s *Sim) Stop() { s.stopped = true }

// Stopped reports whether Stop was called.
func (s *Sim) Stopped() bool { return s.stopped }

// schedule queues fn to run d from now on the given track, priority and lifetime. The
// event comes from the free list: nobody keeps it, so RunUntil recycles it once popped.
func (s *Sim) schedule(d time.Duration, prio Priority, track string, life *Lifetime, fn func()) {
	ev := s.free
	if ev != nil {
		s.free, ev.next = ev.next, nil
	} else {
		ev = &event{}
	}
	ev.prio, ev.prioKey, ev.fn, ev.track, ev.life = prio, order(prio, 0), fn, track, life
	s.push(ev, d)
}

// release puts a popped free-list event back on the free list, dropping what it refers to
// so that the closure and lifetime it ran can be collected.
func (s *Sim) release(ev *event) {
	ev.fn, ev.life, ev.track = nil, nil, ""
	ev.next, s.free = s.free, ev
}

// scheduleTimer queues t's own event d from now; its process (track, priority, lifetime)
// was set when the timer was made (see Clock.newTimer).
func (s *Sim) scheduleTimer(t *Timer, d time.Duration) { s.push(&t.ev, d) }

// Continue schedules fn d from now as a continuation of the running process: same track,
// priority and lifetime. This is how a call that takes time (a CRI call, say) returns to
// its caller.
func (s *Sim) Continue(d time.Duration, fn func()) {
	s.schedule(d, s.prio, s.track, s.life, fn)
}

// Process identifies a running process so that another one can resume it later: a waiter
// captures Self() when it starts waiting, and whoever ends the wait calls Resume.
type Process struct {
	s     *Sim
	track string
	prio  Priority
	life  *Lifetime
}

// Self is the process whose event is running now.
func (s *Sim) Self() Process { return Process{s: s, track: s.track, prio: s.prio, life: s.life} }

// Resume runs fn d from now as that process.
func (p Process) Resume(d time.Duration, fn func()) { p.s.schedule(d, p.prio, p.track, p.life, fn) }

// Run runs fn at once as that process, unless its lifetime has ended; it reports whether fn
// ran. A component that finished work on another's behalf hands the result over this way
// when it must first do its own part (release a slot) whatever became of the caller.
func (p Process) Run(fn func()) bool {
	if p.life.Ended() {
		return false
	}
	track, prio, life := p.s.track, p.s.prio, p.s.life
	p.s.track, p.s.prio, p.s.life = p.track, p.prio, p.life
	defer func() { p.s.track, p.s.prio, p.s.life = track, prio, life }()
	fn()
	return true
}

// Alive reports whether the process's lifetime has not ended.
func (p Process) Alive() bool { return !p.life.Ended() }

// In returns the same process with another lifetime.
func (p Process) In(life *Lifetime) Process { p.life = life; return p }

// Life is the lifetime the running code belongs to (its contexts left out): where a
// component that outlives any one call keeps its own work.
func (s *Sim) Life() *Lifetime { return s.life.owner() }

// Track is the process's track.
func (p Process) Track() string { return p.track }

// RunUntil runs events until the queue is empty, Stop is called, or the next event is
// after end; the clock then stands at end (or where Stop left it).
func (s *Sim) RunUntil(end time.Duration) {
	w := &s.near
	for !s.stopped {
		// The earliest event is the wheel's first or the heap's, whichever comes first.
		// The wheel's first is nearly always found in now's word of its bit set (see
		// firstNear), which is empty too when the wheel is.
		var ev *event
		var at time.Duration
		i := w.firstNear(s.now)
		if i < 0 && w.n > 0 {
			i = w.firstBeyond(s.now)
		}
		if i >= 0 {
			ev = w.head[i&(wheelSize-1)]
			at = ev.at
			// farAt is the end of time while the heap is empty, so the heap is looked
			// into only when its first may come before the wheel's.
			if s.farAt <= at && len(s.queue) > 0 && s.queue[0].before(ev) {
				i = -1
			}
		} else if len(s.queue) == 0 {
			break
		}
		if i >= 0 {
			if at > end {
				break
			}
			w.takeFirst(i, ev)
		} else {
			sl := &s.queue[0]
			if sl.at > end {
				break
			}
			var key uint64
			ev, at, key = sl.ev, sl.at, sl.ord
			s.pop()
			if ev.key != key {
				// Left behind by a timer's Stop or Reset: the timer is elsewhere or
				// nowhere.
				s.stale--
				continue
			}
		}
		ev.key = 0
		s.now = at
		if ev.life.Ended() {
			if ev.timer == nil {
				s.release(ev)
			}
			continue
		}
		s.track, s.prio, s.life = ev.track, ev.prio, ev.life
		// The watchdog's count (see watchdog.go), written out here.
		fired := s.fired + 1
		s.fired = fired
		if at != s.instant {
			s.instant, s.instantFirst = at, fired
		}
		if at >= s.windowTest || fired > s.limit {
			if s.watch() {
				s.stalled(ev)
				break
			}
		}
		if t := ev.timer; t != nil {
			if t.fnOnly {
				t.fn() // what fire would come to, without the call
			} else {
				t.fire()
			}
			continue
		}
		fn := ev.fn
		s.release(ev)
		fn()
	}
	if !s.stopped && s.now < end {
		s.now = end
	}
	s.track, s.prio, s.life = "", PriorityDefault, nil
}

// Step runs the events due within d from now, then leaves the clock at now+d.
func (s *Sim) Step(d time.Duration) { s.RunUntil(s.now + d) }

// NextFlow returns a fresh flow identifier linking a send to its receive.
func (s *Sim) NextFlow() uint64 {
	s.flows++
	return s.flows
}

// Record stamps e with the current time, sequence and (if unset) the running track, and
// hands a copy of it to the trace sink. A sink may use the event it receives only during
// the call (see trace.Sink), so the copy is one event the Sim owns and reuses: e itself
// never escapes, and a caller's &trace.Event{...} can live on its stack.
func (s *Sim) Record(e *trace.Event) {
	s.traceN++
	if s.skipPodStats && e.Kind == trace.Stats && e.Name == "pod" {
		return // nobody reads it (see SkipPodStats)
	}
	e.At = s.now
	e.Seq = s.traceN
	if e.Track == "" {
		e.Track = s.track
	}
	// Most events have no Reason: one test for them.
	if e.Reason != nil && s.noReasons {
		e.Reason = nil
	}
	if s.recording {
		s.recordNested(e)
		return
	}
	s.recording = true
	s.rec = *e
	s.sink.Record(&s.rec)
	// s.rec is not cleared: the next Record overwrites all of it, and what it still refers
	// to (one event's strings and attributes) is small. A sink that wrongly kept the
	// pointer sees a later event either way.
	s.recording = false
}

// recordNested hands the sink a copy of e of its own: a sink recorded an event while
// handling another, so the shared event is in use. It is kept out of Record so that the
// common path carries neither the copy nor its frame.
//
//go:noinline
func (s *Sim) recordNested(e *trace.Event) {
	c := *e
	s.sink.Record(&c)
}

// depthAttrs returns the attributes of a channel step that leaves n values in the channel
// ("len"). The slices are shared by every channel of the run and never written after they
// are made (their capacity is their length, so an append copies), so an event may keep
// one; the table grows with the deepest channel seen, bounded by the largest capacity.
func (s *Sim) depthAttrs(n int) []trace.Attr {
	for len(s.depth) <= n {
		v := strconv.Itoa(len(s.depth))
		s.depth = append(s.depth, []trace.Attr{{Key: "len", Value: v}})
	}
	return s.depth[n]
}

// --- the far queue: a 4-ary heap, for the events the wheel (see wheel) does not take. A
// timer is taken out by marking its slot stale (see unqueue), wherever the slot is, so that
// sifting never writes to the events it moves.
//
// Each slot holds the event's ordering key beside the pointer, so that sifting compares
// keys in the queue's own array instead of loading every event it passes. A 4-ary heap is
// half as deep as a binary one, and the four children of a slot sit next to each other.
// Events run in (at, prio, seq) order; seq is unique, so no two
// events tie and the pop order does not depend on the shape of the heap.

// qslot is one queue slot: the event and its ordering key.
type qslot struct {
	at  time.Duration
	ord uint64 // prio and seq packed so that one comparison orders them (see order)
	ev  *event
}

// order packs prio and seq into one number that compares as (prio, seq) does: the
// priority, its sign bit flipped so that negative priorities sort first, in the top byte,
// and the sequence number below it. Sequence numbers stay below 2^56 (schedule counts
// one per event: centuries of a busy node).
func order(prio Priority, seq uint64) uint64 {
	return uint64(uint8(prio)^0x80)<<56 | seq
}

// keepLive drops the stale slots of q, keeping the others' order, and returns what is left.
func keepLive(q []qslot) []qslot {
	n := 0
	for _, sl := range q {
		if sl.live() {
			q[n] = sl
			n++
		}
	}
	clear(q[n:])
	return q[:n]
}

// live reports whether the slot's event is still queued under it (not left stale).
func (sl *qslot) live() bool { return sl.ev.key == sl.ord }

// before reports whether the slot comes before ev, which waits in the wheel.
func (sl *qslot) before(ev *event) bool {
	if sl.at != ev.at {
		return sl.at < ev.at
	}
	return sl.ord < ev.key
}

// precedes reports whether a comes before b.
func (a *qslot) precedes(b *qslot) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.ord < b.ord
}

// push queues ev d from now under the next sequence number: in its bucket of the wheel
// when it is due within the wheel's span (see wheel), else in the heap. An event still
// queued (a pending timer being Reset) is first taken out as Stop takes it. push is the one
// path by which every event is queued (a timer's each Reset and period, every
// continuation), and the heap's rarer path is kept out of it (see pushFar).
func (s *Sim) push(ev *event, d time.Duration) {
	if ev.key != 0 {
		// A pending timer's Reset: it is taken out as Stop takes it.
		s.unqueue(ev)
	}
	s.seq++
	if s.seq >= 1<<56 {
		panic("sim: event sequence numbers exhausted")
	}
	at, ord := s.after(d), ev.prioKey|s.seq // order(ev.prio, s.seq)
	ev.at, ev.seq, ev.key = at, s.seq, ord
	b := bucketOf(at)
	if b-bucketOf(s.now) >= wheelSize {
		s.pushFar(ev, at, ord)
		return
	}
	// Into bucket i of the wheel, written out here for its two common cases: the bucket
	// is empty, or ev comes after its last (see wheel.insertBefore for the rest).
	w, i := &s.near, int(b&(wheelSize-1))
	ev.wheeled = true
	w.n++
	t := w.tail[i]
	switch {
	case t == nil:
		ev.prev, ev.next = nil, nil
		w.head[i], w.tail[i] = ev, ev
		w.marked[i>>6] |= 1 << (i & 63)
	case t.precedes(at, ord):
		ev.prev, ev.next = t, nil
		t.next, w.tail[i] = ev, ev
	default:
		w.insertBefore(i, t, ev, at, ord)
	}
}

// pushFar queues ev in the heap, under the key push made.
//
//go:noinline
func (s *Sim) pushFar(ev *event, at time.Duration, ord uint64) {
	s.queue = append(s.queue, qslot{at: at, ord: ord, ev: ev})
	s.up(len(s.queue) - 1)
	s.farAt = s.queue[0].at
}

// unqueue takes a timer's pending event out of the queue in O(1): out of its bucket if it
// waits in the wheel; in the heap, its slot stays where it is, stale, until it comes up
// (RunUntil skips it) or the heap is compacted. Only a Timer's own event is ever unqueued,
// and a Timer's event never goes to the free list, so a stale slot never points at an event
// reused for something else; when the timer is queued again it gets a new sequence number,
// which its old slot does not carry.
func (s *Sim) unqueue(ev *event) {
	ev.key = 0
	if ev.wheeled {
		s.near.remove(ev)
		return
	}
	s.stale++
	if s.stale > 64 && s.stale > len(s.queue)/2 {
		s.compact()
	}
}

// compact drops the stale slots of the heap, and rebuilds it from the rest by sorting them
// (a sorted slice is a heap), so that a run whose timers are stopped or reset long before
// they are due keeps a heap the size of its pending events. The (at, prio, seq) keys are
// unique, so the rebuilt heap pops the same events in the same order.
func (s *Sim) compact() {
	s.queue = keepLive(s.queue)
	s.stale = 0
	slices.SortFunc(s.queue, func(a, b qslot) int {
		switch {
		case a.precedes(&b):
			return -1
		case b.precedes(&a):
			return 1
		}
		return 0
	})
	s.setFarAt()
}

// pop takes the first slot off the heap (the caller has read it) and sets farAt from the
// new first. It moves the hole left at the root down to a leaf, always promoting the child
// that comes first, and only then places the last slot, sifting it up from that leaf: the
// last slot nearly always belongs near the leaves, so this saves the comparison with it at
// every level that a plain sift-down would make. Keys are unique, so the heap's shape
// never affects which event comes next.
func (s *Sim) pop() {
	q := s.queue
	n := len(q) - 1
	x := q[n]
	q[n] = qslot{}
	q = q[:n]
	s.queue = q
	if n == 0 {
		s.farAt = math.MaxInt64
		return
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		j := c
		if c+3 < n {
			// A full set of four: two pairs, then their winners, so that the
			// comparisons do not wait on each other.
			if q[c+1].precedes(&q[c]) {
				j = c + 1
			}
			k := c + 2
			if q[c+3].precedes(&q[c+2]) {
				k = c + 3
			}
			if q[k].precedes(&q[j]) {
				j = k
			}
		} else {
			for k := c + 1; k < n; k++ {
				if q[k].precedes(&q[j]) {
					j = k
				}
			}
		}
		q[i] = q[j]
		i = j
	}
	q[i] = x
	s.up(i)
	s.farAt = q[0].at
}

// setFarAt sets farAt from the heap's first slot.
func (s *Sim) setFarAt() {
	s.farAt = math.MaxInt64
	if len(s.queue) > 0 {
		s.farAt = s.queue[0].at
	}
}

// up moves the slot at j towards the root until its parent comes before it.
func (s *Sim) up(j int) {
	q := s.queue
	x := q[j]
	for j > 0 {
		i := (j - 1) / 4
		if !x.precedes(&q[i]) {
			break
		}
		q[j] = q[i]
		j = i
	}
	q[j] = x
}

func (ev *event) String() string { return fmt.Sprintf("%s@%s/%d", ev.track, ev.at, ev.prio) }

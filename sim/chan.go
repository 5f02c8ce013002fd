package sim

import (
	"fmt"
	"math/bits"
	"strconv"
	"time"

	"nodesim/trace"
)

// Chan is a bounded FIFO channel with upstream's capacity. A non-blocking send on a full
// channel drops the value (PLEG's send); a blocking send parks the sender until a receive
// makes room (configCh, probe results).
type Chan[T any] struct {
	s        *Sim
	name     string
	capacity int
	buf      []slot[T] // ring buffer
	head, n  int
	parked   []parked[T]
	// sel is the select that waits on the channel, if any, and bit the channel's case
	// in it: the channel keeps the select's set of non-empty cases up to date (see
	// Select.nonEmpty) and pokes it on each send.
	sel   *Select
	bit   uint64
	quiet bool
	// sender, when set, is the track the sends are recorded on (see SentFrom).
	sender string

	sent, received, dropped uint64
}

type slot[T any] struct {
	v    T
	flow uint64
	// at is when the value was sent: a select that takes a quiet channel's value (a
	// ticker's tick) records it, since the send itself was not recorded.
	at time.Duration
}

type parked[T any] struct {
	v      T
	self   Process
	resume func()
}

// Selectable is a channel a Select can wait on.
type Selectable interface {
	// Name is the channel's name as upstream spells it (configCh, plegCh, ...).
	Name() string
	// Len is how many values are waiting.
	Len() int
	// watch makes the channel case i of sel.
	watch(sel *Select, i int)
	// quietHead is when the oldest value was sent, for a quiet channel (ok false for a
	// recorded one, whose send is in the trace, or an empty one).
	quietHead() (at time.Duration, ok bool)
}

// NewChan returns a channel of the given capacity (at least 1).
func NewChan[T any](s *Sim, name string, capacity int) *Chan[T] {
	if capacity < 1 {
		panic(fmt.Sprintf("sim: channel %s needs a capacity of at least 1", name))
	}
	return &Chan[T]{s: s, name: name, capacity: capacity, buf: make([]slot[T], capacity)}
}

// Quiet stops the channel from recording sends and receives (ticker channels, whose every
// tick would flood the trace; the select that takes them is still recorded).
func (c *Chan[T]) Quiet() *Chan[T] { c.quiet = true; return c }

// SentFrom records every send, drop and block on track, the goroutine that sends on the
// channel upstream, whichever process runs the send here: the podConfig mux's merge sends
// on configCh from its own goroutine upstream, while nodesim runs it within the step that
// changed a source (a watch event, a status patch).
func (c *Chan[T]) SentFrom(track string) *Chan[T] { c.sender = track; return c }

// Name is the channel's name.
func (c *Chan[T]) Name() string { return c.name }

// Len is how many values are buffered.
func (c *Chan[T]) Len() int { return c.n }

// Cap is the channel's capacity.
func (c *Chan[T]) Cap() int { return c.capacity }

// Stats returns how many values were sent, received and dropped.
func (c *Chan[T]) Stats() (sent, received, dropped uint64) { return c.sent, c.received, c.dropped }

func (c *Chan[T]) watch(sel *Select, i int) {
	c.sel, c.bit = sel, 1<<i
	if c.n > 0 {
		sel.nonEmpty |= c.bit
	}
}

func (c *Chan[T]) quietHead() (time.Duration, bool) {
	if !c.quiet || c.n == 0 {
		return 0, false
	}
	return c.buf[c.head].at, true
}

// depth is the attribute each recorded send, receive and drop carries: how many values the
// channel holds after it, so that a trace can draw the channel's depth over time.
func (c *Chan[T]) depth() []trace.Attr { return c.s.depthAttrs(c.n) }

// wrap is i modulo the capacity for an index of the ring a little past its end (i below
// twice the capacity: head is below it and n at most it), without a division.
func (c *Chan[T]) wrap(i int) int {
	if i >= c.capacity {
		i -= c.capacity
	}
	return i
}

func (c *Chan[T]) put(v T) {
	flow := c.s.NextFlow()
	c.buf[c.wrap(c.head+c.n)] = slot[T]{v: v, flow: flow, at: c.s.now}
	c.n++
	c.sent++
	if !c.quiet {
		if c.s.skipSend {
			c.s.Skip()
		} else {
			c.s.Record(&trace.Event{Kind: trace.Send, Track: c.sender, Name: c.name, Flow: flow, Attrs: c.depth()})
		}
	}
	if c.sel != nil {
		c.sel.nonEmpty |= c.bit
		c.sel.poke()
	}
}

// TrySend sends v if there is room and reports whether it did; a full channel drops v.
func (c *Chan[T]) TrySend(v T) bool {
	if c.n == c.capacity {
		c.dropped++
		if !c.quiet {
			c.s.Record(&trace.Event{Kind: trace.Drop, Track: c.sender, Name: c.name, Attrs: c.depth(), Reason: trace.Because("nonBlockingSend",
				fmt.Sprintf("%s is sent without blocking and all its %d slots are full: the value is lost", c.name, c.capacity))})
		}
		return false
	}
	c.put(v)
	return true
}

// Send sends v, blocking the sending process while the channel is full. resume is the
// sender's continuation: called at once when there is room, otherwise scheduled on the
// sender's track when a receive makes room.
func (c *Chan[T]) Send(v T, resume func()) {
	if c.n < c.capacity && len(c.parked) == 0 {
		c.put(v)
		if resume != nil {
			resume()
		}
		return
	}
	c.s.Record(&trace.Event{Kind: trace.Block, Track: c.sender, Name: c.name, Attrs: c.depth()})
	c.parked = append(c.parked, parked[T]{v: v, self: c.s.Self(), resume: resume})
}

// TryRecv takes the oldest value, if any.
func (c *Chan[T]) TryRecv() (T, bool) {
	var zero T
	if c.n == 0 {
		return zero, false
	}
	sl := c.buf[c.head]
	c.buf[c.head] = slot[T]{}
	c.head = c.wrap(c.head + 1)
	c.n--
	if c.n == 0 && c.sel != nil {
		c.sel.nonEmpty &^= c.bit
	}
	c.received++
	if !c.quiet {
		if c.s.skipRecv {
			c.s.Skip()
		} else {
			c.s.Record(&trace.Event{Kind: trace.Recv, Name: c.name, Flow: sl.flow, Attrs: c.depth()})
		}
	}
	if len(c.parked) > 0 {
		p := c.parked[0]
		c.parked[0] = parked[T]{}
		c.parked = c.parked[1:]
		c.put(p.v)
		if p.resume != nil {
			p.self.Resume(0, p.resume)
		}
	}
	return sl.v, true
}

// Select waits on several channels, as a Go select statement does: when it wakes, it picks
// one of the ready channels uniformly at random (with the run's seeded randomness), as Go's
// runtime picks among ready cases.
type Select struct {
	c         *Clock
	rng       *RNG
	cases     []Selectable
	names     []string
	handle    func(chosen int)
	wakeFn    func() // sel.wake, made once: a method value allocates each time it is taken
	waiting   bool
	scheduled bool
	// nonEmpty is the set of cases whose channel holds a value, bit i for case i, kept by
	// the channels themselves as values come and go (see Chan.watch): a wake-up reads the
	// ready cases from it instead of asking every channel its length.
	nonEmpty uint64
	ready    []int
	// readySets holds the Ready list recorded for each set of ready cases seen (readyList
	// for a select of at most readyListCases cases, indexed by the set), and attrs the
	// "select" attribute: all are shared by every event that records them and never
	// written once made (see readyNames and nameAttrs).
	readySets map[uint64][]string
	readyList [][]string
	attrs     []trace.Attr
	// tickAttrs are the attributes recorded for a ticker's tick sent at tickAt, shared in
	// the same way: two tickers of one select often tick at the same instant (syncCh and
	// housekeepingCh). Each new pair and its time's digits are cut from the select's own
	// arenas (see sentAtAttrs).
	tickAttrs []trace.Attr
	tickAt    time.Duration
	tickArena trace.AttrArena
	tickText  trace.TextArena
	digits    [20]byte    // scratch for formatting a tick's time
	tickSecs  secondsText // the text of the last whole second a tick was sent at (see nanosText)
	// Name is recorded with each choice (e.g. "syncLoopIteration").
	Name string
}

// readyNames returns the names of the ready cases (sel.ready, whose bit set is ready). A
// select has few cases and meets few distinct ready sets, so each list is made once and
// shared by the events that record it; its capacity is its length, so an append copies.
func (sel *Select) readyNames(ready uint64) []string {
	if sel.readyList != nil {
		if names := sel.readyList[ready]; names != nil {
			return names
		}
	} else if names, ok := sel.readySets[ready]; ok {
		return names
	}
	names := make([]string, len(sel.ready))
	for i, r := range sel.ready {
		names[i] = sel.names[r]
	}
	if sel.readyList != nil {
		sel.readyList[ready] = names
		return names
	}
	if sel.readySets == nil {
		sel.readySets = map[uint64][]string{}
	}
	sel.readySets[ready] = names
	return names
}

// readyListCases is the most cases a select may have for its ready lists to be kept in a
// table indexed by the set of ready cases (2^8 entries) rather than in a map.
const readyListCases = 8

// nameAttrs returns the attributes of a choice that took no tick: the select's name. It is
// made again only if Name was changed since.
func (sel *Select) nameAttrs() []trace.Attr {
	if sel.attrs == nil || sel.attrs[0].Value != sel.Name {
		sel.attrs = []trace.Attr{{Key: "select", Value: sel.Name}}
	}
	return sel.attrs
}

// sentAtAttrs returns the attributes of a choice that takes a ticker's tick sent at at:
// the select's name and the tick's time in nanoseconds. The pair and the time's text are
// cut from arenas, many to an allocation; a pair is never written once handed out (its
// capacity is its length, so an append copies), so events may keep it.
func (sel *Select) sentAtAttrs(at time.Duration) []trace.Attr {
	if sel.tickAttrs != nil && sel.tickAt == at && sel.tickAttrs[0].Value == sel.Name {
		return sel.tickAttrs
	}
	a := sel.tickArena.Make(2)
	a[0] = trace.Attr{Key: "select", Value: sel.Name}
	a[1] = trace.Attr{Key: "sentAt", Value: sel.tickText.Copy(sel.nanosText(at))}
	sel.tickAttrs, sel.tickAt = a, at
	return a
}

// nanosText is the decimal text of at in nanoseconds, valid until the next call. A
// ticker's ticks nearly all fall on whole seconds, whose text is the seconds' followed by
// nine zeros; tickSecs makes it by counting the seconds' digits up from the last tick's a
// second or two before instead of working them out afresh.
func (sel *Select) nanosText(at time.Duration) []byte {
	if at >= time.Second && at%time.Second == 0 {
		return sel.tickSecs.of(int64(at / time.Second))
	}
	return strconv.AppendInt(sel.digits[:0], int64(at), 10)
}

// secondsText keeps the decimal text, in nanoseconds, of a positive count of whole
// seconds (the seconds' digits, then nine zeros), for the next count's text to be made
// from it when it is a little later: a few counts up of the seconds' last digits.
type secondsText struct {
	secs int64
	text []byte // the text of secs, in buf; empty before the first count
	buf  [32]byte
}

// of returns the text of secs seconds in nanoseconds (secs > 0), valid until the next call.
func (t *secondsText) of(secs int64) []byte {
	if d := secs - t.secs; len(t.text) > 0 && d >= 0 && d <= 4 {
		digits := t.text[:len(t.text)-9]
		for d > 0 && countUp(digits) {
			d--
		}
		if d == 0 {
			t.secs = secs
			return t.text
		}
		// The count needs another digit (9 to 10, 99 to 100...): made afresh below.
	}
	t.text = append(strconv.AppendInt(t.buf[:0], secs, 10), "000000000"...)
	t.secs = secs
	return t.text
}

// countUp adds one to the decimal number in b, in place, and reports whether it fit: false
// when b was all nines (b is then garbage).
func countUp(b []byte) bool {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != '9' {
			b[i]++
			return true
		}
		b[i] = '0'
	}
	return false
}

// NewSelect returns a select over cases, run on clock c's process. Each channel may be in
// one select only, as each upstream channel has one receiving goroutine.
func NewSelect(c *Clock, rng *RNG, name string, cases ...Selectable) *Select {
	if len(cases) > 64 {
		panic("sim: a select has at most 64 cases")
	}
	sel := &Select{c: c, rng: rng, cases: cases, Name: name}
	sel.wakeFn = sel.wake
	if len(cases) <= readyListCases {
		sel.readyList = make([][]string, 1<<len(cases))
	}
	for i, ch := range cases {
		sel.names = append(sel.names, ch.Name())
		ch.watch(sel, i)
	}
	return sel
}

// Next waits until at least one channel is ready, then calls handle with the index of the
// chosen case. handle must receive from that channel. The wake-up happens at the
// select's priority, so every send made at the same instant by an earlier-priority process
// is seen.
func (sel *Select) Next(handle func(chosen int)) {
	sel.handle = handle
	sel.waiting = true
	if sel.nonEmpty != 0 {
		sel.poke()
	}
}

// Waiting reports whether the select is parked waiting for a channel.
func (sel *Select) Waiting() bool { return sel.waiting }

func (sel *Select) poke() {
	if !sel.waiting || sel.scheduled {
		return
	}
	sel.scheduled = true
	sel.c.s.schedule(0, sel.c.prio, sel.c.track, sel.c.life, sel.wakeFn)
}

func (sel *Select) wake() {
	sel.scheduled = false
	sel.ready = sel.ready[:0]
	ready := sel.nonEmpty // the ready cases as a bit set, the key of readyNames
	for m := ready; m != 0; m &= m - 1 {
		sel.ready = append(sel.ready, bits.TrailingZeros64(m))
	}
	if len(sel.ready) == 0 {
		return // taken by someone else meanwhile; keep waiting
	}
	chosen := sel.ready[0]
	if len(sel.ready) > 1 {
		chosen = sel.ready[sel.rng.IntN(len(sel.ready))]
	}
	e := trace.Event{Kind: trace.Select, Name: sel.names[chosen], Ready: sel.readyNames(ready)}
	if at, ok := sel.cases[chosen].quietHead(); ok {
		// A ticker's tick is not recorded when sent; the select that takes it says when it
		// was sent (nanoseconds of simulated time), so that a trace can draw the arrow.
		e.Attrs = sel.sentAtAttrs(at)
	} else {
		e.Attrs = sel.nameAttrs()
	}
	sel.c.Record(&e)
	sel.waiting = false
	h := sel.handle
	sel.handle = nil
	h(chosen)
}

// Ticker sends the time into a one-slot channel every period, dropping ticks nobody took,
// as Go's time.Ticker does. It is the sim-native ticker a Select can wait on.
type Ticker struct {
	C     *Chan[Tick]
	timer *Timer
}

// Tick is the value a Ticker sends.
type Tick struct{}

// NewTicker returns a ticker whose channel is called name; its first tick is one period
// from now.
func (c *Clock) NewTickerChan(name string, period time.Duration) *Ticker {
	t := &Ticker{C: NewChan[Tick](c.s, name, 1).Quiet()}
	t.timer = c.newTimer(func() { t.C.TrySend(Tick{}) }, nil, period)
	c.s.scheduleTimer(t.timer, period)
	return t
}

// Stop stops the ticker.
func (t *Ticker) Stop() { t.timer.Stop() }

package sim

import (
	"time"

	"k8s.io/utils/clock"

	"nodesim/trace"
)

// Clock is a process's view of the simulation: the clock upstream components receive as
// kl.clock, plus the means to schedule work on the process's own track and priority.
// It satisfies clock.WithTicker and clock.WithDelayedExecution.
type Clock struct {
	s     *Sim
	track string
	prio  Priority
	life  *Lifetime
}

var (
	_ clock.WithTicker           = (*Clock)(nil)
	_ clock.WithDelayedExecution = (*Clock)(nil)
)

// Clock returns a process clock: events it schedules run on track at prio. The process
// belongs to the lifetime of whoever creates it (see Within), never to a context of it
// (see Lifetime.Context).
func (s *Sim) Clock(track string, prio Priority) *Clock {
	return &Clock{s: s, track: track, prio: prio, life: s.life.owner()}
}

// Within runs fn as part of life: processes created and events scheduled during fn belong
// to it (building a kubelet process, say).
func (s *Sim) Within(life *Lifetime, fn func()) {
	prev := s.life
	s.life = life
	defer func() { s.life = prev }()
	fn()
}

// Life is the lifetime of the clock's process.
func (c *Clock) Life() *Lifetime { return c.life }

// In returns a clock for the same process that lives and dies with life.
func (c *Clock) In(life *Lifetime) *Clock {
	return &Clock{s: c.s, track: c.track, prio: c.prio, life: life}
}

// Sim is the simulation the clock belongs to.
func (c *Clock) Sim() *Sim { return c.s }

// Track is the process's name.
func (c *Clock) Track() string { return c.track }

// Now is the simulated wall-clock time.
func (c *Clock) Now() time.Time { return c.s.Now() }

// Since is the simulated time elapsed since t.
func (c *Clock) Since(t time.Time) time.Duration { return c.s.Now().Sub(t) }

// Elapsed is the simulated time since the run started.
func (c *Clock) Elapsed() time.Duration { return c.s.now }

// Schedule runs fn d from now on this process. The Timer it returns can be stopped and
// Reset any number of times without allocating: a periodic caller keeps one Timer and
// calls Reset from fn instead of scheduling afresh.
func (c *Clock) Schedule(d time.Duration, fn func()) *Timer {
	t := c.newTimer(fn, nil, 0)
	c.s.scheduleTimer(t, d)
	return t
}

// Go runs fn d from now on this process, for a caller that will never stop or reset it
// (a continuation, a hand-off to the process's own next step): unlike Schedule it makes
// no Timer, and its queue entry is recycled once it has run.
func (c *Clock) Go(d time.Duration, fn func()) {
	c.s.schedule(d, c.prio, c.track, c.life, fn)
}

// Record stamps e and records it on this process's track.
func (c *Clock) Record(e *trace.Event) {
	if e.Track == "" {
		e.Track = c.track
	}
	c.s.Record(e)
}

// Records reports whether events of kind are read by anyone (see Sim.SetSkips); a
// component asks it once, when it is built.
func (c *Clock) Records(kind trace.Kind) bool { return c.s.Records(kind) }

// Skip stands for an event of a kind nobody records (see Sim.Skip).
func (c *Clock) Skip() { c.s.Skip() }

// Reasons reports whether recorded events keep their Reason (see Sim.SetReasons). A
// component may skip building a Reason when it is false; Record drops it either way.
func (c *Clock) Reasons() bool { return !c.s.noReasons }

// AfterFunc runs f d from now on this process (not on a goroutine of its own: nothing in a
// simulation is concurrent).
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer { return c.Schedule(d, f) }

// NewTimer returns a timer whose channel receives the time after d.
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	t := c.newTimer(nil, make(chan time.Time, 1), 0)
	c.s.scheduleTimer(t, d)
	return t
}

// After is NewTimer(d).C().
func (c *Clock) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

// NewTicker returns a ticker that sends the time every d, dropping ticks nobody took, as
// Go's tickers do.
func (c *Clock) NewTicker(d time.Duration) clock.Ticker {
	if d <= 0 {
		panic("sim: non-positive ticker period")
	}
	t := c.newTimer(nil, make(chan time.Time, 1), d)
	c.s.scheduleTimer(t, d)
	return goTicker{t}
}

// goTicker adapts a periodic Timer to clock.Ticker, whose Stop returns nothing.
type goTicker struct{ t *Timer }

func (g goTicker) C() <-chan time.Time { return g.t.ch }
func (g goTicker) Stop()               { g.t.Stop() }

// Tick is NewTicker(d).C().
func (c *Clock) Tick(d time.Duration) <-chan time.Time { return c.NewTicker(d).C() }

// Sleep cannot be simulated: the only goroutine would block. A component that waits must
// schedule a continuation instead; calling Sleep is a bug in the model.
func (c *Clock) Sleep(time.Duration) {
	panic("sim: Sleep would block the simulation; schedule a continuation with AfterFunc")
}

// Timer is a simulated timer, ticker or scheduled function. Its queue entry is part of it:
// queued while the timer is pending, queued again by Reset and by each period, so that a
// timer costs one allocation however often it fires. Nothing else refers to that entry, so
// a Stop or Reset of a timer that fired or was dropped with its lifetime finds it unqueued
// (not queued) and never touches another event.
//
// The event's track, priority and lifetime are the clock's, set once when the timer is made
// (a Clock never changes), and the timer refers to the Sim directly: queueing it again
// reads nothing but the timer itself.
type Timer struct {
	s      *Sim
	ev     event
	ch     chan time.Time
	fn     func()
	period time.Duration
	// fnOnly: the timer runs fn and nothing else when it fires (no channel, no period),
	// as Schedule's and AfterFunc's timers do; RunUntil then calls fn without fire. The
	// timer's fields never change once it is made, so neither does this.
	fnOnly bool
}

// newTimer returns a timer of c's process, not yet queued.
func (c *Clock) newTimer(fn func(), ch chan time.Time, period time.Duration) *Timer {
	t := &Timer{s: c.s, ch: ch, fn: fn, period: period, fnOnly: fn != nil && ch == nil && period == 0}
	t.ev.timer, t.ev.prio, t.ev.prioKey, t.ev.track, t.ev.life = t, c.prio, order(c.prio, 0), c.track, c.life
	return t
}

// fire runs when the timer's event is popped (RunUntil has taken it off the queue).
func (t *Timer) fire() {
	if t.period > 0 {
		t.s.scheduleTimer(t, t.period)
	}
	if t.ch != nil {
		select { // a full channel means the last tick was not taken: drop this one
		case t.ch <- t.s.Now():
		default:
		}
	}
	if t.fn != nil {
		t.fn()
	}
}

// C is the timer's channel (nil for a scheduled function).
func (t *Timer) C() <-chan time.Time { return t.ch }

// Stop cancels the timer; it reports whether it was still pending.
func (t *Timer) Stop() bool {
	if !t.ev.queued() {
		return false
	}
	t.s.unqueue(&t.ev)
	return true
}

// Reset reschedules the timer d from now; it reports whether it was still pending. It
// allocates nothing: a periodic process (a probe worker's tick, say) keeps one Timer and
// resets it each round.
func (t *Timer) Reset(d time.Duration) bool {
	ok := t.ev.queued()
	t.s.push(&t.ev, d) // a pending timer's slot is left stale first, as by Stop
	return ok
}

// Pending reports whether the timer has yet to fire.
func (t *Timer) Pending() bool { return t.ev.queued() }

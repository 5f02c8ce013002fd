package sim

import (
	"fmt"
	"math"
	"time"
)

// Watchdog bounds how many events a run may fire before it counts as stalled: a model that
// reschedules itself at the same instant, or ever closer to it, would otherwise never return.
// Bounds are generous multiples of what real workloads fire (a busy 110-pod node fires about
// ten events per simulated second).
type Watchdog struct {
	// PerInstant is the most events one simulated instant may fire.
	PerInstant uint64
	// PerSecond is the most events one simulated second may fire.
	PerSecond uint64
}

// DefaultWatchdog is the kernel's bound when a run sets none.
var DefaultWatchdog = Watchdog{PerInstant: 1_000_000, PerSecond: 5_000_000}

// Stalled is a run the watchdog stopped: the time, the goroutine (track) whose event broke
// the bound, and which bound it was. It is an internal error of the model, never of the
// scenario's input.
type Stalled struct {
	At    time.Duration
	Track string
	What  string
}

func (e *Stalled) Error() string {
	return fmt.Sprintf("simulation stalled at t=%s: %s (%s)", e.At, e.Track, e.What)
}

// SetWatchdog replaces the event bounds (zero fields keep the default's).
func (s *Sim) SetWatchdog(w Watchdog) {
	if w.PerInstant == 0 {
		w.PerInstant = DefaultWatchdog.PerInstant
	}
	if w.PerSecond == 0 {
		w.PerSecond = DefaultWatchdog.PerSecond
	}
	s.bounds = w
	s.setLimit()
}

// Stall returns why the watchdog stopped the run, or nil.
func (s *Sim) Stall() *Stalled { return s.stall }

// The watchdog counts events with fired itself: instantFirst and windowFirst are the fired
// counts of the current instant's first event and the current window's, so that the
// instant has fired fired-instantFirst+1 events and the window fired-windowFirst+1.
// Neither count can pass its bound before fired passes limit, which is at most the fired
// count at which one would (see watch): an instant's or a window's start only ever moves
// on, so a limit made earlier is never above the one that would be made now. Each event
// then costs a comparison with limit; the counts themselves are compared with the bounds
// only past it, and when a window may begin.

// RunUntil counts each event against the bounds itself, as it runs for every event: a
// new instant's first event sets instant and instantFirst (the first event finds instant
// zero and instantFirst one: one at zero keeps that instant and counts one, any other
// starts its own, just as starting afresh would); then, only for an event at or after
// windowTest or past limit, it calls watch. Events come in time order, so one before
// windowTest is less than a second after the window's start; only a later one needs the
// window's own test.

// watch is the watchdog's rarer half (see above), for the event at now: it starts a window
// there if now is a second or more after the current window's start (or no window has
// begun), reports whether a bound is broken, and if none is, sets limit to the fired count
// at which one would be. The bounds are resolved when the Sim is made (see New and
// SetWatchdog), so nothing here falls back to DefaultWatchdog.
func (s *Sim) watch() bool {
	at := s.now
	if at >= s.windowTest && (at-s.window >= time.Second || !s.windowed) {
		s.newWindow(at)
	}
	if s.fired-s.instantFirst >= s.bounds.PerInstant || s.fired-s.windowFirst >= s.bounds.PerSecond {
		return true
	}
	s.setLimit()
	return false
}

// setLimit sets limit to the fired count past which the current instant or window breaks
// its bound (the bounds are at least one), saturating: a bound too large to pass is never
// passed.
func (s *Sim) setLimit() {
	s.limit = min(addSat(s.instantFirst-1, s.bounds.PerInstant), addSat(s.windowFirst-1, s.bounds.PerSecond))
}

// addSat is a+b, or the largest uint64 if the sum is larger.
func addSat(a, b uint64) uint64 {
	if b > math.MaxUint64-a {
		return math.MaxUint64
	}
	return a + b
}

// newWindow starts the simulated second counted from at, whose first event is the one
// fired last.
func (s *Sim) newWindow(at time.Duration) {
	s.window, s.windowFirst, s.windowed = at, s.fired, true
	s.windowTest = math.MaxInt64 // the window reaches the end of time
	if at < math.MaxInt64-time.Second {
		s.windowTest = at + time.Second
	}
}

// stalled records which bound ev broke (the per-instant one first) and stops the run.
func (s *Sim) stalled(ev *event) {
	if w := s.bounds; s.fired-s.instantFirst >= w.PerInstant {
		s.stall = &Stalled{At: ev.at, Track: ev.track, What: fmt.Sprintf("more than %d events at one instant", w.PerInstant)}
	} else {
		s.stall = &Stalled{At: ev.at, Track: ev.track, What: fmt.Sprintf("more than %d events in one simulated second", w.PerSecond)}
	}
	s.stopped = true
}

// after is now+d, saturating: a delay past the end of representable time waits forever
// instead of wrapping into the past, and a negative one means now.
func (s *Sim) after(d time.Duration) time.Duration {
	at := s.now + d
	switch {
	case d <= 0:
		return s.now
	case at < s.now: // wrapped past the end of time (a positive d only wraps upwards)
		return math.MaxInt64
	}
	return at
}

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
	s.watch = w
}

// Stall returns why the watchdog stopped the run, or nil.
func (s *Sim) Stall() *Stalled { return s.stall }

// overBudget counts an event at time at against the watchdog's bounds and reports whether
// one is broken (RunUntil then calls stalled). It runs for every event, so it is kept
// small enough to be inlined into RunUntil: a few comparisons. The bounds are resolved when
// the Sim is made (see New and SetWatchdog), so nothing here falls back to DefaultWatchdog.
func (s *Sim) overBudget(at time.Duration) bool {
	// The first event finds instant and instantN zero: one at zero keeps that instant and
	// counts one, any other starts its own, just as starting afresh would.
	if at != s.instant {
		s.instant, s.instantN = at, 0
	}
	s.instantN++
	// Events come in time order, so one before windowTest is less than a second after
	// the window's start; only a later one needs the window's own test.
	if at >= s.windowTest && (at-s.window >= time.Second || s.windowN == 0) {
		s.newWindow(at)
	}
	s.windowN++
	return s.instantN > s.watch.PerInstant || s.windowN > s.watch.PerSecond
}

// newWindow starts the simulated second counted by windowN at at.
func (s *Sim) newWindow(at time.Duration) {
	s.window, s.windowN = at, 0
	s.windowTest = math.MaxInt64 // the window reaches the end of time
	if at < math.MaxInt64-time.Second {
		s.windowTest = at + time.Second
	}
}

// stalled records which bound ev broke (the per-instant one first) and stops the run.
func (s *Sim) stalled(ev *event) {
	if w := s.watch; s.instantN > w.PerInstant {
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

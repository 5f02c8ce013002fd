// Package usage evaluates usage programs: how a process's memory, disk or PIDs, or the
// node's system usage, change over time as a scenario scripts them. A program is piecewise
// linear (jumps and ramps, optionally repeating), so besides a value at a time it can tell
// its slope and its next breakpoint: that lets the kernel find, exactly, when a sum of
// programs crosses a limit, without sampling.
package usage

import (
	"math"
	"time"

	api "nodesim/api/v1alpha1"
)

// segment is one piece: from start on, the value goes linearly from v0 to v1 by end
// (end == start for a jump), then stays at v1 until the next segment.
type segment struct {
	start, end time.Duration
	v0, v1     float64
	noise      float64
}

// Program is a compiled usage program.
type Program struct {
	segs   []segment
	period time.Duration // > 0: the program starts again every period
	base   float64       // value before the first segment
}

// Constant is a program that holds v.
func Constant(v float64) *Program { return &Program{base: v} }

// Compile turns scenario steps into a program. from is the value a leading ramp starts at
// (the usage at the moment a setUsage event takes over); 0 for a fresh process.
func Compile(steps api.Program, from float64) *Program {
	p := &Program{base: from}
	cur := from
	t := time.Duration(0)
	for _, st := range steps {
		if st.At != nil {
			t = st.At.Duration
		}
		noise := 0.0
		if st.Noise != nil {
			noise = float64(*st.Noise)
		}
		switch {
		case st.Set != nil:
			v := float64(st.Set.Value())
			p.segs = append(p.segs, segment{start: t, end: t, v0: v, v1: v, noise: noise})
			cur = v
		case st.RampTo != nil:
			v := float64(st.RampTo.Value())
			over := st.Over.Duration
			p.segs = append(p.segs, segment{start: t, end: t + over, v0: cur, v1: v, noise: noise})
			cur = v
			t += over
		case st.Repeat != nil:
			p.period = st.Repeat.Duration
		}
	}
	return p
}

// local maps t onto the program's own timeline (repeats).
func (p *Program) local(t time.Duration) time.Duration {
	if p.period > 0 && t >= 0 {
		return t % p.period
	}
	return t
}

// at returns the segment in force at local time t (nil: before the first).
func (p *Program) at(t time.Duration) *segment {
	var cur *segment
	for i := range p.segs {
		if p.segs[i].start <= t {
			cur = &p.segs[i]
		} else {
			break
		}
	}
	return cur
}

// Value is the usage at time t since the process started (right-continuous: a jump at t
// has happened).
func (p *Program) Value(t time.Duration) float64 {
	lt := p.local(t)
	return p.valueIn(p.at(lt), lt)
}

// valueIn is the value at local time lt, s being the segment in force then (p.at(lt)).
func (p *Program) valueIn(s *segment, lt time.Duration) float64 {
	if s == nil {
		return p.base
	}
	if lt >= s.end || s.end == s.start {
		return s.v1
	}
	f := float64(lt-s.start) / float64(s.end-s.start)
	return s.v0 + f*(s.v1-s.v0)
}

// Slope is the rate of change (per second) just after t.
func (p *Program) Slope(t time.Duration) float64 {
	lt := p.local(t)
	s := p.at(lt)
	if s == nil || lt >= s.end || s.end == s.start {
		return 0
	}
	return (s.v1 - s.v0) / (s.end - s.start).Seconds()
}

// NextBreakpoint is the first time after t at which the value jumps or the slope changes
// (math.MaxInt64 when it never does again).
func (p *Program) NextBreakpoint(t time.Duration) time.Duration {
	lt := p.local(t)
	offset := t - lt
	best := time.Duration(math.MaxInt64)
	for i := range p.segs {
		s := &p.segs[i]
		if s.start > lt && s.start < best-offset {
			best = offset + s.start
		}
		if s.end > lt && s.end < best-offset {
			best = offset + s.end
		}
	}
	if p.period > 0 {
		if end := offset + p.period; end < best {
			best = end
		}
	}
	return best
}

// Never is the breakpoint of a program that does not change again.
const Never = time.Duration(math.MaxInt64)

// After is origin + d, saturating at Never.
func After(origin, d time.Duration) time.Duration {
	if d >= Never-origin {
		return Never
	}
	return origin + d
}

// Noisy is the value with the program's seeded noise at that time: up to ±noise of the
// value, drawn from key and the whole second of t, so the same sample is always the same.
func (p *Program) Noisy(t time.Duration, key uint64) float64 {
	v, _ := p.NoisyStill(t, key)
	return v
}

// NoisyStill is Noisy and Still at t together, the segment in force found once.
func (p *Program) NoisyStill(t time.Duration, key uint64) (float64, bool) {
	lt := p.local(t)
	s := p.at(lt)
	v := p.valueIn(s, lt)
	if s == nil {
		return v, true
	}
	if s.noise == 0 {
		return v, lt >= s.end || s.end == s.start
	}
	u := unit(key ^ uint64(t/time.Second)*0x9e3779b97f4a7c15)
	return max(0, v*(1+s.noise*(2*u-1))), false // the builtin max: math.Max's answers, NaN and zeros alike
}

// unit maps a key to [0, 1).
func unit(x uint64) float64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / float64(1<<53)
}

// Linear is a sum of programs seen over a stretch where each is linear: the value at the
// start and the slope.
type Linear struct {
	At    time.Duration
	Value float64
	Slope float64 // per second
	Until time.Duration
}

// Crossing is when a linear stretch first goes strictly above limit, if it does before
// Until: at once when it is already above, else where the line meets the limit (rounded up
// to the next microsecond, so that the value is above it).
func (l Linear) Crossing(limit float64) (time.Duration, bool) {
	if l.Value > limit {
		return l.At, true
	}
	if l.Slope <= 0 {
		return 0, false
	}
	secs := (limit - l.Value) / l.Slope
	t := l.At + time.Duration(math.Ceil(secs*1e6))*time.Microsecond
	if t == l.At {
		t += time.Microsecond
	}
	if t >= l.Until {
		return 0, false
	}
	return t, true
}

// Still reports whether Noisy stays what it is at t until NextBreakpoint(t): neither a
// ramp nor noise is in force at t.
func (p *Program) Still(t time.Duration) bool {
	lt := p.local(t)
	s := p.at(lt)
	return s == nil || s.noise == 0 && (lt >= s.end || s.end == s.start)
}

package usage

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	api "nodesim/api/v1alpha1"
)

func q(s string) *resource.Quantity   { v := resource.MustParse(s); return &v }
func d(x time.Duration) *api.Duration { v := api.D(x); return &v }

const mi = 1 << 20

func TestProgramValues(t *testing.T) {
	// 100Mi at once, then from 1m a ramp to 600Mi over 5m.
	p := Compile(api.Program{{Set: q("100Mi")}, {At: d(time.Minute), RampTo: q("600Mi"), Over: d(5 * time.Minute)}}, 0)
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{0, 100 * mi}, {30 * time.Second, 100 * mi}, {time.Minute, 100 * mi}, {3*time.Minute + 30*time.Second, 350 * mi},
		{6 * time.Minute, 600 * mi}, {time.Hour, 600 * mi}} {
		if got := p.Value(c.at); got != c.want {
			t.Errorf("value at %s = %gMi, want %gMi", c.at, got/mi, c.want/mi)
		}
	}
	if s := p.Slope(2 * time.Minute); s != 100*mi/60.0 {
		t.Errorf("slope in the ramp = %g, want %g", s, 100*mi/60.0)
	}
	if b := p.NextBreakpoint(30 * time.Second); b != time.Minute {
		t.Errorf("next breakpoint = %s, want 1m", b)
	}
	if b := p.NextBreakpoint(2 * time.Minute); b != 6*time.Minute {
		t.Errorf("next breakpoint in the ramp = %s, want 6m", b)
	}
}

// A repeating program (a saw-tooth leak) starts again every period.
func TestRepeat(t *testing.T) {
	p := Compile(api.Program{{RampTo: q("1Gi"), Over: d(10 * time.Minute)}, {Repeat: d(10 * time.Minute)}}, 0)
	if got := p.Value(15 * time.Minute); got != 512*mi {
		t.Errorf("value in the second period = %gMi, want 512Mi", got/mi)
	}
	if b := p.NextBreakpoint(15 * time.Minute); b != 20*time.Minute {
		t.Errorf("next breakpoint = %s, want 20m (the restart)", b)
	}
}

func TestCrossing(t *testing.T) {
	l := Linear{At: 0, Value: 100 * mi, Slope: 100 * mi / 60.0, Until: time.Hour}
	at, ok := l.Crossing(400 * mi)
	if !ok || at != 3*time.Minute+time.Microsecond && at != 3*time.Minute {
		t.Errorf("crossing at %s, %v; want ~3m", at, ok)
	}
	if _, ok := (Linear{Value: 1, Slope: 0, Until: time.Hour}).Crossing(2); ok {
		t.Error("a flat line below the limit crossed it")
	}
	if at, ok := (Linear{At: time.Second, Value: 3, Until: time.Hour}).Crossing(2); !ok || at != time.Second {
		t.Error("a value already above the limit must cross at once")
	}
}

func TestNoiseIsSeededAndBounded(t *testing.T) {
	n := api.Percent(0.1)
	p := Compile(api.Program{{Set: q("1000Mi"), Noise: &n}}, 0)
	for s := 0; s < 200; s++ {
		at := time.Duration(s) * time.Second
		v := p.Noisy(at, 42)
		if v < 900*mi || v > 1100*mi {
			t.Fatalf("noisy value %gMi outside ±10%%", v/mi)
		}
		if v != p.Noisy(at, 42) {
			t.Fatal("the same sample gave two values")
		}
	}
}

// Still holds where neither a ramp nor noise is in force: before the first step, on a
// set value, after a ramp's end; not inside a ramp or on a noisy value.
func TestStill(t *testing.T) {
	noise := api.Percent(0.05)
	p := Compile(api.Program{{At: d(time.Minute), Set: q("100Mi")}, {At: d(2 * time.Minute), RampTo: q("200Mi"), Over: d(time.Minute)},
		{At: d(5 * time.Minute), Set: q("300Mi"), Noise: &noise}}, 0)
	for _, c := range []struct {
		at   time.Duration
		want bool
	}{{0, true}, {time.Minute, true}, {90 * time.Second, true}, {2 * time.Minute, false}, {150 * time.Second, false},
		{3 * time.Minute, true}, {4 * time.Minute, true}, {5 * time.Minute, false}, {time.Hour, false}} {
		if got := p.Still(c.at); got != c.want {
			t.Errorf("Still(%s) = %v, want %v", c.at, got, c.want)
		}
	}
	if !Constant(5).Still(time.Hour) {
		t.Error("a constant is not still")
	}
}

// NoisyStill's second answer is Still's, on every kind of segment (before the first,
// jumps, ramps, noisy or not) and across repeats, and where it is still its value is the
// program's plain value.
func TestNoisyStill(t *testing.T) {
	progs := []*Program{
		Constant(5),
		{base: 1, segs: []segment{{start: 10 * time.Second, end: 10 * time.Second, v0: 4, v1: 4}}},
		{segs: []segment{{start: 0, end: time.Minute, v0: 0, v1: 100}, {start: 2 * time.Minute, end: 2 * time.Minute, v0: 50, v1: 50, noise: 0.1}}},
		{period: 3 * time.Minute, segs: []segment{{start: 0, end: 0, v0: 7, v1: 7, noise: 0.05}, {start: time.Minute, end: 2 * time.Minute, v0: 7, v1: 1}}},
	}
	for i, p := range progs {
		for t0 := -time.Second; t0 < 10*time.Minute; t0 += 7 * time.Second {
			v, still := p.NoisyStill(t0, 42)
			if want := p.Still(t0); still != want {
				t.Errorf("program %d at %s: NoisyStill still %v, Still %v", i, t0, still, want)
			}
			if want := p.Value(t0); still && v != want {
				t.Errorf("program %d at %s: still value %g, Value %g", i, t0, v, want)
			}
		}
	}
}

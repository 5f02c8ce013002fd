package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The wheel and the heap together must run events in (at, prio, seq) order, every pending
// timer exactly once at its time, whatever the mix: delays of zero, within one bucket,
// within the wheel's span and beyond it, bursts into one bucket, and timers stopped
// and reset while they wait, from a clock that starts before time zero.
func TestQueueRunsEventsInKeyOrder(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 0))
		s := New(seed, nil)
		s.StartAt(-7 * time.Second)
		clocks := []*Clock{s.Clock("a", PriorityRuntime), s.Clock("b", PriorityDefault), s.Clock("c", PriorityEviction)}
		delay := func() time.Duration {
			switch r.IntN(6) {
			case 0:
				return 0
			case 1:
				return time.Duration(r.IntN(1 << wheelShift))
			case 2:
				return time.Duration(r.IntN(20)) * time.Second // the same instant as others
			case 3:
				return time.Duration(r.Int64N(int64(wheelSize) << wheelShift))
			case 4:
				return time.Duration(r.Int64N(int64(3*wheelSize) << wheelShift))
			}
			return time.Duration(r.Int64N(int64(time.Hour)))
		}
		type due struct {
			at  time.Duration
			seq uint64
		}
		var timers []*Timer
		want := map[*Timer]due{} // the pending timers and when each is due
		fired := 0
		var fire func(i int)
		arm := func(i int, d time.Duration) {
			timers[i].Reset(d)
			want[timers[i]] = due{timers[i].ev.at, timers[i].ev.seq}
		}
		fire = func(i int) {
			tm := timers[i]
			w, ok := want[tm]
			if !ok {
				t.Fatalf("seed %d: timer %d fired but was not pending", seed, i)
			}
			delete(want, tm)
			if s.now != w.at || tm.ev.seq != w.seq {
				t.Fatalf("seed %d: timer %d fired at %v seq %d, want %v seq %d", seed, i, s.now, tm.ev.seq, w.at, w.seq)
			}
			// It comes before every timer still pending.
			ord := order(tm.ev.prio, tm.ev.seq)
			for other, o := range want {
				if oord := order(other.ev.prio, o.seq); o.at < s.now || o.at == s.now && oord < ord {
					t.Fatalf("seed %d: timer %d at %v/%x ran before one due at %v/%x", seed, i, s.now, ord, o.at, oord)
				}
			}
			fired++
			// Re-arm itself, arm or stop others, and make bursts at this instant.
			if r.IntN(10) < 7 {
				arm(i, delay())
			}
			for k := r.IntN(3); k > 0; k-- {
				j := r.IntN(len(timers))
				if r.IntN(4) == 0 {
					if timers[j].Stop() {
						delete(want, timers[j])
					}
					continue
				}
				arm(j, delay())
			}
			if r.IntN(200) == 0 {
				for k := 0; k < 16; k++ {
					arm(r.IntN(len(timers)), time.Duration(r.IntN(3))*time.Millisecond)
				}
			}
		}
		for i := 0; i < 400; i++ {
			c := clocks[r.IntN(len(clocks))]
			timers = append(timers, c.Schedule(delay(), func() { fire(i) }))
			want[timers[i]] = due{timers[i].ev.at, timers[i].ev.seq}
		}
		for s.Pending() > 0 && fired < 10_000 {
			s.RunUntil(s.now + time.Duration(r.Int64N(int64(30*time.Second))))
			for _, w := range want {
				if w.at <= s.now {
					t.Fatalf("seed %d: a timer due at %v is still pending at %v", seed, w.at, s.now)
				}
			}
			far := time.Duration(math.MaxInt64)
			if len(s.queue) > 0 {
				far = s.queue[0].at
			}
			if s.farAt != far {
				t.Fatalf("seed %d: farAt is %v, the heap's first is due at %v", seed, s.farAt, far)
			}
			if s.Pending() != len(want) {
				t.Fatalf("seed %d: Pending() = %d, want %d", seed, s.Pending(), len(want))
			}
		}
		if fired < 5000 {
			t.Fatalf("seed %d: nothing ran", seed)
		}
	}
}

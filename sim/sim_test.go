package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodesim/trace"
)

func TestEventsRunInTimePriorityAndSequenceOrder(t *testing.T) {
	s := New(1, nil)
	var got []string
	add := func(c *Clock, d time.Duration, name string) {
		c.Schedule(d, func() { got = append(got, name) })
	}
	worker := s.Clock("podWorker", PriorityPodWorker)
	runtime := s.Clock("runtime", PriorityRuntime)
	loop := s.Clock("syncLoop", PrioritySyncLoop)
	add(worker, time.Second, "worker@1s")
	add(loop, time.Second, "loop@1s")
	add(runtime, time.Second, "runtime@1s")
	add(runtime, time.Second, "runtime@1s#2")
	add(worker, 0, "worker@0")
	add(runtime, 2*time.Second, "runtime@2s")
	s.RunUntil(10 * time.Second)
	want := []string{"worker@0", "runtime@1s", "runtime@1s#2", "loop@1s", "worker@1s", "runtime@2s"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if s.Elapsed() != 10*time.Second {
		t.Fatalf("clock at %s after RunUntil(10s)", s.Elapsed())
	}
}

func TestTimerStopAndReset(t *testing.T) {
	s := New(1, nil)
	c := s.Clock("p", PriorityDefault)
	fired := map[string]time.Duration{}
	a := c.Schedule(time.Second, func() { fired["a"] = s.Elapsed() })
	b := c.Schedule(2*time.Second, func() { fired["b"] = s.Elapsed() })
	c.Schedule(3*time.Second, func() { fired["c"] = s.Elapsed() })
	if !a.Stop() {
		t.Fatal("Stop of a pending timer returned false")
	}
	if a.Stop() {
		t.Fatal("second Stop returned true")
	}
	b.Reset(5 * time.Second)
	s.RunUntil(time.Minute)
	want := map[string]time.Duration{"b": 5 * time.Second, "c": 3 * time.Second}
	if !reflect.DeepEqual(fired, want) {
		t.Fatalf("fired = %v, want %v", fired, want)
	}
}

func TestClockInterfaceTimersAndTickers(t *testing.T) {
	s := New(1, nil)
	c := s.Clock("p", PriorityDefault)
	start := c.Now()
	tm := c.NewTimer(3 * time.Second)
	tk := c.NewTicker(time.Second)
	var ticks []time.Duration
	var timerAt time.Duration
	// Poll the Go channels once a second, after the ticker at the same instant.
	poll := s.Clock("poller", PriorityEviction)
	var pollFn func()
	pollFn = func() {
		select {
		case <-tk.C():
			ticks = append(ticks, c.Since(start))
		default:
		}
		select {
		case <-tm.C():
			timerAt = c.Since(start)
		default:
		}
		poll.Schedule(time.Second, pollFn)
	}
	poll.Schedule(0, pollFn)
	s.RunUntil(4 * time.Second)
	tk.Stop()
	if !reflect.DeepEqual(ticks, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}) {
		t.Fatalf("ticks = %v", ticks)
	}
	if timerAt != 3*time.Second {
		t.Fatalf("timer seen at %s", timerAt)
	}
}

func TestTickerDropsTicksNobodyTook(t *testing.T) {
	s := New(1, nil)
	c := s.Clock("p", PriorityTicker)
	tk := c.NewTickerChan("syncCh", time.Second)
	s.RunUntil(10 * time.Second)
	if tk.C.Len() != 1 {
		t.Fatalf("ticker channel holds %d ticks, want 1", tk.C.Len())
	}
	sent, _, dropped := tk.C.Stats()
	if sent != 1 || dropped != 9 {
		t.Fatalf("sent %d dropped %d, want 1 and 9", sent, dropped)
	}
}

func TestTrySendDropsWhenFull(t *testing.T) {
	log := &trace.Log{}
	s := New(1, log)
	ch := NewChan[int](s, "plegCh", 2)
	for i := 0; i < 3; i++ {
		ch.TrySend(i)
	}
	if ch.Len() != 2 {
		t.Fatalf("len %d", ch.Len())
	}
	v, _ := ch.TryRecv()
	w, _ := ch.TryRecv()
	if v != 0 || w != 1 {
		t.Fatalf("FIFO broken: %d %d", v, w)
	}
	if _, ok := ch.TryRecv(); ok {
		t.Fatal("received from empty channel")
	}
	kinds := ""
	for _, e := range log.Events {
		kinds += string(e.Kind) + " "
	}
	if kinds != "send send drop recv recv " {
		t.Fatalf("trace kinds = %q", kinds)
	}
	if log.Events[0].Flow != log.Events[3].Flow || log.Events[0].Flow == 0 {
		t.Fatalf("flow ids do not link send and receive: %v", log.Events)
	}
}

func TestBlockingSendParksUntilRoom(t *testing.T) {
	s := New(1, nil)
	ch := NewChan[string](s, "configCh", 1)
	src := s.Clock("config", PriorityConfig)
	var resumedAt []time.Duration
	src.Schedule(0, func() {
		ch.Send("a", func() { resumedAt = append(resumedAt, s.Elapsed()) })
		ch.Send("b", func() { resumedAt = append(resumedAt, s.Elapsed()) })
	})
	rcv := s.Clock("syncLoop", PrioritySyncLoop)
	var got []string
	rcv.Schedule(5*time.Second, func() {
		v, _ := ch.TryRecv()
		got = append(got, v)
	})
	s.RunUntil(6 * time.Second)
	if !reflect.DeepEqual(resumedAt, []time.Duration{0, 5 * time.Second}) {
		t.Fatalf("senders resumed at %v, want [0s 5s]", resumedAt)
	}
	if v, _ := ch.TryRecv(); v != "b" || got[0] != "a" {
		t.Fatalf("got %v then %q", got, v)
	}
}

// The select must see every channel made ready at the same instant by earlier-priority
// processes, and pick among them with the seeded stream.
func TestSelectSeesSameInstantSendsAndPicksUniformly(t *testing.T) {
	counts := map[string]int{}
	const rounds = 3000
	s := New(7, nil)
	a := NewChan[int](s, "a", rounds)
	b := NewChan[int](s, "b", rounds)
	c := NewChan[int](s, "c", rounds)
	loop := s.Clock("syncLoop", PrioritySyncLoop)
	sel := NewSelect(loop, s.RNG("syncLoop"), "test", a, b, c)
	chans := []*Chan[int]{a, b, c}
	var iterate func()
	iterate = func() {
		sel.Next(func(i int) {
			chans[i].TryRecv()
			counts[chans[i].Name()]++
			iterate()
		})
	}
	iterate()
	src := s.Clock("src", PriorityPLEG)
	src.Schedule(time.Second, func() {
		for i := 0; i < rounds; i++ {
			a.TrySend(i)
			b.TrySend(i)
			c.TrySend(i)
		}
	})
	s.RunUntil(time.Minute)
	total := counts["a"] + counts["b"] + counts["c"]
	if total != 3*rounds {
		t.Fatalf("handled %d values, want %d", total, 3*rounds)
	}
	// While all three are ready the choice is uniform: after 3000 picks, the first channel to
	// run dry does so late, so each was picked roughly a third of the time early on. A
	// simpler check: the first 300 picks are spread over all three.
	s2 := New(7, nil)
	x := NewChan[int](s2, "x", 10)
	y := NewChan[int](s2, "y", 10)
	x.TrySend(1)
	y.TrySend(1)
	sel2 := NewSelect(s2.Clock("l", PrioritySyncLoop), s2.RNG("l"), "t", x, y)
	picked := map[int]int{}
	for i := 0; i < 1000; i++ {
		sel2.Next(func(i int) { picked[i]++ })
		s2.Step(0)
	}
	if picked[0] < 400 || picked[1] < 400 {
		t.Fatalf("choice among two ready channels is not uniform: %v", picked)
	}
}

func TestSelectWaitsThenWakes(t *testing.T) {
	log := &trace.Log{}
	s := New(1, log)
	cfg := NewChan[int](s, "configCh", 50)
	pleg := NewChan[int](s, "plegCh", 1000)
	loop := s.Clock("syncLoop", PrioritySyncLoop)
	sel := NewSelect(loop, s.RNG("syncLoop"), "syncLoopIteration", cfg, pleg)
	var woke []string
	var iterate func()
	iterate = func() {
		sel.Next(func(i int) {
			woke = append(woke, fmt.Sprintf("%s@%s", sel.names[i], s.Elapsed()))
			if i == 0 {
				cfg.TryRecv()
			} else {
				pleg.TryRecv()
			}
			iterate()
		})
	}
	iterate()
	s.Clock("config", PriorityConfig).Schedule(3*time.Second, func() { cfg.TrySend(1) })
	s.RunUntil(10 * time.Second)
	if !reflect.DeepEqual(woke, []string{"configCh@3s"}) {
		t.Fatalf("woke = %v", woke)
	}
	var sel0 *trace.Event
	for i := range log.Events {
		if log.Events[i].Kind == trace.Select {
			sel0 = &log.Events[i]
		}
	}
	if sel0 == nil || sel0.Track != "syncLoop" || strings.Join(sel0.Ready, ",") != "configCh" {
		t.Fatalf("select trace = %v", sel0)
	}
}

func TestRNGStreamsAreIndependentAndSeeded(t *testing.T) {
	s1, s2 := New(42, nil), New(42, nil)
	a1, a2 := s1.RNG("prober/a"), s2.RNG("prober/a")
	_ = s2.RNG("prober/b").Float64() // another stream's draws do not move this one
	for i := 0; i < 100; i++ {
		if a1.Float64() != a2.Float64() {
			t.Fatal("same seed and stream gave different draws")
		}
	}
	if New(43, nil).RNG("prober/a").Float64() == New(42, nil).RNG("prober/a").Float64() {
		t.Fatal("different seeds gave the same first draw")
	}
	g := New(1, nil).RNG("jitter")
	for i := 0; i < 1000; i++ {
		d := g.Jitter(time.Minute, 0.5)
		if d < time.Minute || d >= 90*time.Second {
			t.Fatalf("jitter(1m, 0.5) = %s, outside [60s, 90s)", d)
		}
	}
}

func TestContinueKeepsTrackAndPriority(t *testing.T) {
	log := &trace.Log{}
	s := New(1, log)
	w := s.Clock("podWorker default/web", PriorityPodWorker)
	w.Schedule(0, func() {
		s.Continue(300*time.Millisecond, func() { s.Record(&trace.Event{Kind: "criReturn"}) })
	})
	s.RunUntil(time.Second)
	if len(log.Events) != 1 || log.Events[0].Track != "podWorker default/web" || log.Events[0].At != 300*time.Millisecond {
		t.Fatalf("continuation recorded %v", log.Events)
	}
}

func TestSleepPanicsWithAMessage(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "continuation") {
			t.Fatalf("recover() = %v", r)
		}
	}()
	New(1, nil).Clock("p", PriorityDefault).Sleep(time.Second)
}

// Ending a context drops the continuations scheduled under it, not those of its parent;
// a clock created while running under it belongs to the parent; ending the parent ends
// the context too.
func TestLifetimeContext(t *testing.T) {
	s := New(1, nil)
	parent := NewLifetime("kubelet")
	var ran []string
	var child *Clock
	var ctx *Lifetime
	s.Within(parent, func() {
		ctx = parent.Context("sync")
		s.Clock("worker", PriorityDefault).Schedule(0, func() {
			s.Within(ctx, func() {
				s.Continue(time.Second, func() { ran = append(ran, "ctx") })
				child = s.Clock("probe", PriorityDefault)
			})
			s.Continue(time.Second, func() { ran = append(ran, "parent") })
		})
	})
	s.Step(500 * time.Millisecond)
	ctx.End()
	child.Schedule(time.Second, func() { ran = append(ran, "clock made under ctx") })
	s.Step(2 * time.Second)
	if len(ran) != 2 || ran[0] != "parent" || ran[1] != "clock made under ctx" {
		t.Errorf("ran %v, want the parent's continuation and the clock's event only", ran)
	}
	other := parent.Context("next")
	parent.End()
	if !other.Ended() {
		t.Error("a context outlived its parent")
	}
}

// A process that reschedules itself at the same instant forever is stopped by the watchdog,
// with the time and the goroutine named.
func TestWatchdogStopsASameInstantLoop(t *testing.T) {
	s := New(1, nil)
	s.SetWatchdog(Watchdog{PerInstant: 1000})
	c := s.Clock("planner", PriorityDefault)
	var loop func()
	loop = func() { c.Schedule(0, loop) }
	c.Schedule(5*time.Second, loop)
	s.RunUntil(time.Minute)
	st := s.Stall()
	if st == nil || st.At != 5*time.Second || st.Track != "planner" {
		t.Fatalf("stall = %v, want one at 5s on planner", st)
	}
	if got := st.Error(); got != "simulation stalled at t=5s: planner (more than 1000 events at one instant)" {
		t.Errorf("message %q", got)
	}
}

// Ever-closer steps (a Zeno loop) break the per-second bound instead.
func TestWatchdogStopsAZenoLoop(t *testing.T) {
	s := New(1, nil)
	s.SetWatchdog(Watchdog{PerInstant: 1000, PerSecond: 5000})
	c := s.Clock("ramp", PriorityDefault)
	var loop func()
	loop = func() { c.Schedule(time.Microsecond, loop) }
	c.Schedule(0, loop)
	s.RunUntil(time.Hour)
	if st := s.Stall(); st == nil || st.At != 5000*time.Microsecond {
		t.Fatalf("stall = %v, want one at 5ms", st)
	}
}

// A delay past the end of representable time saturates: it never wraps into the past.
func TestScheduleSaturates(t *testing.T) {
	s := New(1, nil)
	c := s.Clock("c", PriorityDefault)
	fired := false
	c.Schedule(time.Hour, func() { c.Schedule(time.Duration(math.MaxInt64), func() { fired = true }) })
	s.RunUntil(2 * time.Hour)
	if fired {
		t.Fatal("an event scheduled at the end of time fired within two hours")
	}
}

// Each recorded send, receive and drop carries the channel's depth after it: sends to a
// 2-slot channel read 1, 2; the third finds it full (drop, still 2); two receives read 1, 0.
func TestChannelDepthIsRecorded(t *testing.T) {
	log := &trace.Log{}
	s := New(1, log)
	ch := NewChan[int](s, "plegCh", 2)
	for i := 0; i < 3; i++ {
		ch.TrySend(i)
	}
	ch.TryRecv()
	ch.TryRecv()
	var got []string
	for _, e := range log.Events {
		got = append(got, string(e.Kind)+"="+e.Attr("len"))
	}
	want := []string{"send=1", "send=2", "drop=2", "recv=1", "recv=0"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("depths = %v, want %v", got, want)
	}
}

// A select that takes a ticker's tick records when the tick was sent: a 1s ticker taken
// at 2.5s holds the tick of 1s (the 2s tick found the one slot full and was dropped).
func TestSelectRecordsWhenATickWasSent(t *testing.T) {
	log := &trace.Log{}
	s := New(1, log)
	loop := s.Clock("syncLoop", PrioritySyncLoop)
	tk := s.Clock("syncLoop", PriorityTicker).NewTickerChan("syncCh", time.Second)
	cfg := NewChan[int](s, "configCh", 50)
	sel := NewSelect(loop, s.RNG("syncLoop"), "syncLoopIteration", cfg, tk.C)
	loop.Schedule(2500*time.Millisecond, func() {
		sel.Next(func(i int) {
			if i != 1 {
				t.Errorf("chose case %d, want the ticker", i)
			}
			tk.C.TryRecv()
		})
	})
	s.RunUntil(2500 * time.Millisecond)
	var sentAt []string
	for _, e := range log.Events {
		if e.Kind == trace.Select {
			sentAt = append(sentAt, e.Attr("sentAt"))
		}
	}
	if !reflect.DeepEqual(sentAt, []string{"1000000000"}) {
		t.Fatalf("select sentAt = %v, want [1000000000] (the tick of 1s)", sentAt)
	}
}

// A channel sent on from a named goroutine records its sends there, whoever runs them.
func TestSentFromRecordsTheSendersTrack(t *testing.T) {
	log := &trace.Log{}
	s := New(1, log)
	ch := NewChan[int](s, "configCh", 1).SentFrom("config")
	s.Clock("statusManager", PriorityStatus).Schedule(0, func() {
		ch.TrySend(1)
		ch.TrySend(2) // full: dropped, recorded on config too
	})
	s.RunUntil(time.Second)
	var got []string
	for _, e := range log.Events {
		got = append(got, string(e.Kind)+"@"+e.Track)
	}
	if want := []string{"send@config", "drop@config"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded %v, want %v", got, want)
	}
}

// A timer's queue entry is reused: a stale Stop or Reset after the timer fired, or after its
// lifetime ended and its event was dropped, must never touch another event.
func TestTimerStopAfterFireLeavesOtherEventsAlone(t *testing.T) {
	s := New(1, nil)
	c := s.Clock("p", PriorityDefault)
	life := NewLifetime("l")
	var got []string
	a := c.Schedule(time.Second, func() { got = append(got, "a") })
	var dropped *Timer
	s.Within(life, func() {
		dropped = s.Clock("q", PriorityDefault).Schedule(time.Second, func() { got = append(got, "dropped") })
	})
	life.End()
	s.RunUntil(time.Second)
	c.Go(time.Second, func() { got = append(got, "go") })
	b := c.Schedule(time.Second, func() { got = append(got, "b") })
	if a.Stop() || a.Pending() {
		t.Fatal("Stop of a fired timer reported it pending")
	}
	if dropped.Stop() || dropped.Pending() {
		t.Fatal("Stop of a dropped timer reported it pending")
	}
	if !b.Pending() {
		t.Fatal("b not pending")
	}
	s.RunUntil(time.Minute)
	if want := []string{"a", "go", "b"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ran %v, want %v", got, want)
	}
}

// Periodic callers keep one Timer and Reset it: that must not allocate, nor may a
// continuation scheduled with Go once the free list holds an event.
func TestResetAndGoDoNotAllocate(t *testing.T) {
	s := New(1, nil)
	c := s.Clock("p", PriorityDefault)
	var tm *Timer
	tick := func() { tm.Reset(time.Second) }
	tm = c.Schedule(time.Second, tick)
	noop := func() {}
	c.Go(0, noop)
	s.Step(time.Second)
	if n := testing.AllocsPerRun(100, func() {
		c.Go(time.Millisecond, noop)
		s.Step(time.Second)
	}); n != 0 {
		t.Fatalf("a Reset and a Go per round allocate %v times", n)
	}
}

type recordFunc func(*trace.Event)

func (f recordFunc) Record(e *trace.Event) { f(e) }

// Record lends the sink one event it reuses: the caller's event does not escape, a sink
// that records from within Record gets an event of its own, and the stamps reach the caller.
func TestRecordLendsOneEvent(t *testing.T) {
	var s *Sim
	var got []string
	s = New(1, recordFunc(func(e *trace.Event) {
		got = append(got, fmt.Sprintf("%d:%s", e.Seq, e.Name))
		if e.Name == "outer" {
			s.Record(&trace.Event{Kind: "k", Name: "inner"})
			got = append(got, fmt.Sprintf("%d:%s", e.Seq, e.Name)) // still the outer event
		}
	}))
	e := &trace.Event{Kind: "k", Name: "outer"}
	s.Record(e)
	if want := []string{"1:outer", "2:inner", "1:outer"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("sink saw %v, want %v", got, want)
	}
	if e.Seq != 1 {
		t.Fatalf("caller's event stamped with seq %d, want 1", e.Seq)
	}
	quiet := New(1, nil)
	if n := testing.AllocsPerRun(100, func() {
		quiet.Record(&trace.Event{Kind: "k", Name: "n", Pod: "default/p"})
	}); n != 0 {
		t.Fatalf("Record allocates %v times per event", n)
	}
}

// Timers reset many times before they are due leave stale queue slots behind; compacting
// them away must keep every event's order and the count of pending events.
func TestTimerResetsCompactTheQueue(t *testing.T) {
	s := New(1, nil)
	c := s.Clock("p", PriorityDefault)
	var got []int
	timers := make([]*Timer, 50)
	for i := range timers {
		timers[i] = c.Schedule(time.Hour, func() { got = append(got, i) })
	}
	c.Go(time.Minute, func() { got = append(got, -1) })
	for round := 0; round < 20; round++ {
		for i, tm := range timers {
			// Odd timers end up before the continuation, even ones after it, in reverse.
			d := time.Duration(len(timers)-i) * time.Second
			if i%2 == 0 {
				d += time.Hour
			}
			tm.Reset(d)
		}
	}
	timers[7].Stop()
	if got, want := s.Pending(), 50; got != want {
		t.Fatalf("Pending() = %d, want %d", got, want)
	}
	if s.slots() > 2*s.Pending()+65 {
		t.Fatalf("queue holds %d slots for %d pending events", s.slots(), s.Pending())
	}
	s.RunUntil(3 * time.Hour)
	var want []int
	for i := len(timers) - 1; i >= 0; i-- {
		if i%2 == 1 && i != 7 {
			want = append(want, i)
		}
	}
	want = append(want, -1)
	for i := len(timers) - 1; i >= 0; i-- {
		if i%2 == 0 {
			want = append(want, i)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ran %v, want %v", got, want)
	}
	if s.Pending() != 0 || s.slots() != 0 || s.stale != 0 {
		t.Fatalf("after the run: Pending %d, %d slots, %d stale", s.Pending(), s.slots(), s.stale)
	}
}

// A tick's text is the same as strconv's for whole seconds and for any other time.
func TestTickTextIsStrconvs(t *testing.T) {
	var sel Select
	for _, at := range []time.Duration{0, 1, 999_999_999, time.Second, time.Second + 1, 10 * time.Second, 4 * time.Hour, 4*time.Hour + 7, -time.Second, -3, math.MaxInt64, math.MinInt64, 1_000_000_000_000_000_000} {
		if got, want := string(sel.nanosText(at)), strconv.FormatInt(int64(at), 10); got != want {
			t.Errorf("nanosText(%d) = %q, want %q", int64(at), got, want)
		}
	}
}

// A select's tick text counts whole seconds up from the last tick's and gives strconv's
// text whatever the step: the same second, a few seconds on (across 9 to 10, 99 to 100 and
// wider carries), a jump, a step back, and times that are not whole seconds.
func TestSelectTickText(t *testing.T) {
	var sel Select
	r := rand.New(rand.NewPCG(3, 3))
	at := time.Duration(0)
	for i := 0; i < 20000; i++ {
		switch k := r.IntN(20); {
		case k < 14:
			at = (at/time.Second + time.Duration(r.IntN(4))) * time.Second
		case k < 16:
			at = time.Duration(r.Int64N(1<<40)) * time.Second
		case k < 17:
			at = time.Duration(999_999_999-r.IntN(3)) * time.Second
		case k < 18:
			at = time.Duration(r.Int64N(math.MaxInt64))
		case k < 19:
			at = time.Duration(r.IntN(3)) * time.Second
		default:
			at = (at/time.Second - time.Duration(r.IntN(3))) * time.Second
		}
		if got, want := string(sel.nanosText(at)), strconv.FormatInt(int64(at), 10); got != want {
			t.Fatalf("step %d: nanosText(%d) = %q, want %q", i, int64(at), got, want)
		}
	}
}

// The watchdog stops a run at exactly the event at which counting every event's instant
// and simulated second afresh, as a reference here does, first passes a bound, and names
// that bound: for random bounds and random mixes of same-instant, close and distant steps.
func TestWatchdogMatchesCountingEveryEvent(t *testing.T) {
	stalls := map[bool]int{} // by whether the per-instant bound broke
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		w := Watchdog{PerInstant: 1 + uint64(r.IntN(30)), PerSecond: 1 + uint64(r.IntN(120))}
		s := New(seed, nil)
		if r.IntN(4) == 0 {
			s.StartAt(-time.Duration(r.Int64N(int64(3 * time.Second))))
		}
		s.SetWatchdog(w)
		var ran []time.Duration
		for p := 0; p < 1+r.IntN(4); p++ {
			c := s.Clock(fmt.Sprintf("p%d", p), PriorityDefault)
			var step func()
			step = func() {
				ran = append(ran, s.now)
				if len(ran) > 5000 {
					return
				}
				switch r.IntN(4) {
				case 0:
					c.Go(0, step)
				case 1:
					c.Go(time.Duration(r.IntN(1000))*time.Microsecond, step)
				case 2:
					c.Go(time.Duration(r.IntN(1500))*time.Millisecond, step)
				default:
					c.Go(time.Duration(r.IntN(3))*time.Second, step)
				}
			}
			c.Go(time.Duration(r.IntN(3))*time.Second, step)
		}
		s.RunUntil(time.Hour)

		// The reference: count each event's instant and window, as the bounds are stated.
		var instant, window time.Duration
		var instantN, windowN uint64
		opened := false
		broke := func(at time.Duration) string {
			if !opened || at != instant {
				instant, instantN = at, 0
			}
			instantN++
			if !opened || at-window >= time.Second {
				window, windowN, opened = at, 0, true
			}
			windowN++
			switch {
			case instantN > w.PerInstant:
				return fmt.Sprintf("more than %d events at one instant", w.PerInstant)
			case windowN > w.PerSecond:
				return fmt.Sprintf("more than %d events in one simulated second", w.PerSecond)
			}
			return ""
		}
		for i, at := range ran {
			if why := broke(at); why != "" {
				t.Fatalf("seed %d: event %d at %v ran, but it breaks a bound (%s)", seed, i, at, why)
			}
		}
		st := s.Stall()
		if st == nil {
			continue
		}
		if why := broke(st.At); why != st.What {
			t.Fatalf("seed %d: the watchdog stopped at %v (%s); counting afresh says %q", seed, st.At, st.What, why)
		}
		stalls[strings.HasSuffix(st.What, "instant")]++
	}
	if stalls[true] < 20 || stalls[false] < 20 {
		t.Fatalf("runs stopped by each bound: %v; the mix does not exercise both", stalls)
	}
}

// Kinds nobody reads (SetSkips, SkipPodStats) are left out of the trace, but each still
// takes its sequence number: the events recorded around them are numbered as they would
// have been.
func TestSkippedKindsKeepSequenceNumbers(t *testing.T) {
	log := &trace.Log{}
	s := New(1, log)
	s.SetSkips([]trace.Kind{trace.Send, "requeue"})
	s.SkipPodStats()
	if s.Records(trace.Send) || s.Records("requeue") || !s.Records(trace.Recv) || !s.Records(trace.Stats) {
		t.Fatal("Records does not answer from SetSkips")
	}
	ch := NewChan[int](s, "plegCh", 2)
	// Seq 1, a send, is skipped; seq 2, a receive, is recorded; seq 3 is a requeue left
	// unbuilt; seq 4, a pod's stats, is dropped by Record; seq 5, the node's, is recorded.
	ch.TrySend(1)
	ch.TryRecv()
	s.Skip()
	s.Record(&trace.Event{Kind: trace.Stats, Name: "pod", Pod: "default/a"})
	s.Record(&trace.Event{Kind: trace.Stats, Name: "node"})
	var got []string
	for _, e := range log.Events {
		got = append(got, fmt.Sprintf("%d %s %s", e.Seq, e.Kind, e.Name))
	}
	if want := []string{"2 recv plegCh", "5 stats node"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("SetSkips after events were scheduled did not panic")
		}
	}()
	s.Clock("test", PriorityDefault).Go(time.Second, func() {})
	s.SetSkips(nil)
}

package sim

import (
	"testing"
	"time"
)

// BenchmarkTimerEvent measures scheduling one timer event and firing it.
func BenchmarkTimerEvent(b *testing.B) {
	s := New(1, nil)
	c := s.Clock("p", PriorityDefault)
	fn := func() {}
	// Keep a realistic backlog of pending events in the queue.
	for i := 0; i < 1000; i++ {
		c.Schedule(time.Duration(i+1)*time.Hour*24*365, fn)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Schedule(time.Millisecond, fn)
		s.Step(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkChanSelectRound measures one send, the select waking and choosing, and the
// receive, as one syncLoop iteration costs the kernel.
func BenchmarkChanSelectRound(b *testing.B) {
	s := New(1, nil)
	cfg := NewChan[int](s, "configCh", 50)
	pleg := NewChan[int](s, "plegCh", 1000)
	sync := NewChan[int](s, "syncCh", 1)
	loop := s.Clock("syncLoop", PrioritySyncLoop)
	sel := NewSelect(loop, s.RNG("syncLoop"), "syncLoopIteration", cfg, pleg, sync)
	chans := []*Chan[int]{cfg, pleg, sync}
	var handle func(int)
	handle = func(i int) {
		chans[i].TryRecv()
		sel.Next(handle)
	}
	sel.Next(handle)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pleg.TrySend(i)
		s.Step(0)
	}
}

// BenchmarkQueueChurn keeps 2,000 periodic timers with assorted periods in the queue and
// fires them, as probe workers and tickers of a busy node do.
func BenchmarkQueueChurn(b *testing.B) {
	s := New(1, nil)
	c := s.Clock("p", PriorityDefault)
	for i := 0; i < 2000; i++ {
		c.NewTicker(time.Duration(1+i%7)*time.Second + time.Duration(i)*time.Millisecond)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.RunUntil(s.nextAt()) // the next instant: usually one tick
	}
}

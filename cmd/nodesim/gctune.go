package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcHeadroom is how far the heap may grow past the live heap before the collector runs,
// at the least. A run's live heap is small next to what it allocates (the busy node's day
// keeps ~10 MB live and allocates over 1 GB), so with Go's default (GOGC=100: collect when
// the heap has doubled) a small node spends a sixth of its time collecting. Growing by at
// least this much bounds the collections of a small run without making a large one's
// heap more than double: past 64 MiB live, the default rule applies unchanged.
const gcHeadroom = 64 << 20

// tuneGC makes the collector let the heap grow by max(live heap, gcHeadroom) between
// collections, re-deciding after each collection from the live heap it found. It leaves the
// runtime alone when the user set GOGC or GOMEMLIMIT. The collector's pace never changes
// what a run computes: only its time and memory.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	t := &gcTuner{percent: -1, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.adjust()
	t.arm()
}

// gcTuner re-decides the GC percentage once per collection, from a finalizer: the runtime
// runs it on its own finalizer goroutine after each cycle that found the previous sentinel
// unreachable, and the new sentinel it arms waits for the next cycle.
type gcTuner struct {
	percent int
	sample  []metrics.Sample
}

// gcSentinel is the object whose collection marks a GC cycle. It holds a pointer so that the
// runtime allocates it on its own (the tiny allocator batches pointer-free objects, which
// could keep it alive past a cycle).
type gcSentinel struct{ t *gcTuner }

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t: t}, func(s *gcSentinel) {
		s.t.adjust()
		s.t.arm()
	})
}

// adjust sets the percentage for the live heap the last collection found (see gcPercent).
func (t *gcTuner) adjust() {
	metrics.Read(t.sample)
	var live uint64
	if v := t.sample[0].Value; v.Kind() == metrics.KindUint64 {
		live = v.Uint64()
	}
	if percent := gcPercent(live); percent != t.percent {
		t.percent = percent
		debug.SetGCPercent(percent)
	}
}

// gcPercent is the GC percentage that lets a heap of live bytes grow by max(live,
// gcHeadroom): 100 for a live heap of gcHeadroom or more, more for a smaller one. Before
// the first collection the live heap is unknown (0): the runtime's 4 MiB minimum heap
// stands in for it, as for any smaller heap.
func gcPercent(live uint64) int {
	live = max(live, 4<<20)
	if live >= gcHeadroom {
		return 100
	}
	return int(gcHeadroom * 100 / live) // at most 1600, with live at least 4 MiB
}

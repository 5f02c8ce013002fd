package sim

import (
	"math/bits"
	"time"
)

// --- the near queue: a timing wheel in front of the heap.
//
// Most events are due within seconds (probe periods, tickers, continuations), so they go
// to a wheel of buckets, one per span of 2^wheelShift ns, which covers the next wheelSize
// spans from the current one. A bucket holds few slots, kept in (at, prio, seq) order,
// latest first, so that its earliest is at its end; a bit set marks the buckets that hold
// any. Pushing is an insertion into a short list and taking the earliest slot is a scan of
// the bit set from the current span, instead of sifting through the heap's levels.
//
// An event due beyond the wheel's span, or whose bucket is full, goes to the heap. Either
// place is only storage: RunUntil takes whichever of the wheel's earliest slot and the
// heap's comes first by the same (at, prio, seq) key, so events run in exactly the order one
// heap would run them, wherever each was put.
//
// The wheel's span starts at the current instant's bucket. Events are never due before now
// and now only moves to the earliest pending event (or to a RunUntil's end, before any of
// them), so every slot in the wheel stays within the wheelSize buckets from now's, and the
// first marked bucket after now's, in circular order, holds the earliest slot.

const (
	wheelShift  = 24      // a bucket spans 2^24 ns, about 17 ms
	wheelSize   = 1 << 10 // buckets: the wheel spans about 17.2 s
	bucketLimit = 8       // slots a bucket holds before further ones go to the heap
)

// wheel is the near queue. Its buckets are arrays of its own, so that queueing never
// allocates and a bucket's slots are found without loading a slice first.
type wheel struct {
	buckets [wheelSize][bucketLimit]qslot // each in (at, prio, seq) order, latest first
	lens    [wheelSize]uint8              // how many slots each bucket holds
	marked  [wheelSize / 64]uint64
	n       int // slots in all buckets
}

// bucketOf is the number of the span that holds at (spans are counted from time zero, so
// a negative time falls in a negative span).
func bucketOf(at time.Duration) int64 { return int64(at) >> wheelShift }

// first is the bucket that holds the wheel's earliest slot, the wheel holding any: the first
// marked bucket from now's, in circular order.
func (w *wheel) first(now time.Duration) int {
	if i := w.firstNear(now); i >= 0 {
		return i
	}
	return w.firstBeyond(now)
}

// firstNear is first when the bucket is in now's own word of the bit set, else -1.
// RunUntil asks for every event and the answer is nearly always there, so this half is
// kept small enough to be inlined.
func (w *wheel) firstNear(now time.Duration) int {
	start := int(bucketOf(now) & (wheelSize - 1))
	if m := w.marked[start>>6] >> (start & 63); m != 0 {
		return start + bits.TrailingZeros64(m)
	}
	return -1
}

// firstBeyond is first when no bucket from now's to the end of its word is marked.
func (w *wheel) firstBeyond(now time.Duration) int {
	wi := int(bucketOf(now)&(wheelSize-1)) >> 6
	for k := 1; k <= len(w.marked); k++ {
		// The last round comes back to now's word, for its buckets before now's: the
		// latest of the wheel's span.
		wj := (wi + k) & (len(w.marked) - 1)
		if m := w.marked[wj]; m != 0 {
			return wj<<6 | bits.TrailingZeros64(m)
		}
	}
	panic("sim: the wheel counts slots it does not hold")
}

// earliest is the earliest slot of bucket i, which holds some. The index is masked to the
// wheel's size, as every bucket index already is, and the slot's to the bucket's, so
// that finding it needs no bounds checks.
func (w *wheel) earliest(i int) *qslot {
	return &w.buckets[i&(wheelSize-1)][(w.lens[i&(wheelSize-1)]-1)&(bucketLimit-1)]
}

// take drops sl, the earliest slot of bucket i, which the caller has read. The slot's
// event is cleared so that the slot, unused until a later push overwrites it, does not
// keep a finished timer alive.
func (w *wheel) take(i int, sl *qslot) {
	sl.ev = nil
	i &= wheelSize - 1 // as every bucket index is: no bounds check
	n := w.lens[i] - 1
	w.lens[i] = n
	if n == 0 {
		w.marked[i>>6] &^= 1 << (i & 63)
	}
	w.n--
}

// compact drops the stale slots of every bucket, keeping the others' order.
func (w *wheel) compact() {
	for wi, m := range w.marked {
		for m != 0 {
			i := wi<<6 | bits.TrailingZeros64(m)
			m &= m - 1
			bk := w.buckets[i][:w.lens[i]]
			n := len(keepLive(bk))
			w.n -= len(bk) - n
			w.lens[i] = uint8(n)
			if n == 0 {
				w.marked[wi] &^= 1 << (i & 63)
			}
		}
	}
}

// nextAt is when the earliest pending slot is due (stale ones included); the queue must not
// be empty.
func (s *Sim) nextAt() time.Duration {
	at := time.Duration(1<<63 - 1)
	if s.near.n > 0 {
		i := s.near.first(s.now)
		at = s.near.earliest(i).at
	}
	if len(s.queue) > 0 && s.queue[0].at < at {
		at = s.queue[0].at
	}
	return at
}

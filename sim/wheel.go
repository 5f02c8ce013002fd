package sim

import (
	"math/bits"
	"time"
)

// --- the near queue: a timing wheel in front of the heap.
//
// Most events are due within seconds (probe periods, tickers, continuations), so they go
// to a wheel of buckets, one per span of 2^wheelShift ns, which covers the next wheelSize
// spans from the current one. A bucket is a list of its events, linked through the events
// themselves (next and prev) in (at, prio, seq) order, earliest first; a bit set marks the
// buckets that hold any. Taking the earliest event is unlinking a bucket's first, and
// pushing one is linking it after the last one that comes before it: nearly always the
// bucket's last, found from its end, or an empty bucket. An event knows whether it is in
// the wheel (wheeled), so Stop and Reset unlink a waiting event at once: the wheel never
// holds a stale entry, and needs no key comparison when its first is taken.
//
// An event due beyond the wheel's span goes to the heap. Either place is only storage:
// RunUntil takes whichever of the wheel's earliest event and the heap's first comes first
// by the same (at, prio, seq) key, so events run in exactly the order one heap would run
// them, wherever each was put.
//
// The wheel's span starts at the current instant's bucket. Events are never due before now
// and now only moves to the earliest pending event (or to a RunUntil's end, before any of
// them), so every event in the wheel stays within the wheelSize buckets from now's, and the
// first marked bucket after now's, in circular order, holds the earliest event.

const (
	wheelShift = 24      // a bucket spans 2^24 ns, about 17 ms
	wheelSize  = 1 << 10 // buckets: the wheel spans about 17.2 s
)

// wheel is the near queue: the first and last event of each bucket (nil when it is empty)
// and the bit set of the buckets that hold any.
type wheel struct {
	head, tail [wheelSize]*event
	marked     [wheelSize / 64]uint64
	n          int // events in all buckets
}

// bucketOf is the number of the span that holds at (spans are counted from time zero, so
// a negative time falls in a negative span).
func bucketOf(at time.Duration) int64 { return int64(at) >> wheelShift }

// bucketIndex is the bucket of the wheel that holds an event due at at, the wheel's span
// covering it.
func bucketIndex(at time.Duration) int { return int(bucketOf(at) & (wheelSize - 1)) }

// first is the bucket that holds the wheel's earliest event, or -1 when the wheel is
// empty: the first marked bucket from now's, in circular order.
func (w *wheel) first(now time.Duration) int {
	if i := w.firstNear(now); i >= 0 || w.n == 0 {
		return i
	}
	return w.firstBeyond(now)
}

// firstNear is first when the bucket is in now's own word of the bit set, else -1 (as it
// is when the wheel is empty). RunUntil asks for every event and the answer is nearly
// always there, so this half is kept small enough to be inlined.
func (w *wheel) firstNear(now time.Duration) int {
	start := bucketIndex(now)
	if m := w.marked[start>>6] >> (start & 63); m != 0 {
		return start + bits.TrailingZeros64(m)
	}
	return -1
}

// firstBeyond is first when no bucket from now's to the end of its word is marked and the
// wheel is not empty.
func (w *wheel) firstBeyond(now time.Duration) int {
	wi := bucketIndex(now) >> 6
	for k := 1; k <= len(w.marked); k++ {
		// The last round comes back to now's word, for its buckets before now's: the
		// latest of the wheel's span.
		wj := (wi + k) & (len(w.marked) - 1)
		if m := w.marked[wj]; m != 0 {
			return wj<<6 | bits.TrailingZeros64(m)
		}
	}
	panic("sim: the wheel counts events it does not hold")
}

// precedes reports whether a, queued, comes before an event due at at under key ord.
func (a *event) precedes(at time.Duration, ord uint64) bool {
	return a.at < at || a.at == at && a.key < ord
}

// insertBefore links ev, due at at under key ord (both already set on it), into bucket i
// before t, the bucket's last, which comes after it: after the last one that comes before
// it, or first. push links an event into an empty bucket or after the last itself; this is
// the rarer rest.
func (w *wheel) insertBefore(i int, t, ev *event, at time.Duration, ord uint64) {
	i &= wheelSize - 1 // as every bucket index is: no bounds checks
	p := t.prev
	for p != nil && !p.precedes(at, ord) {
		p = p.prev
	}
	if p == nil {
		ev.prev, ev.next = nil, w.head[i]
		w.head[i].prev, w.head[i] = ev, ev
		return
	}
	ev.prev, ev.next = p, p.next
	p.next.prev, p.next = ev, ev
}

// takeFirst unlinks ev, the first event of bucket i, which the caller has read.
func (w *wheel) takeFirst(i int, ev *event) {
	i &= wheelSize - 1
	nx := ev.next
	w.head[i] = nx
	if nx == nil {
		w.tail[i] = nil
		w.marked[i>>6] &^= 1 << (i & 63)
	} else {
		nx.prev, ev.next = nil, nil
	}
	ev.wheeled = false
	w.n--
}

// remove unlinks ev, waiting in the wheel, wherever it is in its bucket.
func (w *wheel) remove(ev *event) {
	i := bucketIndex(ev.at)
	if ev.prev != nil {
		ev.prev.next = ev.next
	} else {
		w.head[i] = ev.next
	}
	if ev.next != nil {
		ev.next.prev = ev.prev
	} else {
		w.tail[i] = ev.prev
	}
	if w.head[i] == nil {
		w.marked[i>>6] &^= 1 << (i & 63)
	}
	ev.prev, ev.next, ev.wheeled = nil, nil, false
	w.n--
}

// nextAt is when the earliest pending slot is due (stale ones included); the queue must not
// be empty.
func (s *Sim) nextAt() time.Duration {
	at := time.Duration(1<<63 - 1)
	if i := s.near.first(s.now); i >= 0 {
		at = s.near.head[i].at
	}
	if len(s.queue) > 0 && s.queue[0].at < at {
		at = s.queue[0].at
	}
	return at
}

// Package flowcontrol is client-go's util/flowcontrol Backoff as the kubelet uses it: a
// per-key exponential back-off without jitter, for crash-looping containers and failing
// image pulls.
package flowcontrol

import (
	"time"
)

type entry struct {
	backoff    time.Duration
	lastUpdate time.Time
}

// Backoff tracks one back-off per key.
type Backoff struct {
	initial, max time.Duration
	// resetAfter is how long without an update before an entry starts over. The kubelet's
	// crash-loop back-off fixes it at 600s (HasExpiredFunc); client-go's default is 2 × max.
	resetAfter time.Duration
	entries    map[string]*entry
	// oldest is no later than any entry's last update: Next lowers it to its now when
	// needed (an update only moves an entry's time later, a removal only raises the true
	// minimum), and GC sets it to the true minimum when it walks. While now is within the
	// reset window of oldest, no entry can have expired and GC need not walk.
	oldest time.Time
	// gcFrom is oldest plus the reset window: GC, asked at every housekeeping pass, finds
	// nothing to drop until now is past it, which one comparison of times tells.
	gcFrom time.Time
}

// NewBackOff returns a back-off from initial doubling to max, reset after 2 × max.
func NewBackOff(initial, max time.Duration) *Backoff {
	return &Backoff{initial: initial, max: max, resetAfter: 2 * max, entries: map[string]*entry{}}
}

// WithResetAfter sets how long an entry lives without an update.
func (b *Backoff) WithResetAfter(d time.Duration) *Backoff {
	b.resetAfter = d
	b.setOldest(b.oldest)
	return b
}

func (b *Backoff) expired(e *entry, eventTime time.Time) bool {
	return eventTime.Sub(e.lastUpdate) > b.resetAfter
}

// Next records an event for key that happened at eventTime, now: the first (or the first
// whose event came more than the reset window after the last update) sets the initial
// back-off, each later one doubles it up to max. The entry's last update is now, as in
// client-go, so a container that ran longer than the window before exiting starts over.
func (b *Backoff) Next(key string, eventTime, now time.Time) {
	e, ok := b.entries[key]
	if !ok || b.expired(e, eventTime) {
		e = &entry{backoff: b.initial}
		b.entries[key] = e
	} else {
		e.backoff *= 2
		if e.backoff > b.max {
			e.backoff = b.max
		}
	}
	e.lastUpdate = now
	if len(b.entries) == 1 || now.Before(b.oldest) {
		b.setOldest(now)
	}
}

// Get returns the key's current back-off (0 when none).
func (b *Backoff) Get(key string) time.Duration {
	if e, ok := b.entries[key]; ok {
		return e.backoff
	}
	return 0
}

// IsInBackOffSince reports whether now is within the key's back-off counted from eventTime.
func (b *Backoff) IsInBackOffSince(key string, eventTime, now time.Time) bool {
	e, ok := b.entries[key]
	if !ok || b.expired(e, eventTime) {
		return false
	}
	return now.Sub(eventTime) < e.backoff
}

// IsInBackOffSinceUpdate reports whether now is within the key's back-off counted from its
// last update (image pulls).
func (b *Backoff) IsInBackOffSinceUpdate(key string, now time.Time) bool {
	e, ok := b.entries[key]
	if !ok || b.expired(e, now) {
		return false
	}
	return now.Sub(e.lastUpdate) < e.backoff
}

// GC drops entries not updated within the reset window (housekeeping). Which entries go
// does not depend on the order they are looked at, and nothing is recorded, so the map is
// walked as it is, deleting as it goes (which Go allows), rather than in sorted key order.
func (b *Backoff) GC(now time.Time) {
	if len(b.entries) == 0 || !now.After(b.gcFrom) {
		return // every entry was updated within the window
	}
	first := true
	for k, e := range b.entries {
		if b.expired(e, now) {
			delete(b.entries, k)
		} else if first || e.lastUpdate.Before(b.oldest) {
			b.setOldest(e.lastUpdate)
			first = false
		}
	}
}

// setOldest makes t the time no entry's last update is earlier than.
func (b *Backoff) setOldest(t time.Time) {
	b.oldest, b.gcFrom = t, t.Add(b.resetAfter)
}

// Reset forgets the key.
func (b *Backoff) Reset(key string) { delete(b.entries, key) }

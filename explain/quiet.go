package explain

import (
	"strings"
	"time"
)

// quietKind is a periodic step that is counted rather than printed.
type quietKind int

// In the order a summary lists them.
const (
	// Steps that found nothing new.
	idleSyncTick quietKind = iota
	idleResync
	idleHousekeeping
	idleRelist
	idleEvictionPass
	statsRefresh
	probeSuccess
	probeRepeat
	// Repeats of a step already printed (the first of a streak is printed in full).
	repeatFailedRelist
	repeatSkipSync
	quietKinds
)

// quietStretch counts the quiet steps between two printed lines.
type quietStretch struct {
	n           [quietKinds]int
	first, last time.Duration
	// signals is the last eviction pass's observation, so a reader sees memory drain
	// toward a threshold even while the passes themselves are folded.
	signals string
}

func (q *quietStretch) empty() bool {
	for _, n := range q.n {
		if n > 0 {
			return false
		}
	}
	return true
}

func (q *quietStretch) add(k quietKind, d time.Duration) {
	if q.empty() {
		q.first = d
	}
	q.last = d
	q.n[k]++
}

// summary renders the stretch as one faint line and resets it.
func (q *quietStretch) summary() (line, bool) {
	if q.empty() {
		return line{}, false
	}
	var repeats, idle []string
	for k := quietKind(0); k < quietKinds; k++ {
		n := q.n[k]
		if n == 0 {
			continue
		}
		switch k {
		case idleSyncTick:
			idle = append(idle, plural(n, "syncCh tick", "syncCh ticks"))
		case idleResync:
			idle = append(idle, plural(n, "pod resync", "pod resyncs"))
		case idleHousekeeping:
			idle = append(idle, plural(n, "housekeeping pass", "housekeeping passes"))
		case idleRelist:
			idle = append(idle, plural(n, "relist", "relists"))
		case idleEvictionPass:
			s := plural(n, "eviction pass", "eviction passes")
			if q.signals != "" {
				s += " (" + q.signals + ")"
			}
			idle = append(idle, s)
		case statsRefresh:
			idle = append(idle, plural(n, "stats refresh", "stats refreshes"))
		case probeSuccess:
			idle = append(idle, plural(n, "probe success", "probe successes"))
		case probeRepeat:
			idle = append(idle, plural(n, "probe result that repeats the last", "probe results that repeat the last"))
		case repeatFailedRelist:
			repeats = append(repeats, plural(n, "more failed relist", "more failed relists"))
		case repeatSkipSync:
			repeats = append(repeats, plural(n, "more skippingPodSynchronization", "more skippingPodSynchronization"))
		}
	}
	var parts []string
	if len(repeats) > 0 {
		parts = append(parts, strings.Join(repeats, ", "))
	}
	if len(idle) > 0 {
		parts = append(parts, "nothing new from "+strings.Join(idle, ", "))
	}
	text := strings.Join(parts, "; ")
	if q.last > q.first {
		text = "until " + at(q.last) + ": " + text
	}
	l := line{at: q.first, track: "…", text: text, tone: faint, cat: always}
	*q = quietStretch{}
	return l, true
}

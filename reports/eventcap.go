package reports

import (
	"fmt"
	"time"

	"nodesim/trace"
)

// eventCap keeps a streamed trace file to a bounded number of events on a long run: the
// first max events go in, the rest are counted and left out, and the file ends with a note
// that says so (a reader never takes a cut trace for a whole one).
type eventCap struct {
	max          int
	kept         int
	dropped      int64
	firstDropped time.Duration
}

// admit reports whether e goes into the file; a zero max admits every event.
func (c *eventCap) admit(e *trace.Event) bool {
	if c.max <= 0 || c.kept < c.max {
		c.kept++
		return true
	}
	if c.dropped == 0 {
		c.firstDropped = e.At
	}
	c.dropped++
	return false
}

// note is the truncation note, or "" when nothing was left out.
func (c *eventCap) note() string {
	if c.dropped == 0 {
		return ""
	}
	return fmt.Sprintf("trace truncated by --trace-max-events %d: the first %d events are here, the %d from %s on are left out",
		c.max, c.kept, c.dropped, FormatSeconds(secs(c.firstDropped)))
}

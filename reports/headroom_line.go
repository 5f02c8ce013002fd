package reports

import (
	"fmt"
	"strconv"
)

// HeadroomLines are the report's headroom lines, one per signal with a hard threshold that an
// eviction pass observed: how close the node came to it ("lowest memory.available 412Mi at
// 2h25m, 212Mi above the hard threshold (200Mi)"). A run with no such signal says so in one
// line, so that every report carries one.
func HeadroomLines(r *Report) []string {
	hs := Headroom(r)
	if len(hs) == 0 {
		return []string{"no hard eviction threshold was observed: no headroom to report"}
	}
	lines := make([]string, 0, len(hs))
	for _, h := range hs {
		lines = append(lines, HeadroomLine(h))
	}
	return lines
}

// HeadroomLine renders one signal's headroom. Bytes share one binary unit across the line's
// three values; inode and PID counts are plain numbers.
func HeadroomLine(h SignalHeadroom) string {
	lowest, margin, threshold := strconv.FormatInt(h.Lowest, 10), strconv.FormatInt(abs(h.Above), 10), strconv.FormatInt(h.Threshold, 10)
	if byteSignal(h.Signal) {
		var c ByteColumn
		for _, v := range []string{lowest, margin, threshold} {
			c.Observe(v)
		}
		lowest, margin, threshold = c.Format(lowest), c.Format(margin), c.Format(threshold)
	}
	where := fmt.Sprintf("%s above the hard threshold (%s)", margin, threshold)
	switch {
	case h.Above == 0:
		where = fmt.Sprintf("at the hard threshold (%s)", threshold)
	case h.Above < 0:
		where = fmt.Sprintf("%s below the hard threshold (%s)", margin, threshold)
	}
	return fmt.Sprintf("lowest %s %s at %s, %s", h.Signal, lowest, FormatSeconds(h.At), where)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

package reports

import (
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// FormatDuration renders a span as people read one: 2h27m9s, 2m9.1s, 454ms. Go's own
// notation, cut to the microsecond (the trace's resolution), with the zero seconds and
// minutes of a round span left off (2h25m, not 2h25m0s).
func FormatDuration(d time.Duration) string {
	s := d.Round(time.Microsecond).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// FormatSeconds is FormatDuration for the report's times, which are seconds.
func FormatSeconds(v float64) string {
	return FormatDuration(time.Duration(math.Round(v * float64(time.Second))))
}

// binaryUnits are the suffixes a column of bytes may use, smallest first.
var binaryUnits = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

// ByteColumn renders a column of byte quantities in one binary unit, the largest in which
// the column's largest value is at least 1, so that values side by side compare at a
// glance (1424.8Mi beside 1536Mi, never 1459012Ki beside 1536Mi). A value that is not a
// quantity (a count, an empty cell) passes through unchanged and does not choose the unit.
type ByteColumn struct {
	unit int
	set  bool
}

// Observe lets a value take part in choosing the column's unit.
func (c *ByteColumn) Observe(s string) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return
	}
	v := math.Abs(q.AsApproximateFloat64())
	u := 0
	for u < len(binaryUnits)-1 && v >= math.Pow(1024, float64(u+1)) {
		u++
	}
	if !c.set || u > c.unit {
		c.unit, c.set = u, true
	}
}

// Format renders s in the column's unit with at most one decimal (dropped when zero).
func (c *ByteColumn) Format(s string) string {
	q, err := resource.ParseQuantity(s)
	if err != nil || !c.set {
		return s
	}
	return formatIn(q.AsApproximateFloat64(), c.unit)
}

// FormatBytes renders a byte count in the unit chosen for its own magnitude.
func FormatBytes(n int64) string {
	var c ByteColumn
	s := strconv.FormatInt(n, 10)
	c.Observe(s)
	return c.Format(s)
}

func formatIn(v float64, unit int) string {
	x := v / math.Pow(1024, float64(unit))
	t := strconv.FormatFloat(math.Round(x*10)/10, 'f', 1, 64)
	t = strings.TrimSuffix(t, ".0")
	return t + binaryUnits[unit]
}

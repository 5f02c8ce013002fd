package reports

import (
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// FormatDuration renders a span as people read one: 2h27m9s, 2m9.1s, 454.3ms. Go's own
// notation, to the millisecond from a second up (as the old seconds columns were), to a
// tenth of one below, and to the microsecond (the trace's resolution) below a millisecond,
// with the zero seconds and minutes of a round
// span left off (2h25m, not 2h25m0s).
func FormatDuration(d time.Duration) string {
	unit := time.Millisecond
	switch {
	case d < time.Millisecond && d > -time.Millisecond:
		unit = time.Microsecond
	case d < time.Second && d > -time.Second:
		unit = 100 * time.Microsecond
	}
	s := d.Round(unit).String()
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

// ByteColumn renders a column of byte quantities in one binary unit, so that values side by
// side compare at a glance (1424.8Mi beside 1536Mi, never 1459012Ki beside 1536Mi). The unit
// is the largest in which every value is whole in at most five digits (1Gi stays 1Gi), else the largest in which the
// smallest non-zero value still has two digits (796Mi beside 1024Mi, not 0.8Gi beside 1Gi),
// stepped up while the largest value would need more than five. A value that is not a
// quantity (a count, an empty cell) passes through unchanged and does not choose the unit.
type ByteColumn struct {
	values []float64
	set    bool
}

// Observe lets a value take part in choosing the column's unit.
func (c *ByteColumn) Observe(s string) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return
	}
	c.values = append(c.values, math.Abs(q.AsApproximateFloat64()))
	c.set = true
}

// unit is the index in binaryUnits of the column's unit.
func (c *ByteColumn) unit() int {
	scale := func(u int) float64 { return math.Pow(1024, float64(u)) }
	for u := len(binaryUnits) - 1; u > 0; u-- {
		whole := true
		for _, v := range c.values {
			if x := v / scale(u); x != math.Trunc(x) || x >= 100000 {
				whole = false
				break
			}
		}
		if whole {
			return u
		}
	}
	var min, max float64
	for _, v := range c.values {
		if v > 0 && (min == 0 || v < min) {
			min = v
		}
		max = math.Max(max, v)
	}
	u := 0
	for u < len(binaryUnits)-1 && min >= 10*scale(u+1) {
		u++
	}
	for u < len(binaryUnits)-1 && max/scale(u) >= 100000 {
		u++
	}
	return u
}

// Format renders s in the column's unit with at most one decimal (dropped when zero).
func (c *ByteColumn) Format(s string) string {
	q, err := resource.ParseQuantity(s)
	if err != nil || !c.set {
		return s
	}
	return formatIn(q.AsApproximateFloat64(), c.unit())
}

// FormatBytes renders a byte count in the unit chosen for its own magnitude.
func FormatBytes(n int64) string {
	var c ByteColumn
	s := strconv.FormatInt(n, 10)
	c.Observe(s)
	return c.Format(s)
}

func formatIn(v float64, unit int) string {
	x := math.Round(v/math.Pow(1024, float64(unit))*10) / 10
	if x == 0 {
		return "0" // not "-0Gi": a value too small for the column's unit
	}
	t := strconv.FormatFloat(x, 'f', 1, 64)
	t = strings.TrimSuffix(t, ".0")
	return t + binaryUnits[unit]
}

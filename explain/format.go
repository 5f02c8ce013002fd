package explain

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"nodesim/reports"
)

// at renders a simulated instant the way every line starts: time since the scenario's time
// zero, to the millisecond, as the reports write durations (2h27m9.123s).
func at(d time.Duration) string { return reports.FormatDuration(d.Round(time.Millisecond)) }

// span renders a length of simulated time for people: precise where it is short, rounded
// where precision would only add digits.
func span(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < 0:
		return "-" + span(-d)
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	case d < time.Minute:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// attrSpan re-renders a duration attribute ("1m7.941360774s") with span; a value that does
// not parse is returned as it is.
func attrSpan(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return span(d)
}

// attrInstant renders an attribute that holds an instant as time since time zero
// ("50.1521s") like the time column does.
func attrInstant(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return at(d)
}

// byteSize renders a byte count with binary units ("512Mi", "1.2Gi"), as quantities read in
// manifests.
func byteSize(n int64) string {
	if n < 0 {
		return "-" + byteSize(-n)
	}
	units := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return strconv.FormatInt(n, 10)
	}
	s := strconv.FormatFloat(f, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + units[i]
}

// quantity renders an amount for a signal: bytes with binary units, or a plain count for
// inodes and process IDs. It reads plain numbers and quantities as manifests write them
// ("202908Ki", "1.5Gi", "100M"); anything else is kept as it is.
func quantity(signal, v string) string {
	n, ok := parseQuantity(v)
	if !ok {
		return v
	}
	if countSignal(signal) {
		return strconv.FormatInt(n, 10)
	}
	return byteSize(n)
}

// parseQuantity reads an integer with an optional binary (Ki … Ei) or decimal (k … E)
// suffix, the forms Kubernetes quantities of memory and storage take.
func parseQuantity(v string) (int64, bool) {
	suffixes := []struct {
		s string
		m float64
	}{
		{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50}, {"Ei", 1 << 60},
		{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18},
	}
	mult := 1.0
	for _, s := range suffixes {
		if num, ok := strings.CutSuffix(v, s.s); ok {
			v, mult = num, s.m
			break
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, false
	}
	return int64(f * mult), true
}

// countSignal reports whether an eviction signal counts things (inodes, PIDs) rather than
// bytes.
func countSignal(signal string) bool {
	return strings.Contains(signal, "inodes") || strings.HasPrefix(signal, "pid")
}

// list renders names joined by ", ", the first max of them and how many more.
func list(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// split reads a comma-separated attribute; empty parts are dropped.
func split(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// clip shortens free text (error messages) to n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// plural renders "1 pod", "3 pods".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

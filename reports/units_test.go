package reports

import (
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{8829 * time.Second, "2h27m9s"}, // the 8829.000s of the old tables
		{8700 * time.Second, "2h25m"},   // 2h25m0s, the zero seconds left off
		{time.Hour, "1h"},               // 1h0m0s
		{2 * time.Minute, "2m"},         // 2m0s
		{129100 * time.Millisecond, "2m9.1s"},
		{1002171 * time.Microsecond, "1.002s"}, // from a second up, to the millisecond
		{454301 * time.Microsecond, "454.3ms"}, // below a second, to a tenth of a millisecond
		{2171 * time.Microsecond, "2.2ms"},
		{1500 * time.Nanosecond, "2µs"}, // below a millisecond, the trace's resolution
		{50 * time.Microsecond, "50µs"},
		{0, "0s"},
		{-90 * time.Second, "-1m30s"},
	} {
		if got := FormatDuration(c.d); got != c.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := FormatSeconds(8829); got != "2h27m9s" {
		t.Errorf("FormatSeconds(8829) = %q", got)
	}
}

func TestByteColumn(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []string
		want   []string
	}{
		// 1459012Ki = 1424.82Mi; the smallest value is over 1Mi, not over 1Gi.
		{"the issue's row", []string{"1459012Ki", "1536Mi"}, []string{"1424.8Mi", "1536Mi"}},
		// 202908Ki = 198.15Mi.
		{"observed beside a hard threshold", []string{"202908Ki", "200Mi"}, []string{"198.2Mi", "200Mi"}},
		{"796Mi beside 1Gi", []string{"796Mi", "1Gi"}, []string{"796Mi", "1024Mi"}},
		// In Mi the largest would be 204800 (six digits): the column steps up to Gi,
		// 100Mi = 0.098Gi = 0.1Gi.
		{"a wide column steps up", []string{"100Mi", "200Gi"}, []string{"0.1Gi", "200Gi"}},
		// -24Mi keeps its sign; a value too small for the unit is 0, not -0Gi.
		{"negative and tiny", []string{"-24Mi", "1Gi", "-100Ki"}, []string{"-24Mi", "1024Mi", "-0.1Mi"}},
		{"plain bytes", []string{"512", "1000"}, []string{"512", "1000"}},
		{"not a quantity", []string{"", "n/a", "2Ki"}, []string{"", "n/a", "2Ki"}},
	} {
		var col ByteColumn
		for _, v := range c.values {
			col.Observe(v)
		}
		for i, v := range c.values {
			if got := col.Format(v); got != c.want[i] {
				t.Errorf("%s: Format(%q) = %q, want %q", c.name, v, got, c.want[i])
			}
		}
	}
	if got := FormatBytes(3 << 30); got != "3Gi" {
		t.Errorf("FormatBytes(3Gi) = %q", got)
	}
}

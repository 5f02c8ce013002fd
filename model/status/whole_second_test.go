package status

import (
	"testing"
	"time"
)

// wholeSecond must give exactly what Truncate(time.Second) gives, in every location and on
// both sides of the zero time.
func TestWholeSecondIsTruncate(t *testing.T) {
	east := time.FixedZone("east", 5*3600+30*60)
	bases := []time.Time{
		time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 6, 30, 23, 59, 59, 999999999, east),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(0, 12, 31, 23, 59, 59, 500000000, time.UTC),
		time.Date(-300, 3, 1, 12, 0, 0, 7, time.UTC),
		{},
	}
	for _, b := range bases {
		for _, d := range []time.Duration{0, 1, 999999999, time.Second, 1500 * time.Millisecond, -1, -time.Second - 1, 37*time.Hour + 123456789} {
			at := b.Add(d)
			want, got := at.Truncate(time.Second), wholeSecond(at)
			if !got.Equal(want) || got != want {
				t.Errorf("wholeSecond(%v) = %v, want %v", at, got, want)
			}
		}
	}
}

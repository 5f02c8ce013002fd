package podworkers

import (
	"math/rand/v2"
	"testing"
	"time"
)

// appendDuration must write exactly what Duration.String does, for every duration.
func TestAppendDurationMatchesString(t *testing.T) {
	check := func(d time.Duration) {
		t.Helper()
		if got, want := string(appendDuration([]byte("x"), d)), "x"+d.String(); got != want {
			t.Fatalf("appendDuration(%d) = %q, want %q", int64(d), got, want)
		}
	}
	for _, d := range []time.Duration{
		0, 1, -1, 999, time.Microsecond, time.Millisecond, time.Second - 1, time.Second, time.Second + 1,
		1500 * time.Millisecond, 10 * time.Second, 59*time.Second + 999999999, time.Minute, time.Minute + 1,
		time.Minute + 100*time.Millisecond, 61 * time.Second, 90 * time.Second, 59 * time.Minute,
		time.Hour - 1, time.Hour, time.Hour + 1, 25 * time.Hour, -time.Minute, -90 * time.Second,
		1<<63 - 1, -1 << 63,
	} {
		check(d)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		check(time.Duration(rng.Int64N(int64(2 * time.Hour))))
		check(time.Duration(rng.Int64N(90)) * time.Second / time.Duration(1+rng.Int64N(1000)))
		check(time.Duration(rng.Int64()))
	}
}

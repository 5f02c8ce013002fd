package eviction

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// decimal's text is strconv's, around every power of ten and at random, whatever the
// array held before.
func TestDecimal(t *testing.T) {
	var d [20]byte
	check := func(v int64) {
		t.Helper()
		if got, want := string(decimal(&d, v)), strconv.FormatInt(v, 10); got != want {
			t.Fatalf("decimal(%d) = %q, want %q", v, got, want)
		}
	}
	for v := int64(-1000); v <= 100000; v++ {
		check(v)
	}
	for p := int64(1); p <= 1e18; p *= 10 {
		for d := int64(-3); d <= 3; d++ {
			check(p + d)
			check(-p + d)
		}
	}
	for _, v := range []int64{math.MaxInt64, math.MinInt64, 1<<29 - 1, 1 << 29, 1<<32 - 1, 1 << 32, 1 << 34} {
		check(v)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		check(rng.Int64N(1e11))
		check(rng.Int64() >> rng.IntN(64))
	}
}

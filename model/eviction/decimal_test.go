package eviction

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// appendDecimal appends what strconv.AppendInt appends, after what the buffer holds,
// around every power of ten and at random.
func TestAppendDecimal(t *testing.T) {
	buf := []byte("x")
	check := func(v int64) {
		t.Helper()
		want := string(strconv.AppendInt(buf[:1:1], v, 10))
		if got := string(appendDecimal(buf[:1], v)); got != want {
			t.Fatalf("appendDecimal(%d) = %q, want %q", v, got, want)
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

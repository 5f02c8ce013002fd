package eviction

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
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

// binarySIText is a binary SI quantity's String, for every figure it answers, around
// every power of 1024 and at random.
func TestBinarySIText(t *testing.T) {
	check := func(v int64) {
		t.Helper()
		got, ok := binarySIText(v)
		if !ok {
			if v > -1024 && v < 1024 || v == math.MinInt64 {
				return
			}
			t.Fatalf("binarySIText(%d) did not answer", v)
		}
		if want := resource.NewQuantity(v, resource.BinarySI).String(); got != want {
			t.Fatalf("binarySIText(%d) = %q, want %q", v, got, want)
		}
	}
	for v := int64(-5000); v <= 5000; v++ {
		check(v)
	}
	for p := int64(1); p > 0 && p <= math.MaxInt64/1024; p *= 1024 {
		for _, m := range []int64{1, 2, 3, 7, 1023, 1024, 1025, 4096, 999999} {
			for _, d := range []int64{-1, 0, 1} {
				if p*m/m == p {
					check(p*m + d)
					check(-(p*m + d))
				}
			}
		}
	}
	for _, v := range []int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1 << 62, -(1 << 62), 1 << 60, 7 << 60} {
		check(v)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		check(rng.Int64() >> rng.IntN(64))
		check(rng.Int64N(1<<40) * 4096)
		check(-rng.Int64N(1<<30) * 1024)
	}
}

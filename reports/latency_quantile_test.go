package reports

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// empiricalQuantile gives what stat.Quantile gives, for every length from 1 to 300 and the
// quantiles the reports ask for, with repeated samples and NaNs among them.
func TestEmpiricalQuantileIsGonums(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ps := []float64{0, 0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1}
	for n := 1; n <= 300; n++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(rng.IntN(50)) / 7
			if n%50 == 0 && i == n/2 {
				xs[i] = math.NaN()
			}
		}
		sort.Float64s(xs)
		for _, p := range ps {
			got, want := empiricalQuantile(p, xs), stat.Quantile(p, stat.Empirical, xs, nil)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("n=%d p=%v: %v, want %v", n, p, got, want)
			}
		}
	}
}

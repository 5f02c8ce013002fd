package eviction

import (
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// formatObservationsMemo gives formatObservations' text pass after pass, as figures move,
// repeat, come back, go missing, and come in other formats.
func TestFormatObservationsMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := &Manager{}
	values := []int64{0, 1, 1023, 1024, 5 << 20, 5<<20 + 1, 3 << 30, -2048, 999999}
	for pass := 0; pass < 2000; pass++ {
		obs := SignalObservations{}
		for _, s := range Signals() {
			if rng.IntN(5) == 0 {
				continue
			}
			v := values[rng.IntN(len(values))]
			var q *resource.Quantity
			switch rng.IntN(6) {
			case 0:
				q = resource.NewQuantity(v, resource.DecimalSI)
			case 1:
				q = resource.NewMilliQuantity(v, resource.BinarySI)
			default:
				q = qty(float64(v))
			}
			obs[s] = SignalObservation{Available: q}
		}
		if got, want := m.formatObservationsMemo(obs), formatObservations(obs); got != want {
			t.Fatalf("pass %d: %q, want %q", pass, got, want)
		}
	}
}

package sim

import (
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// RNG is one component's stream of seeded randomness. Each stream is derived from the run's
// seed and the stream's name alone, so adding a pod or a probe never reshuffles the draws of
// another component.
type RNG struct {
	r *rand.Rand
}

// RNG returns the stream called name.
func (s *Sim) RNG(name string) *RNG {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return NewRNG(s.seed, h.Sum64())
}

// NewRNG returns a stream for a seed and a stream key.
func NewRNG(seed, stream uint64) *RNG {
	return &RNG{r: rand.New(rand.NewPCG(splitmix(seed), splitmix(seed^stream^0x9e3779b97f4a7c15)))}
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Float64 is uniform in [0, 1).
func (g *RNG) Float64() float64 { return g.r.Float64() }

// IntN is uniform in [0, n).
func (g *RNG) IntN(n int) int { return g.r.IntN(n) }

// Jitter returns d + rand·factor·d, as k8s.io/apimachinery's wait.Jitter does (a factor of
// zero or less means 1).
func (g *RNG) Jitter(d time.Duration, factor float64) time.Duration {
	if factor <= 0 {
		factor = 1
	}
	return d + time.Duration(g.r.Float64()*factor*float64(d))
}

// Uniform is uniform in [lo, hi).
func (g *RNG) Uniform(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(g.r.Int64N(int64(hi-lo)))
}

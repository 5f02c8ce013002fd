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

// A pass's kept text and kept "none met" answer (formatObserved, configThresholdsMet) are
// what formatObservations and ThresholdsMet give, pass after pass, as figures repeat, move
// and cross thresholds.
func TestObservedPassAnswers(t *testing.T) {
	thresholds, err := ParseThresholdConfig(nil, map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "pid.available": "5%"},
		map[string]string{"imagefs.available": "15%"}, map[string]string{"imagefs.available": "1m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := NodeResources{MemoryCapacity: 4 << 30, KubepodsLimit: 3 << 30, NodeFsCapacity: 100 << 30, NodeFsInodes: 1 << 20, PidMax: 4096}
	m := &Manager{cfg: Config{Thresholds: thresholds}, stats: &StatsProvider{node: node}}
	rng := rand.New(rand.NewPCG(5, 6))
	memory := []float64{50 << 20, 200 << 20, 1 << 30, 1<<30 + 4096}
	disk := []float64{5 << 30, 20 << 30, 95 << 30}
	pids := []float64{100, 4000}
	for pass := 0; pass < 500; pass++ {
		sum := &Summary{MemoryAvailable: memory[rng.IntN(len(memory))], AllocatableMemoryAvailable: memory[rng.IntN(len(memory))],
			NodeFsUsed: disk[rng.IntN(len(disk))], PidsUsed: pids[rng.IntN(len(pids))]}
		sum.ImageFsUsed = sum.NodeFsUsed
		sum.NodeFsInodesUsed = sum.NodeFsUsed / bytesPerInode
		sum.ImageFsInodesUsed = sum.NodeFsInodesUsed
		obs, observed := m.makeSignalObservations(sum, nil)
		if got, want := m.formatObserved(&observed), formatObservations(obs); got != want {
			t.Fatalf("pass %d: text %q, want %q", pass, got, want)
		}
		if got, want := thresholdList(m.configThresholdsMet(&passObservations{observed: observed, obs: obs})), thresholdList(ThresholdsMet(thresholds, obs, false)); got != want {
			t.Fatalf("pass %d: met %q, want %q", pass, got, want)
		}
	}
}

// formatObservationsMemo is formatObservations through the manager's kept texts
// (formatObserved), for observations made by hand. An observation without an available
// quantity (makeSignalObservations makes none) is formatted afresh.
func (m *Manager) formatObservationsMemo(obs SignalObservations) string {
	for _, o := range obs {
		if o.Available == nil {
			return formatObservations(obs)
		}
	}
	observed := observedOf(obs)
	return m.formatObserved(&observed)
}

// observedOf is obs's quantities by signal order.
func observedOf(obs SignalObservations) observedSignals {
	var observed observedSignals
	for i, s := range signalOrder {
		if o, ok := obs[s]; ok {
			observed.available[i], observed.capacity[i] = o.Available, o.Capacity
		}
	}
	return observed
}

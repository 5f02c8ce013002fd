// Package results holds probe results per container (upstream
// pkg/kubelet/prober/results): the latest result of each probe type, and an update channel
// the syncLoop selects on. Set blocks (the channel has capacity 20) when the syncLoop does
// not drain it, stalling the probe worker, as upstream does.
package results

import (
	"k8s.io/apimachinery/pkg/types"

	"nodesim/sim"
)

// Result is a probe's outcome.
type Result int

// Results, as upstream.
const (
	Unknown Result = iota - 1
	Success
	Failure
)

func (r Result) String() string {
	switch r {
	case Success:
		return "Success"
	case Failure:
		return "Failure"
	default:
		return "UNKNOWN"
	}
}

// Update is a changed result.
type Update struct {
	ContainerID string
	Result      Result
	PodUID      types.UID
}

// UpdatesCapacity is the update channel's capacity.
const UpdatesCapacity = 20

// Manager keeps the results of one probe type.
type Manager struct {
	cache   map[string]Result
	updates *sim.Chan[Update]
	// version counts the changes to cache: Set of a new or different result and Remove
	// bump it, and nothing else writes cache. A caller that asked Get some questions
	// and finds the version unchanged since knows every answer is still the same.
	version uint64
}

// NewManager returns a manager whose update channel is called name (livenessCh, ...).
func NewManager(s *sim.Sim, name string) *Manager {
	return &Manager{cache: map[string]Result{}, updates: sim.NewChan[Update](s, name, UpdatesCapacity)}
}

// Get returns the container's result, if one is known.
func (m *Manager) Get(id string) (Result, bool) {
	r, ok := m.cache[id]
	return r, ok
}

// Set records a result; a change is sent on the update channel (blocking), and resume runs
// once the send went through.
func (m *Manager) Set(id string, result Result, podUID types.UID, resume func()) {
	if prev, ok := m.cache[id]; ok && prev == result {
		if resume != nil {
			resume()
		}
		return
	}
	m.cache[id] = result
	m.version++
	m.updates.Send(Update{ContainerID: id, Result: result, PodUID: podUID}, resume)
}

// Remove forgets the container's result.
func (m *Manager) Remove(id string) {
	delete(m.cache, id)
	m.version++
}

// Version is the number of changes to the results so far (see Manager.version): equal
// versions mean Get answers every question as it did.
func (m *Manager) Version() uint64 { return m.version }

// Updates is the channel the syncLoop selects on.
func (m *Manager) Updates() *sim.Chan[Update] { return m.updates }

package cri

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	api "nodesim/api/v1alpha1"
	"nodesim/sim"
)

// MemoryProcesses is kept between calls: it must follow every start and exit, and a list
// handed out earlier must stay as it was. The container starts at 0.45s (sandbox 300ms,
// create 50ms, start 100ms) and exits 10s later, at 10.45s; a second container created in
// the same sandbox at 11s runs from 11.15s (create 50ms, start 100ms).
func TestMemoryProcessesFollowStartsAndExits(t *testing.T) {
	s, r, id := startOne(t, &api.Behavior{Exit: &api.Exit{After: api.D(10 * time.Second), Code: 1}})
	running := r.MemoryProcesses()
	if len(running) != 1 || running[0].ID() != id {
		t.Fatalf("while %s runs: %v", id, ids(running))
	}
	s.RunUntil(10400 * time.Millisecond)
	if got := r.MemoryProcesses(); len(got) != 1 {
		t.Fatalf("at 10.4s, before the exit: %v", ids(got))
	}
	s.RunUntil(10500 * time.Millisecond)
	if got := r.MemoryProcesses(); len(got) != 0 {
		t.Fatalf("after the exit at 10.45s: %v, want none", ids(got))
	}
	if len(running) != 1 || running[0].ID() != id {
		t.Fatalf("the list handed out before the exit changed: %v", ids(running))
	}
	var second string
	s.Clock("worker", sim.PriorityPodWorker).Schedule(500*time.Millisecond, func() {
		r.CreateContainer(r.ctrs[id].sandbox.id, &corev1.Container{Name: "d", Image: "i"}, 0, ContainerConfig{}, func(cid string, err error) {
			second = cid
			r.StartContainer(cid, func(error) {})
		})
	})
	s.RunUntil(11100 * time.Millisecond)
	if got := r.MemoryProcesses(); len(got) != 0 {
		t.Fatalf("at 11.1s, before the second start: %v", ids(got))
	}
	s.RunUntil(11200 * time.Millisecond)
	if got := r.MemoryProcesses(); second == "" || len(got) != 1 || got[0].ID() != second {
		t.Fatalf("after the second start at 11.15s: %v, want [%s]", ids(got), second)
	}
}

func ids(ps []MemProc) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID())
	}
	return out
}

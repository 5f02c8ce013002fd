package kuberuntime

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	api "nodesim/api/v1alpha1"
	"nodesim/model/container"
	"nodesim/model/cri"
	"nodesim/sim"
)

// KillPod of a runtime pod no config knows (housekeeping's orphan kill, pod nil, grace 1):
// no panic; the container is stopped with killContainer's 2s minimum (its process ignores
// SIGTERM for 10m), then the sandbox: done at 2s + 50ms + 100ms. With a preStop hook in
// the container's spec (5s long), the hook runs first, cut to the 1s grace period, and the
// stop still gets the 2s minimum: 1s + 2s + 150ms.
func TestKillPodOfAnOrphanedRuntimePod(t *testing.T) {
	for _, c := range []struct {
		preStop bool
		want    time.Duration
	}{
		{false, 2*time.Second + 150*time.Millisecond},
		{true, 3*time.Second + 150*time.Millisecond},
	} {
		killOrphan(t, c.preStop, c.want)
	}
}

func killOrphan(t *testing.T, preStop bool, want time.Duration) {
	s := sim.New(1, nil)
	shutdown, hook := api.D(10*time.Minute), api.D(5*time.Second)
	rt := cri.New(s, cri.Config{Latency: cri.DefaultLatency(),
		Behavior: func(*corev1.Pod, string) *api.Behavior { return &api.Behavior{Shutdown: &shutdown, PreStop: &hook} }})
	spec := &corev1.Container{Name: "nginx", Image: "nginx"}
	if preStop {
		spec.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"quit"}}}}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "web", Namespace: "default"}}
	worker := s.Clock("worker", sim.PriorityPodWorker)
	worker.Schedule(0, func() {
		rt.RunPodSandbox(pod, 0, func(sb string, _ error) {
			rt.CreateContainer(sb, spec, 0, cri.ContainerConfig{}, func(id string, _ error) {
				rt.StartContainer(id, func(error) {})
			})
		})
	})
	s.RunUntil(time.Second)
	st, err := rt.GetPodStatus("u", "web", "default")
	if err != nil {
		t.Fatal(err)
	}
	running := container.ConvertPodStatusToRunningPod(st)
	m := NewManager(s, rt, nil, nil, nil, 0, nil)
	start := s.Elapsed()
	var doneAt time.Duration
	var killErr error
	one := int64(1)
	worker.Schedule(0, func() {
		m.KillPod(nil, running, &one, func(err error) { doneAt, killErr = s.Elapsed()-start, err })
	})
	s.RunUntil(time.Minute)
	if killErr != nil {
		t.Fatalf("KillPod: %v", killErr)
	}
	if doneAt != want {
		t.Errorf("preStop %v: KillPod done after %s, want %s", preStop, doneAt, want)
	}
}

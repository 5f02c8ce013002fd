package cri

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	api "nodesim/api/v1alpha1"
	"nodesim/sim"
)

// A memory-backed emptyDir (medium: Memory) is a tmpfs: what the container writes there is
// charged to its memory, capped at the sizeLimit (SizeMemoryBackedVolumes), and is not a
// local volume on disk. The container holds 100Mi and, from its start at 0.45s (sandbox 0.3s,
// create 50ms, start 100ms), writes 10Mi/s to "shm" (sizeLimit 64Mi) and to "scratch" (disk).
// At 5.45s: shm 50Mi, memory 150Mi, scratch 50Mi on disk. At 20.45s: shm full at 64Mi,
// memory 164Mi and flat, scratch 200Mi. With the gate off the tmpfs is not capped: 300Mi.
func TestMemoryBackedEmptyDir(t *testing.T) {
	const mi = 1 << 20
	for _, gate := range []bool{true, false} {
		s := sim.New(1, nil)
		b := &api.Behavior{
			Memory: api.Program{{Set: rq("100Mi")}},
			Volumes: map[string]api.Program{
				"shm":     {{Set: rq("0")}, {RampTo: rq("1000Mi"), Over: dur(100 * time.Second)}},
				"scratch": {{Set: rq("0")}, {RampTo: rq("1000Mi"), Over: dur(100 * time.Second)}},
			},
		}
		r := New(s, Config{Latency: DefaultLatency(), SizeMemoryBackedVolumes: gate, Behavior: func(*corev1.Pod, string) *api.Behavior { return b }})
		limit := resource.MustParse("64Mi")
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{
			{Name: "shm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &limit}}},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		}}}
		spec := &corev1.Container{Name: "c", Image: "i"}
		s.Clock("worker", sim.PriorityPodWorker).Schedule(0, func() {
			r.RunPodSandbox(pod, 0, func(sb string, err error) {
				r.CreateContainer(sb, spec, 0, ContainerConfig{}, func(cid string, err error) { r.StartContainer(cid, func(error) {}) })
			})
		})
		check := func(at time.Duration, mem, disk float64) {
			t.Helper()
			s.RunUntil(at)
			u := r.Usage("u")
			if len(u) != 1 {
				t.Fatalf("usage: %v", u)
			}
			if _, ok := u[0].Volumes["shm"]; ok {
				t.Errorf("gate %v, %s: shm reported as a disk volume", gate, at)
			}
			if d := u[0].Memory - mem; d < -4096 || d > 4096 {
				t.Errorf("gate %v, %s: memory %.0f, want %.0f", gate, at, u[0].Memory, mem)
			}
			if d := u[0].Volumes["scratch"] - disk; d < -1 || d > 1 {
				t.Errorf("gate %v, %s: scratch %.0f, want %.0f", gate, at, u[0].Volumes["scratch"], disk)
			}
			if got := r.PodsMemory(); got != u[0].Memory {
				t.Errorf("gate %v, %s: kernel view %.0f, stats %.0f (no noise set)", gate, at, got, u[0].Memory)
			}
		}
		check(5450*time.Millisecond, 150*mi, 50*mi)
		if gate {
			check(20450*time.Millisecond, 164*mi, 200*mi)
			procs := r.MemoryProcesses()
			if sl := procs[0].Slope(s.Elapsed()); sl != 0 {
				t.Errorf("slope once the tmpfs is full: %v, want 0", sl)
			}
		} else {
			check(20450*time.Millisecond, 300*mi, 200*mi)
		}
	}
}

func rq(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

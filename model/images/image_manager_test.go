package images

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/cri"
	"nodesim/sim"
)

const mi = 1 << 20

func setup(t *testing.T, failing bool) (*sim.Sim, *cri.Runtime) {
	t.Helper()
	s := sim.New(1, nil)
	cfg := cri.Config{PullBandwidth: 10 * mi, Images: map[string]cri.Image{
		"present:1": {Name: "present:1", Size: 10 * mi, Present: true},
		"big:1":     {Name: "big:1", Size: 100 * mi},
		"small:1":   {Name: "small:1", Size: 10 * mi},
	}}
	if failing {
		cfg.Failures = []cri.Failure{{Call: "pullImage", Image: "small:1", Error: "not found"}}
	}
	return s, cri.New(s, cfg)
}

func podWith(image string, policy corev1.PullPolicy) (*corev1.Pod, *corev1.Container) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID("u-" + image), Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image, ImagePullPolicy: policy}}}}
	return p, &p.Spec.Containers[0]
}

type outcome struct {
	at  time.Duration
	err error
}

func ensure(s *sim.Sim, m *ImageManager, image string, policy corev1.PullPolicy) *outcome {
	o := &outcome{at: -1}
	pod, c := podWith(image, policy)
	s.Clock("podWorker", sim.PriorityPodWorker).Schedule(0, func() {
		m.EnsureImageExists(pod, c, func(_ string, err error) { o.at, o.err = s.Elapsed(), err })
	})
	return o
}

func TestPullPolicies(t *testing.T) {
	s, rt := setup(t, false)
	m := NewImageManager(s, rt, true, nil)
	never := ensure(s, m, "small:1", corev1.PullNever)
	present := ensure(s, m, "present:1", corev1.PullIfNotPresent)
	always := ensure(s, m, "present:1", corev1.PullAlways)
	s.RunUntil(time.Minute)
	if !errors.Is(never.err, ErrImageNeverPull) {
		t.Errorf("Never with the image absent: %v, want ErrImageNeverPull", never.err)
	}
	if present.err != nil || present.at != 0 {
		t.Errorf("IfNotPresent with the image present: %v at %s, want no pull", present.err, present.at)
	}
	if always.err != nil || always.at != time.Second {
		t.Errorf("Always pulls even a present image: %v at %s, want done at 1s (10Mi at 10Mi/s)", always.err, always.at)
	}
}

// Serialized pulls: the small image waits for the big one. Parallel pulls share the
// bandwidth, so both take longer than alone but the small one finishes first.
func TestSerializedAndParallelPulls(t *testing.T) {
	s, rt := setup(t, false)
	m := NewImageManager(s, rt, true, nil)
	big := ensure(s, m, "big:1", corev1.PullIfNotPresent)
	small := ensure(s, m, "small:1", corev1.PullIfNotPresent)
	s.RunUntil(time.Minute)
	if big.at != 10*time.Second || small.at != 11*time.Second {
		t.Errorf("serialized: big at %s, small at %s; want 10s and 11s", big.at, small.at)
	}

	s, rt = setup(t, false)
	two := int32(2)
	m = NewImageManager(s, rt, false, &two)
	big = ensure(s, m, "big:1", corev1.PullIfNotPresent)
	small = ensure(s, m, "small:1", corev1.PullIfNotPresent)
	s.RunUntil(time.Minute)
	// Both at 5Mi/s until the small one is done at 2s; then big alone: 90Mi left at 10Mi/s.
	if small.at != 2*time.Second || big.at != 11*time.Second {
		t.Errorf("parallel: small at %s, big at %s; want 2s and 11s", small.at, big.at)
	}
}

// After a failed pull the image is in back-off: 10s, then 20s, measured from the last
// failure (upstream's IsInBackOffSinceUpdate).
func TestPullBackOff(t *testing.T) {
	s, rt := setup(t, true)
	m := NewImageManager(s, rt, true, nil)
	pod, c := podWith("small:1", corev1.PullIfNotPresent)
	var got []string
	try := func(at time.Duration) {
		s.Clock("podWorker", sim.PriorityPodWorker).Schedule(at-s.Elapsed(), func() {
			m.EnsureImageExists(pod, c, func(_ string, err error) { got = append(got, err.Error()) })
		})
		s.RunUntil(at)
	}
	for _, at := range []time.Duration{0, 5 * time.Second, 11 * time.Second, 25 * time.Second, 32 * time.Second} {
		try(at)
	}
	want := []string{"ErrImagePull", "ImagePullBackOff", "ErrImagePull", "ImagePullBackOff", "ErrImagePull"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("attempt %d: %v, want %v", i, got, want)
		}
	}
}

// ensureIn is ensure run under a cancellable context (a pod worker's sync).
func ensureIn(s *sim.Sim, m *ImageManager, ctx *sim.Lifetime, image string) *outcome {
	o := &outcome{at: -1}
	pod, c := podWith(image, corev1.PullIfNotPresent)
	s.Clock("podWorker "+image, sim.PriorityPodWorker).Schedule(0, func() {
		s.Within(ctx, func() {
			m.EnsureImageExists(pod, c, func(_ string, err error) { o.at, o.err = s.Elapsed(), err })
		})
	})
	return o
}

// A sync cancelled during its pull never gets the result, but the pull and its slot are
// the image manager's: with serialized pulls the next waiter still starts when the big
// pull ends (10s, then 1s for the small one), and a waiter cancelled while queued is
// skipped, never holding the slot.
func TestCancelledSyncDoesNotLeakThePullSlot(t *testing.T) {
	s, rt := setup(t, false)
	m := NewImageManager(s, rt, true, nil)
	kubelet := sim.NewLifetime("kubelet")
	bigCtx, queuedCtx := kubelet.Context("sync big"), kubelet.Context("sync queued")
	big := ensureIn(s, m, bigCtx, "big:1")
	queued := ensureIn(s, m, queuedCtx, "present:1") // present: no pull, no slot
	s.Step(time.Millisecond)
	// A caller of an unlisted image (100Mi: 10s) waits for the slot, then is cancelled
	// while queued: were it not skipped, the live small pull would end at 21s.
	waiting := ensureIn(s, m, queuedCtx, "other:1")
	small := ensure(s, m, "small:1", corev1.PullIfNotPresent)
	s.Step(2 * time.Second)
	bigCtx.End()
	queuedCtx.End()
	s.RunUntil(time.Minute)
	if big.at != -1 || waiting.at != -1 {
		t.Errorf("cancelled callers got results: big at %s, queued small at %s", big.at, waiting.at)
	}
	if queued.at != 0 {
		t.Errorf("present image at %s, want at once", queued.at)
	}
	if small.err != nil || small.at != 11*time.Second {
		t.Errorf("the live small pull ended at %s (%v), want 11s: the slot passed on after the big pull", small.at, small.err)
	}
	if m.running != 0 || len(m.queue) != 0 {
		t.Errorf("after all pulls: %d running, %d queued; want none", m.running, len(m.queue))
	}
}

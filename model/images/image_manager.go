// Package images is the kubelet's image manager (upstream pkg/kubelet/images): it applies
// the pull policy, holds back failing pulls with a per-image back-off, and pulls through a
// serialized puller (one pull at a time, the default) or a parallel one bounded by
// maxParallelImagePulls.
package images

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/flowcontrol"
	"nodesim/sim"
	"nodesim/trace"
)

// Errors, named as upstream's container start errors; the kubelet shows them as waiting
// reasons.
var (
	ErrImagePullBackOff = errors.New("ImagePullBackOff")
	ErrImagePull        = errors.New("ErrImagePull")
	ErrImageNeverPull   = errors.New("ErrImageNeverPull")
)

// Runtime is what the image manager needs of the runtime.
type Runtime interface {
	ImagePresent(image string) bool
	PullImage(image, pod string, done func(err error))
}

// Trace kinds.
const (
	KindPullRequested trace.Kind = "imagePullRequested"
	KindPullBackOff   trace.Kind = "imagePullBackOff"
	KindPulled        trace.Kind = "imagePulled"
	KindPullFailed    trace.Kind = "imagePullFailed"
)

// Upstream's image back-off (pkg/kubelet/kubelet.go).
const (
	imageBackOffPeriod = 10 * time.Second
	maxImageBackOff    = 300 * time.Second
)

// ImageManager ensures images exist before containers are created.
type ImageManager struct {
	s       *sim.Sim
	runtime Runtime
	backOff *flowcontrol.Backoff
	// slots is how many pulls may run at once (1 = serialized); 0 means unbounded.
	slots   int
	running int
	queue   []sim.Process // callers waiting for a slot, oldest first
	starts  []func()      // what each waiting caller runs when it gets the slot
	// life is the kubelet's: the pulls and their slots belong to it, not to the sync that
	// asked (a cancelled sync drops only its wait for the result).
	life *sim.Lifetime
}

// NewImageManager returns an image manager. serialize and maxParallel are the kubelet's
// serializeImagePulls and maxParallelImagePulls.
func NewImageManager(s *sim.Sim, runtime Runtime, serialize bool, maxParallel *int32) *ImageManager {
	slots := 0
	if serialize {
		slots = 1
	} else if maxParallel != nil && *maxParallel > 0 {
		slots = int(*maxParallel)
	}
	return &ImageManager{s: s, runtime: runtime, backOff: flowcontrol.NewBackOff(imageBackOffPeriod, maxImageBackOff), slots: slots, life: s.Life()}
}

// EnsureImageExists makes sure the container's image is on the node, pulling it if the
// policy says so; done receives a message and an error whose text is the waiting reason.
func (m *ImageManager) EnsureImageExists(pod *corev1.Pod, c *corev1.Container, done func(msg string, err error)) {
	image := c.Image
	present := m.runtime.ImagePresent(image)
	switch {
	case c.ImagePullPolicy == corev1.PullNever && !present:
		done(fmt.Sprintf("Container image %q is not present with pull policy of Never", image), ErrImageNeverPull)
		return
	case c.ImagePullPolicy == corev1.PullNever, c.ImagePullPolicy == corev1.PullIfNotPresent && present:
		done("", nil)
		return
	}
	key := string(pod.UID) + "_" + image
	podKey := pod.Namespace + "/" + pod.Name
	now := m.s.Now()
	if m.backOff.IsInBackOffSinceUpdate(key, now) {
		m.s.Record(&trace.Event{Kind: KindPullBackOff, Pod: podKey, Container: c.Name, Attrs: []trace.Attr{{Key: "image", Value: image}},
			Reason: trace.Because("imagePullBackOff", "after a failed pull the image manager waits out a back-off (10s, doubling to 5m); syncs meanwhile fail at once")})
		done(fmt.Sprintf("Back-off pulling image %q", image), ErrImagePullBackOff)
		return
	}
	m.s.Record(&trace.Event{Kind: KindPullRequested, Pod: podKey, Container: c.Name, Attrs: []trace.Attr{{Key: "image", Value: image}}})
	start := m.s.Elapsed()
	m.pull(image, podKey, func(err error) {
		if err != nil {
			m.backOff.Next(key, m.s.Now(), m.s.Now())
			m.s.Record(&trace.Event{Kind: KindPullFailed, Pod: podKey, Container: c.Name, Attrs: []trace.Attr{{Key: "image", Value: image}, {Key: "error", Value: err.Error()}}})
			done(fmt.Sprintf("Failed to pull image %q: %v", image, err), ErrImagePull)
			return
		}
		m.s.Record(&trace.Event{Kind: KindPulled, Pod: podKey, Container: c.Name, Dur: m.s.Elapsed() - start, Attrs: []trace.Attr{{Key: "image", Value: image}}})
		done("", nil)
	})
}

// pull runs the pull when a slot is free; the caller's continuation resumes on its track.
// The pull and its slot are the image manager's: when the pull ends the slot passes to the
// oldest waiter still alive, whatever became of the caller, and only then is the caller
// handed the result (if its sync was not cancelled meanwhile).
func (m *ImageManager) pull(image, pod string, done func(error)) {
	self := m.s.Self()
	// start runs with a slot already taken, on the caller's track.
	start := func() {
		m.s.Within(m.life, func() {
			m.runtime.PullImage(image, pod, func(err error) {
				m.release()
				self.Run(func() { done(err) })
			})
		})
	}
	if m.slots == 0 || m.running < m.slots {
		m.running++
		start()
		return
	}
	// Waiting for a slot: the pull starts on this worker's track when one frees up.
	m.queue = append(m.queue, self)
	m.starts = append(m.starts, start)
}

// release hands a finished pull's slot to the oldest waiter whose sync is still alive.
func (m *ImageManager) release() {
	for len(m.queue) > 0 {
		next, start := m.queue[0], m.starts[0]
		m.queue, m.starts = m.queue[1:], m.starts[1:]
		if next.Alive() {
			next.In(m.life).Resume(0, func() {
				if !next.Run(start) {
					m.release() // cancelled at this very instant: the slot goes on
				}
			})
			return
		}
	}
	m.running--
}

// GC drops expired back-off entries.
func (m *ImageManager) GC() { m.backOff.GC(m.s.Now()) }

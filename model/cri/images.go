package cri

import (
	"maps"
	"math"
	"slices"
	"time"

	"nodesim/sim"
	"nodesim/trace"
)

// ImagePresent reports whether the image is on the node.
func (r *Runtime) ImagePresent(name string) bool {
	img := r.images[name]
	return img != nil && img.Present
}

// ImageSize is the image's size in bytes.
func (r *Runtime) ImageSize(name string) int64 {
	if img := r.images[name]; img != nil && img.Size > 0 {
		return img.Size
	}
	return DefaultImageSize
}

// PullImage pulls an image. Concurrent pulls share the node's pull bandwidth equally.
func (r *Runtime) PullImage(name, pod string, done func(err error)) {
	r.s.Record(&trace.Event{Kind: KindCRICall, Name: "PullImage", Pod: pod, Attrs: []trace.Attr{{Key: "image", Value: name}}})
	if err := r.failure("pullImage", name); err != nil {
		r.s.Continue(0, func() { done(err) })
		return
	}
	r.pulls.add(&pull{image: name, pod: pod, remaining: float64(r.ImageSize(name)), caller: r.s.Self(), done: done})
}

type pull struct {
	image, pod string
	remaining  float64 // bytes
	caller     sim.Process
	done       func(err error)
}

// pullScheduler shares the bandwidth among active pulls (processor sharing): whenever a
// pull starts or ends, everyone's progress is brought up to date and the next finish is
// rescheduled.
type pullScheduler struct {
	r      *Runtime
	active []*pull
	last   time.Duration
	next   *sim.Timer
}

func newPullScheduler(r *Runtime) *pullScheduler { return &pullScheduler{r: r} }

func (ps *pullScheduler) advance() {
	now := ps.r.s.Elapsed()
	if n := len(ps.active); n > 0 {
		share := ps.r.cfg.PullBandwidth / float64(n)
		done := share * (now - ps.last).Seconds()
		for _, p := range ps.active {
			p.remaining -= done
		}
	}
	ps.last = now
}

func (ps *pullScheduler) add(p *pull) {
	ps.advance()
	ps.active = append(ps.active, p)
	ps.r.s.Record(&trace.Event{Kind: KindPullStart, Pod: p.pod, Track: p.caller.Track(), Attrs: []trace.Attr{{Key: "image", Value: p.image}}})
	ps.reschedule()
}

func (ps *pullScheduler) reschedule() {
	if ps.next != nil {
		ps.next.Stop()
		ps.next = nil
	}
	if len(ps.active) == 0 {
		return
	}
	least := math.Inf(1)
	for _, p := range ps.active {
		least = math.Min(least, p.remaining)
	}
	share := ps.r.cfg.PullBandwidth / float64(len(ps.active))
	wait := time.Duration(math.Ceil(math.Max(least, 0) / share * 1e9))
	ps.next = ps.r.clk.Schedule(wait, ps.finish)
}

func (ps *pullScheduler) finish() {
	ps.next = nil
	ps.advance()
	var still []*pull
	var finished []*pull
	for _, p := range ps.active {
		if p.remaining <= 0.5 {
			finished = append(finished, p)
		} else {
			still = append(still, p)
		}
	}
	ps.active = still
	for _, p := range finished {
		img := ps.r.images[p.image]
		if img == nil {
			img = &Image{Name: p.image, Size: DefaultImageSize}
			ps.r.images[p.image] = img
		}
		img.Present = true
		ps.r.pulledAt[p.image] = ps.r.s.Elapsed()
		ps.r.s.Record(&trace.Event{Kind: KindPullEnd, Pod: p.pod, Track: p.caller.Track(), Attrs: []trace.Attr{{Key: "image", Value: p.image}}})
		p := p
		p.caller.Resume(0, func() { p.done(nil) })
	}
	ps.reschedule()
}

// imageInUse reports whether a container (in any state) uses the image.
func (r *Runtime) imageInUse(name string) bool {
	for _, c := range r.ctrList() {
		if c.spec.Image == name {
			return true
		}
	}
	return false
}

// DeleteUnusedImages removes every present image no container uses and that has been on
// the node for at least minAge, largest first, until freed bytes reach want (want <= 0: all
// of them). It returns the bytes freed.
func (r *Runtime) DeleteUnusedImages(minAge time.Duration, want float64) float64 {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(r.images)) {
		img := r.images[name]
		if !img.Present || r.imageInUse(name) {
			continue
		}
		if pulled, ok := r.pulledAt[name]; ok && r.s.Elapsed()-pulled < minAge {
			continue
		}
		names = append(names, name)
	}
	freed := 0.0
	for _, name := range names {
		if want > 0 && freed >= want {
			break
		}
		r.images[name].Present = false
		freed += float64(r.images[name].Size)
		r.s.Record(&trace.Event{Kind: "imageRemoved", Attrs: []trace.Attr{{Key: "image", Value: name}}})
	}
	if freed > 0 {
		r.usageChanged()
	}
	return freed
}

package oom

import (
	"container/heap"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/cri"
	"nodesim/model/usage"
)

// procs is the kernel's running account of the node's memory: every running process, the
// memory charged to each pod cgroup with a limit and to the kubepods cgroup, kept up to
// date as processes change instead of being summed over the whole node at each change.
//
// A process is either steady or moving. A steady process holds the same memory, with a
// slope of zero, until its next breakpoint (cri.MemProc.Steady): its value is kept, added
// into the sums, and its breakpoint waits in a heap; when the clock reaches it the process
// is read again. A moving process (a ramp in force, or memory-backed volumes) is read at
// every plan, as before. The runtime reports every other change to a process (it starts,
// ends, gets new programs or loses part of its memory to a single-process OOM kill) through
// OnMemoryChange, and the process is read again then. So a kept value is never stale: only
// the clock passing a breakpoint or a reported change can change it.
//
// Memory values are whole pages (cgroups charge pages), so their float sums are exact
// integers below 2^53 bytes and any order of summing gives the same bytes; the sums are
// kept as int64. Slopes are not integers: they are summed over the moving processes in scan
// order, as the full scan summed them (steady processes add exact zeros).
type procs struct {
	all    map[cri.MemProc]*proc
	steady int64 // memory of the steady processes
	moving []*proc
	breaks breakHeap
	// over are the steady processes above their own cgroup limit (a jump can put one
	// there; the OOM killer then kills it at once).
	over []*proc
	// groups are the pod cgroups with a memory limit, by pod UID; hot are those whose
	// charge can be above the limit now or later: a moving member, or steady members
	// already above it. The others cannot cross until a member changes.
	groups map[types.UID]*podCgroup
	hot    []*podCgroup
}

// proc is one running process as the kernel accounts for it.
type proc struct {
	p     cri.MemProc
	group *podCgroup // nil: its pod has no memory limit of its own
	// moving is set for a process read at every plan; value and brk are kept only for a
	// steady one.
	moving bool
	value  int64
	brk    time.Duration
	heapAt int // index in breaks, -1 when not there
	overAt int // index in over, -1 when not there
	// v, slope and next are a moving process's reading at the current plan.
	v, slope float64
	next     time.Duration
}

// podCgroup is a pod cgroup with a memory limit of its own (a pod-level memory limit) and
// the running processes under it, in scan order.
type podCgroup struct {
	uid    types.UID
	procs  []*proc
	steady int64 // memory of its steady processes
	moving int   // how many of its processes are moving
	hotAt  int   // index in hot, -1 when not there
}

// limit is the pod cgroup's limit, as its first process in scan order has it.
func (g *podCgroup) limit() float64 { return g.procs[0].p.PodLimit() }

func newProcs() *procs {
	return &procs{all: map[cri.MemProc]*proc{}, groups: map[types.UID]*podCgroup{}}
}

// update takes p's change into account at now: it leaves, joins, or is read again.
func (s *procs) update(p cri.MemProc, now time.Duration) {
	e := s.all[p]
	if e != nil {
		s.unread(e)
	}
	if !p.Running() {
		if e != nil {
			s.leave(e)
		}
		return
	}
	if e == nil {
		e = s.join(p)
	}
	s.read(e, now)
}

// advance reads again the steady processes whose breakpoint the clock has reached.
func (s *procs) advance(now time.Duration) {
	for len(s.breaks) > 0 && s.breaks[0].brk <= now {
		e := s.breaks[0]
		s.unread(e)
		s.read(e, now)
	}
}

func (s *procs) join(p cri.MemProc) *proc {
	e := &proc{p: p, heapAt: -1, overAt: -1}
	s.all[p] = e
	if p.PodLimit() > 0 {
		g := s.groups[p.PodUID()]
		if g == nil {
			g = &podCgroup{uid: p.PodUID(), hotAt: -1}
			s.groups[p.PodUID()] = g
		}
		i, _ := slices.BinarySearchFunc(g.procs, e, byScan)
		g.procs = slices.Insert(g.procs, i, e)
		e.group = g
	}
	return e
}

// leave forgets a process that has been unread.
func (s *procs) leave(e *proc) {
	delete(s.all, e.p)
	if g := e.group; g != nil {
		if i, ok := slices.BinarySearchFunc(g.procs, e, byScan); ok {
			g.procs = slices.Delete(g.procs, i, i+1)
		}
		if len(g.procs) == 0 {
			s.setHot(g, false)
			delete(s.groups, g.uid)
		} else {
			s.checkHot(g)
		}
	}
}

// read classifies e at now and adds it into the sums.
func (s *procs) read(e *proc, now time.Duration) {
	g := e.group
	if !e.p.Steady(now) {
		e.moving = true
		i, _ := slices.BinarySearchFunc(s.moving, e, byScan)
		s.moving = slices.Insert(s.moving, i, e)
		if g != nil {
			g.moving++
		}
	} else {
		e.moving = false
		e.value = int64(e.p.Memory(now))
		e.brk = e.p.Break(now)
		s.steady += e.value
		if e.brk != usage.Never {
			heap.Push(&s.breaks, e)
		}
		if lim := e.p.Limit(); lim > 0 && float64(e.value) > lim {
			e.overAt = len(s.over)
			s.over = append(s.over, e)
		}
		if g != nil {
			g.steady += e.value
		}
	}
	if g != nil {
		s.checkHot(g)
	}
}

// unread takes e out of the sums (its group membership stays).
func (s *procs) unread(e *proc) {
	g := e.group
	if e.moving {
		if i, ok := slices.BinarySearchFunc(s.moving, e, byScan); ok {
			s.moving = slices.Delete(s.moving, i, i+1)
		}
		if g != nil {
			g.moving--
		}
		e.moving = false
		return
	}
	s.steady -= e.value
	if g != nil {
		g.steady -= e.value
	}
	if e.heapAt >= 0 {
		heap.Remove(&s.breaks, e.heapAt)
	}
	if i := e.overAt; i >= 0 {
		last := len(s.over) - 1
		s.over[i] = s.over[last]
		s.over[i].overAt = i
		s.over = s.over[:last]
		e.overAt = -1
	}
	e.value = 0
}

// checkHot files g among the hot groups when it has a moving process or its steady
// processes alone are above its limit.
func (s *procs) checkHot(g *podCgroup) {
	s.setHot(g, g.moving > 0 || float64(g.steady) > g.limit())
}

func (s *procs) setHot(g *podCgroup, hot bool) {
	switch {
	case hot && g.hotAt < 0:
		g.hotAt = len(s.hot)
		s.hot = append(s.hot, g)
	case !hot && g.hotAt >= 0:
		i, last := g.hotAt, len(s.hot)-1
		s.hot[i] = s.hot[last]
		s.hot[i].hotAt = i
		s.hot = s.hot[:last]
		g.hotAt = -1
	}
}

// readMoving reads every moving process at now, for the sums below.
func (s *procs) readMoving(now time.Duration) {
	for _, e := range s.moving {
		e.v, e.slope, e.next = e.p.Memory(now), e.p.Slope(now), e.p.Break(now)
	}
}

// total is the memory of every process at the current reading.
func (s *procs) total() float64 {
	t := s.steady
	for _, e := range s.moving {
		t += int64(e.v)
	}
	return float64(t)
}

// used is g's charge at the current reading.
func (g *podCgroup) used() float64 {
	t := g.steady
	for _, e := range g.procs {
		if e.moving {
			t += int64(e.v)
		}
	}
	return float64(t)
}

// memProcs lists g's processes in scan order.
func (g *podCgroup) memProcs() []cri.MemProc {
	out := make([]cri.MemProc, len(g.procs))
	for i, e := range g.procs {
		out[i] = e.p
	}
	return out
}

func byScan(a, b *proc) int {
	switch {
	case a.p == b.p:
		return 0
	case a.p.Before(b.p):
		return -1
	}
	return 1
}

// breakHeap orders steady processes by their next breakpoint.
type breakHeap []*proc

func (h breakHeap) Len() int           { return len(h) }
func (h breakHeap) Less(i, j int) bool { return h[i].brk < h[j].brk }
func (h breakHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapAt, h[j].heapAt = i, j
}
func (h *breakHeap) Push(x any) {
	e := x.(*proc)
	e.heapAt = len(*h)
	*h = append(*h, e)
}
func (h *breakHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.heapAt = -1
	return e
}

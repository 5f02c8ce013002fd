package oom

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"nodesim/model/cri"
	"nodesim/model/usage"
	"nodesim/sim"
	"nodesim/trace"
)

// Kernel watches memory limits: each container's cgroup limit, each pod cgroup's limit
// when the pod has a pod-level memory limit, the kubepods cgroup's limit
// (node allocatable enforcement) and the machine's memory. Usage programs are piecewise
// linear, so it plans the exact moment of the next crossing instead of sampling, and
// re-plans whenever a process starts, stops or changes its program. It keeps the memory
// charged to each cgroup as running sums (see procs), so a change costs the work of the
// processes it touches, not of the whole node.
type Kernel struct {
	clk           *sim.Clock
	rt            *cri.Runtime
	capacity      float64 // machine memory
	kubepodsLimit float64 // 0: not enforced
	singleProcess bool
	// timer is plan's own timer, armed for the next crossing or breakpoint, and replanNow
	// the timer of Changed's coalesced re-plan at the current instant. Each is made once
	// and re-armed with Reset: plan stops its timer before it re-arms it, and Changed arms
	// its own only when no re-plan is pending (replan), so neither is ever reset while
	// queued, and a reset queues what a fresh timer of the same clock would.
	timer     *sim.Timer
	replanNow *sim.Timer
	replan    bool
	watches   []*watch
	levels    []*level
	procs     *procs
	// changed are the processes the runtime reported changed since the sums last took
	// them in (a process may be there more than once: taking one in is idempotent).
	changed []cri.MemProc
}

// level is a persistent watch on a memory level: it reports every crossing, both ways.
type level struct {
	name    string
	pods    bool
	value   float64
	above   bool
	onCross func(up bool)
}

// WatchLevel reports, through onCross, every time the node's memory use (or the kubepods
// cgroup's, with pods) goes above value or back to it or below. Replaces a watch of the
// same name.
func (k *Kernel) WatchLevel(name string, pods bool, value float64, onCross func(up bool)) {
	for i, l := range k.levels {
		if l.name == name {
			k.levels = append(k.levels[:i], k.levels[i+1:]...)
			break
		}
	}
	k.levels = append(k.levels, &level{name: name, pods: pods, value: value, onCross: onCross})
	k.Changed()
}

// watch is a memcg threshold notification (cgroup v1's cgroup.event_control): fn runs once
// when usage first goes above level.
type watch struct {
	name  string
	pods  bool
	level float64
	fn    func()
}

// WatchMemory arms (or re-arms) a one-shot notification when the node's memory use, or the
// kubepods cgroup's with pods, goes above level.
func (k *Kernel) WatchMemory(name string, pods bool, level float64, fn func()) {
	for i, w := range k.watches {
		if w.name == name {
			k.watches = append(k.watches[:i], k.watches[i+1:]...)
			break
		}
	}
	k.watches = append(k.watches, &watch{name: name, pods: pods, level: level, fn: fn})
	k.Changed()
}

// NewKernel returns the kernel for a node with the given memory capacity and kubepods limit.
func NewKernel(s *sim.Sim, rt *cri.Runtime, capacity, kubepodsLimit float64, singleProcessOOMKill bool) *Kernel {
	k := &Kernel{clk: s.Clock("kernel", sim.PriorityRuntime), rt: rt, capacity: capacity, kubepodsLimit: kubepodsLimit, singleProcess: singleProcessOOMKill, procs: newProcs()}
	rt.OnUsageChange = k.Changed
	rt.OnMemoryChange = func(p cri.MemProc) { k.changed = append(k.changed, p) }
	rt.MemoryInUse = k.memoryInUse
	return k
}

// memoryInUse is the memory every running process holds now, from the running sums: the
// runtime's PodsMemory for the stats provider. Bringing the sums up to now is what plan
// does first in any case, and a reading is the same whoever asks first.
func (k *Kernel) memoryInUse() float64 {
	k.read(k.clk.Elapsed())
	return k.procs.total()
}

// Changed asks for a re-plan at this instant (coalesced).
func (k *Kernel) Changed() {
	if k.replan {
		return
	}
	k.replan = true
	if k.replanNow == nil {
		k.replanNow = k.clk.Schedule(0, func() {
			k.replan = false
			k.plan()
		})
		return
	}
	k.replanNow.Reset(0)
}

// pages converts bytes to 4KiB pages, as oom_badness counts.
func pages(b float64) int64 { return int64(b / 4096) }

// badness is oom_badness: the process's pages plus its oom_score_adj in thousandths of the
// memory that ran out.
func badness(usage float64, adj int, totalPages int64) int64 {
	return pages(usage) + int64(adj)*(totalPages/1000)
}

// read brings the sums up to now: the reported changes, the steady processes whose
// breakpoint has come, and a fresh reading of the moving ones.
func (k *Kernel) read(now time.Duration) {
	for i, p := range k.changed {
		k.procs.update(p, now)
		k.changed[i] = cri.MemProc{}
	}
	k.changed = k.changed[:0]
	k.procs.advance(now)
	k.procs.readMoving(now)
}

// plan acts on every limit exceeded now, then schedules itself at the next crossing or the
// next breakpoint of any program, whichever comes first.
func (k *Kernel) plan() {
	for i := 0; i < 1000 && k.enforce(); i++ {
	}
	k.holdSystemMemory()
	if k.timer != nil {
		k.timer.Stop()
	}
	now := k.clk.Elapsed()
	k.read(now)
	ps := k.procs
	sys, sysSlope, horizon := k.rt.SystemMemoryAt(now)
	if len(ps.breaks) > 0 && ps.breaks[0].brk < horizon {
		horizon = ps.breaks[0].brk
	}
	for _, e := range ps.moving {
		if e.next < horizon {
			horizon = e.next
		}
	}
	next := horizon
	var pods usage.Linear
	pods.At, pods.Until = now, horizon
	pods.Value = ps.total()
	for _, e := range ps.moving {
		pods.Slope += e.slope
		if lim := e.p.Limit(); lim > 0 {
			if t, ok := (usage.Linear{At: now, Value: e.v, Slope: e.slope, Until: horizon}).Crossing(lim); ok && t < next {
				next = t
			}
		}
	}
	if len(ps.over) > 0 {
		next = now // a steady process above its limit: its line crosses at once
	}
	for _, g := range ps.hot {
		line := usage.Linear{At: now, Value: g.used(), Until: horizon}
		for _, e := range g.procs {
			if e.moving {
				line.Slope += e.slope
			}
		}
		if t, ok := line.Crossing(g.limit()); ok && t < next {
			next = t
		}
	}
	if k.kubepodsLimit > 0 {
		if t, ok := pods.Crossing(k.kubepodsLimit); ok && t < next {
			next = t
		}
	}
	node := pods
	node.Value += sys
	node.Slope += sysSlope
	if t, ok := node.Crossing(k.capacity); ok && t < next {
		next = t
	}
	// Notifications: fire those already above their level, plan the next.
	var keep []*watch
	for _, w := range k.watches {
		line := node
		if w.pods {
			line = pods
		}
		if line.Value > w.level {
			w.fn()
			continue
		}
		keep = append(keep, w)
		if t, ok := line.Crossing(w.level); ok && t < next {
			next = t
		}
	}
	k.watches = keep
	// Level watches: report the side each is on now, plan the next crossing either way.
	for _, l := range k.levels {
		line := node
		if l.pods {
			line = pods
		}
		if above := line.Value > l.value; above != l.above {
			l.above = above
			l.onCross(above)
		}
		var t time.Duration
		var ok bool
		if l.above {
			// Going back down: when the mirrored line rises above the mirrored level.
			t, ok = (usage.Linear{At: line.At, Value: -line.Value, Slope: -line.Slope, Until: line.Until}).Crossing(-l.value - 1)
		} else {
			t, ok = line.Crossing(l.value)
		}
		if ok && t < next {
			next = t
		}
	}
	if next == math.MaxInt64 {
		return
	}
	if k.timer == nil {
		k.timer = k.clk.Schedule(next-now, k.plan)
		return
	}
	k.timer.Reset(next - now)
}

// holdSystemMemory keeps memory in use within capacity when only the system's own usage is
// left above it: no pod process remains to kill (the kernel would kill system processes, and
// nodesim does not model those), so system usage is held at what capacity leaves, and the
// trace says so. Without the hold, the crossing would be "now" forever and the planner would
// reschedule itself at the same instant.
func (k *Kernel) holdSystemMemory() {
	now := k.clk.Elapsed()
	k.read(now)
	total := k.procs.total()
	sys, _, _ := k.rt.SystemMemoryAt(now)
	if total+sys <= k.capacity {
		return
	}
	held := math.Max(0, k.capacity-total)
	k.rt.HoldSystemMemory(held)
	k.clk.Record(&trace.Event{Kind: trace.SystemMemoryHeld, Attrs: []trace.Attr{
		{Key: "requested", Value: strconv.FormatInt(int64(sys), 10)},
		{Key: "held", Value: strconv.FormatInt(int64(held), 10)}}})
}

// enforce kills one process for the first limit exceeded now; it reports whether it did.
// The first is in scan order (pod and creation order), as the full scan found it: a
// container's own limit, then a pod cgroup's (pods in UID order), then kubepods, then the
// node.
func (k *Kernel) enforce() bool {
	now := k.clk.Elapsed()
	k.read(now)
	ps := k.procs
	var first *proc
	for _, e := range ps.over {
		if first == nil || e.p.Before(first.p) {
			first = e
		}
	}
	for _, e := range ps.moving {
		if first != nil && first.p.Before(e.p) {
			break // moving is in scan order: none later can come first
		}
		if lim := e.p.Limit(); lim > 0 && e.v > lim {
			first = e
			break
		}
	}
	if first != nil {
		k.kill(first.p, "cgroup", []cri.MemProc{first.p}, first.p.Limit())
		return true
	}
	var exceeded *podCgroup
	for _, g := range ps.hot {
		if g.used() > g.limit() && (exceeded == nil || g.uid < exceeded.uid) {
			exceeded = g
		}
	}
	if exceeded != nil {
		return k.killWorst(exceeded.memProcs(), "pod", exceeded.limit())
	}
	total := ps.total()
	if k.kubepodsLimit > 0 && total > k.kubepodsLimit {
		return k.killWorst(k.rt.MemoryProcesses(), "kubepods", k.kubepodsLimit)
	}
	sys, _, _ := k.rt.SystemMemoryAt(now)
	if total+sys > k.capacity {
		return k.killWorst(k.rt.MemoryProcesses(), "node", k.capacity)
	}
	return false
}

// killWorst picks the victim with the highest badness; ties go to the last scanned, as
// the kernel's scan does.
func (k *Kernel) killWorst(procs []cri.MemProc, kind string, limit float64) bool {
	if len(procs) == 0 {
		return false
	}
	now := k.clk.Elapsed()
	total := pages(limit)
	best, bestScore := -1, int64(math.MinInt64)
	for i, p := range procs {
		if score := badness(p.Memory(now), p.OOMScoreAdj(), total); score >= bestScore {
			best, bestScore = i, score
		}
	}
	k.kill(procs[best], kind, procs, limit)
	return true
}

func (k *Kernel) kill(victim cri.MemProc, kind string, candidates []cri.MemProc, limit float64) {
	now := k.clk.Elapsed()
	total := pages(limit)
	scored := make([]string, 0, len(candidates))
	candidates = slices.Clone(candidates) // the runtime's list is shared: sort a copy
	sort.SliceStable(candidates, func(i, j int) bool {
		return badness(candidates[i].Memory(now), candidates[i].OOMScoreAdj(), total) > badness(candidates[j].Memory(now), candidates[j].OOMScoreAdj(), total)
	})
	for _, c := range candidates {
		scored = append(scored, fmt.Sprintf("%s/%s=%d", c.Pod(), c.Container(), badness(c.Memory(now), c.OOMScoreAdj(), total)))
	}
	usageBytes := victim.Memory(now)
	died := k.rt.OOMKill(victim.ID(), k.singleProcess)
	k.clk.Record(&trace.Event{Kind: trace.OOMKill, Pod: victim.Pod(), Container: victim.Container(), Attrs: []trace.Attr{
		{Key: "kind", Value: kind}, {Key: "oomScoreAdj", Value: strconv.Itoa(victim.OOMScoreAdj())},
		{Key: "usage", Value: strconv.FormatInt(int64(usageBytes), 10)}, {Key: "limit", Value: strconv.FormatInt(int64(limit), 10)},
		{Key: "candidates", Value: strings.Join(scored, ",")}, {Key: "containerDied", Value: strconv.FormatBool(died)}},
		Reason: oomReason(kind)})
}

// oomReason says which OOM killer chose the victim.
func oomReason(kind string) *trace.Reason {
	if kind == "cgroup" {
		return trace.Because("memcgOOM", "the container went over its memory limit: the kernel kills inside its cgroup, whatever the node has free")
	}
	return trace.Because("globalOOM", "the kernel, not the kubelet, picks the highest oom_score: memory share + oom_score_adj (BestEffort 1000, Guaranteed -997)")
}

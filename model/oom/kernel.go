package oom

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/cri"
	"nodesim/model/usage"
	"nodesim/sim"
	"nodesim/trace"
)

// Kernel watches memory limits: each container's cgroup limit, each pod cgroup's limit
// when the pod has a pod-level memory limit, the kubepods cgroup's limit
// (node allocatable enforcement) and the machine's memory. Usage programs are piecewise
// linear, so it plans the exact moment of the next crossing instead of sampling, and
// re-plans whenever a process starts, stops or changes its program.
type Kernel struct {
	clk           *sim.Clock
	rt            *cri.Runtime
	capacity      float64 // machine memory
	kubepodsLimit float64 // 0: not enforced
	singleProcess bool
	timer         *sim.Timer
	replan        bool
	watches       []*watch
	levels        []*level
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
	k := &Kernel{clk: s.Clock("kernel", sim.PriorityRuntime), rt: rt, capacity: capacity, kubepodsLimit: kubepodsLimit, singleProcess: singleProcessOOMKill}
	rt.OnUsageChange = k.Changed
	return k
}

// Changed asks for a re-plan at this instant (coalesced).
func (k *Kernel) Changed() {
	if k.replan {
		return
	}
	k.replan = true
	k.clk.Schedule(0, func() {
		k.replan = false
		k.plan()
	})
}

// pages converts bytes to 4KiB pages, as oom_badness counts.
func pages(b float64) int64 { return int64(b / 4096) }

// badness is oom_badness: the process's pages plus its oom_score_adj in thousandths of the
// memory that ran out.
func badness(usage float64, adj int, totalPages int64) int64 {
	return pages(usage) + int64(adj)*(totalPages/1000)
}

// plan acts on every limit exceeded now, then schedules itself at the next crossing or the
// next breakpoint of any program, whichever comes first.
func (k *Kernel) plan() {
	for i := 0; i < 1000 && k.enforce(); i++ {
	}
	k.holdSystemMemory()
	if k.timer != nil {
		k.timer.Stop()
		k.timer = nil
	}
	now := k.clk.Elapsed()
	procs := k.rt.MemoryProcesses()
	sys, sysSlope, horizon := k.rt.SystemMemoryAt(now)
	for _, p := range procs {
		if b := p.Break(now); b < horizon {
			horizon = b
		}
	}
	next := horizon
	var pods usage.Linear
	pods.At, pods.Until = now, horizon
	for _, p := range procs {
		v, sl := p.Memory(now), p.Slope(now)
		pods.Value += v
		pods.Slope += sl
		if lim := p.Limit(); lim > 0 {
			if t, ok := (usage.Linear{At: now, Value: v, Slope: sl, Until: horizon}).Crossing(lim); ok && t < next {
				next = t
			}
		}
	}
	for _, g := range podCgroups(procs) {
		var line usage.Linear
		line.At, line.Until = now, horizon
		for _, p := range g.procs {
			line.Value += p.Memory(now)
			line.Slope += p.Slope(now)
		}
		if t, ok := line.Crossing(g.limit); ok && t < next {
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
	k.timer = k.clk.Schedule(next-now, k.plan)
}

// holdSystemMemory keeps memory in use within capacity when only the system's own usage is
// left above it: no pod process remains to kill (the kernel would kill system processes, and
// nodesim does not model those), so system usage is held at what capacity leaves, and the
// trace says so. Without the hold, the crossing would be "now" forever and the planner would
// reschedule itself at the same instant.
func (k *Kernel) holdSystemMemory() {
	now := k.clk.Elapsed()
	total := 0.0
	for _, p := range k.rt.MemoryProcesses() {
		total += p.Memory(now)
	}
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
func (k *Kernel) enforce() bool {
	now := k.clk.Elapsed()
	procs := k.rt.MemoryProcesses()
	for _, p := range procs {
		if lim := p.Limit(); lim > 0 && p.Memory(now) > lim {
			k.kill(p, "cgroup", []cri.MemProc{p}, lim)
			return true
		}
	}
	for _, g := range podCgroups(procs) {
		used := 0.0
		for _, p := range g.procs {
			used += p.Memory(now)
		}
		if used > g.limit {
			return k.killWorst(g.procs, "pod", g.limit)
		}
	}
	total := 0.0
	for _, p := range procs {
		total += p.Memory(now)
	}
	if k.kubepodsLimit > 0 && total > k.kubepodsLimit {
		return k.killWorst(procs, "kubepods", k.kubepodsLimit)
	}
	sys, _, _ := k.rt.SystemMemoryAt(now)
	if total+sys > k.capacity {
		return k.killWorst(procs, "node", k.capacity)
	}
	return false
}

// podCgroup is a pod cgroup with a memory limit of its own (a pod-level memory limit) and
// the running processes under it.
type podCgroup struct {
	limit float64
	procs []cri.MemProc
}

// podCgroups groups the processes of pods whose cgroup has a memory limit, in the order
// their pods first appear in procs (pod and creation order).
func podCgroups(procs []cri.MemProc) []*podCgroup {
	var out []*podCgroup
	byUID := map[types.UID]*podCgroup{}
	for _, p := range procs {
		if p.PodLimit() <= 0 {
			continue
		}
		g := byUID[p.PodUID()]
		if g == nil {
			g = &podCgroup{limit: p.PodLimit()}
			byUID[p.PodUID()] = g
			out = append(out, g)
		}
		g.procs = append(g.procs, p)
	}
	return out
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

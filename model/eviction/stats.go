package eviction

import (
	"math/bits"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/internal/digits"
	"nodesim/model/cri"
	"nodesim/model/usage"
	"nodesim/sim"
	"nodesim/trace"
)

// Stats pipeline periods (upstream pkg/kubelet/cadvisor and v1beta1 defaults).
const (
	housekeepingInterval = 10 * time.Second
	volumeStatsAggPeriod = time.Minute
	bytesPerInode        = 32 << 10 // coarse: inodes used follow bytes used
	systemPids           = 200
)

// NodeResources is what the node has.
type NodeResources struct {
	MemoryCapacity   float64
	KubepodsLimit    float64 // the kubepods cgroup's limit (capacity minus reserved)
	NodeFsCapacity   float64
	NodeFsInodes     float64
	ImageFsCapacity  float64 // 0: images live on nodefs
	ImageFsInodes    float64
	PidMax           float64
	DedicatedImageFs bool
}

// Summary is one stats summary, as the eviction manager reads it.
type Summary struct {
	Time                                                         time.Time
	MemoryWorkingSet                                             float64
	MemoryAvailable                                              float64
	PodsWorkingSet                                               float64
	AllocatableMemoryAvailable                                   float64
	NodeFsUsed, NodeFsInodesUsed, ImageFsUsed, ImageFsInodesUsed float64
	PidsUsed                                                     float64
	Pods                                                         map[types.UID]*PodStats
}

// StatsProvider produces summaries from the runtime (the kubelet's summary provider over
// cAdvisor). Node memory, filesystems and PIDs are read fresh on every Get, as upstream
// forces; per-pod stats come from the last housekeeping, which runs every 10s with a
// seeded jitter of up to another 10s, so ranking can use numbers that are tens of seconds
// old. Volume usage is refreshed every minute.
type StatsProvider struct {
	clk     *sim.Clock
	rng     *sim.RNG
	rt      *cri.Runtime
	node    NodeResources
	pods    func() []*corev1.Pod
	sampled map[types.UID]*PodStats
	// entries hold what the provider keeps of each pod it has seen (never dropped, as
	// sampled's records are not).
	entries map[types.UID]*podEntry
	// listed and listedEntries are the last pod list read and its entries, index for
	// index: a pod found at the same place in the next list (the same object, and so the
	// same UID, checked all the same) has the same entry without a lookup.
	listed        []*corev1.Pod
	listedEntries []*podEntry
	// listedIn is the last list entriesOf was handed itself (the caller's slice, not a
	// copy). The lists pods hands out are never written once handed out (the kubelet's
	// activePods: the pod manager copies its list before changing one it has handed out,
	// and the active filter makes a new slice for each new answer), and listedIn keeps
	// its array from being reused, so a list that is listedIn, the same array and
	// length, holds the same pods: no comparison pod for pod is needed.
	listedIn []*corev1.Pod
	// podSums are summaryOf's sums, kept while they hold; volumesVersion counts
	// volumeStats' refreshes that changed some entry's volume bytes.
	podSums        podSums
	volumesVersion uint64
	// entriesVersion counts the lists entriesOf has taken in whose entries were not the
	// last list's, entry for entry: a list with new objects for the same pods (a status
	// update) keeps it.
	entriesVersion uint64
	// timer runs housekeeping and vtimer volumeStats. Each is made once and re-armed by the
	// round it runs (Reset): only that round arms it, and it runs once the timer has fired,
	// so the timer is never pending then and a reset queues what a fresh timer would.
	timer  *sim.Timer
	vtimer *sim.Timer
	// attrChunk is where new stats events' attributes are cut from, many to an allocation.
	attrChunk trace.AttrArena
	// nodeFigures are the figures of the last node stats event, and nodeAttrs its
	// attributes: a node event with the same figures records them again, and one with
	// some new figures keeps the strings of the others.
	nodeFigures [len(nodeStatsKeys)]int64
	nodeAttrs   []trace.Attr
	// sum is the summary summaryOf answers, filled afresh by each call: its callers
	// (housekeeping, the eviction manager's pass) read it before anything else asks for
	// one, and Get hands out a copy.
	sum Summary
	// texts holds the values of new stats events' attributes, many to an allocation.
	texts trace.TextArena
	// sums is where sample adds up the containers the runtime reports, through
	// addContainer (sums.add, bound once, so that a sample makes no closure); sample
	// empties it before each pod and takes what it holds after.
	sums         containerSums
	addContainer func(name string, running bool, mem, disk, pids float64)
}

// nodeStatsKeys are the attribute keys of the node stats event, in order.
var nodeStatsKeys = [...]string{"memoryCapacity", "memoryWorkingSet", "memoryAvailable", "allocatableMemoryAvailable",
	"nodefsCapacity", "nodefsUsed", "nodefsAvailable", "nodefsInodesFree", "imagefsCapacity", "imagefsUsed",
	"imagefsAvailable", "pidsMax", "pidsUsed"}

// nodeTraceAttrs are the attributes of the node stats event for sum.
func (p *StatsProvider) nodeTraceAttrs(sum *Summary) []trace.Attr {
	figures := [len(nodeStatsKeys)]int64{int64(p.node.MemoryCapacity), int64(sum.MemoryWorkingSet),
		int64(sum.MemoryAvailable), int64(sum.AllocatableMemoryAvailable),
		int64(p.node.NodeFsCapacity), int64(sum.NodeFsUsed), int64(p.node.NodeFsCapacity - sum.NodeFsUsed),
		int64(p.node.NodeFsInodes - sum.NodeFsInodesUsed),
		int64(p.node.ImageFsCapacity), int64(sum.ImageFsUsed), int64(p.node.ImageFsCapacity - sum.ImageFsUsed),
		int64(p.node.PidMax), int64(sum.PidsUsed)}
	if p.nodeAttrs != nil && figures == p.nodeFigures {
		return p.nodeAttrs
	}
	attrs := p.attrChunk.Make(len(nodeStatsKeys))
	for i, key := range nodeStatsKeys {
		if p.nodeAttrs != nil && figures[i] == p.nodeFigures[i] {
			attrs[i] = p.nodeAttrs[i]
		} else {
			attrs[i] = trace.Attr{Key: key, Value: itoa(figures[i])}
		}
	}
	p.nodeAttrs, p.nodeFigures = attrs, figures
	return attrs
}

// NewStatsProvider starts housekeeping. pods lists the active pods; a list it hands out
// must never be written to afterwards (entriesOf knows a list it has seen by its array).
func NewStatsProvider(s *sim.Sim, rt *cri.Runtime, node NodeResources, pods func() []*corev1.Pod) *StatsProvider {
	p := &StatsProvider{clk: s.Clock("cadvisor", sim.PriorityDefault), rng: s.RNG("cadvisor"), rt: rt, node: node, pods: pods,
		sampled: map[types.UID]*PodStats{}, entries: map[types.UID]*podEntry{}}
	p.addContainer = p.sums.add
	p.timer = p.clk.Schedule(0, p.housekeeping)
	p.vtimer = p.clk.Schedule(0, p.volumeStats)
	return p
}

// Stop stops housekeeping.
func (p *StatsProvider) Stop() {
	p.timer.Stop()
	p.vtimer.Stop()
}

// podEntry is what the provider keeps of one pod (by UID).
type podEntry struct {
	// rt holds the pod's runtime objects for the runtime's stats reads.
	rt cri.UsageHandle
	// st is the pod's record in sampled, nil until its first sample.
	st *PodStats
	// volumes is each volume's disk usage from the last volumeStats (nil: none), and
	// volumesBytes their sum as the node summary adds it: whole bytes, so the sum is exact
	// in any order and grouping (far below 2^53).
	volumes      map[string]int64
	volumesBytes float64
	// disk and pids are the pod's totals (the runtime's PodTotals) at its last sample, and
	// until the time until which they hold (PodTotalsUntilOf's).
	disk, pids float64
	until      time.Duration
	// storageOf is the pod object the eviction manager's localStorageEviction last asked
	// about, and storageChecked its answer (see Manager.storageCheckedOf). The answer
	// follows from the object alone, which is never changed in place, so it holds while
	// the pod's object is the same; a new object for the pod is answered afresh.
	storageOf      *corev1.Pod
	storageChecked bool
}

// entriesOf are the entries of pods, index for index (made for pods not seen before). The
// answer is valid until the next call.
//
// A pod found at the same place as in the last list has the same entry: the same object
// has the same UID, since pod objects are never changed in place (podConfig hands the
// kubelet a new object for every change). Most calls are given the list of the last one
// pod for pod (the eviction manager's pass and housekeeping between two changes of the
// pod manager), which one comparison of the two lists answers.
func (p *StatsProvider) entriesOf(pods []*corev1.Pod) []*podEntry {
	listed, out := p.listed, p.listedEntries
	if len(pods) == len(p.listedIn) && (len(pods) == 0 || &pods[0] == &p.listedIn[0]) {
		return out // the very list read last time, which nobody has written to since
	}
	p.listedIn = pods
	if slices.Equal(pods, listed) {
		return out // the list read last time, pod for pod
	}
	entriesChanged := len(pods) != len(out)
	for i, pod := range pods {
		if i < len(listed) && listed[i] == pod {
			continue
		}
		e := p.entries[pod.UID]
		if e == nil {
			e = &podEntry{}
			p.entries[pod.UID] = e
		}
		if i < len(out) {
			entriesChanged = entriesChanged || out[i] != e
			out[i] = e
		} else {
			out = append(out, e)
		}
	}
	clear(out[len(pods):])
	out = out[:len(pods)]
	p.listed = append(p.listed[:0], pods...)
	clear(p.listed[len(pods):cap(p.listed)])
	p.listedEntries = out
	if entriesChanged {
		p.entriesVersion++
	}
	return out
}

func (p *StatsProvider) housekeeping() {
	pods := p.pods()
	entries := p.entriesOf(pods)
	// Each pod is sampled, its event recorded and its totals added in one pass. The
	// summary's pod totals are the ones each sample has just read: at the same instant
	// PodTotalsOf would give them again, pod for pod, and they are added in the same order.
	var podsDisk, pids, vols float64
	until := usage.Never
	for i, pod := range pods {
		e := entries[i]
		st := p.sample(pod, e)
		if st.attrs == nil || !st.tracedStill() {
			p.traceAttrs(st)
		}
		p.clk.Record(&trace.Event{Kind: trace.Stats, Name: "pod", Pod: st.pod, Attrs: st.attrs})
		podsDisk += e.disk
		pids += e.pids
		vols += e.volumesBytes
		until = min(until, e.until)
	}
	p.keepPodSums(podsDisk, pids, vols, until)
	sum := p.summaryWith(podsDisk, pids, vols)
	p.clk.Record(&trace.Event{Kind: trace.Stats, Name: "node", Attrs: p.nodeTraceAttrs(sum)})
	p.timer.Reset(p.rng.Jitter(housekeepingInterval, 1.0))
}

// volumeStats refreshes each pod's volume usage. A pod's map is refilled in place (sample
// copies from it, nobody keeps it) and made only for a pod that writes to a volume.
func (p *StatsProvider) volumeStats() {
	pods := p.pods()
	volumesChanged := false
	for i, e := range p.entriesOf(pods) {
		vols := e.volumes
		had := len(vols) > 0
		if had { // most pods write to no volume: no map to clear or walk
			clear(vols)
		}
		p.rt.EachVolumeOf(pods[i].UID, &e.rt, func(name string, bytes float64) {
			if vols == nil {
				vols = map[string]int64{}
			}
			vols[name] += int64(bytes) // integer sums: order-free
		})
		e.volumes = vols
		bytes := 0.0
		if len(vols) > 0 {
			for _, v := range vols {
				bytes += float64(v)
			}
		}
		if bytes != e.volumesBytes {
			e.volumesBytes = bytes
			volumesChanged = true
		}
		if had || len(vols) > 0 {
			if e.st != nil {
				e.st.volumesRead = false
			}
		}
	}
	if volumesChanged {
		p.volumesVersion++
	}
	p.vtimer.Reset(volumeStatsAggPeriod)
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// decimal writes v's decimal text, strconv.FormatInt(v, 10), into d and returns the part
// of d that holds it. The figures stats events carry (bytes of memory and disk, PIDs: from
// 0 to below 10^10) skip strconv's layers and loop: their ten digits, zero-padded, are
// made in five pairs from fixed divisions, and the text is the significant ones. Any
// other figure is left to strconv (20 bytes hold every int64).
func decimal(d *[20]byte, v int64) []byte {
	if v < 0 || v >= 1e10 {
		return strconv.AppendInt(d[:0], v, 10)
	}
	u := uint64(v)
	top := uint32(u / 1e8)              // the first two of the ten digits
	rest := uint32(u - uint64(top)*1e8) // the other eight
	hi, lo := rest/1e4, rest%1e4
	d[10], d[11] = digits.Pairs[top*2], digits.Pairs[top*2+1]
	p := hi / 100 * 2
	d[12], d[13] = digits.Pairs[p], digits.Pairs[p+1]
	p = hi % 100 * 2
	d[14], d[15] = digits.Pairs[p], digits.Pairs[p+1]
	p = lo / 100 * 2
	d[16], d[17] = digits.Pairs[p], digits.Pairs[p+1]
	p = lo % 100 * 2
	d[18], d[19] = digits.Pairs[p], digits.Pairs[p+1]
	// n is the number of digits: bits.Len64(u)*1233>>12 is log10(2^len) rounded down,
	// which is the digits less one of u or of the first power of ten above it.
	n := bits.Len64(u) * 1233 >> 12
	if u >= pow10[n] {
		n++
	}
	return d[len(d)-max(n, 1):]
}

// pow10 are the powers of ten decimal compares with.
var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// podStatsKeys are the attribute keys of a pod stats event, in order.
var podStatsKeys = [...]string{"memory", "disk", "pids"}

// tracedStill reports whether st's figures are the ones its attrs were made for.
func (st *PodStats) tracedStill() bool {
	return st.MemoryWorkingSet == st.traced[0] && st.RootFsUsed+st.LogsUsed+st.LocalVolumesUsed == st.traced[1] &&
		st.Processes == st.traced[2]
}

// traceAttrs brings st's attrs, the attributes of its pod's stats event (memory, disk and
// PIDs), up to its figures. Most samples repeat the last figures, and then the last event's
// attributes serve again; a sample with some new figures (a noisy pod's memory) keeps the
// strings of the others. New attributes are cut from the provider's chunk, and new values'
// text from its text arena.
func (p *StatsProvider) traceAttrs(st *PodStats) {
	memory, disk, pids := st.MemoryWorkingSet, st.RootFsUsed+st.LogsUsed+st.LocalVolumesUsed, st.Processes
	old := st.attrs
	var text [20]byte // decimal's scratch
	if old != nil && disk == st.traced[1] && pids == st.traced[2] {
		// The common case, written out: the memory alone may have moved.
		if memory == st.traced[0] {
			return
		}
		attrs := p.attrChunk.Make(len(podStatsKeys))
		_, _ = attrs[2], old[2]
		attrs[0] = trace.Attr{Key: podStatsKeys[0], Value: p.texts.Copy(decimal(&text, memory))}
		attrs[1], attrs[2] = old[1], old[2]
		st.attrs, st.traced[0] = attrs, memory
		return
	}
	figures := [len(podStatsKeys)]int64{memory, disk, pids}
	attrs := p.attrChunk.Make(len(podStatsKeys))
	for i, key := range podStatsKeys {
		if old != nil && figures[i] == st.traced[i] {
			attrs[i] = old[i]
		} else {
			attrs[i] = trace.Attr{Key: key, Value: p.texts.Copy(decimal(&text, figures[i]))}
		}
	}
	st.attrs, st.traced = attrs, figures
}

// sample reads one pod's usage now into its record in sampled, and returns the record.
// The record of the previous round is reused: readers only ever look at the latest.
//
// A record whose pod's usage mark (cri's UsageMark) is the one it was sampled at, and whose
// volume figures have not been refreshed since (volumesRead), would be sampled to the same
// figures: it is kept as it is, and the runtime does not report the containers
// (UsageSinceOf; UsageHeld answers the common case, totals that still hold, without a
// walk or a report function). Otherwise their figures are read again, into the record's own Containers
// (whose entries are rewritten in place: readers copy what they read and keep nothing),
// and the volume figures are copied only when volumeStats has refreshed them since the
// last sample (volumesRead clear; a new record has it clear).
func (p *StatsProvider) sample(pod *corev1.Pod, e *podEntry) *PodStats {
	st := e.st
	sameKey := st != nil && (st.keyOf == pod || isPodKey(st.pod, pod.Namespace, pod.Name))
	since := uint64(0) // 0 when the record cannot be kept whatever the mark
	if sameKey && st.volumesRead {
		since = st.mark
	}
	if st == nil {
		st = &PodStats{Volumes: map[string]int64{}, pod: pod.Namespace + "/" + pod.Name}
		p.sampled[pod.UID] = st
		e.st = st
	} else if !sameKey {
		st.pod, st.attrs = pod.Namespace+"/"+pod.Name, nil
	}
	st.keyOf = pod
	if since != 0 {
		// Most pods' figures hold between two rounds: the runtime says so without a walk.
		if disk, pids, until, ok := p.rt.UsageHeld(&e.rt, since); ok {
			e.disk, e.pids, e.until = disk, pids, until
			return st
		}
	}
	sums := &p.sums
	*sums = containerSums{ctrs: st.Containers[:0]}
	mark, disk, pids, until := p.rt.UsageSinceUntilOf(pod.UID, &e.rt, since, p.addContainer)
	ctrs, memory, rootFs, processes := sums.ctrs, sums.memory, sums.rootFs, sums.processes
	sums.ctrs = nil
	e.disk, e.pids, e.until = disk, pids, until
	if sameKey && st.volumesRead && mark == st.mark {
		return st // the containers were not reported: nothing changed
	}
	clear(ctrs[len(ctrs):cap(ctrs)])
	st.Containers = ctrs
	st.MemoryWorkingSet, st.RootFsUsed, st.Processes = memory, rootFs, processes
	st.RootFsInodes = rootFs / bytesPerInode
	if !st.volumesRead {
		clear(st.Volumes)
		st.LocalVolumesUsed = 0
		for k, v := range e.volumes {
			st.Volumes[k] = v
			st.LocalVolumesUsed += v
		}
		st.LocalVolumesInodes = st.LocalVolumesUsed / bytesPerInode
	}
	st.mark, st.volumesRead = mark, true
	return st
}

// containerSums is what a sample adds the containers the runtime reports into: the
// record's Containers being refilled (one entry per name) and the pod's sums.
type containerSums struct {
	ctrs                      []ContainerStats
	memory, rootFs, processes int64
}

// add takes in one container's figures (UsageSinceUntilOf's report function).
func (s *containerSums) add(name string, running bool, mem, disk, pids float64) {
	i := 0
	for i < len(s.ctrs) && s.ctrs[i].Name != name {
		i++
	}
	if i == len(s.ctrs) {
		s.ctrs = append(s.ctrs, ContainerStats{Name: name})
	}
	cs := &s.ctrs[i]
	if running {
		cs.MemoryWorkingSet += int64(mem)
		s.memory += int64(mem)
		s.processes += int64(pids)
	}
	cs.RootFsUsed += int64(disk)
	s.rootFs += int64(disk)
}

// isPodKey reports whether key is namespace/name, without building the string.
func isPodKey(key, namespace, name string) bool {
	return len(key) == len(namespace)+1+len(name) && key[:len(namespace)] == namespace &&
		key[len(namespace)] == '/' && key[len(namespace)+1:] == name
}

// PodStats returns a pod's stats from the last housekeeping.
func (p *StatsProvider) PodStats(pod *corev1.Pod) (*PodStats, bool) {
	st, ok := p.sampled[pod.UID]
	return st, ok
}

// Get is a summary now: node figures fresh, pod figures from the last housekeeping.
func (p *StatsProvider) Get() *Summary {
	sum := *p.summary(p.pods())
	return &sum
}

// summary is Get over pods, which must be what p.pods() answers now: a caller that has
// just listed them (housekeeping, the eviction manager's pass) passes its list rather than
// have every pod's activity looked up again. The answer is valid until the next call.
func (p *StatsProvider) summary(pods []*corev1.Pod) *Summary {
	return p.summaryOf(pods, p.entriesOf(pods))
}

// summaryOf is summary, with entries those of pods (entriesOf). A pod's totals come from
// PodTotalsOf, which answers from the totals the runtime keeps while they hold (a sample at
// the same instant has just made them).
//
// The sums over the pods are kept (podSums) with what they were made from: the list's
// entries (entriesVersion: the sums read the entries alone, in order, whatever pod
// objects stand for them), the volume figures (volumesVersion), and the runtime's totals
// (TotalsVersion) and the time until which every pod's answer holds. While all of them
// hold, each pod's totals would be read again to the same figures, added in the same
// order, so the kept sums serve; on a node without pressure most passes between two
// housekeeping rounds find them so.
func (p *StatsProvider) summaryOf(pods []*corev1.Pod, entries []*podEntry) *Summary {
	k := &p.podSums
	if k.ok && k.entries == p.entriesVersion && k.volumes == p.volumesVersion && p.rt.TotalsHold(k.totals, k.until) {
		return p.summaryWith(k.disk, k.pids, k.vols)
	}
	var podsDisk, pids, vols float64
	until := usage.Never
	for i, pod := range pods {
		d, n, u := p.rt.PodTotalsUntilOf(pod.UID, &entries[i].rt)
		podsDisk += d
		pids += n
		vols += entries[i].volumesBytes
		until = min(until, u)
	}
	p.keepPodSums(podsDisk, pids, vols, until)
	return p.summaryWith(podsDisk, pids, vols)
}

// keepPodSums keeps the sums over the pods of the list entriesOf last answered, just
// made, for summaryOf; until is the earliest time until which a pod's totals hold. The
// runtime's version is read now, after every pod's totals were read: the totals that
// reading made are part of it.
func (p *StatsProvider) keepPodSums(disk, pids, vols float64, until time.Duration) {
	p.podSums = podSums{ok: true, entries: p.entriesVersion, volumes: p.volumesVersion, totals: p.rt.TotalsVersion(), until: until,
		disk: disk, pids: pids, vols: vols}
}

// podSums are summaryOf's sums over the pods of a list, and what they hold for.
type podSums struct {
	ok               bool
	entries, volumes uint64 // the provider's entriesVersion and volumesVersion
	totals           uint64 // the runtime's TotalsVersion
	until            time.Duration
	disk, pids, vols float64
}

// summaryWith is summaryOf, given the sums over its pods of their totals (podsDisk, pids)
// and of their volumes' bytes (vols).
func (p *StatsProvider) summaryWith(podsDisk, pids, vols float64) *Summary {
	now := p.clk.Now()
	sum := &p.sum
	*sum = Summary{Time: now, Pods: p.sampled}
	sysMem, sysDisk := p.rt.SystemUsage()
	podsMem := p.rt.PodsMemory()
	images := p.rt.ImagesSize()
	sum.PodsWorkingSet = podsMem
	sum.MemoryWorkingSet = sysMem + podsMem
	sum.MemoryAvailable = p.node.MemoryCapacity - sum.MemoryWorkingSet
	sum.AllocatableMemoryAvailable = p.node.KubepodsLimit - podsMem
	if p.node.DedicatedImageFs {
		sum.NodeFsUsed = sysDisk + vols
		sum.ImageFsUsed = images + podsDisk
	} else {
		sum.NodeFsUsed = sysDisk + vols + images + podsDisk
		sum.ImageFsUsed = sum.NodeFsUsed
	}
	// A full filesystem stays full: writes past its capacity fail (ENOSPC) and hold no
	// bytes, and memory in use never exceeds capacity (the OOM killer sees to it; noise in
	// the readings must not say otherwise). No available figure is ever negative.
	imageCap := p.node.NodeFsCapacity
	if p.node.DedicatedImageFs {
		imageCap = p.node.ImageFsCapacity
	}
	sum.NodeFsUsed = min(sum.NodeFsUsed, p.node.NodeFsCapacity)
	sum.ImageFsUsed = min(sum.ImageFsUsed, imageCap)
	sum.MemoryAvailable = max(sum.MemoryAvailable, 0)
	sum.NodeFsInodesUsed = min(sum.NodeFsUsed/bytesPerInode, p.node.NodeFsInodes)
	sum.ImageFsInodesUsed = sum.ImageFsUsed / bytesPerInode
	sum.PidsUsed = systemPids + pids
	return sum
}

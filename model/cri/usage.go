package cri

import (
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	api "nodesim/api/v1alpha1"
	"nodesim/model/container"
	"nodesim/model/usage"
)

// programs is what a process uses over time: each program's clock starts at origin (the
// process start, or the setUsage event that replaced it).
type programs struct {
	origin  time.Duration
	memory  *usage.Program
	disk    *usage.Program
	pids    *usage.Program
	volumes map[string]*usage.Program // nil without volume programs
	// memoryConst is memory's program when that is a constant (the memory request):
	// held here, it needs no allocation of its own.
	memoryConst usage.Program
}

// UsageOverride replaces a container's programs from the moment it is set (setUsage).
type UsageOverride struct {
	Memory, Disk, Pids api.Program
	Volumes            map[string]api.Program
}

// compilePrograms sets p to the programs of c's process starting now with behaviour b,
// with the container's override (setUsage) laid over them.
func (r *Runtime) compilePrograms(c *ctr, b *api.Behavior, p *programs) {
	*p = programs{origin: r.s.Elapsed()}
	// Without a program a process uses its memory request, no disk and one PID. Programs
	// are never written once compiled, so every process shares the runtime's constants.
	p.disk, p.pids = r.noDisk, r.onePID
	if b != nil {
		if b.Memory != nil {
			p.memory = usage.Compile(b.Memory, 0)
		}
		if b.Disk != nil {
			p.disk = usage.Compile(b.Disk, 0)
		}
		if b.Pids != nil {
			p.pids = usage.Compile(b.Pids, 0)
		}
		if len(b.Volumes) > 0 {
			p.volumes = make(map[string]*usage.Program, len(b.Volumes))
			for _, name := range slices.Sorted(maps.Keys(b.Volumes)) {
				p.volumes[name] = usage.Compile(b.Volumes[name], 0)
			}
		}
	}
	if p.memory == nil {
		req := float64(0)
		if q, ok := c.spec.Resources.Requests[corev1.ResourceMemory]; ok {
			req = float64(q.Value())
		}
		p.memoryConst = *usage.Constant(req)
		p.memory = &p.memoryConst
	}
	if len(r.overrides) > 0 {
		if o := r.overrides[c.sandbox.key+"/"+c.spec.Name]; o != nil {
			r.applyOverride(p, o, nil)
		}
	}
}

// applyOverride lays the override's programs over p; ramps start from cur, the values in
// force now (nil for a fresh process).
func (r *Runtime) applyOverride(p *programs, o *UsageOverride, cur *programs) {
	from := func(old *usage.Program) float64 {
		if cur == nil || old == nil {
			return 0
		}
		return old.Value(r.s.Elapsed() - cur.origin)
	}
	if o.Memory != nil {
		p.memory = usage.Compile(o.Memory, from(p.memory))
	}
	if o.Disk != nil {
		p.disk = usage.Compile(o.Disk, from(p.disk))
	}
	if o.Pids != nil {
		p.pids = usage.Compile(o.Pids, from(p.pids))
	}
	if p.volumes == nil && len(o.Volumes) > 0 {
		p.volumes = make(map[string]*usage.Program, len(o.Volumes))
	}
	for _, name := range slices.Sorted(maps.Keys(o.Volumes)) {
		p.volumes[name] = usage.Compile(o.Volumes[name], from(p.volumes[name]))
	}
}

// SetUsage replaces a container's usage programs from now on: for the process running now
// (ramps start from its current usage) and for every later run.
func (r *Runtime) SetUsage(podKey, containerName string, o *UsageOverride) {
	r.overrides[podKey+"/"+containerName] = o
	for _, c := range r.ctrList() {
		if c.sandbox.key != podKey || c.spec.Name != containerName || c.state != container.StateRunning || c.proc == nil {
			continue
		}
		old := c.proc.use
		np := &programs{origin: r.s.Elapsed(), memory: old.memory, disk: old.disk, pids: old.pids, volumes: map[string]*usage.Program{}}
		for k, v := range old.volumes {
			np.volumes[k] = v
		}
		// Programs that are not replaced keep their values: freeze them at now.
		now := r.s.Elapsed() - old.origin
		np.memory = usage.Constant(old.memory.Value(now))
		np.disk = usage.Constant(old.disk.Value(now))
		np.pids = usage.Constant(old.pids.Value(now))
		for k, v := range old.volumes {
			np.volumes[k] = usage.Constant(v.Value(now))
		}
		r.applyOverride(np, o, &programs{origin: r.s.Elapsed(), memory: np.memory, disk: np.disk, pids: np.pids, volumes: np.volumes})
		c.proc.use = np
		c.memOffset = 0
		r.memoryChanged(c)
	}
	r.usageChanged()
}

// HoldSystemMemory pins the node's system memory at level from now on, until the next
// SetSystemUsage: the kernel's answer when system usage asks for more than the node has and
// no pod process is left to kill. A constant needs no origin, so the disk program's clock is
// left alone.
func (r *Runtime) HoldSystemMemory(level float64) {
	r.systemMemory = usage.Constant(level)
	r.usageChanged()
}

// SetSystemUsage replaces the node's system usage programs from now on.
func (r *Runtime) SetSystemUsage(memory, disk api.Program) {
	now := r.s.Elapsed()
	if memory != nil {
		r.systemMemory = usage.Compile(memory, r.systemMemory.Value(now-r.systemOrigin))
	} else {
		r.systemMemory = usage.Constant(r.systemMemory.Value(now - r.systemOrigin))
	}
	if disk != nil {
		r.systemDisk = usage.Compile(disk, r.systemDisk.Value(now-r.systemOrigin))
	} else {
		r.systemDisk = usage.Constant(r.systemDisk.Value(now - r.systemOrigin))
	}
	r.systemOrigin = now
	r.usageChanged()
}

func (r *Runtime) ctrList() []*ctr {
	var out []*ctr
	for _, o := range r.sortedPods() {
		out = append(out, o.ctrs...)
	}
	return out
}

// noiseKey identifies a container's noise stream for one kind of usage: the FNV-1a hash
// of "<container ID>/<kind>", mixed with the run's seed. The hash is taken over the parts
// in turn, which gives the hash of the joined string without joining it.
func (r *Runtime) noiseKey(c *ctr, what string) uint64 {
	return fnv1a(fnv1a(fnv1a(fnvOffset64, c.id), "/"), what) ^ r.cfg.Seed
}

// volumeNoiseKey is noiseKey for the kind "volume/<name>".
func (r *Runtime) volumeNoiseKey(c *ctr, name string) uint64 {
	return fnv1a(fnv1a(fnv1a(fnvOffset64, c.id), "/volume/"), name) ^ r.cfg.Seed
}

// The 64-bit FNV-1a parameters, as hash/fnv uses them.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// fnv1a continues the FNV-1a hash h over the bytes of s.
func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

// makeStatsNoiseKeys sets c's noise keys for memory, disk and pids (noiseKey's), made once:
// readStats reads them while c.keyed is set.
func (r *Runtime) makeStatsNoiseKeys(c *ctr) {
	c.noiseKeys = [3]uint64{r.noiseKey(c, "memory"), r.noiseKey(c, "disk"), r.noiseKey(c, "pids")}
	c.keyed = true
}

// statsReading is a running process's usage as the stats provider reads it (with the
// programs' seeded noise) at one sim time, kept for as long as it provably stays the same.
// It is a function of the process's programs, its memOffset and the time: a new process
// or setUsage brings new programs (a new use pointer), a single-process OOM kill changes
// memOffset, and both are compared before the reading is reused; the time window [from,
// until) covers only an instant, or, when no ramp and no noise is in force in any program
// read, the stretch up to the programs' next breakpoint.
//
// diskUntil is the end of the stretch in which the disk and PIDs figures alone hold
// (their programs' ramps, noise and breakpoints; never before until): a process whose
// memory is noisy but whose disk and PIDs are steady keeps those two for long, and only
// its memory is read again. diskNext is those two programs' next breakpoint after the
// time they were read (the same for any time before it), -1 when a ramp or noise is in
// force in either.
type statsReading struct {
	use                 *programs
	memOffset           float64
	from, until         time.Duration
	diskUntil, diskNext time.Duration
	memory, disk, pids  float64
}

// readStats is c's usage as the stats see it at now; c runs a process.
func (r *Runtime) readStats(c *ctr, now time.Duration) *statsReading {
	rd := &c.reading
	use := c.proc.use
	same := rd.use == use && rd.memOffset == c.memOffset && now >= rd.from
	if same && now < rd.until {
		return rd
	}
	t := now - use.origin
	if !c.keyed {
		r.makeStatsNoiseKeys(c)
	}
	keys := &c.noiseKeys
	memory, memoryStill := use.memory.NoisyStill(t, keys[0])
	memory -= c.memOffset
	if len(c.tmpfsNames) > 0 {
		memory += r.noisyTmpfs(c, t)
	}
	rd.memory = pages(memory)
	if !same || now >= rd.diskUntil {
		var diskStill, pidsStill bool
		rd.disk, diskStill = use.disk.NoisyStill(t, keys[1])
		rd.pids, pidsStill = use.pids.NoisyStill(t, keys[2])
		rd.diskNext, rd.diskUntil = -1, now+1
		if diskStill && pidsStill {
			rd.diskNext = min(use.disk.NextBreakpoint(t), use.pids.NextBreakpoint(t))
			rd.diskUntil = max(usage.After(use.origin, rd.diskNext), now+1)
		}
	}
	rd.use, rd.memOffset, rd.from, rd.until = use, c.memOffset, now, now+1
	if rd.diskNext < 0 || !memoryStill {
		return rd
	}
	next := min(use.memory.NextBreakpoint(t), rd.diskNext)
	for _, name := range c.tmpfsNames {
		if p := use.volumes[name]; p != nil {
			if !p.Still(t) {
				return rd
			}
			next = min(next, p.NextBreakpoint(t))
		}
	}
	rd.until = max(usage.After(use.origin, next), now+1)
	return rd
}

// UsageHandle holds a pod's runtime objects for a stats reader that reads the same pods
// every pass, so that it finds them without a lookup by UID. Its zero value holds nothing.
// It is safe to keep across passes: objects the runtime forgets are marked dropped, and a
// handle holding dropped objects, or none, looks the pod up again (so a pod whose objects
// come later, or are made anew, is found then).
type UsageHandle struct{ o *podObjects }

// podOf is uid's objects, nil when the runtime has none, through h when h is not nil.
func (r *Runtime) podOf(uid types.UID, h *UsageHandle) *podObjects {
	if h == nil {
		return r.byPod[uid]
	}
	if h.o == nil || h.o.dropped {
		h.o = r.byPod[uid]
	}
	return h.o
}

// EachContainer reports every container of a pod now, as Usage does but without building
// records: name, whether it runs, memory (working set), disk and PIDs.
func (r *Runtime) EachContainer(uid types.UID, fn func(name string, running bool, memory, disk, pids float64)) {
	r.EachContainerOf(uid, nil, fn)
}

// EachContainerOf is EachContainer, finding the pod through h (nil: by UID).
func (r *Runtime) EachContainerOf(uid types.UID, h *UsageHandle, fn func(name string, running bool, memory, disk, pids float64)) {
	o := r.podOf(uid, h)
	if o == nil {
		return
	}
	r.eachContainer(o, r.s.Elapsed(), fn)
}

// eachContainer is EachContainer for o at now.
func (r *Runtime) eachContainer(o *podObjects, now time.Duration, fn func(name string, running bool, memory, disk, pids float64)) {
	for _, c := range o.ctrs {
		if c.proc == nil {
			fn(c.spec.Name, false, 0, 0, 0)
			continue
		}
		if c.state != container.StateRunning {
			fn(c.spec.Name, false, 0, c.frozenDisk, 0)
			continue
		}
		rd := r.readStats(c, now)
		fn(c.spec.Name, true, rd.memory, rd.disk, rd.pids)
	}
}

// EachVolume reports the disk each container of a pod has written to its volumes now, as
// Usage's Volumes give it (memory-backed ones are memory, not disk, and left out) but
// without building records. A volume is reported once per container that writes to it, in
// no particular order.
func (r *Runtime) EachVolume(uid types.UID, fn func(name string, bytes float64)) {
	r.EachVolumeOf(uid, nil, fn)
}

// EachVolumeOf is EachVolume, finding the pod through h (nil: by UID).
func (r *Runtime) EachVolumeOf(uid types.UID, h *UsageHandle, fn func(name string, bytes float64)) {
	o := r.podOf(uid, h)
	if o == nil || o.totals.ok && !o.totals.volumes {
		return // kept totals that saw no volumes (podTotals): none to report
	}
	now := r.s.Elapsed()
	for _, c := range o.ctrs {
		if c.proc == nil {
			continue
		}
		if c.state == container.StateRunning {
			t := now - c.proc.use.origin
			for name, v := range c.proc.use.volumes {
				if _, inMemory := c.tmpfs[name]; !inMemory {
					fn(name, v.Noisy(t, r.volumeNoiseKey(c, name)))
				}
			}
			continue
		}
		for name, v := range c.frozenVolumes {
			if _, inMemory := c.tmpfs[name]; !inMemory {
				fn(name, v)
			}
		}
	}
}

// PodTotals is a pod's disk (writable layers of all its containers, dead ones included) and
// running processes now, without the detail Usage gives.
func (r *Runtime) PodTotals(uid types.UID) (disk, pids float64) {
	return r.PodTotalsOf(uid, nil)
}

// PodTotalsOf is PodTotals, finding the pod through h (nil: by UID).
func (r *Runtime) PodTotalsOf(uid types.UID, h *UsageHandle) (disk, pids float64) {
	disk, pids, _ = r.PodTotalsUntilOf(uid, h)
	return disk, pids
}

// PodTotalsUntilOf is PodTotalsOf, and the time (elapsed) until which its answer holds
// while TotalsVersion stays: the end of the window of the totals it answers from, or
// usage.Never for a pod the runtime has nothing of.
func (r *Runtime) PodTotalsUntilOf(uid types.UID, h *UsageHandle) (disk, pids float64, until time.Duration) {
	o := r.podOf(uid, h)
	if o == nil {
		return 0, 0, usage.Never
	}
	// The disk and PIDs totals may hold past the window of the whole reading (a pod whose
	// memory alone is noisy): then they serve without reading its processes again.
	if t := &o.totals; t.ok {
		if now := r.s.Elapsed(); now >= t.from && now < t.diskUntil {
			return t.disk, t.pids, t.diskUntil
		}
	}
	t := r.podTotals(o)
	return t.disk, t.pids, t.diskUntil
}

// TotalsVersion changes whenever some pod's totals may have been made or dropped: a new
// computation (each takes a new mark), a change to a pod's objects, which touch drops
// them for (and which changes the listing's version; a pod's objects are made and
// forgotten only with a touch), or to a process's memory (memoryChanged). While it stays,
// PodTotalsOf answers every pod as it last did, up to the time PodTotalsUntilOf gave with
// that answer (TotalsHold).
func (r *Runtime) TotalsVersion() uint64 {
	return r.usageMarks + r.listingVersion + r.totalsDropped // each only grows
}

// TotalsHold reports whether the runtime's totals version is still version and now is
// before until: then every pod's PodTotalsOf answers what it did when PodTotalsUntilOf
// gave until at that version.
func (r *Runtime) TotalsHold(version uint64, until time.Duration) bool {
	return r.TotalsVersion() == version && r.s.Elapsed() < until
}

// UsageMark names the stats readings of a pod's containers now: while it returns the same
// mark, EachContainer, EachVolume's disk aside, and PodTotals report the same figures. 0
// is the mark of a pod the runtime has nothing of.
func (r *Runtime) UsageMark(uid types.UID) uint64 {
	return r.UsageMarkOf(uid, nil)
}

// UsageMarkOf is UsageMark, finding the pod through h (nil: by UID).
func (r *Runtime) UsageMarkOf(uid types.UID, h *UsageHandle) uint64 {
	o := r.podOf(uid, h)
	if o == nil {
		return 0
	}
	return r.podTotals(o).mark
}

// UsageSinceOf is UsageMarkOf and, unless the mark it returns is since, EachContainerOf:
// a reader that keeps what it read at some mark passes that mark, and is told the
// containers' figures only when they may have changed. When the pod's totals are brought
// up to date (a new mark) the containers are read and reported in the same walk. disk
// and pids are the pod's totals, PodTotalsOf's answer now.
func (r *Runtime) UsageSinceOf(uid types.UID, h *UsageHandle, since uint64, fn func(name string, running bool, memory, disk, pids float64)) (mark uint64, disk, pids float64) {
	mark, disk, pids, _ = r.UsageSinceUntilOf(uid, h, since, fn)
	return mark, disk, pids
}

// UsageSinceUntilOf is UsageSinceOf, and the time until which disk and pids hold as
// PodTotalsUntilOf gives it.
func (r *Runtime) UsageSinceUntilOf(uid types.UID, h *UsageHandle, since uint64, fn func(name string, running bool, memory, disk, pids float64)) (mark uint64, disk, pids float64, until time.Duration) {
	o := r.podOf(uid, h)
	if o == nil {
		return 0, 0, 0, usage.Never
	}
	now := r.s.Elapsed()
	t := &o.totals
	if t.holds(now) {
		if t.mark != since {
			r.eachContainer(o, now, fn)
		}
	} else {
		t = r.addTotals(o, now, fn)
	}
	return t.mark, t.disk, t.pids, t.diskUntil
}

// UsageHeld is UsageSinceUntilOf's answer for a reader that passes the mark it read at,
// when no container would be reported: the objects h holds are the pod's (not dropped),
// their totals hold now and carry that mark. Then disk, pids and until are what
// UsageSinceUntilOf would return with it, found without a walk or a report function;
// ok is false in any other case, for the reader to call UsageSinceUntilOf. A mark is
// never 0, so since 0 is never held.
func (r *Runtime) UsageHeld(h *UsageHandle, since uint64) (disk, pids float64, until time.Duration, ok bool) {
	o := h.o
	if o == nil || o.dropped {
		return 0, 0, 0, false
	}
	t := &o.totals
	// A noisy reading holds for an instant: until is checked first.
	if now := r.s.Elapsed(); now >= t.until || t.mark != since || !t.holds(now) {
		return 0, 0, 0, false
	}
	return t.disk, t.pids, t.diskUntil, true
}

// podTotals are a pod's stats totals as PodTotals adds them, and the stretch they hold for:
// [from, until), the window in which every running container's reading holds (readStats),
// as long as no container of the pod is created, started, stopped or removed (touch) and
// no process's memory is changed other than by its programs (memoryChanged), both of which
// drop them (ok false). Each computation gets a new mark from the runtime's counter.
// [from, diskUntil) is the longer window in which disk and pids alone hold (the running
// containers' readings' diskUntil), under the same conditions. volumes is set when some
// container has volume programs (running) or volume writes kept (exited): which ones do
// changes only with new processes, programs or container states, so, unlike the figures,
// it holds for as long as the totals are not dropped, whatever the time.
type podTotals struct {
	ok                     bool
	volumes                bool
	mark                   uint64
	from, until, diskUntil time.Duration
	disk, pids             float64
}

// holds reports whether the totals hold at now.
func (t *podTotals) holds(now time.Duration) bool {
	return t.ok && now >= t.from && now < t.until
}

// podTotals brings o's totals up to now.
func (r *Runtime) podTotals(o *podObjects) *podTotals {
	now := r.s.Elapsed()
	if t := &o.totals; t.holds(now) {
		return t
	}
	return r.addTotals(o, now, nil)
}

// addTotals computes o's totals at now afresh, with a new mark, and reports each container
// to fn (nil: none) as eachContainer does, from the same readings.
func (r *Runtime) addTotals(o *podObjects, now time.Duration, fn func(name string, running bool, memory, disk, pids float64)) *podTotals {
	r.usageMarks++
	// The sums are made in locals and stored once: fn is the stats provider's, which
	// never reads the runtime's totals while it is told the containers.
	sum := podTotals{ok: true, mark: r.usageMarks, from: now, until: usage.Never, diskUntil: usage.Never}
	for _, c := range o.ctrs {
		switch {
		case c.proc == nil:
			if fn != nil {
				fn(c.spec.Name, false, 0, 0, 0)
			}
		case c.state == container.StateRunning:
			rd := r.readStats(c, now)
			sum.disk += rd.disk
			sum.pids += rd.pids
			sum.until = min(sum.until, rd.until)
			sum.diskUntil = min(sum.diskUntil, rd.diskUntil)
			sum.volumes = sum.volumes || len(c.proc.use.volumes) > 0
			if fn != nil {
				fn(c.spec.Name, true, rd.memory, rd.disk, rd.pids)
			}
		default:
			sum.disk += c.frozenDisk
			sum.volumes = sum.volumes || len(c.frozenVolumes) > 0
			if fn != nil {
				fn(c.spec.Name, false, 0, c.frozenDisk, 0)
			}
		}
	}
	t := &o.totals
	*t = sum
	return t
}

// PodsMemory is the memory every running container holds now (the kernel's view). With a
// kernel watching, its running sums give the same number (whole pages, so sums are exact
// in any order) without reading every process.
func (r *Runtime) PodsMemory() float64 {
	if r.MemoryInUse != nil {
		return r.MemoryInUse()
	}
	return r.podsMemoryScan()
}

// podsMemoryScan is PodsMemory read from every running process.
func (r *Runtime) podsMemoryScan() float64 {
	now := r.s.Elapsed()
	total := 0.0
	for _, o := range r.sortedPods() {
		for _, c := range o.ctrs {
			total += c.memoryAt(now)
		}
	}
	return total
}

// ContainerUsage is one container's usage now.
type ContainerUsage struct {
	Name          string
	Memory        float64 // working set, bytes
	Disk          float64 // writable layer and logs, bytes
	Pids          float64
	Volumes       map[string]float64
	Running       bool
	OOMScoreAdj   int
	MemoryLimit   float64
	PodUID        types.UID
	Pod           string
	ContainerID   string
	MemoryRequest float64
}

// pageSize is the unit memory is charged in.
const pageSize = 4096

// pages rounds bytes down to whole pages, as cgroups count memory.
func pages(v float64) float64 {
	if v <= 0 {
		return 0
	}
	return float64(int64(v) / pageSize * pageSize)
}

// memoryAt is the kernel's view (no noise): what the process holds at sim time t.
func (c *ctr) memoryAt(t time.Duration) float64 {
	if c.state != container.StateRunning || c.proc == nil {
		return 0
	}
	lt := t - c.proc.use.origin
	return pages(c.proc.use.memory.Value(lt) - c.memOffset + c.tmpfsAt(lt, func(_ string, p *usage.Program) float64 { return p.Value(lt) }))
}

// noisyTmpfs is tmpfsAt as the stats see it, with the volumes' seeded noise.
func (r *Runtime) noisyTmpfs(c *ctr, t time.Duration) float64 {
	return c.tmpfsAt(t, func(name string, p *usage.Program) float64 { return p.Noisy(t, r.volumeNoiseKey(c, name)) })
}

// tmpfsSizes maps the pod's memory-backed emptyDir volumes to their tmpfs size: the
// sizeLimit with SizeMemoryBackedVolumes, else 0 (unbounded).
func (r *Runtime) tmpfsSizes(pod *corev1.Pod) map[string]float64 {
	if pod == nil {
		return nil
	}
	var out map[string]float64
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir == nil || v.EmptyDir.Medium != corev1.StorageMediumMemory {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		size := 0.0
		if r.cfg.SizeMemoryBackedVolumes && v.EmptyDir.SizeLimit != nil && v.EmptyDir.SizeLimit.Sign() > 0 {
			size = float64(v.EmptyDir.SizeLimit.Value())
		}
		out[v.Name] = size
	}
	return out
}

// tmpfsAt is what the container has written to memory-backed volumes, each capped at its
// tmpfs size, reading each program with value (plain or noisy) at local time lt.
func (c *ctr) tmpfsAt(lt time.Duration, value func(name string, p *usage.Program) float64) float64 {
	total := 0.0
	for _, name := range c.tmpfsNames {
		p := c.proc.use.volumes[name]
		if p == nil {
			continue
		}
		v := max(value(name, p), 0)
		if size := c.tmpfs[name]; size > 0 && v > size {
			v = size
		}
		total += v
	}
	return total
}

func (c *ctr) memorySlope(t time.Duration) float64 {
	if c.state != container.StateRunning || c.proc == nil {
		return 0
	}
	lt := t - c.proc.use.origin
	slope := c.proc.use.memory.Slope(lt)
	for _, name := range c.tmpfsNames {
		p := c.proc.use.volumes[name]
		if p == nil {
			continue
		}
		if size := c.tmpfs[name]; size > 0 && p.Value(lt) >= size {
			continue // full: writes fail with ENOSPC
		}
		slope += p.Slope(lt)
	}
	return slope
}

func (c *ctr) memoryBreak(t time.Duration) time.Duration {
	if c.state != container.StateRunning || c.proc == nil {
		return usage.Never
	}
	lt := t - c.proc.use.origin
	next := c.proc.use.memory.NextBreakpoint(lt)
	for _, name := range c.tmpfsNames {
		p := c.proc.use.volumes[name]
		if p == nil {
			continue
		}
		next = min(next, p.NextBreakpoint(lt))
		// The moment a growing volume fills its tmpfs is a breakpoint too.
		if size, v, sl := c.tmpfs[name], p.Value(lt), p.Slope(lt); size > 0 && v < size && sl > 0 {
			next = min(next, lt+time.Duration((size-v)/sl*float64(time.Second))+1)
		}
	}
	return usage.After(c.proc.use.origin, next)
}

// Usage samples every container of a pod now, as the stats provider sees it (with the
// programs' seeded noise).
func (r *Runtime) Usage(uid types.UID) []ContainerUsage {
	o := r.byPod[uid]
	if o == nil {
		return nil
	}
	now := r.s.Elapsed()
	var out []ContainerUsage
	for _, c := range o.ctrs {
		u := ContainerUsage{Name: c.spec.Name, Running: c.state == container.StateRunning, PodUID: uid,
			Pod: c.sandbox.key, ContainerID: c.id, OOMScoreAdj: c.oomScoreAdj, MemoryLimit: c.memoryLimit,
			Volumes: map[string]float64{}}
		if c.proc != nil {
			t := now - c.proc.use.origin
			if u.Running {
				u.Memory = pages(c.proc.use.memory.Noisy(t, r.noiseKey(c, "memory")) - c.memOffset + r.noisyTmpfs(c, t))
				u.Pids = c.proc.use.pids.Noisy(t, r.noiseKey(c, "pids"))
				u.Disk = c.proc.use.disk.Noisy(t, r.noiseKey(c, "disk"))
				// Noise is keyed by name, not drawn in turn, so map order changes nothing.
				for name, v := range c.proc.use.volumes {
					if _, inMemory := c.tmpfs[name]; !inMemory {
						u.Volumes[name] = v.Noisy(t, r.volumeNoiseKey(c, name))
					}
				}
			} else {
				u.Disk = c.frozenDisk
				for k, v := range c.frozenVolumes {
					if _, inMemory := c.tmpfs[k]; !inMemory {
						u.Volumes[k] = v
					}
				}
			}
		}
		out = append(out, u)
	}
	return out
}

// SystemUsage is the node's usage outside pods now (memory, disk).
func (r *Runtime) SystemUsage() (memory, disk float64) {
	t := r.s.Elapsed() - r.systemOrigin
	return pages(r.systemMemory.Value(t)), r.systemDisk.Value(t)
}

// ImagesSize is the bytes held by the images on the node.
func (r *Runtime) ImagesSize() float64 {
	// Whole bytes add up the same in any order, so the map needs no sorting here.
	var total int64
	for _, img := range r.images {
		if img.Present {
			total += img.Size
		}
	}
	return float64(total)
}

// freeze keeps a dead container's writable layer and volume writes until it is removed.
func (c *ctr) freeze(now time.Duration) {
	if c.proc == nil {
		return
	}
	t := now - c.proc.use.origin
	c.frozenDisk = c.proc.use.disk.Value(t)
	if len(c.proc.use.volumes) > 0 {
		c.frozenVolumes = make(map[string]float64, len(c.proc.use.volumes))
	}
	for k, v := range c.proc.use.volumes {
		c.frozenVolumes[k] = v.Value(t)
	}
}

// MemProc is a running process as the kernel's memory management sees it.
type MemProc struct{ c *ctr }

// ID is the container's ID.
func (p MemProc) ID() string { return p.c.id }

// Pod is the pod's namespace/name.
func (p MemProc) Pod() string { return p.c.sandbox.key }

// Container is the container's name.
func (p MemProc) Container() string { return p.c.spec.Name }

// Limit is the container cgroup's memory limit (0: none).
func (p MemProc) Limit() float64 { return p.c.memoryLimit }

// PodUID is the pod's UID, naming the pod cgroup the container sits in.
func (p MemProc) PodUID() types.UID { return p.c.sandbox.uid }

// PodLimit is the pod cgroup's memory limit (0: none beyond the containers' own).
func (p MemProc) PodLimit() float64 { return p.c.podMemLimit }

// OOMScoreAdj is the process's oom_score_adj.
func (p MemProc) OOMScoreAdj() int { return p.c.oomScoreAdj }

// Memory is the memory it holds at sim time t (no noise: noise is how stats see it).
func (p MemProc) Memory(t time.Duration) float64 { return p.c.memoryAt(t) }

// Slope is its memory growth per second just after t.
func (p MemProc) Slope(t time.Duration) float64 { return p.c.memorySlope(t) }

// Break is the next time its memory jumps or changes slope.
func (p MemProc) Break(t time.Duration) time.Duration { return p.c.memoryBreak(t) }

// Running reports whether the process still runs: a process handed to OnMemoryChange may
// have ended.
func (p MemProc) Running() bool { return p.c.state == container.StateRunning && p.c.proc != nil }

// Before reports whether p comes before q in pod and creation order, MemoryProcesses'
// order (the order the kernel scans in).
func (p MemProc) Before(q MemProc) bool {
	if p.c.sandbox.uid != q.c.sandbox.uid {
		return p.c.sandbox.uid < q.c.sandbox.uid
	}
	return p.c.seq < q.c.seq
}

// Steady reports whether the memory the process holds stays what it is at t, with a slope
// of zero, until Break(t): no ramp is in force and no memory-backed volume is charged to it
// (a volume filling its tmpfs makes a breakpoint that moves with the value read). The
// kernel keeps a steady process's memory instead of reading it at every change.
func (p MemProc) Steady(t time.Duration) bool {
	c := p.c
	if c.state != container.StateRunning || c.proc == nil {
		return true
	}
	return len(c.tmpfsNames) == 0 && c.proc.use.memory.Slope(t-c.proc.use.origin) == 0
}

// memoryChanged tells the kernel that c's process started, ended or had its memory changed.
func (r *Runtime) memoryChanged(c *ctr) {
	if o := r.byPod[c.sandbox.uid]; o != nil {
		o.totals.ok = false
	}
	r.totalsDropped++
	if r.OnMemoryChange != nil {
		r.OnMemoryChange(MemProc{c})
	}
}

// Pids is how many processes the container runs at t.
func (p MemProc) Pids(t time.Duration) float64 {
	if p.c.proc == nil {
		return 0
	}
	return p.c.proc.use.pids.Value(t - p.c.proc.use.origin)
}

// MemoryProcesses lists the running containers, in pod and creation order (the kernel's
// candidates when the kubepods cgroup or the node runs out). The list is kept until a
// container starts or stops (touch). The slice is shared: callers must not change it.
func (r *Runtime) MemoryProcesses() []MemProc {
	if r.memProcs == nil {
		r.memProcs = []MemProc{}
		for _, c := range r.ctrList() {
			if c.state == container.StateRunning && c.proc != nil {
				r.memProcs = append(r.memProcs, MemProc{c})
			}
		}
	}
	return r.memProcs
}

// SystemMemoryAt is the node's memory outside pods at sim time t: value, slope, next
// breakpoint.
func (r *Runtime) SystemMemoryAt(t time.Duration) (float64, float64, time.Duration) {
	lt := t - r.systemOrigin
	return r.systemMemory.Value(lt), r.systemMemory.Slope(lt), usage.After(r.systemOrigin, r.systemMemory.NextBreakpoint(lt))
}

// OOMKill kills a container's process for the kernel: the container exits with 137 and
// reason OOMKilled. With singleProcess (singleProcessOOMKill, and always on cgroup v1) only
// the largest process of a container that runs several dies: its share of the memory is
// freed and the container goes on. It reports whether the whole container died.
func (r *Runtime) OOMKill(id string, singleProcess bool) bool {
	c := r.ctrs[id]
	if c == nil || c.state != container.StateRunning {
		return false
	}
	now := r.s.Elapsed()
	pids := (MemProc{c}).Pids(now)
	if singleProcess && pids >= 2 {
		c.memOffset += c.memoryAt(now) / pids
		r.memoryChanged(c)
		r.usageChanged()
		return false
	}
	r.exit(c, ExitSIGKILL, "OOMKilled")
	return true
}

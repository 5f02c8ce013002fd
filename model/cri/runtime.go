// Package cri is nodesim's in-memory container runtime: sandboxes, containers and the
// processes inside them, driven by the scenario's behaviour scripts. It answers the CRI
// calls the kubelet makes (RunPodSandbox, CreateContainer, StartContainer, StopContainer,
// ListPodSandbox/ListContainers, PullImage, ...) after the scenario's latencies, and fails
// them as the scenario injects.
//
// Calls that take time return through a continuation: the caller passes a func that runs
// when the call returns, on the caller's own track, as a blocking gRPC call would resume
// the calling goroutine.
package cri

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	api "nodesim/api/v1alpha1"
	"nodesim/model/container"
	"nodesim/model/usage"
	"nodesim/sim"
	"nodesim/trace"
)

// Latency is how long each call takes.
type Latency struct {
	RunPodSandbox, StopPodSandbox, RemovePodSandbox  time.Duration
	CreateContainer, StartContainer, StopContainer   time.Duration
	RemoveContainer, ListPodSandbox, ContainerStatus time.Duration
	ListContainersPerContainer                       time.Duration
}

// DefaultLatency is a fast local runtime.
func DefaultLatency() Latency {
	return Latency{
		RunPodSandbox: 300 * time.Millisecond, StopPodSandbox: 100 * time.Millisecond,
		RemovePodSandbox: 20 * time.Millisecond, CreateContainer: 50 * time.Millisecond,
		StartContainer: 100 * time.Millisecond, StopContainer: 50 * time.Millisecond,
		RemoveContainer: 20 * time.Millisecond, ListPodSandbox: 2 * time.Millisecond,
		ListContainersPerContainer: 50 * time.Microsecond, ContainerStatus: time.Millisecond,
	}
}

// Failure makes a call fail with Error, optionally for one image and within [From, To).
type Failure struct {
	Call     string
	Image    string
	From, To time.Duration // To == 0: no end
	Error    string
}

// Config configures the runtime.
type Config struct {
	// SizeMemoryBackedVolumes is the run's SizeMemoryBackedVolumes feature gate (GA, on):
	// a memory-backed emptyDir's tmpfs is sized to its sizeLimit, so writes stop there.
	// Off, the tmpfs takes the kernel's default size, which nodesim leaves unbounded.
	SizeMemoryBackedVolumes bool
	Latency                 Latency
	PullBandwidth           float64 // bytes per second
	Images                  map[string]Image
	Failures                []Failure
	// Behavior returns the process script for a container of a pod (nil: runs until killed).
	Behavior func(pod *corev1.Pod, container string) *api.Behavior
	// SystemMemory and SystemDisk are the node's usage outside pods.
	SystemMemory, SystemDisk api.Program
	// Seed keys the usage programs' noise.
	Seed uint64
}

// ContainerConfig is what the kubelet sets on a container's cgroup at creation.
type ContainerConfig struct {
	OOMScoreAdj int
	MemoryLimit int64 // bytes; 0: none
	// PodMemoryLimit is the memory limit of the pod's cgroup, the parent of all its
	// containers' (bytes; 0: none binding beyond the containers' own).
	PodMemoryLimit int64
}

// Image is an image the runtime knows.
type Image struct {
	Name    string
	Size    int64
	Present bool
}

// DefaultImageSize is the size of an image the scenario does not list.
const DefaultImageSize = 100 << 20

type sandbox struct {
	id        string
	uid       types.UID
	name, ns  string
	key       string // "namespace/name", as the trace names the pod
	attempt   uint32
	state     container.SandboxState
	createdAt time.Time
	ip        string
	pod       *corev1.Pod
	// status and ips are what the sandbox gives GetPodStatus, made on first use
	// (statusNow, makeStatusLists).
	status *container.SandboxStatus
	ips    []string
}

type ctr struct {
	// The fields a stats pass or a probe reads of every running container come first,
	// together, ahead of the large spec: such a read then touches a few cache lines of
	// the record rather than one here and one there.
	state container.State
	proc  *process
	// reading is the last stats reading of the running process (readStats).
	reading   statsReading
	memOffset float64 // memory freed by single-process OOM kills in this run
	// noiseKeys are the memory, disk and pids noise keys, made on first use (keyed).
	noiseKeys [3]uint64
	keyed     bool
	// tmpfsNames are tmpfs's volume names, sorted once: memory sums them in this order.
	tmpfsNames    []string
	frozenDisk    float64
	frozenVolumes map[string]float64 // nil without volume programs

	id        string
	seq       int // creation order on the node: orders a pod's containers
	sandbox   *sandbox
	hash      uint64
	attempt   int
	createdAt time.Time
	startedAt time.Time
	finished  time.Time
	exitCode  int
	reason    string
	// stopWaiters are the StopContainer calls waiting for this container to exit.
	stopWaiters []func()
	// probeTargets are the probe targets handed out for this container (ProbeTarget):
	// exit marks them ended and drops them. They start in probeTargetsBuf, room for one
	// target of each probe type.
	probeTargets    []*ProbeTarget
	probeTargetsBuf [3]*ProbeTarget

	oomScoreAdj int
	memoryLimit float64
	podMemLimit float64
	// tmpfs lists the pod's memory-backed emptyDir volumes with their tmpfs size (0:
	// unbounded): what the container writes there is charged to its memory, not to disk.
	tmpfs map[string]float64
	// status is the container's status for GetPodStatus, made for its current state
	// (statusNow).
	status *container.Status

	spec corev1.Container
}

// podObjects are one pod's sandboxes and containers, oldest first, and the listing of
// them last handed out. The listing is immutable: a change to the pod makes a new one, so
// a relist can tell an unchanged pod by pointer.
type podObjects struct {
	// dropped, totals and ctrs come first, together: a stats read through a UsageHandle
	// reads them for every pod at every pass.

	// dropped is set when the runtime forgets the pod (forgetIfEmpty): a UsageHandle
	// holding these objects must look the pod up again.
	dropped bool
	// totals are the pod's stats totals (podTotals), dropped by touch and memoryChanged.
	totals    podTotals
	ctrs      []*ctr
	uid       types.UID
	sandboxes []*sandbox
	listing   *container.Pod
	// sortedAt is the pod's place in podsSorted (set when podUIDs makes it), and so in the
	// listing GetPods makes from it.
	sortedAt int
	// statusLists are the lists of the last GetPodStatus, kept while the pod's listing is
	// the one they were made for (every change to a field they copy makes a new listing).
	statusLists podStatusLists
}

// podStatusLists are the parts of a pod's status that come from its objects, shared by
// the statuses GetPodStatus hands out until the pod changes, and never written.
type podStatusLists struct {
	of         *container.Pod // the pod's listing when they were made
	sandboxes  []*container.SandboxStatus
	containers []*container.Status
	ips        []string
}

func (r *Runtime) objects(uid types.UID) *podObjects {
	o := r.byPod[uid]
	if o == nil {
		o = &podObjects{uid: uid}
		r.byPod[uid] = o
		r.uids = nil
		r.memProcs = nil
	}
	return o
}

// touch marks a pod's listing stale, and the full listing with it.
func (r *Runtime) touch(uid types.UID) {
	o := r.byPod[uid]
	if o != nil {
		o.listing = nil
		o.totals.ok = false
	}
	r.listingVersion++
	if r.listingOK || r.listingOf != 0 {
		r.listingOK = false
		if o != nil && len(r.listingStale) < maxListingStale {
			r.listingStale = append(r.listingStale, o)
		} else {
			r.listingOf = 0 // remake all of it
		}
	}
	r.memProcs = nil
}

// maxListingStale is how many changed pods GetPods remakes the entries of, in place; past
// that it remakes the whole listing.
const maxListingStale = 32

// Runtime is the fake container runtime.
type Runtime struct {
	s     *sim.Sim
	clk   *sim.Clock // the runtime's own processes (exits happen here)
	cfg   Config
	seq   int
	ipSeq int

	sandboxes map[string]*sandbox
	ctrs      map[string]*ctr
	// byPod indexes each pod's sandboxes and containers in creation order, and order lists
	// the pods by first appearance, so that listings never sort the whole node.
	byPod map[types.UID]*podObjects
	uids  []types.UID // byPod's keys in order, nil when stale
	// podsSorted is byPod's objects in the order of uids, made with it (see podUIDs):
	// walks over every pod read it instead of looking each UID up again.
	podsSorted []*podObjects
	// sortedGen counts the times podUIDs made podsSorted (from 1): a listing made from
	// podsSorted of the same generation lists the same pods at the same places.
	sortedGen uint64
	// listing is GetPods' answer, made in place: when listingOK says it is stale, the
	// entries of the pods touch marked (listingStale) are made again, at their places,
	// while the pods are those of podsSorted's generation listingOf; otherwise (pods came
	// or went, too many changed, listingOf 0) all of it. listingVersion counts the
	// touches, each of which may change what GetPods lists (see ListingVersion).
	listing        []*container.Pod
	listingOK      bool
	listingOf      uint64
	listingStale   []*podObjects
	listingVersion uint64
	images         map[string]*Image
	pulls          *pullScheduler

	downUntil time.Duration
	downSince time.Duration

	// memProcs is MemoryProcesses' answer, nil when stale.
	memProcs []MemProc

	overrides    map[string]*UsageOverride
	pulledAt     map[string]time.Duration
	systemMemory *usage.Program
	systemDisk   *usage.Program
	// noDisk and onePID are the programs of a process without disk or PIDs programs,
	// shared by all of them (a compiled program is never written).
	noDisk, onePID *usage.Program
	systemOrigin   time.Duration
	// keptLogs is the node's /var/log/pods as far as restart counts go: for each pod and
	// container name, one more than the highest attempt of a removed container whose log
	// files were kept (RemoveContainerKeepLogs). The kubelet reads it back
	// (LogRestartCount) when it creates a container the runtime has no instance of.
	keptLogs map[types.UID]map[string]int
	// OnUsageChange is called whenever a process starts, stops or changes its usage
	// programs (the kernel re-plans its memory limits).
	OnUsageChange func()
	// OnMemoryChange is called, before OnUsageChange, with each process that starts, ends,
	// or whose memory changes other than by following its programs (setUsage, a
	// single-process OOM kill): the kernel updates its running sums for that process only.
	OnMemoryChange func(MemProc)
	// MemoryInUse, when set, is the memory every running process holds now as the kernel's
	// running sums keep it (set by the kernel that OnMemoryChange reports to): PodsMemory
	// answers with it instead of reading every process of the node.
	MemoryInUse func() float64
	// usageMarks counts podTotals' computations: each gets the next number as its mark.
	usageMarks uint64
	// totalsDropped counts memoryChanged's drops of a pod's totals (see TotalsVersion).
	totalsDropped uint64
	// stoppedReason and exitedReason are the reasons of exit events (exitReason).
	stoppedReason, exitedReason *trace.Reason
}

// New returns a runtime on simulation s.
func New(s *sim.Sim, cfg Config) *Runtime {
	r := &Runtime{
		s:         s,
		clk:       s.Clock("runtime", sim.PriorityRuntime),
		cfg:       cfg,
		sandboxes: map[string]*sandbox{},
		ctrs:      map[string]*ctr{},
		byPod:     map[types.UID]*podObjects{},
		images:    map[string]*Image{},
		downUntil: -1,
		overrides: map[string]*UsageOverride{},
		pulledAt:  map[string]time.Duration{},
		keptLogs:  map[types.UID]map[string]int{},
	}
	r.systemMemory = usage.Compile(cfg.SystemMemory, 0)
	r.systemDisk = usage.Compile(cfg.SystemDisk, 0)
	r.noDisk, r.onePID = usage.Constant(0), usage.Constant(1)
	for name, img := range cfg.Images {
		img := img
		r.images[name] = &img
	}
	if r.cfg.PullBandwidth <= 0 {
		r.cfg.PullBandwidth = 50 << 20
	}
	r.pulls = newPullScheduler(r)
	return r
}

// newID is the next object ID: prefix and the sequence number, zero-padded to six digits
// (as %06d would write it).
func (r *Runtime) newID(prefix string) string {
	r.seq++
	var buf [32]byte
	b := append(buf[:0], prefix...)
	for n := r.seq; n < 100000; n *= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(r.seq), 10)
	return string(b)
}

// SetDown makes every call fail for d from now (the scenario's runtimeDown event).
func (r *Runtime) SetDown(d time.Duration) {
	r.downSince = r.s.Elapsed()
	r.downUntil = r.s.Elapsed() + d
	r.clk.Record(&trace.Event{Kind: KindRuntimeDown, Dur: d})
	r.clk.Schedule(d, func() { r.clk.Record(&trace.Event{Kind: KindRuntimeUp}) })
}

// Ready reports whether the runtime answers calls (the RuntimeReady condition).
func (r *Runtime) Ready() bool { return !r.down() }

func (r *Runtime) down() bool {
	now := r.s.Elapsed()
	return now >= r.downSince && now < r.downUntil
}

// failure returns the injected error for a call now, if any.
func (r *Runtime) failure(call, image string) error {
	if r.down() {
		return fmt.Errorf("rpc error: code = Unavailable desc = connection error: dial unix /run/containerd/containerd.sock: connect: connection refused")
	}
	now := r.s.Elapsed()
	for _, f := range r.cfg.Failures {
		if f.Call != call || (f.Image != "" && f.Image != image) {
			continue
		}
		if now >= f.From && (f.To == 0 || now < f.To) {
			return fmt.Errorf("rpc error: code = Unknown desc = %s", f.Error)
		}
	}
	return nil
}

// call records a CRI call and returns its result through done after latency.
func (r *Runtime) call(name, pod, ctrName string, latency time.Duration, done func()) {
	r.s.Record(&trace.Event{Kind: KindCRICall, Name: name, Pod: pod, Container: ctrName, Dur: latency})
	r.s.Continue(latency, done)
}

// Trace kinds recorded by the runtime.
const (
	KindCRICall       trace.Kind = "criCall"
	KindContainerRun  trace.Kind = "containerRunning"
	KindContainerExit trace.Kind = "containerExited"
	KindPullStart     trace.Kind = "imagePullStarted"
	KindPullEnd       trace.Kind = "imagePullFinished"
	KindRuntimeDown   trace.Kind = "runtimeDown"
	KindRuntimeUp     trace.Kind = "runtimeUp"
)

// RunPodSandbox creates and starts a sandbox for pod.
func (r *Runtime) RunPodSandbox(pod *corev1.Pod, attempt uint32, done func(id string, err error)) {
	key := container.Key(pod)
	r.call("RunPodSandbox", key, "", r.cfg.Latency.RunPodSandbox, func() {
		if err := r.failure("runPodSandbox", ""); err != nil {
			done("", err)
			return
		}
		r.ipSeq++
		sb := &sandbox{
			id: r.newID("sb-"), uid: pod.UID, name: pod.Name, ns: pod.Namespace, key: key, attempt: attempt,
			state: container.SandboxReady, createdAt: r.s.Now(), pod: pod,
			ip: fmt.Sprintf("10.244.%d.%d", r.ipSeq/250, r.ipSeq%250+2),
		}
		r.sandboxes[sb.id] = sb
		o := r.objects(sb.uid)
		o.sandboxes = append(o.sandboxes, sb)
		r.touch(sb.uid)
		done(sb.id, nil)
	})
}

// StopPodSandbox stops a sandbox (its containers must already be stopped; any still
// running are killed, as the runtime would).
func (r *Runtime) StopPodSandbox(id string, done func(err error)) {
	sb := r.sandboxes[id]
	pod := ""
	if sb != nil {
		pod = sb.key
	}
	r.call("StopPodSandbox", pod, "", r.cfg.Latency.StopPodSandbox, func() {
		if err := r.failure("stopPodSandbox", ""); err != nil {
			done(err)
			return
		}
		if sb != nil {
			for _, c := range r.objects(sb.uid).ctrs {
				if c.sandbox == sb && c.state == container.StateRunning {
					r.exit(c, 137, "Error")
				}
			}
			sb.state = container.SandboxNotReady
			r.touch(sb.uid)
		}
		done(nil) // NotFound counts as success
	})
}

// RemoveAllDeadContainers removes every exited container and every sandbox that is not
// ready and has no container left, at once (the eviction manager's container GC).
func (r *Runtime) RemoveAllDeadContainers() int {
	removed := 0
	for _, uid := range append([]types.UID(nil), r.podUIDs()...) {
		o := r.byPod[uid]
		for _, c := range append([]*ctr(nil), o.ctrs...) {
			if c.state == container.StateRunning {
				continue
			}
			o.ctrs = removeFrom(o.ctrs, c)
			delete(r.ctrs, c.id)
			removed++
		}
		for _, sb := range append([]*sandbox(nil), o.sandboxes...) {
			if sb.state == container.SandboxReady {
				continue
			}
			busy := false
			for _, c := range o.ctrs {
				if c.sandbox == sb {
					busy = true
				}
			}
			if !busy {
				o.sandboxes = removeFrom(o.sandboxes, sb)
				delete(r.sandboxes, sb.id)
				removed++
			}
		}
		r.touch(uid)
		r.forgetIfEmpty(uid)
	}
	if removed > 0 {
		r.usageChanged()
	}
	return removed
}

// RemovePodSandbox removes a stopped sandbox.
func (r *Runtime) RemovePodSandbox(id string, done func(err error)) {
	r.call("RemovePodSandbox", "", "", r.cfg.Latency.RemovePodSandbox, func() {
		if err := r.failure("removePodSandbox", ""); err != nil {
			done(err)
			return
		}
		if sb := r.sandboxes[id]; sb != nil {
			o := r.objects(sb.uid)
			o.sandboxes = removeFrom(o.sandboxes, sb)
			r.touch(sb.uid)
			r.forgetIfEmpty(sb.uid)
		}
		delete(r.sandboxes, id)
		done(nil)
	})
}

func (r *Runtime) usageChanged() {
	if r.OnUsageChange != nil {
		r.OnUsageChange()
	}
}

// CreateContainer creates a container in a sandbox. attempt is the restart count the
// kubelet writes into the container's annotations; cfg is its cgroup settings.
func (r *Runtime) CreateContainer(sandboxID string, spec *corev1.Container, attempt int, cfg ContainerConfig, done func(id string, err error)) {
	sb := r.sandboxes[sandboxID]
	pod := ""
	if sb != nil {
		pod = sb.key
	}
	r.call("CreateContainer", pod, spec.Name, r.cfg.Latency.CreateContainer, func() {
		if err := r.failure("createContainer", ""); err != nil {
			done("", err)
			return
		}
		if sb == nil || r.sandboxes[sandboxID] == nil {
			done("", fmt.Errorf("rpc error: code = NotFound desc = sandbox %s not found", sandboxID))
			return
		}
		c := &ctr{
			id: r.newID("c-"), seq: r.seq, sandbox: sb, spec: *spec.DeepCopy(), hash: container.HashContainer(spec),
			attempt: attempt, state: container.StateCreated, createdAt: r.s.Now(),
			oomScoreAdj: cfg.OOMScoreAdj, memoryLimit: float64(cfg.MemoryLimit), podMemLimit: float64(cfg.PodMemoryLimit), tmpfs: r.tmpfsSizes(sb.pod),
		}
		if len(c.tmpfs) > 0 {
			c.tmpfsNames = slices.Sorted(maps.Keys(c.tmpfs))
		}
		r.ctrs[c.id] = c
		o := r.objects(sb.uid)
		o.ctrs = append(o.ctrs, c)
		r.touch(sb.uid)
		done(c.id, nil)
	})
}

// StartContainer starts a created container's process.
func (r *Runtime) StartContainer(id string, done func(err error)) {
	c := r.ctrs[id]
	pod, name := r.names(c)
	r.call("StartContainer", pod, name, r.cfg.Latency.StartContainer, func() {
		if err := r.failure("startContainer", ""); err != nil {
			done(err)
			return
		}
		if c == nil || r.ctrs[id] == nil || c.state != container.StateCreated {
			done(fmt.Errorf("rpc error: code = Unknown desc = container %s is not in created state", id))
			return
		}
		r.start(c)
		done(nil)
	})
}

// StopContainer sends the stop signal and, after grace, SIGKILL; it returns as soon as the
// process is gone, whatever ended it (its shutdown, the SIGKILL, the OOM killer, its own
// exit), as a runtime's StopContainer returns once the container has stopped.
func (r *Runtime) StopContainer(id string, grace time.Duration, done func(err error)) {
	c := r.ctrs[id]
	pod, name := r.names(c)
	r.s.Record(&trace.Event{Kind: KindCRICall, Name: "StopContainer", Pod: pod, Container: name,
		Attrs: []trace.Attr{{Key: "grace", Value: grace.String()}}})
	if err := r.failure("stopContainer", ""); err != nil {
		r.s.Continue(r.cfg.Latency.StopContainer, func() { done(err) })
		return
	}
	if c == nil || c.state != container.StateRunning {
		r.s.Continue(r.cfg.Latency.StopContainer, func() { done(nil) })
		return
	}
	caller := r.s.Self()
	latency := r.cfg.Latency.StopContainer
	c.stopWaiters = append(c.stopWaiters, func() { caller.Resume(latency, func() { done(nil) }) })
	c.proc.stop(grace)
}

// ContainerSpec is the spec a container was created with, or nil. A real runtime keeps
// what the kubelet needs of it (name, preStop hook, grace period) as container labels.
func (r *Runtime) ContainerSpec(id string) *corev1.Container {
	if c := r.ctrs[id]; c != nil {
		return c.spec.DeepCopy()
	}
	return nil
}

// RemoveContainer deletes an exited container.
func (r *Runtime) RemoveContainer(id string, done func(err error)) {
	r.removeContainer(id, false, done)
}

// RemoveContainerKeepLogs removes a container but leaves its log files on the node, as the
// kubelet's RestartAllContainers reset does (removeContainer with keepLogs): the next
// instance of that container then continues its restart count from them.
func (r *Runtime) RemoveContainerKeepLogs(id string, done func(err error)) {
	r.removeContainer(id, true, done)
}

// LogRestartCount is the restart count the kubelet gives a new instance of a container the
// runtime holds none of (upstream calcRestartCountByLogDir): one more than the highest
// attempt whose log file is still on the node, 0 without any.
func (r *Runtime) LogRestartCount(uid types.UID, name string) int {
	return r.keptLogs[uid][name]
}

func (r *Runtime) removeContainer(id string, keepLogs bool, done func(err error)) {
	c := r.ctrs[id]
	pod, name := r.names(c)
	r.call("RemoveContainer", pod, name, r.cfg.Latency.RemoveContainer, func() {
		if err := r.failure("removeContainer", ""); err != nil {
			done(err)
			return
		}
		if c != nil && c.state == container.StateRunning {
			done(fmt.Errorf("rpc error: code = Unknown desc = container %s is running", id))
			return
		}
		if c != nil {
			if keepLogs {
				logs := r.keptLogs[c.sandbox.uid]
				if logs == nil {
					logs = map[string]int{}
					r.keptLogs[c.sandbox.uid] = logs
				}
				logs[c.spec.Name] = max(logs[c.spec.Name], c.attempt+1)
			}
			o := r.objects(c.sandbox.uid)
			o.ctrs = removeFrom(o.ctrs, c)
			r.touch(c.sandbox.uid)
			r.forgetIfEmpty(c.sandbox.uid)
		}
		delete(r.ctrs, id)
		r.usageChanged()
		done(nil)
	})
}

func (r *Runtime) names(c *ctr) (pod, name string) {
	if c == nil {
		return "", ""
	}
	return c.sandbox.key, c.spec.Name
}

func removeFrom[T comparable](list []T, x T) []T {
	for i, y := range list {
		if y == x {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

func (r *Runtime) forgetIfEmpty(uid types.UID) {
	if o := r.byPod[uid]; o != nil && len(o.sandboxes) == 0 && len(o.ctrs) == 0 {
		delete(r.byPod, uid)
		o.dropped = true
		r.uids = nil
		r.memProcs = nil
	}
}

// podUIDs lists the pods the runtime has objects for, in UID order.
func (r *Runtime) podUIDs() []types.UID {
	if r.uids == nil {
		r.uids = slices.Sorted(maps.Keys(r.byPod))
		// A fresh slice, as uids is: a walk over the old one may be under way.
		r.podsSorted = make([]*podObjects, 0, len(r.uids))
		for i, uid := range r.uids {
			o := r.byPod[uid]
			o.sortedAt = i
			r.podsSorted = append(r.podsSorted, o)
		}
		r.sortedGen++
	}
	return r.uids
}

// sortedPods is the objects of every pod in UID order. It is made and dropped with uids
// (objects and forgetIfEmpty clear uids whenever byPod gains or loses a pod, and a pod's
// objects are never replaced while it is in byPod), so it is current whenever uids is.
func (r *Runtime) sortedPods() []*podObjects {
	r.podUIDs()
	return r.podsSorted
}

// ContainerCount is how many containers and sandboxes exist (the relist cost grows with it).
func (r *Runtime) ContainerCount() int { return len(r.ctrs) + len(r.sandboxes) }

// ListCost is how long listing every sandbox and container takes now.
func (r *Runtime) ListCost() time.Duration {
	return r.cfg.Latency.ListPodSandbox + time.Duration(r.ContainerCount())*r.cfg.Latency.ListContainersPerContainer
}

// StatusCost is how long GetPodStatus takes for a pod with n containers.
func (r *Runtime) StatusCost(n int) time.Duration {
	return time.Duration(n+1) * r.cfg.Latency.ContainerStatus
}

// GetPods lists every pod the runtime has (sandboxes and containers, exited ones
// included), by UID order. It is instantaneous: the caller accounts for ListCost. The
// pods are shared and immutable, and an unchanged pod is the same object as in the
// previous listing. The slice is the runtime's own, rewritten in place by a later GetPods
// once the runtime changed (ListingVersion moved): a caller reads it before it calls the
// runtime's GetPods again, and copies what it keeps longer. While ListingVersion stays,
// GetPods returns the same slice with the same pods.
func (r *Runtime) GetPods() ([]*container.Pod, error) {
	if err := r.failure("listPodSandbox", ""); err != nil {
		return nil, err
	}
	if r.listingOK {
		return r.listing, nil
	}
	pods := r.sortedPods()
	if r.listingOf == r.sortedGen {
		// The same pods at the same places: only the changed pods' entries are new.
		for _, o := range r.listingStale {
			r.listing[o.sortedAt] = o.list()
		}
	} else {
		out := r.listing[:0]
		for _, o := range pods {
			out = append(out, o.list())
		}
		clear(out[len(out):cap(out)]) // drop pods no longer listed
		r.listing, r.listingOf = out, r.sortedGen
	}
	clear(r.listingStale)
	r.listingStale = r.listingStale[:0]
	r.listingOK = true
	return r.listing, nil
}

// ListingVersion changes whenever what GetPods lists may have changed: a caller that kept
// a copy of a listing made at the same version holds what GetPods would answer now.
func (r *Runtime) ListingVersion() uint64 { return r.listingVersion }

// GetPod is one pod's entry of the listing GetPods hands out (the same object), nil if the
// runtime has nothing of the pod, without making the rest of the listing.
func (r *Runtime) GetPod(uid types.UID) (*container.Pod, error) {
	if err := r.failure("listPodSandbox", ""); err != nil {
		return nil, err
	}
	// byPod holds no pod without objects (forgetIfEmpty), as GetPods lists none.
	if o := r.byPod[uid]; o != nil {
		return o.list(), nil
	}
	return nil, nil
}

func (o *podObjects) list() *container.Pod {
	if o.listing != nil {
		return o.listing
	}
	// The pod, the entries of both lists and both lists are allocated at once: the lists
	// are parts of one array, each capped at its length (an append to one copies instead
	// of running into the other); an empty list stays nil.
	n := len(o.sandboxes) + len(o.ctrs)
	var (
		p       *container.Pod
		entries []container.Container
		ptrs    []*container.Container
	)
	switch {
	case n <= 2:
		b := new(podListing2)
		p, entries, ptrs = &b.pod, b.entries[:n], b.ptrs[:n]
	case n <= 4:
		b := new(podListing4)
		p, entries, ptrs = &b.pod, b.entries[:n], b.ptrs[:n]
	default:
		p, entries, ptrs = new(container.Pod), make([]container.Container, n), make([]*container.Container, n)
	}
	if len(o.sandboxes) > 0 {
		*p = container.Pod{ID: o.uid, Name: o.sandboxes[0].name, Namespace: o.sandboxes[0].ns}
	} else {
		*p = container.Pod{ID: o.uid, Name: o.ctrs[0].sandbox.name, Namespace: o.ctrs[0].sandbox.ns}
	}
	for i := range entries {
		ptrs[i] = &entries[i]
	}
	for i, sb := range o.sandboxes {
		st := container.StateExited
		if sb.state == container.SandboxReady {
			st = container.StateRunning
		}
		entries[i] = container.Container{ID: sb.id, State: st}
	}
	for i, c := range o.ctrs {
		entries[len(o.sandboxes)+i] = container.Container{ID: c.id, Name: c.spec.Name, Image: c.spec.Image, Hash: c.hash, State: c.state}
	}
	if len(o.sandboxes) > 0 {
		p.Sandboxes = ptrs[:len(o.sandboxes):len(o.sandboxes)]
	}
	if len(o.ctrs) > 0 {
		p.Containers = ptrs[len(o.sandboxes):n:n]
	}
	o.listing = p
	return p
}

// podListing2 and podListing4 are a pod's listing with room for its entries and lists,
// allocated at once (list), for the usual pod: a sandbox and a container or three.
type podListing2 struct {
	pod     container.Pod
	entries [2]container.Container
	ptrs    [2]*container.Container
}

type podListing4 struct {
	pod     container.Pod
	entries [4]container.Container
	ptrs    [4]*container.Container
}

// GetPodStatus returns everything the runtime knows of one pod, newest first. It is
// instantaneous: the caller accounts for StatusCost. The status is new; its lists of
// sandbox and container statuses (and IPs) are shared with the other statuses of the pod
// handed out until it changes, and must not be written, as the listing's.
func (r *Runtime) GetPodStatus(uid types.UID, name, ns string) (*container.PodStatus, error) {
	if err := r.failure("containerStatus", ""); err != nil {
		return nil, err
	}
	st := &container.PodStatus{ID: uid, Name: name, Namespace: ns, TimeStamp: r.s.Now()}
	o := r.byPod[uid]
	if o == nil || len(o.sandboxes) == 0 && len(o.ctrs) == 0 {
		return st, nil
	}
	if l := o.list(); o.statusLists.of != l {
		o.statusLists = o.makeStatusLists()
		o.statusLists.of = l
	}
	st.SandboxStatuses, st.ContainerStatuses, st.IPs = o.statusLists.sandboxes, o.statusLists.containers, o.statusLists.ips
	return st, nil
}

// makeStatusLists makes the pod's sandbox and container statuses, newest first, and its
// IPs, from the statuses each object keeps (statusNow).
func (o *podObjects) makeStatusLists() podStatusLists {
	var l podStatusLists
	// A small pod's two lists are allocated at once (statusListsSmall), each capped at
	// its length.
	if nsb, nc := len(o.sandboxes), len(o.ctrs); nsb <= 2 && nc <= 3 {
		b := new(statusListsSmall)
		l.sandboxes, l.containers = b.sandboxes[:nsb:nsb], b.containers[:nc:nc]
	} else {
		l.sandboxes, l.containers = make([]*container.SandboxStatus, nsb), make([]*container.Status, nc)
	}
	for j := range l.sandboxes {
		sb := o.sandboxes[len(o.sandboxes)-1-j]
		l.sandboxes[j] = sb.statusNow()
		if sb.state == container.SandboxReady && len(l.ips) == 0 {
			if sb.ips == nil {
				sb.ips = []string{sb.ip}
			}
			l.ips = sb.ips
		}
	}
	for j := range l.containers {
		l.containers[j] = o.ctrs[len(o.ctrs)-1-j].statusNow()
	}
	// An empty list stays nil.
	if len(l.sandboxes) == 0 {
		l.sandboxes = nil
	}
	if len(l.containers) == 0 {
		l.containers = nil
	}
	return l
}

// statusListsSmall holds the status lists of a pod with up to two sandboxes and three
// containers.
type statusListsSmall struct {
	sandboxes  [2]*container.SandboxStatus
	containers [3]*container.Status
}

// statusNow is the sandbox's status as GetPodStatus reports it now. Of the fields it
// copies only the state ever changes, so the status made for the current state stands
// until the state moves; it is shared by every status list that holds it, and never
// written.
func (sb *sandbox) statusNow() *container.SandboxStatus {
	if sb.status == nil || sb.status.State != sb.state {
		sb.status = &container.SandboxStatus{ID: sb.id, State: sb.state, Attempt: sb.attempt, CreatedAt: sb.createdAt, IP: sb.ip}
	}
	return sb.status
}

// statusNow is the container's status as GetPodStatus reports it now. The fields it copies
// change only when the state does (start: running and its start time; exit: exited, its
// finish time, exit code and reason), and a container enters each state once, so the
// status made for the current state stands until the state moves; it is shared by every
// status list that holds it, and never written.
func (c *ctr) statusNow() *container.Status {
	if c.status == nil || c.status.State != c.state {
		c.status = &container.Status{
			ID: c.id, Name: c.spec.Name, State: c.state, CreatedAt: c.createdAt, StartedAt: c.startedAt,
			FinishedAt: c.finished, ExitCode: c.exitCode, Image: c.spec.Image, Hash: c.hash,
			RestartCount: c.attempt, Reason: c.reason,
		}
	}
	return c.status
}

// Package engine assembles a simulated node from a loaded scenario and runs it: the fake
// runtime and API server, a kubelet over them, the scenario's pods delivered at their
// times and its events played out, all on one seeded simulation whose trace is the run's
// only output.
package engine

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/upstream"
	"nodesim/model/apiserver"
	"nodesim/model/cri"
	"nodesim/model/eviction"
	"nodesim/model/kubelet"
	"nodesim/model/kuberuntime"
	"nodesim/model/oom"
	"nodesim/model/pleg"
	"nodesim/model/podworkers"
	"nodesim/scenarios"
	"nodesim/sim"
	"nodesim/trace"
)

// Trace kinds recorded by the scenario driver.
const (
	KindRunStart      trace.Kind = "runStart"
	KindRunEnd        trace.Kind = "runEnd"
	KindScenarioEvent trace.Kind = "scenarioEvent"
)

// BootTime is how long the kubelet runs before the scenario's time zero, so that the
// scenario starts on a node that is up: its first relist done, its node Ready.
const BootTime = time.Second

// Result is one finished run.
type Result struct {
	Scenario *scenarios.Loaded
	Seed     uint64
	// End is the simulated time the run stopped at.
	End time.Duration
	// Trace is the run's trace when Options.KeepTrace asked for it (else empty).
	Trace *trace.Log
	// Fired is how many kernel events ran.
	Fired uint64
}

// Options tune a run.
type Options struct {
	// Sink receives every trace event as it is recorded (a report builder, a file writer).
	Sink trace.Sink
	// KeepTrace keeps every event in Result.Trace as well. A long run's trace is large: the
	// reports stream it instead.
	KeepTrace bool
	// SkipInvariants turns the run-time invariant checker off (benchmarks measure its cost
	// with it). Every run from the command line checks them.
	SkipInvariants bool
	// SkipReasons says no sink reads a decision's Reason (a report, a sweep): the run
	// records no Reason and the model need not build them (sim.Sim.SetReasons). Every
	// other part of every event is the same.
	SkipReasons bool
	// Interrupted, when set, is asked after every recorded event; once it says true the run
	// stops there and Run returns ErrInterrupted. It reads a flag another goroutine sets (a
	// signal handler), so it never changes what a run that finishes does.
	Interrupted func() bool
	// Interrupt, when set, is such a flag itself: it is read after every recorded event,
	// before Interrupted is asked, and once it is nonzero the run stops there and Run
	// returns ErrInterrupted. An atomic load costs an event far less than a call.
	Interrupt *atomic.Int32
}

// ErrInterrupted is the error of a run stopped by Options.Interrupted.
var ErrInterrupted = errors.New("run interrupted")

// newChecker is the invariant checker a run uses; tests replace it to break a rule on
// purpose. When the sink it returns is the checker itself the recorder calls the checker
// directly; any other sink is called through the interface.
var newChecker = func() (trace.Sink, *invariantChecker) {
	c := newInvariantChecker()
	return c, c
}

// recorder is the Sim's one sink. It hands each event to the caller's sink (the run's log
// first when it keeps one), then checks the invariants and the interruption and stops the
// simulation at the first violation or interruption. Fixed fields and one function rather
// than a chain of sinks, so that an event costs one interface call into the recorder, one
// into the caller's sink and, for the few kinds the checker looks at, a direct call into
// the checker.
type recorder struct {
	s    *sim.Sim
	sink trace.Sink // Options.Sink, behind the run's log with Options.KeepTrace; trace.Discard when neither
	// inv is the invariant checker, nil when skipped. check is a checker a test put in its
	// place (newChecker), nil for the real one, which is called directly.
	inv   *invariantChecker
	check trace.Sink
	// fast is inv while the common path applies: the real checker, no Options.Interrupted
	// and the run not stopped. It is nil otherwise (set once by Run, cleared by stop), and
	// every event then takes recordChecked and recordSlow.
	fast *invariantChecker
	// interrupt is Options.Interrupt, or noInterrupt (which stays zero) when that is unset,
	// so that reading it takes no nil check. interrupted is Options.Interrupted.
	interrupt   *atomic.Int32
	noInterrupt atomic.Int32
	interrupted func() bool
	// skip has the bit of each kind of skippableKinds the sink skips (trace.Skipper). The
	// sink is handed every event of the other kinds.
	skip uint64
	// stoppedBy is the violation or interruption that stopped the run, nil while none did.
	// Events recorded after it (the rest of the stopping step) still reach the log and the
	// sink, but are neither checked nor asked about.
	stoppedBy error
}

// The kinds a sink may skip (trace.Skipper), each with a bit of recorder.skip: besides
// probe results, which the report reads, the kinds most events of a run are.
const (
	skipStats = iota
	skipUpdatePod
	skipSyncStart
	skipPodActions
	skipRequeue
	skipHandler
	skipHousekeeping
	skipSend
	skipRecv
	skipBackOff
	skipPatchStatus
	skipPLEGEvent
	skippable // how many
)

// skippableKinds names the kind of each bit. Record's switch has a case for each that tests
// its bit; TestSkipperSeesEveryOtherEvent holds the two to each other.
func skippableKinds() [skippable]trace.Kind {
	return [skippable]trace.Kind{
		skipStats: trace.Stats, skipUpdatePod: podworkers.KindUpdatePod, skipSyncStart: podworkers.KindSyncStart,
		skipPodActions: kuberuntime.KindPodActions, skipRequeue: podworkers.KindRequeue, skipHandler: kubelet.KindHandler,
		skipHousekeeping: kubelet.KindHousekeeping, skipSend: trace.Send, skipRecv: trace.Recv,
		skipBackOff: kuberuntime.KindBackOff, skipPatchStatus: apiserver.KindPatchStatus, skipPLEGEvent: pleg.KindEvent,
	}
}

// Record hands e to the sink and the checker. The common path (the real checker and no
// interruption) is one switch on the kind, a jump on its length and a comparison or two,
// that says both whether the checker looks at the event (then recordChecked takes it) and
// whether the sink skips it; the sink's call comes last, so that nothing is kept across
// it. The interruption is read before the sink sees the event rather than after: it is a
// flag another goroutine sets, read once per event either way, and an event that finds it
// set takes recordChecked, which hands it to the sink and then stops the run.
func (r *recorder) Record(e *trace.Event) {
	if r.fast == nil || r.interrupt.Load() != 0 {
		r.recordChecked(e)
		return
	}
	// The checked kinds are those checks names, the skippable ones those of skippableKinds.
	switch e.Kind {
	case "containerRunning", "containerExited", "criCall", "setPodStatus", "workerState",
		"scenarioEvent", "apiRemoved", trace.EvictionPass, trace.Eviction:
		r.recordChecked(e)
		return
	case trace.Stats:
		if e.Name == "node" {
			r.recordChecked(e)
			return
		}
		if r.skip&(1<<skipStats) != 0 {
			return
		}
	case podworkers.KindUpdatePod:
		if r.skip&(1<<skipUpdatePod) != 0 {
			return
		}
	case podworkers.KindSyncStart:
		if r.skip&(1<<skipSyncStart) != 0 {
			return
		}
	case kuberuntime.KindPodActions:
		if r.skip&(1<<skipPodActions) != 0 {
			return
		}
	case podworkers.KindRequeue:
		if r.skip&(1<<skipRequeue) != 0 {
			return
		}
	case kubelet.KindHandler:
		if r.skip&(1<<skipHandler) != 0 {
			return
		}
	case kubelet.KindHousekeeping:
		if r.skip&(1<<skipHousekeeping) != 0 {
			return
		}
	case trace.Send:
		if r.skip&(1<<skipSend) != 0 {
			return
		}
	case trace.Recv:
		if r.skip&(1<<skipRecv) != 0 {
			return
		}
	case kuberuntime.KindBackOff:
		if r.skip&(1<<skipBackOff) != 0 {
			return
		}
	case apiserver.KindPatchStatus:
		if r.skip&(1<<skipPatchStatus) != 0 {
			return
		}
	case pleg.KindEvent:
		if r.skip&(1<<skipPLEGEvent) != 0 {
			return
		}
	}
	r.sink.Record(e)
}

// unread lists the kinds that nobody reads in this run, for the Sim to tell the components
// (see sim.Sim.SetSkips), which then build none of their events: the kinds the sink skips,
// when it is the only reader of such events. The real checker reads node stats, so stats
// stay recorded while it runs; a test's checker reads every event, and Options.Interrupted
// counts them, so either turns the list off.
func (r *recorder) unread() []trace.Kind {
	if r.check != nil || r.interrupted != nil {
		return nil
	}
	var kinds []trace.Kind
	for i, k := range skippableKinds() {
		if r.skip&(1<<i) != 0 && (k != trace.Stats || r.inv == nil) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// skips reports whether the sink skips e's kind, off the common path.
func (r *recorder) skips(e *trace.Event) bool {
	for i, k := range skippableKinds() {
		if e.Kind == k {
			return r.skip&(1<<i) != 0
		}
	}
	return false
}

// recordChecked hands an event to the sink (unless it skips the kind), then checks it: an
// event the checker looks at, every event off the common path, and the event that finds
// the run interrupted.
func (r *recorder) recordChecked(e *trace.Event) {
	if !r.skips(e) {
		r.sink.Record(e)
	}
	inv := r.fast
	if inv == nil {
		r.recordSlow(e)
		return
	}
	// The real checker sees only the kinds it checks.
	if checks(e) {
		inv.Record(e)
		// Only a call into the checker sets a violation.
		if inv.violation != nil {
			r.stop(inv.violation)
			return
		}
	}
	if r.interrupt.Load() != 0 {
		r.stop(ErrInterrupted)
	}
}

// recordSlow checks an event off the common path: with no checker or a test's checker,
// with Options.Interrupted, or after the run stopped.
func (r *recorder) recordSlow(e *trace.Event) {
	if r.stoppedBy != nil {
		return
	}
	// A checker a test put in place sees every event; the real one only the kinds it checks.
	if r.inv != nil && (r.check != nil || checks(e)) {
		if r.check != nil {
			r.check.Record(e)
		} else {
			r.inv.Record(e)
		}
		// Only a call into the checker sets a violation.
		if r.inv.violation != nil {
			r.stop(r.inv.violation)
			return
		}
	}
	if r.interrupt.Load() != 0 {
		r.stop(ErrInterrupted)
		return
	}
	if r.interrupted != nil && r.interrupted() {
		r.stop(ErrInterrupted)
	}
}

// logThenSink keeps every event in the run's log, then hands it to the caller's sink: the
// recorder's sink when a run keeps its trace and has a sink too.
type logThenSink struct {
	log  *trace.Log
	sink trace.Sink
}

func (t logThenSink) Record(e *trace.Event) {
	t.log.Record(e)
	t.sink.Record(e)
}

// stop ends the run at the event being recorded, for err.
func (r *recorder) stop(err error) {
	r.stoppedBy = err
	r.fast = nil
	r.s.Stop()
}

// Run simulates the scenario with the given seed.
func Run(l *scenarios.Loaded, seed uint64, opts Options) (*Result, error) {
	log := &trace.Log{}
	out := &recorder{sink: opts.Sink, interrupt: opts.Interrupt, interrupted: opts.Interrupted}
	if out.interrupt == nil {
		out.interrupt = &out.noInterrupt
	}
	if opts.KeepTrace {
		if opts.Sink == nil {
			out.sink = log
		} else {
			out.sink = logThenSink{log: log, sink: opts.Sink}
		}
	}
	if out.sink == nil {
		// Never nil, so that the recorder calls it without a test.
		out.sink = trace.Discard{}
	}
	if sk, ok := out.sink.(trace.Skipper); ok {
		// Only a sink the recorder calls directly: a run's log keeps every event.
		kinds := skippableKinds()
		for _, k := range sk.SkipsKinds() {
			for i := range kinds {
				if kinds[i] == k {
					out.skip |= 1 << i
				}
			}
		}
	}
	if !opts.SkipInvariants {
		var check trace.Sink
		check, out.inv = newChecker()
		if check != trace.Sink(out.inv) {
			out.check = check
		}
	}
	if out.check == nil && out.interrupted == nil {
		out.fast = out.inv
	}
	s := sim.New(seed, out)
	s.SetReasons(!opts.SkipReasons)
	s.SetSkips(out.unread())
	if out.skip&(1<<skipStats) != 0 && out.check == nil && out.interrupted == nil {
		// The real checker reads the node's stats only (see checks): the pods' samples
		// have no reader (see unread).
		s.SkipPodStats()
	}
	// The per-second bound grows with the node: each pod adds its workers, probes and stats.
	s.SetWatchdog(sim.Watchdog{PerSecond: sim.DefaultWatchdog.PerSecond + 50_000*uint64(len(l.Pods))})
	out.s = s
	s.StartAt(-BootTime)
	spec := &l.Scenario.Spec

	rc := runtimeConfig(l)
	rc.Seed = seed
	rt := cri.New(s, rc)
	apiServer := apiserver.New(s)
	machine := kubelet.Node{Name: nodeName(spec), Capacity: capacity(spec, l.Kubelet.MaxPods)}
	res := nodeResources(l, machine.Capacity)
	kernel := oom.NewKernel(s, rt, res.MemoryCapacity, res.KubepodsLimit, l.Kubelet.SingleProcessOOMKill != nil && *l.Kubelet.SingleProcessOOMKill)
	thresholds, err := eviction.ParseThresholdConfig(l.Kubelet.EnforceNodeAllocatable, l.Kubelet.EvictionHard, l.Kubelet.EvictionSoft,
		l.Kubelet.EvictionSoftGracePeriod, l.Kubelet.EvictionMinimumReclaim)
	if err != nil {
		return nil, fmt.Errorf("eviction thresholds: %w", err)
	}
	gates := l.Gates
	if gates == nil { // a Loaded built by hand: the registry's defaults
		if gates, err = upstream.NewKubeletGates(); err != nil {
			return nil, err
		}
	}
	n := &node{s: s, deps: kubelet.Dependencies{Runtime: rt, API: apiServer, Node: machine, Config: l.Kubelet,
		MemoryCapacity: int64(res.MemoryCapacity), Gates: gates,
		Eviction: &kubelet.EvictionDeps{Thresholds: thresholds, Resources: res, Notifier: kernel,
			CgroupV1: spec.Node.CgroupVersion == api.CgroupV1}}}

	driver := s.Clock("scenario", sim.PriorityConfig)
	n.startKubelet()
	s.RunUntil(0)
	if out.stoppedBy != nil {
		return nil, out.stoppedBy
	}
	driver.Record(&trace.Event{Kind: KindRunStart, Attrs: []trace.Attr{
		{Key: "scenario", Value: l.Scenario.Metadata.Name}, {Key: "seed", Value: fmt.Sprint(seed)}}})

	for i := range l.Pods {
		p := l.Pods[i]
		driver.Schedule(p.At, func() {
			if p.Source == api.SourceFile {
				n.addStaticPod(p.Pod)
				return
			}
			apiServer.Create(p.Pod)
		})
	}
	for i := range spec.Events {
		e := spec.Events[i]
		driver.Schedule(e.At.Duration, func() { n.playEvent(driver, l, &e) })
	}
	if spec.StopWhen == api.StopAllPodsTerminal && len(l.Pods) > 0 {
		var check func()
		check = func() {
			if allTerminal(apiServer, l) {
				driver.Record(&trace.Event{Kind: KindRunEnd, Attrs: []trace.Attr{{Key: "reason", Value: "all pods terminal"}}})
				s.Stop()
				return
			}
			driver.Schedule(time.Second, check)
		}
		driver.Schedule(time.Second, check)
	}
	s.RunUntil(spec.Duration.Duration)
	if st := s.Stall(); st != nil {
		return nil, st
	}
	if out.stoppedBy != nil {
		return nil, out.stoppedBy
	}
	if !s.Stopped() {
		driver.Record(&trace.Event{Kind: KindRunEnd, Attrs: []trace.Attr{{Key: "reason", Value: "duration reached"}}})
	}
	return &Result{Scenario: l, Seed: seed, End: s.Elapsed(), Trace: log, Fired: s.Fired()}, nil
}

// node is the machine: the runtime and API server that outlive kubelet restarts, the
// static pod directory, and the kubelet process running now.
type node struct {
	s          *sim.Sim
	deps       kubelet.Dependencies
	kl         *kubelet.Kubelet
	life       *sim.Lifetime
	staticPods []*corev1.Pod
	restarts   int
}

// startKubelet starts a kubelet process; every goroutine it has belongs to its lifetime.
func (n *node) startKubelet() {
	n.life = sim.NewLifetime(fmt.Sprintf("kubelet-%d", n.restarts))
	n.s.Within(n.life, func() {
		n.deps.StaticPods = func() []*corev1.Pod { return n.staticPods }
		n.kl = kubelet.New(n.s, n.deps)
		n.kl.Run()
	})
}

// restartKubelet ends the kubelet process (every pending step of it is dropped) and starts
// a new one over the same runtime and API server.
func (n *node) restartKubelet() {
	n.kl.Stop()
	n.life.End()
	n.restarts++
	n.startKubelet()
}

// addStaticPod writes a static pod manifest into the kubelet's pod directory.
func (n *node) addStaticPod(p *corev1.Pod) {
	n.staticPods = append(n.staticPods, p)
	n.kl.StaticPodsChanged()
}

func (n *node) playEvent(c *sim.Clock, l *scenarios.Loaded, e *api.Event) {
	apiServer := n.deps.API
	switch {
	case e.DeletePod != "":
		ns, name := splitKey(e.DeletePod)
		c.Record(&trace.Event{Kind: KindScenarioEvent, Name: "deletePod", Pod: ns + "/" + name})
		if p := apiServer.GetByName(ns, name); p != nil {
			apiServer.Delete(p.UID, e.GracePeriodSeconds)
		}
	case e.UpdatePod != "":
		ns, name := splitKey(e.UpdatePod)
		c.Record(&trace.Event{Kind: KindScenarioEvent, Name: "updatePod", Pod: ns + "/" + name})
		if cur := apiServer.GetByName(ns, name); cur != nil {
			p := e.Pod.DeepCopy()
			p.UID = cur.UID
			p.Namespace, p.Name = ns, name
			apiServer.Update(p)
		}
	case e.RestartKubelet != nil:
		c.Record(&trace.Event{Kind: KindScenarioEvent, Name: "restartKubelet"})
		n.restartKubelet()
	case e.RuntimeDown != nil:
		c.Record(&trace.Event{Kind: KindScenarioEvent, Name: "runtimeDown", Dur: e.RuntimeDown.Duration})
		n.deps.Runtime.SetDown(e.RuntimeDown.Duration)
	case e.SetUsage != nil:
		ns, name := splitKey(e.SetUsage.Pod)
		c.Record(&trace.Event{Kind: KindScenarioEvent, Name: "setUsage", Pod: ns + "/" + name, Container: e.SetUsage.Container})
		n.deps.Runtime.SetUsage(ns+"/"+name, e.SetUsage.Container, &cri.UsageOverride{Memory: e.SetUsage.Memory,
			Disk: e.SetUsage.Disk, Pids: e.SetUsage.Pids, Volumes: e.SetUsage.Volumes})
	case e.SetSystemUsage != nil:
		c.Record(&trace.Event{Kind: KindScenarioEvent, Name: "setSystemUsage"})
		n.deps.Runtime.SetSystemUsage(e.SetSystemUsage.Memory, e.SetSystemUsage.Disk)
	}
}

func splitKey(ref string) (string, string) {
	for i := 0; i < len(ref); i++ {
		if ref[i] == '/' {
			return ref[:i], ref[i+1:]
		}
	}
	return "default", ref
}

// allTerminal reports whether every scenario pod has reached Succeeded or Failed (or is
// gone from the API after being deleted).
func allTerminal(apiServer *apiserver.Server, l *scenarios.Loaded) bool {
	for _, p := range l.Pods {
		cur := apiServer.Get(p.Pod.UID)
		if cur == nil {
			continue
		}
		if cur.Status.Phase != corev1.PodSucceeded && cur.Status.Phase != corev1.PodFailed {
			return false
		}
	}
	return true
}

func nodeName(spec *api.Spec) string {
	if spec.Node.Name != "" {
		return spec.Node.Name
	}
	return api.DefaultNodeName
}

// capacity is the node's capacity with defaults for what the scenario leaves out.
func capacity(spec *api.Spec, maxPods int32) corev1.ResourceList {
	out := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("4"),
		corev1.ResourceMemory:           resource.MustParse("8Gi"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
	}
	for k, v := range spec.Node.Capacity {
		out[k] = v.DeepCopy()
	}
	// The node's pod capacity is the kubelet's maxPods, as the kubelet reports it
	// (nodestatus MachineInfo); the loader refuses a capacity.pods that says otherwise.
	out[corev1.ResourcePods] = *resource.NewQuantity(int64(maxPods), resource.DecimalSI)
	return out
}

// Defaults for what the scenario leaves out of the node.
const (
	defaultPidMax        = 32768
	bytesPer16GiOfInodes = 16 << 30
	inodesPer16Gi        = 1 << 20
)

// nodeResources is what the stats provider and the kernel know of the machine.
func nodeResources(l *scenarios.Loaded, capacity corev1.ResourceList) eviction.NodeResources {
	spec := &l.Scenario.Spec
	mem := capacity[corev1.ResourceMemory]
	disk := capacity[corev1.ResourceEphemeralStorage]
	res := eviction.NodeResources{MemoryCapacity: float64(mem.Value()), NodeFsCapacity: float64(disk.Value()), PidMax: defaultPidMax}
	res.KubepodsLimit = res.MemoryCapacity
	enforce := false
	for _, e := range l.Kubelet.EnforceNodeAllocatable {
		if e == "pods" {
			enforce = true
		}
	}
	if enforce {
		for _, m := range []map[string]string{l.Kubelet.SystemReserved, l.Kubelet.KubeReserved} {
			if v, ok := m["memory"]; ok {
				if q, err := resource.ParseQuantity(v); err == nil {
					res.KubepodsLimit -= float64(q.Value())
				}
			}
		}
	}
	res.NodeFsInodes = res.NodeFsCapacity / bytesPer16GiOfInodes * inodesPer16Gi
	if spec.Node.Inodes != nil {
		res.NodeFsInodes = float64(*spec.Node.Inodes)
	}
	if spec.Node.Pids != nil {
		res.PidMax = float64(*spec.Node.Pids)
	}
	if spec.Node.ImageFs == api.ImageFsSeparate && spec.Node.ImageFsCapacity != nil {
		res.DedicatedImageFs = true
		res.ImageFsCapacity = float64(spec.Node.ImageFsCapacity.Value())
		res.ImageFsInodes = res.ImageFsCapacity / bytesPer16GiOfInodes * inodesPer16Gi
	}
	return res
}

func runtimeConfig(l *scenarios.Loaded) cri.Config {
	spec := &l.Scenario.Spec
	lat := cri.DefaultLatency()
	set := func(dst *time.Duration, src *api.Duration) {
		if src != nil {
			*dst = src.Duration
		}
	}
	sl := &spec.Runtime.Latency
	set(&lat.RunPodSandbox, sl.RunPodSandbox)
	set(&lat.StopPodSandbox, sl.StopPodSandbox)
	set(&lat.CreateContainer, sl.CreateContainer)
	set(&lat.StartContainer, sl.StartContainer)
	set(&lat.StopContainer, sl.StopContainer)
	set(&lat.RemoveContainer, sl.RemoveContainer)
	set(&lat.ListPodSandbox, sl.ListPodSandbox)
	set(&lat.ListContainersPerContainer, sl.ListContainersPerContainer)
	set(&lat.ContainerStatus, sl.ContainerStatus)
	cfg := cri.Config{Latency: lat, Images: map[string]cri.Image{}, SizeMemoryBackedVolumes: true} // always on: the gate went GA and was removed before v1.37
	if su := spec.Node.SystemUsage; su != nil {
		cfg.SystemMemory, cfg.SystemDisk = su.Memory, su.Disk
	}
	bw := resource.MustParse(api.DefaultPullBandwidth)
	if spec.Runtime.PullBandwidth != nil {
		bw = *spec.Runtime.PullBandwidth
	}
	cfg.PullBandwidth = float64(bw.Value())
	for _, img := range spec.Runtime.Images {
		size := int64(cri.DefaultImageSize)
		if img.Size != nil {
			size = img.Size.Value()
		}
		cfg.Images[img.Name] = cri.Image{Name: img.Name, Size: size, Present: img.Present}
	}
	for _, f := range spec.Runtime.Failures {
		cf := cri.Failure{Call: f.Call, Image: f.Image, Error: f.Error}
		if f.From != nil {
			cf.From = f.From.Duration
		}
		if f.To != nil {
			cf.To = f.To.Duration
		}
		cfg.Failures = append(cfg.Failures, cf)
	}
	behaviors := map[string]map[string]api.Behavior{}
	for _, p := range l.Pods {
		behaviors[p.Key()] = p.Behavior
	}
	cfg.Behavior = func(pod *corev1.Pod, name string) *api.Behavior {
		m := behaviors[pod.Namespace+"/"+pod.Name]
		if b, ok := m[name]; ok {
			return &b
		}
		if b, ok := m["*"]; ok {
			return &b
		}
		return nil
	}
	return cfg
}

// Package kubelet is the heart of the simulated kubelet (upstream pkg/kubelet): the
// syncLoop and its select over configCh, plegCh, the sync and housekeeping tickers and the
// probe result channels; the handlers that hand pods to pod workers; admission; the
// kubelet-level sync functions a pod worker runs (SyncPod, SyncTerminatingPod,
// SyncTerminatedPod); housekeeping and garbage collection; and the node's status.
//
// File names follow upstream's so that this package can be read beside it: kubelet.go
// (wiring), syncloop.go (syncLoop, syncLoopIteration), handlers.go (HandlePod*),
// kubelet_sync.go (Sync*Pod), kubelet_pods.go (status generation glue, HandlePodCleanups),
// admission.go, gc.go, node_status.go.
package kubelet

import (
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"

	"nodesim/model/apiserver"
	"nodesim/model/container"
	"nodesim/model/cri"
	"nodesim/model/eviction"
	"nodesim/model/flowcontrol"
	"nodesim/model/images"
	"nodesim/model/kubeletconfig"
	"nodesim/model/kuberuntime"
	"nodesim/model/pleg"
	"nodesim/model/podconfig"
	"nodesim/model/podworkers"
	"nodesim/model/prober"
	"nodesim/model/prober/results"
	"nodesim/model/status"
	"nodesim/sim"
	"nodesim/trace"
)

// Upstream constants (pkg/kubelet/kubelet.go).
const (
	housekeepingPeriod          = 2 * time.Second
	housekeepingWarningDuration = time.Second
	syncLoopTickPeriod          = time.Second
	runtimeUpPeriod             = 5 * time.Second
	maxWaitForContainerRuntime  = 30 * time.Second
	runtimeErrorBackoffBase     = 100 * time.Millisecond
	runtimeErrorBackoffMax      = 5 * time.Second
	crashLoopBackOffReset       = 600 * time.Second
	containerGCPeriod           = time.Minute
)

// Node describes the machine the kubelet runs on.
type Node struct {
	Name     string
	Capacity corev1.ResourceList
}

// Dependencies are the parts of the node that outlive a kubelet restart.
type Dependencies struct {
	Runtime *cri.Runtime
	API     *apiserver.Server
	Node    Node
	Config  *kubeletconfigv1beta1.KubeletConfiguration
	// StaticPods reads the static pod directory (the file source).
	StaticPods func() []*corev1.Pod
	// Eviction configures the eviction manager (nil: none).
	Eviction *EvictionDeps
	// MemoryCapacity is the machine's memory, for oom_score_adj.
	MemoryCapacity int64
	// Gates are the run's feature gates (the v1.37 registry with the config's featureGates).
	Gates kubeletconfig.Gates
}

// EvictionDeps is what the eviction manager needs of the node.
type EvictionDeps struct {
	Thresholds []eviction.Threshold
	Resources  eviction.NodeResources
	Notifier   eviction.MemoryNotifier
	CgroupV1   bool
}

// Kubelet is one kubelet process.
type Kubelet struct {
	s    *sim.Sim
	clk  *sim.Clock // the syncLoop goroutine
	deps Dependencies
	cfg  *kubeletconfigv1beta1.KubeletConfiguration

	podConfig     *podconfig.PodConfig
	sourcesReady  *podconfig.SourcesReady
	podManager    *podManager
	requests      map[types.UID]cachedRequests // podRequest's results, by pod
	active        *activePods                  // admission's active pods, as of the last batch
	admitOthers   []*corev1.Pod                // canAdmitPod's list of the other active pods, reused
	podWorkers    *podworkers.PodWorkers
	podCache      *container.Cache
	pleg          *pleg.GenericPLEG
	runtime       *cri.Runtime
	kubeRuntime   *kuberuntime.Manager
	imageManager  *images.ImageManager
	statusManager *status.Manager
	workQueue     *workQueue
	reasonCache   *reasonCache
	crashLoop     *flowcontrol.Backoff

	livenessManager  *results.Manager
	readinessManager *results.Manager
	startupManager   *results.Manager
	probeManager     ProbeManager
	containerManager *containerManager
	prober           *prober.Manager
	admitHandlers    []AdmitHandler
	statsProvider    *eviction.StatsProvider
	// cleanup is what housekeeping keeps between passes (see HandlePodCleanups)
	cleanup cleanupMemo
	// handlerAttrs: the handler events' strings of single pods (see handlerMemo).
	handlerAttrs handlerMemo
	// handlerChunk: the handler events' attributes and joined keys of several pods.
	handlerChunk handlerChunk
	// postSyncReason is the relistRequested events' reason, which never varies: made at
	// the first and shared (nothing writes a recorded event's reason).
	postSyncReason *trace.Reason
	// removedIgnored is the event of an ignored ContainerRemoved PLEG event, made once;
	// each is recorded from a copy (Record stamps the event it is given).
	removedIgnored trace.Event
	activeFilter   activeFilter // filterOutInactivePods' last answer
	// podsToSync is getPodsToSync's list, reused from one sync tick to the next (see there).
	podsToSync []*corev1.Pod
	// entriesToSync is getPodsToSync's list of the pods' pod manager entries (see there).
	entriesToSync []*uidEntry
	// gcClean are the runtime pods the last containerGC found nothing to remove in, in UID
	// order; gcCleanNext is the other buffer, which the next pass fills.
	gcClean, gcCleanNext []gcCleanPod
	evictionManager      *eviction.Manager
	imageGCTimer         *sim.Timer

	syncTicker         *sim.Ticker
	housekeepingTicker *sim.Ticker
	sel                *sim.Select
	// syncLoopFn and iterateFn are kl.syncLoop and kl.iterate, made once in Run: a method
	// value allocates each time it is taken, and the loop takes them every iteration.
	syncLoopFn func()
	iterateFn  func(chosen int)
	// waitFrom is when the syncLoop pass in progress started waiting on its select.
	waitFrom time.Duration

	// lastRuntimeUp is when the runtime last answered a status check, as elapsed run time
	// (runtimeUpSeen: it has answered once): runtimeErrors, asked at every syncLoop pass,
	// subtracts durations instead of times.
	lastRuntimeUp  time.Duration
	runtimeUpSeen  bool
	runtimeBackoff time.Duration
	runtimeUpTimer *sim.Timer
	gcTimer        *sim.Timer
	nodeStatus     *nodeStatus
	stopped        bool
	unsubscribeAPI func()

	// ChangeContainerStatusOnKubeletRestart is the feature gate of that name: deprecated and
	// off by default since v1.35, when a restarted kubelet keeps the Started and Ready of
	// the containers it adopts. On, it resets them as before v1.35 (not ready until the
	// readiness probe passes, the startup probe runs again). Set it before Run.
	ChangeContainerStatusOnKubeletRestart bool
	// PodLevelResources is the run's PodLevelResources feature gate (v1.37 default on):
	// admission's resource fit counts pod-level requests.
	PodLevelResources bool
	// RestartGates are the run's ContainerRestartRules and
	// RestartAllContainersOnContainerExits gates (v1.37: both on): they decide how the
	// runtime manager, status generation and the prober read a container's restartPolicy
	// and restartPolicyRules.
	RestartGates kuberuntime.RestartGates
}

// ProbeManager is the prober's interface to the kubelet (upstream prober.Manager).
type ProbeManager interface {
	AddPod(pod *corev1.Pod)
	StopLivenessAndStartup(pod *corev1.Pod)
	RemovePod(pod *corev1.Pod)
	CleanupPods(desired func(types.UID) bool, desiredVersion uint64)
	UpdatePodStatus(pod *corev1.Pod, st *corev1.PodStatus)
	// UpdatePodStatusRef is UpdatePodStatus(pod, nil) for a caller that keeps ref for
	// the pod from call to call, so that the prober need not look the pod up every time.
	UpdatePodStatusRef(pod *corev1.Pod, ref *prober.PodRef)
}

// New builds a kubelet over the node's runtime and API server (upstream NewMainKubelet).
func New(s *sim.Sim, deps Dependencies) *Kubelet {
	cfg := deps.Config
	kl := &Kubelet{
		s: s, clk: s.Clock("syncLoop", sim.PrioritySyncLoop), deps: deps, cfg: cfg,
		runtime: deps.Runtime, runtimeBackoff: runtimeErrorBackoffBase, requests: map[types.UID]cachedRequests{},
		PodLevelResources: deps.Gates.Enabled("PodLevelResources"),
		RestartGates: kuberuntime.RestartGates{
			ContainerRestartRules:                deps.Gates.Enabled("ContainerRestartRules"),
			RestartAllContainersOnContainerExits: deps.Gates.Enabled("RestartAllContainersOnContainerExits"),
		},
	}
	kl.podConfig = podconfig.New(s, podconfig.FileSource, podconfig.ApiserverSource)
	kl.sourcesReady = podconfig.NewSourcesReady(kl.podConfig.Sources())
	kl.podManager = newPodManager(kl.clk.Record)
	kl.podCache = container.NewCache(s)
	kl.pleg = pleg.NewGenericPLEG(s, deps.Runtime, kl.podCache, deps.Gates.Enabled("PLEGOnDemandRelist"))
	kl.workQueue = newWorkQueue(s)
	kl.reasonCache = newReasonCache()
	initial, max := kubeletconfig.CrashLoopBackOff(cfg, deps.Gates)
	kl.crashLoop = flowcontrol.NewBackOff(initial, max).WithResetAfter(crashLoopBackOffReset)
	kl.ChangeContainerStatusOnKubeletRestart = deps.Gates.Enabled("ChangeContainerStatusOnKubeletRestart")
	// Upstream selects on kl.livenessManager.Updates() and its like, channels with no name
	// of their own; nodesim names them livenessCh, readinessCh and startupCh everywhere (the
	// trace, explain, the reports' syncLoop counts), as the scenario format does.
	kl.livenessManager = results.NewManager(s, "livenessCh")
	kl.readinessManager = results.NewManager(s, "readinessCh")
	kl.startupManager = results.NewManager(s, "startupCh")
	serialize := cfg.SerializeImagePulls == nil || *cfg.SerializeImagePulls
	kl.imageManager = images.NewImageManager(s, deps.Runtime, serialize, cfg.MaxParallelImagePulls)
	kl.kubeRuntime = kuberuntime.NewManager(s, deps.Runtime, kl.imageManager, kl.livenessManager, kl.startupManager, deps.MemoryCapacity, podState{kl})
	kl.kubeRuntime.PodLevelResources = kl.PodLevelResources
	kl.kubeRuntime.Restart = kl.RestartGates
	kl.podWorkers = podworkers.New(s, kl, kl.workQueue, kl.podCache, cfg.SyncFrequency.Duration)
	kl.statusManager = status.NewManager(s, deps.API, kl.podWorkers)
	kl.containerManager = newContainerManager(s)
	kl.prober = prober.NewManager(s, kl.statusManager, probeRunner{deps.Runtime},
		kl.livenessManager, kl.readinessManager, kl.startupManager, s.Now())
	kl.prober.RestartGates = kl.RestartGates
	kl.probeManager = kl.prober
	kl.nodeStatus = newNodeStatus(kl)
	kl.newEvictionManager()
	return kl
}

// probeRunner runs probes against the fake runtime.
type probeRunner struct{ rt *cri.Runtime }

func (p probeRunner) ProbeTarget(id string, pt prober.ProbeType) prober.Target {
	if t := p.rt.ProbeTarget(id, string(pt)); t != nil {
		return t
	}
	return nil // not a nil *cri.ProbeTarget in a non-nil interface
}

// Results managers, for the prober.
func (kl *Kubelet) Results() (liveness, readiness, startup *results.Manager) {
	return kl.livenessManager, kl.readinessManager, kl.startupManager
}

// StatusManager is the kubelet's status manager.
func (kl *Kubelet) StatusManager() *status.Manager { return kl.statusManager }

// PodWorkers are the kubelet's pod workers.
func (kl *Kubelet) PodWorkers() *podworkers.PodWorkers { return kl.podWorkers }

// Run starts every goroutine the kubelet has (upstream Kubelet.Run): the runtime status
// check, PLEG, the status manager, garbage collection, node status, the config sources, and
// the syncLoop.
func (kl *Kubelet) Run() {
	kl.prober.ChangeContainerStatusOnKubeletRestart = kl.ChangeContainerStatusOnKubeletRestart
	kl.updateRuntimeUp()
	kl.pleg.Start()
	kl.statusManager.Start()
	kl.gcTimer = kl.s.Clock("gc", sim.PriorityDefault).Schedule(containerGCPeriod, kl.containerGC)
	kl.imageGCTimer = kl.s.Clock("gc", sim.PriorityDefault).Schedule(imageGCPeriod, kl.imageGC)
	if kl.evictionManager != nil {
		kl.evictionManager.Start()
	}
	kl.nodeStatus.start()
	kl.StaticPodsChanged()
	kl.unsubscribeAPI = kl.watchAPI()
	kl.syncTicker = kl.s.Clock("syncLoop", sim.PriorityTicker).NewTickerChan("syncCh", syncLoopTickPeriod)
	kl.housekeepingTicker = kl.s.Clock("syncLoop", sim.PriorityTicker).NewTickerChan("housekeepingCh", housekeepingPeriod)
	cases := kl.selectCases()
	chans := make([]sim.Selectable, len(cases))
	for i, c := range cases {
		chans[i] = c.ch
	}
	kl.sel = sim.NewSelect(kl.clk, kl.s.RNG("syncLoop"), "syncLoopIteration", chans...)
	kl.recordSelectCases(cases)
	kl.syncLoopFn, kl.iterateFn = kl.syncLoop, kl.iterate
	kl.clk.Schedule(0, kl.syncLoopFn)
}

// watchAPI is the api config source: the node's pods as a first snapshot, then each change.
func (kl *Kubelet) watchAPI() func() {
	active := true
	kl.deps.API.Watch(func(pods []*corev1.Pod) {
		kl.podConfig.Merge(podconfig.ApiserverSource, pods)
	}, func(ev apiserver.WatchEvent) {
		if !active || kl.stopped {
			return
		}
		if ev.StatusOnly {
			// A status patch: the mux has this watch's previous copy of the pod.
			kl.podConfig.UpdateStatus(podconfig.ApiserverSource, ev.Pod)
			return
		}
		kl.podConfig.Update(podconfig.ApiserverSource, ev.Pod, ev.Deleted)
	})
	return func() { active = false }
}

// StaticPodsChanged is the file source noticing a change in the static pod directory: it
// pushes the directory's pods as a snapshot.
func (kl *Kubelet) StaticPodsChanged() {
	if kl.stopped {
		return
	}
	var pods []*corev1.Pod
	if kl.deps.StaticPods != nil {
		for _, p := range kl.deps.StaticPods() {
			sp := p.DeepCopy()
			if sp.Annotations == nil {
				sp.Annotations = map[string]string{}
			}
			sp.Annotations[podconfig.ConfigHashAnnotationKey] = string(sp.UID)
			sp.Spec.NodeName = kl.deps.Node.Name
			pods = append(pods, sp)
		}
	}
	kl.podConfig.Merge(podconfig.FileSource, pods)
}

// updateRuntimeUp checks the runtime's status every 5s (upstream updateRuntimeUp).
func (kl *Kubelet) updateRuntimeUp() {
	if kl.stopped {
		return
	}
	if kl.runtime.Ready() {
		kl.lastRuntimeUp, kl.runtimeUpSeen = kl.s.Elapsed(), true
	}
	if kl.runtimeUpTimer == nil {
		kl.runtimeUpTimer = kl.s.Clock("runtimeStatus", sim.PriorityDefault).Schedule(runtimeUpPeriod, kl.updateRuntimeUp)
		return
	}
	// Every later check runs from the timer, which has just fired and is not pending:
	// resetting it queues the same event a fresh timer would (same track, priority and
	// lifetime: the kubelet's, which Run started it in) without allocating.
	kl.runtimeUpTimer.Reset(runtimeUpPeriod)
}

// nodeAllocatable is capacity minus reserved resources minus the hard memory eviction
// threshold (upstream container manager's GetNodeAllocatableAbsolute).
func (kl *Kubelet) nodeAllocatable() corev1.ResourceList {
	return NodeAllocatable(kl.deps.Node.Capacity, kl.cfg)
}

// NodeAllocatable is what a node of this capacity with this configuration has allocatable:
// capacity minus systemReserved and kubeReserved minus the hard eviction thresholds on
// memory and the node filesystem. The importer compares it with a live Node's.
func NodeAllocatable(capacity corev1.ResourceList, cfg *kubeletconfigv1beta1.KubeletConfiguration) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range capacity {
		out[name] = q.DeepCopy()
	}
	sub := func(name corev1.ResourceName, s string) {
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return
		}
		if cur, ok := out[name]; ok {
			cur.Sub(q)
			if cur.Sign() < 0 {
				cur = resource.Quantity{}
			}
			out[name] = cur
		}
	}
	for _, m := range []map[string]string{cfg.SystemReserved, cfg.KubeReserved} {
		for _, k := range sortedStringKeys(m) {
			sub(corev1.ResourceName(k), m[k])
		}
	}
	// The hard eviction thresholds on memory and the node filesystem are reserved too, a
	// percentage taken of the capacity (upstream hardEvictionReservation).
	for _, r := range []struct {
		signal string
		name   corev1.ResourceName
	}{{"memory.available", corev1.ResourceMemory}, {"nodefs.available", corev1.ResourceEphemeralStorage}} {
		v, ok := cfg.EvictionHard[r.signal]
		if !ok || v == "" {
			continue
		}
		if pct, isPct := strings.CutSuffix(v, "%"); isPct {
			// As upstream: the percentage parsed as a float32 fraction, times the capacity.
			f, err := strconv.ParseFloat(pct, 32)
			capQ, has := capacity[r.name]
			if err != nil || !has {
				continue
			}
			v = strconv.FormatInt(int64(float64(capQ.Value())*float64(float32(f)/100)), 10)
		}
		sub(r.name, v)
	}
	return out
}

// Stop ends this kubelet process (restartKubelet): every goroutine stops; the runtime and
// the API server go on.
func (kl *Kubelet) Stop() {
	kl.stopped = true
	kl.pleg.Stop()
	kl.statusManager.Stop()
	if kl.syncTicker != nil {
		kl.syncTicker.Stop()
		kl.housekeepingTicker.Stop()
	}
	if kl.runtimeUpTimer != nil {
		kl.runtimeUpTimer.Stop()
	}
	if kl.gcTimer != nil {
		kl.gcTimer.Stop()
	}
	if kl.imageGCTimer != nil {
		kl.imageGCTimer.Stop()
	}
	if kl.evictionManager != nil {
		kl.evictionManager.Stop()
		kl.statsProvider.Stop()
	}
	kl.nodeStatus.stop()
	if kl.unsubscribeAPI != nil {
		kl.unsubscribeAPI()
	}
}

// podState answers the runtime manager from the pod workers, which are made after it.
type podState struct{ kl *Kubelet }

func (p podState) IsPodTerminationRequested(uid types.UID) bool {
	return p.kl.podWorkers.IsPodTerminationRequested(uid)
}

// Package eviction is the kubelet's eviction manager (upstream pkg/kubelet/eviction): every
// monitoring pass it reads a stats summary, compares the eviction signals with the hard and
// soft thresholds, keeps the node's pressure conditions (with the transition period), and
// when a threshold is met past its grace period, reclaims node-level resources or evicts the
// one pod that ranks first. It also rejects pods at admission while the node is under
// pressure.
package eviction

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"nodesim/sim"
	"nodesim/trace"
)

// Upstream's periods (pkg/kubelet/kubelet.go, eviction_manager.go).
const (
	MonitoringPeriod                    = 10 * time.Second
	podCleanupTimeout                   = 30 * time.Second
	podCleanupPollFreq                  = time.Second
	immediateEvictionGracePeriodSeconds = 1
	notifierRefreshInterval             = 10 * time.Second
)

// Config is the eviction manager's configuration.
type Config struct {
	Thresholds               []Threshold
	MaxPodGracePeriodSeconds int64
	PressureTransitionPeriod time.Duration
	// KernelMemcgNotification is in effect only on cgroup v1 (on v2 upstream's notifier is a
	// no-op).
	KernelMemcgNotification bool
	DedicatedImageFs        bool
	LocalStorageIsolation   bool
}

// KillPodFunc kills a pod for eviction with a grace override and a status function, and
// calls done when the pod's containers have stopped or the wait timed out (killPodNow).
type KillPodFunc func(pod *corev1.Pod, gracePeriod int64, statusFn func(*corev1.PodStatus), done func())

// Reclaimers free node-level resources before pods are evicted for disk.
type Reclaimers struct {
	DeleteAllUnusedContainers func()
	DeleteUnusedImages        func()
}

// MemoryNotifier is the kernel's memcg threshold notification: call fn once when the
// node's (or the kubepods cgroup's) memory use first goes above level. WatchLevel reports
// every crossing of a level, both ways: the simulator's ground truth, which reports use to
// measure how long the kubelet takes to notice.
type MemoryNotifier interface {
	WatchMemory(name string, pods bool, level float64, fn func())
	WatchLevel(name string, pods bool, level float64, onCross func(up bool))
}

// Manager is the eviction manager.
type Manager struct {
	// signalText is formatObserved's memo: each signal's last available figure
	// and its text, and its scratch buffer.
	signalText [len(signalOrder)]signalText
	signalBuf  []byte
	// signalsText is formatObserved's last text and signalsTextOf the available quantities
	// it was made from (signalsTextKept: there is one).
	signalsText     string
	signalsTextOf   [len(signalOrder)]*resource.Quantity
	signalsTextKept bool
	// noneMetOf are the quantities of the last pass configThresholdsMet found no threshold met
	// in (noneMetKept: there was one).
	noneMetOf   observedSignals
	noneMetKept bool
	// capacities are the capacity quantities of the signals, by signal order, for as long
	// as the figure stays (makeSignalObservations): observations share them, and their
	// readers only read them (GetThresholdQuantity takes the Value; String keeps its own
	// text, the same for every reader).
	capacities [len(signalOrder)]capacityQuantity
	// available are the available quantities of the last pass, by signal order, for as
	// long as the figure stays (makeSignalObservations), shared in the same way.
	available [len(signalOrder)]availableQuantity
	// spareObservations is a map of an earlier pass, which the next map made refills:
	// nothing keeps a pass's observations but last (the pass after it compares with
	// them), and the passes' readers use them only during the pass.
	spareObservations SignalObservations
	// cur and last are this pass's and the last pass's observations (see
	// passObservations); passAttrs is the last pass's event attributes when it recorded
	// nothing but the four lists, shared with the next pass that records the same four.
	cur, last passObservations
	passAttrs []trace.Attr
	clk       *sim.Clock
	notifyClk *sim.Clock
	cfg       Config
	stats     *StatsProvider
	podFunc   func() []*corev1.Pod
	kill      KillPodFunc
	cleanedUp func(*corev1.Pod) bool
	reclaim   Reclaimers
	notifier  MemoryNotifier

	nodeConditions               []corev1.NodeConditionType
	thresholdsFirstObservedAt    ThresholdsObservedAt
	nodeConditionsLastObservedAt NodeConditionsObservedAt
	thresholdsMet                []Threshold
	lastNotifierRefresh          time.Time
	timer                        *sim.Timer
	// monitor is the timer of the monitoring period, kept for the manager's life; loopFn
	// and loopDoneFn are loop and loopDone made once (see Start).
	monitor    *sim.Timer
	loopFn     func()
	loopDoneFn func([]*corev1.Pod)
	// hardLevelsRecorded is set once this manager's first pass has recorded its hard
	// thresholds' levels: they follow from the configuration and the node's capacities,
	// which do not change while the kubelet runs.
	hardLevelsRecorded bool

	// PodLevelResources is the run's PodLevelResources feature gate (v1.37 default on):
	// pod-level requests are the pod's request when ranking.
	PodLevelResources bool
}

// NewManager returns an eviction manager. podFunc must list the pods the stats provider
// sums (the kubelet gives both its active pods): a pass lists them once, for the summary
// and for ranking.
func NewManager(s *sim.Sim, cfg Config, stats *StatsProvider, podFunc func() []*corev1.Pod, kill KillPodFunc,
	cleanedUp func(*corev1.Pod) bool, reclaim Reclaimers, notifier MemoryNotifier) *Manager {
	return &Manager{
		clk: s.Clock("evictionManager", sim.PriorityEviction), notifyClk: s.Clock("memcgNotifier", sim.PriorityEviction),
		cfg: cfg, stats: stats, podFunc: podFunc, kill: kill, cleanedUp: cleanedUp, reclaim: reclaim, notifier: notifier,
		thresholdsFirstObservedAt: ThresholdsObservedAt{}, nodeConditionsLastObservedAt: NodeConditionsObservedAt{},
		PodLevelResources: true,
	}
}

// Start runs the control loop: synchronize, then wait for evicted pods to be cleaned up and
// go again at once, or sleep the monitoring period.
func (m *Manager) Start() {
	m.watchThresholdCrossings()
	m.loopFn, m.loopDoneFn = m.loop, m.loopDone
	m.monitor = m.clk.Schedule(0, m.loopFn)
	m.timer = m.monitor
}

// watchThresholdCrossings asks the kernel to record the moment memory use crosses each
// memory threshold's level: not something the kubelet sees (it polls), but the reference
// its detection latency is measured against.
func (m *Manager) watchThresholdCrossings() {
	if m.notifier == nil {
		return
	}
	for _, t := range m.cfg.Thresholds {
		level, pods, ok := m.memoryLevel(t)
		if !ok {
			continue
		}
		m.notifier.WatchLevel("crossing/"+t.Key(), pods, level, func(up bool) {
			dir := "down"
			if up {
				dir = "up"
			}
			m.clk.Sim().Record(&trace.Event{Track: "kernel", Kind: trace.ThresholdCrossed, Attrs: []trace.Attr{
				{Key: "signal", Value: string(t.Signal)}, {Key: "threshold", Value: t.String()}, {Key: "direction", Value: dir}},
				Reason: crossingReason(up)})
		})
	}
}

// Stop stops the loop.
func (m *Manager) Stop() {
	if m.timer != nil {
		m.timer.Stop()
	}
}

func (m *Manager) loop() { m.synchronize(m.loopDoneFn) }

// loopDone ends a pass: wait for the evicted pods, or sleep the monitoring period on the
// monitor timer. That timer fired to start the pass (directly, or before the cleanup wait
// that led here) and nothing else resets it, so it is not pending: resetting it queues
// what a fresh timer of the same clock would.
func (m *Manager) loopDone(evicted []*corev1.Pod) {
	if len(evicted) > 0 {
		m.waitForPodsCleanup(evicted, m.loopFn)
		return
	}
	m.monitor.Reset(MonitoringPeriod)
	m.timer = m.monitor
}

// waitForPodsCleanup polls every second until the evicted pods are cleaned up, at most 30s.
func (m *Manager) waitForPodsCleanup(pods []*corev1.Pod, then func()) {
	deadline := m.clk.Elapsed() + podCleanupTimeout
	var poll func()
	poll = func() {
		all := true
		for _, p := range pods {
			if !m.cleanedUp(p) {
				all = false
			}
		}
		if all || m.clk.Elapsed() >= deadline {
			then()
			return
		}
		m.timer = m.clk.Schedule(podCleanupPollFreq, poll)
	}
	m.timer = m.clk.Schedule(podCleanupPollFreq, poll)
}

// IsUnderMemoryPressure reports the stored MemoryPressure condition.
func (m *Manager) IsUnderMemoryPressure() bool {
	return HasNodeCondition(m.nodeConditions, corev1.NodeMemoryPressure)
}

// IsUnderDiskPressure reports the stored DiskPressure condition.
func (m *Manager) IsUnderDiskPressure() bool {
	return HasNodeCondition(m.nodeConditions, corev1.NodeDiskPressure)
}

// IsUnderPIDPressure reports the stored PIDPressure condition.
func (m *Manager) IsUnderPIDPressure() bool {
	return HasNodeCondition(m.nodeConditions, corev1.NodePIDPressure)
}

// Admit is the admission check against the stored node conditions.
func (m *Manager) Admit(pod *corev1.Pod, _ []*corev1.Pod) (bool, string, string) {
	return Admit(pod, m.nodeConditions)
}

func qty(v float64) *resource.Quantity {
	return resource.NewQuantity(int64(math.Floor(v)), resource.BinarySI)
}

// makeSignalObservations turns a summary into the eviction signals (upstream
// makeSignalObservations): available and capacity per signal, stamped with the sample time.
// It also gives the observations' quantities by signal order (observedSignals).
//
// into, when not nil, is emptied and filled instead of a new map.
func (m *Manager) makeSignalObservations(sum *Summary, into SignalObservations) (SignalObservations, observedSignals) {
	p := passObservations{observed: m.observe(sum), time: sum.Time}
	return p.fill(into), p.observed
}

// passObservations are a pass's signal observations: their quantities by signal order and
// the summary's time, from which the map upstream's helpers take (SignalObservations) is
// made only when a helper needs it (signals). A node under no pressure never needs it:
// configThresholdsMet answers a pass with the quantities of one that met nothing without
// it, and with no threshold met before nor actionable now no other helper runs. The map
// is a function of the quantities and the time alone: one entry per observed signal (a
// non-nil available quantity; makeSignalObservations sets both or neither), with that
// time.
type passObservations struct {
	observed observedSignals
	time     time.Time
	obs      SignalObservations // nil until signals makes it
}

// signals is p's observations as upstream's map, made on the first call for p. The map is
// the spare one when there is one: see spareObservations.
func (m *Manager) signals(p *passObservations) SignalObservations {
	if p.obs != nil {
		return p.obs
	}
	p.obs = p.fill(m.spareObservations)
	m.spareObservations = nil
	return p.obs
}

// fill empties obs (nil: a new map) and fills it with p's observations.
func (p *passObservations) fill(obs SignalObservations) SignalObservations {
	if obs == nil {
		obs = SignalObservations{}
	} else {
		clear(obs)
	}
	for i, s := range signalOrder {
		if a := p.observed.available[i]; a != nil {
			obs[s] = SignalObservation{Available: a, Capacity: p.observed.capacity[i], Time: p.time}
		}
	}
	return obs
}

// observe is makeSignalObservations' quantities alone (the map is made later, if needed).
func (m *Manager) observe(sum *Summary) observedSignals {
	n := m.stats.node
	var observed observedSignals
	add := func(s Signal, available, capacity float64) {
		i := signalIndex(s) // every signal added is one of signalOrder
		observed.available[i], observed.capacity[i] = m.availableQuantity(i, available), m.capacityQuantity(i, capacity)
	}
	add(SignalMemoryAvailable, sum.MemoryAvailable, n.MemoryCapacity)
	add(SignalAllocatableMemoryAvailable, sum.AllocatableMemoryAvailable, n.KubepodsLimit)
	add(SignalNodeFsAvailable, n.NodeFsCapacity-sum.NodeFsUsed, n.NodeFsCapacity)
	add(SignalNodeFsInodesFree, n.NodeFsInodes-sum.NodeFsInodesUsed, n.NodeFsInodes)
	if n.DedicatedImageFs {
		add(SignalImageFsAvailable, n.ImageFsCapacity-sum.ImageFsUsed, n.ImageFsCapacity)
		add(SignalImageFsInodesFree, n.ImageFsInodes-sum.ImageFsInodesUsed, n.ImageFsInodes)
	} else {
		add(SignalImageFsAvailable, n.NodeFsCapacity-sum.NodeFsUsed, n.NodeFsCapacity)
		add(SignalImageFsInodesFree, n.NodeFsInodes-sum.NodeFsInodesUsed, n.NodeFsInodes)
	}
	add(SignalPIDAvailable, n.PidMax-sum.PidsUsed, n.PidMax)
	return observed
}

// observedSignals are the available and capacity quantities of a set of observations, by
// signal order (nil: the signal has no observation). makeSignalObservations shares a
// quantity between passes while its figure stays, and nobody changes one, so two passes
// whose quantities are the same pointers have the same observations, figure for figure.
type observedSignals struct {
	available, capacity [len(signalOrder)]*resource.Quantity
}

// configThresholdsMet is ThresholdsMet(m.cfg.Thresholds, obs, false) for p's observations
// obs. Whether a threshold is met follows from the threshold and its signal's available and
// capacity quantities alone (a signal outside signalOrder is never observed), so it is
// decided from p's quantities by signal order, as ThresholdsMet decides it from the map,
// without making the map. And since the thresholds are the configuration's, a pass with
// the same quantities as one that met none meets none: it is answered without comparing
// them again. That pass's quantities are kept for it (noneMetOf).
func (m *Manager) configThresholdsMet(p *passObservations) []Threshold {
	if m.noneMetKept && p.observed == m.noneMetOf {
		return []Threshold{}
	}
	met := []Threshold{}
	for _, t := range m.cfg.Thresholds {
		i := signalIndex(t.Signal)
		if i < 0 || p.observed.available[i] == nil {
			continue // no observation: not met
		}
		q := thresholdQuantity(t.Value, p.observed.capacity[i])
		if q.Cmp(*p.observed.available[i]) > 0 {
			met = append(met, t)
		}
	}
	if len(met) == 0 {
		m.noneMetOf, m.noneMetKept = p.observed, true
	}
	return met
}

// capacityQuantity is a signal's capacity figure and its quantity (qty's; nil: none yet).
type capacityQuantity struct {
	figure float64
	q      *resource.Quantity
}

// capacityQuantity is qty(capacity) for the signal at index i of signalOrder, the same
// quantity as the last pass's when the signal's capacity figure is the same (the node's
// resources do not change during a run).
func (m *Manager) capacityQuantity(i int, capacity float64) *resource.Quantity {
	c := &m.capacities[i]
	if c.q == nil || c.figure != capacity {
		*c = capacityQuantity{figure: capacity, q: qty(capacity)}
	}
	return c.q
}

// availableQuantity is a signal's available figure, a whole number (as qty floors it), and
// its quantity.
type availableQuantity struct {
	ok    bool
	value int64
	q     *resource.Quantity
}

// availableQuantity is qty(available) for the signal at index i of signalOrder, the same
// quantity as the last pass's when the signal's whole figure is the same: qty's quantity
// is a function of that figure alone, and an observation's readers only read it (Cmp,
// DeepCopy, String, whose cached text is the same for every reader).
func (m *Manager) availableQuantity(i int, available float64) *resource.Quantity {
	v := int64(math.Floor(available))
	memo := &m.available[i]
	if !memo.ok || memo.value != v {
		*memo = availableQuantity{ok: true, value: v, q: qty(available)}
	}
	return memo.q
}

// signalText is a signal's available figure, a whole number of bytes or items in binary SI
// format (as qty makes it), and its text.
type signalText struct {
	ok    bool
	value int64
	text  string
}

// formatObserved is formatObservations of the observations whose quantities are observed.
// The text of the last call is kept with its available quantities (signalsTextOf): the
// same quantities, never changed by anyone, give the same text. Otherwise each signal's
// text is kept while its figure stays the same: a quantity's text is a function of its
// value and format alone, and that memo is used only for whole numbers in binary SI, as
// makeSignalObservations makes them (others are formatted afresh).
func (m *Manager) formatObserved(observed *observedSignals) string {
	if m.signalsTextKept && observed.available == m.signalsTextOf {
		return m.signalsText
	}
	buf := m.signalBuf[:0]
	for i, s := range signalOrder {
		q := observed.available[i]
		if q == nil {
			continue
		}
		if len(buf) > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, s...)
		buf = append(buf, '=')
		if q.Format != resource.BinarySI {
			buf = append(buf, q.String()...)
			continue
		}
		v, exact := q.AsInt64()
		if !exact {
			buf = append(buf, q.String()...)
			continue
		}
		memo := &m.signalText[i]
		if !memo.ok || memo.value != v {
			text, ok := binarySIText(v)
			if !ok {
				text = q.String()
			}
			*memo = signalText{ok: true, value: v, text: text}
		}
		buf = append(buf, memo.text...)
	}
	m.signalBuf = buf
	m.signalsText, m.signalsTextOf, m.signalsTextKept = string(buf), observed.available, true
	return m.signalsText
}

// binarySIText is the text resource.Quantity's String gives a whole quantity of v in
// binary SI format, made without the quantity's general canonical form: v's factors of
// 1024 go into the suffix (none, or Ki to Ei). It answers for |v| of 1024 or more only
// (a smaller quantity is shown in decimal SI, with rules of its own) and false otherwise.
func binarySIText(v int64) (string, bool) {
	if v > -1024 && v < 1024 || v == math.MinInt64 {
		return "", false
	}
	n, k := v, 0
	if n < 0 {
		n = -n
	}
	for n >= 1024 && n%1024 == 0 {
		n /= 1024
		k++
	}
	if v < 0 {
		n = -n
	}
	var b [24]byte
	return string(append(strconv.AppendInt(b[:0], n, 10), binarySISuffixes[k]...)), true
}

// binarySISuffixes are the binary SI suffixes by power of 1024.
var binarySISuffixes = [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}

func formatObservations(obs SignalObservations) string {
	var parts []string
	for _, s := range Signals() {
		if o, ok := obs[s]; ok {
			parts = append(parts, string(s)+"="+o.Available.String())
		}
	}
	return strings.Join(parts, ",")
}

// hardLevels renders each hard threshold as the level its signal is compared with
// (signal=bytes or count, percentages resolved against the observation's capacity), so that
// a report can say how far above its hard threshold a signal stayed. With two hard
// thresholds on one signal the higher level, the one met first, is kept.
func hardLevels(ts []Threshold, obs SignalObservations) string {
	levels := map[Signal]int64{}
	for _, t := range ts {
		o, ok := obs[t.Signal]
		if !t.IsHard() || !ok {
			continue
		}
		v := GetThresholdQuantity(t.Value, o.Capacity).Value()
		if cur, seen := levels[t.Signal]; !seen || v > cur {
			levels[t.Signal] = v
		}
	}
	var parts []string
	for _, s := range Signals() { // the signals' fixed order, not the map's
		if v, ok := levels[s]; ok {
			parts = append(parts, string(s)+"="+strconv.FormatInt(v, 10))
		}
	}
	return strings.Join(parts, ",")
}

func thresholdList(ts []Threshold) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, t.String())
	}
	return strings.Join(parts, ",")
}

// synchronize is one pass (upstream synchronize, steps numbered as in its code); done gets
// the pods evicted.
func (m *Manager) synchronize(done func([]*corev1.Pod)) {
	if len(m.cfg.Thresholds) == 0 && !m.cfg.LocalStorageIsolation {
		done(nil)
		return
	}
	activePods := m.podFunc()
	sum := m.stats.summary(activePods)
	now := m.clk.Now()
	if m.cfg.KernelMemcgNotification && m.notifier != nil && now.Sub(m.lastNotifierRefresh) >= notifierRefreshInterval {
		m.armNotifiers()
		m.lastNotifierRefresh = now
	}
	m.cur = passObservations{observed: m.observe(sum), time: sum.Time}
	cur := &m.cur
	met := m.configThresholdsMet(cur)
	if len(m.thresholdsMet) > 0 {
		met = MergeThresholds(met, ThresholdsMet(m.thresholdsMet, m.signals(cur), true))
	}
	// The observed-at maps are never changed once made, so a pass that would only copy the
	// last one (no threshold met and none before; no condition to stamp) keeps it.
	firstObservedAt := m.thresholdsFirstObservedAt
	if len(met) > 0 || len(firstObservedAt) > 0 {
		firstObservedAt = ThresholdsFirstObservedAt(met, m.thresholdsFirstObservedAt, now)
	}
	conds := NodeConditions(met)
	lastObservedAt := m.nodeConditionsLastObservedAt
	if len(conds) > 0 {
		lastObservedAt = NodeConditionsLastObservedAt(conds, m.nodeConditionsLastObservedAt, now)
	}
	conds = NodeConditionsObservedSince(lastObservedAt, m.cfg.PressureTransitionPeriod, now)
	actionable := ThresholdsMetGracePeriod(firstObservedAt, met, now)
	m.nodeConditions = conds
	m.thresholdsFirstObservedAt = firstObservedAt
	m.nodeConditionsLastObservedAt = lastObservedAt
	m.thresholdsMet = actionable
	var fresh []Threshold // ThresholdsUpdatedStats of no threshold is none
	if len(actionable) > 0 {
		fresh = ThresholdsUpdatedStats(actionable, m.signals(cur), m.signals(&m.last))
	}
	if m.last.obs != nil {
		m.spareObservations = m.last.obs
	}
	m.last = m.cur

	var held []string
	for _, t := range met {
		if !containsThreshold(actionable, t) {
			wait := t.GracePeriod - now.Sub(firstObservedAt[t.Key()])
			held = append(held, fmt.Sprintf("%s (soft grace: %s to go)", t.String(), wait))
		}
	}
	var condNames []string
	for _, c := range conds {
		condNames = append(condNames, string(c))
	}
	attrs := m.passAttrsOf(m.formatObserved(&cur.observed), thresholdList(met), thresholdList(fresh), strings.Join(condNames, ","))
	if len(held) > 0 {
		attrs = append(attrs, trace.Attr{Key: "held", Value: strings.Join(held, "; ")})
	}
	if len(met) == 0 && len(conds) > 0 {
		attrs = append(attrs, trace.Attr{Key: "held", Value: "pressure conditions kept for the transition period (" + m.cfg.PressureTransitionPeriod.String() + ")"})
	}
	if !m.hardLevelsRecorded {
		m.hardLevelsRecorded = true
		if levels := hardLevels(m.cfg.Thresholds, m.signals(cur)); levels != "" {
			attrs = append(attrs, trace.Attr{Key: "hard", Value: levels})
		}
	}
	m.clk.Record(&trace.Event{Kind: trace.EvictionPass, Name: "synchronize", Attrs: attrs, Reason: heldReason(len(held) > 0, len(met) == 0 && len(conds) > 0)})

	if m.cfg.LocalStorageIsolation {
		if evicted := m.localStorageEviction(activePods, done); evicted {
			return
		}
	}
	if len(fresh) == 0 {
		done(nil)
		return
	}
	ordered := ByEvictionPriority(fresh)
	threshold := ordered[0]
	resourceToReclaim := SignalToResource(threshold.Signal)
	if m.reclaimNodeLevelResources(threshold.Signal) {
		done(nil)
		return
	}
	if len(activePods) == 0 {
		done(nil)
		return
	}
	ranked := append([]*corev1.Pod(nil), activePods...)
	measure, inodes, rankable := m.rankMeasure(threshold.Signal)
	statsFn := StatsFunc(m.stats.PodStats)
	switch {
	case threshold.Signal == SignalMemoryAvailable || threshold.Signal == SignalAllocatableMemoryAvailable:
		RankMemoryPressure(ranked, statsFn, m.PodLevelResources)
	case threshold.Signal == SignalPIDAvailable:
		RankPIDPressure(ranked, statsFn)
	case rankable:
		RankDiskPressure(ranked, statsFn, measure, inodes, m.PodLevelResources)
	}
	candidates := Candidates(ranked, statsFn, threshold.Signal, measure, m.PodLevelResources)
	for _, pod := range ranked {
		if IsCriticalPod(pod) {
			continue
		}
		grace := int64(immediateEvictionGracePeriodSeconds)
		if !threshold.IsHard() {
			grace = m.cfg.MaxPodGracePeriodSeconds
			if pod.Spec.TerminationGracePeriodSeconds != nil && *pod.Spec.TerminationGracePeriodSeconds < grace {
				grace = *pod.Spec.TerminationGracePeriodSeconds
			}
		}
		obs := m.signals(cur)
		message, annotations := EvictionMessage(resourceToReclaim, pod, statsFn, ordered, obs, m.PodLevelResources)
		o := obs[threshold.Signal]
		m.recordEviction(pod, threshold, o, grace, candidates, message, annotations)
		m.evictPod(pod, grace, message, true, func() { done([]*corev1.Pod{pod}) })
		return
	}
	done(nil) // every candidate was critical
}

// passAttrsOf returns a pass event's four lists as its attributes. The last pass's are
// kept (passAttrs) and given again for the same four texts: a recorded event's attributes
// are never written (the slice's capacity is its length, so an append copies), so events
// may share them, and on a quiet node every pass records the same four.
func (m *Manager) passAttrsOf(signals, met, actionable, conditions string) []trace.Attr {
	if a := m.passAttrs; a != nil && a[0].Value == signals && a[1].Value == met && a[2].Value == actionable && a[3].Value == conditions {
		return a
	}
	m.passAttrs = []trace.Attr{{Key: "signals", Value: signals}, {Key: "met", Value: met},
		{Key: "actionable", Value: actionable}, {Key: "conditions", Value: conditions}}
	return m.passAttrs
}

func containsThreshold(ts []Threshold, t Threshold) bool {
	for _, x := range ts {
		if x.Key() == t.Key() {
			return true
		}
	}
	return false
}

// rankMeasure is the disk usage a signal ranks by (upstream buildSignalToRankFunc).
func (m *Manager) rankMeasure(s Signal) (FsMeasure, bool, bool) {
	inodes := s == SignalNodeFsInodesFree || s == SignalImageFsInodesFree || s == SignalContainerFsInodesFree
	switch s {
	case SignalNodeFsAvailable, SignalNodeFsInodesFree, SignalContainerFsAvailable, SignalContainerFsInodesFree:
		if m.cfg.DedicatedImageFs {
			return FsMeasure{Logs: true, LocalVolumes: true}, inodes, true
		}
		return FsMeasure{Root: true, Logs: true, LocalVolumes: true}, inodes, true
	case SignalImageFsAvailable, SignalImageFsInodesFree:
		if m.cfg.DedicatedImageFs {
			return FsMeasure{Root: true}, inodes, true
		}
		return FsMeasure{Root: true, Logs: true, LocalVolumes: true}, inodes, true
	}
	return FsMeasure{}, false, false
}

func (m *Manager) recordEviction(pod *corev1.Pod, t Threshold, o SignalObservation, grace int64, candidates []Candidate, message string, annotations map[string]string) {
	var ranking []string
	for _, c := range candidates {
		ranking = append(ranking, fmt.Sprintf("%s;%v;%d;%s", c.Pod, c.ExceedsRequests, c.Priority, c.UsageAboveRequests.String()))
	}
	threshold := GetThresholdQuantity(t.Value, o.Capacity)
	observed := ""
	if o.Available != nil {
		observed = o.Available.String()
	}
	attrs := []trace.Attr{
		{Key: "signal", Value: string(t.Signal)}, {Key: "observed", Value: observed}, {Key: "threshold", Value: threshold.String()},
		{Key: "thresholdSpec", Value: t.String()}, {Key: "gracePeriod", Value: strconv.FormatInt(grace, 10)},
		// A soft threshold's own grace period (how long it had to stay met) is a different
		// span from the pod's termination grace period above; both are recorded so that no
		// reader mistakes one for the other.
		{Key: "thresholdGracePeriod", Value: t.GracePeriod.String()},
		{Key: "ranking", Value: strings.Join(ranking, "|")}, {Key: "message", Value: message},
		// The threshold path sets the DisruptionTarget condition (evictPod with condition).
		{Key: "disruptionTarget", Value: disruptionTargetReason}}
	if first, ok := m.thresholdsFirstObservedAt[t.Key()]; ok {
		attrs = append(attrs, trace.Attr{Key: "metFor", Value: m.clk.Now().Sub(first).String()})
	}
	// The Evicted event's annotations, in a fixed order.
	for _, k := range []string{OffendingContainersKey, OffendingContainersUsageKey, OffendingPodKey, OffendingPodUsageKey, StarvedResourceKey} {
		if v, ok := annotations[k]; ok {
			attrs = append(attrs, trace.Attr{Key: "annotation." + k, Value: v})
		}
	}
	m.clk.Record(&trace.Event{Kind: trace.Eviction, Pod: pod.Namespace + "/" + pod.Name, Attrs: attrs,
		Reason: trace.Because("evictOnePodPerPass", "one pod per pass: the first in "+rankOrder(t.Signal))})
}

// disruptionTargetReason is the reason of the DisruptionTarget condition the kubelet sets
// on a pod it evicts for node pressure.
const disruptionTargetReason = "TerminationByKubelet"

// evictPod kills the pod with the eviction status (phase Failed, reason Evicted, the
// message, and a DisruptionTarget condition on the threshold path).
func (m *Manager) evictPod(pod *corev1.Pod, grace int64, message string, condition bool, done func()) {
	statusFn := func(st *corev1.PodStatus) {
		st.Phase = corev1.PodFailed
		st.Reason = Reason
		st.Message = message
		if condition {
			c := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: disruptionTargetReason, Message: message}
			replaced := false
			for i := range st.Conditions {
				if st.Conditions[i].Type == corev1.DisruptionTarget {
					st.Conditions[i] = c
					replaced = true
				}
			}
			if !replaced {
				c.LastTransitionTime = metav1.NewTime(m.clk.Now().Truncate(time.Second))
				st.Conditions = append(st.Conditions, c)
			}
		}
	}
	m.kill(pod, grace, statusFn, done)
}

// localStorageEviction evicts pods over their emptyDir or ephemeral-storage limits, several
// in one pass; it reports whether it evicted any (and then calls done).
func (m *Manager) localStorageEviction(pods []*corev1.Pod, done func([]*corev1.Pod)) bool {
	type victim struct {
		pod     *corev1.Pod
		message string
		signal  string
	}
	var victims []victim
	// Each entry keeps its pod object's answer (storageCheckedOf): a pass looks only at
	// the pods with a limit to check, usually none.
	for i, e := range m.stats.entriesOf(pods) {
		pod := pods[i]
		if !storageCheckedOf(e, pod) {
			continue
		}
		st, ok := m.stats.PodStats(pod)
		if !ok {
			continue
		}
		if msg, ok := EmptyDirLimitExceeded(pod, st); ok {
			victims = append(victims, victim{pod, msg, "emptydirfs.limit"})
		} else if msg, ok := PodEphemeralStorageLimitExceeded(pod, st); ok {
			victims = append(victims, victim{pod, msg, "ephemeralpodfs.limit"})
		} else if msg, ok := ContainerEphemeralStorageLimitExceeded(pod, st, m.cfg.DedicatedImageFs); ok {
			victims = append(victims, victim{pod, msg, "ephemeralcontainerfs.limit"})
		}
	}
	if len(victims) == 0 {
		return false
	}
	var evicted []*corev1.Pod
	var next func(i int)
	next = func(i int) {
		if i == len(victims) {
			done(evicted)
			return
		}
		v := victims[i]
		m.clk.Record(&trace.Event{Kind: trace.Eviction, Pod: v.pod.Namespace + "/" + v.pod.Name, Attrs: []trace.Attr{
			{Key: "signal", Value: v.signal}, {Key: "gracePeriod", Value: "1"}, {Key: "message", Value: v.message}}})
		evicted = append(evicted, v.pod)
		m.evictPod(v.pod, immediateEvictionGracePeriodSeconds, v.message, false, func() { next(i + 1) })
	}
	next(0)
	return true
}

// storageCheckedOf reports whether localStorageEviction checks pod, whose stats entry is
// e: whether it could be evicted for a local storage limit (not critical, and
// hasLocalStorageLimit). The answer is kept in the entry with the pod object it was made
// for, and made afresh only for a new object: every pass has the same pod objects but for
// a few, and an object's spec and annotations never change in place (podConfig hands the
// kubelet a new object for every change).
func storageCheckedOf(e *podEntry, pod *corev1.Pod) bool {
	if e.storageOf != pod {
		answerStorage(e, pod)
	}
	return e.storageChecked
}

// answerStorage answers storageCheckedOf for a pod object not seen before (kept apart so
// that the usual case, the same object, is inlined).
func answerStorage(e *podEntry, pod *corev1.Pod) {
	e.storageOf, e.storageChecked = pod, !IsCriticalPod(pod) && hasLocalStorageLimit(pod)
}

// hasLocalStorageLimit reports whether the pod has a limit localStorageEviction checks: an
// emptyDir sizeLimit (EmptyDirLimitExceeded) or an ephemeral-storage limit on any
// container, init containers included (PodEphemeralStorageLimitExceeded,
// ContainerEphemeralStorageLimitExceeded). Without one none of them can evict the pod.
func hasLocalStorageLimit(pod *corev1.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil && v.EmptyDir.SizeLimit.Sign() == 1 {
			return true
		}
	}
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			if _, ok := cs[i].Resources.Limits[corev1.ResourceEphemeralStorage]; ok {
				return true
			}
		}
	}
	return false
}

// reclaimNodeLevelResources frees disk through container and image garbage collection
// (nodefs and imagefs signals; none with a dedicated imagefs for nodefs), then reports
// whether every threshold is now clear (min-reclaim included).
func (m *Manager) reclaimNodeLevelResources(s Signal) bool {
	var funcs []func()
	switch s {
	case SignalNodeFsAvailable, SignalNodeFsInodesFree, SignalContainerFsAvailable, SignalContainerFsInodesFree:
		if !m.cfg.DedicatedImageFs {
			funcs = []func(){m.reclaim.DeleteAllUnusedContainers, m.reclaim.DeleteUnusedImages}
		}
	case SignalImageFsAvailable, SignalImageFsInodesFree:
		funcs = []func(){m.reclaim.DeleteAllUnusedContainers, m.reclaim.DeleteUnusedImages}
	}
	if len(funcs) == 0 {
		return false
	}
	for _, f := range funcs {
		if f != nil {
			f()
		}
	}
	obs, observed := m.makeSignalObservations(m.stats.Get(), nil)
	var noGrace []Threshold
	for _, t := range m.cfg.Thresholds {
		t.GracePeriod = 0
		noGrace = append(noGrace, t)
	}
	stillMet := ThresholdsMet(noGrace, obs, true)
	m.clk.Record(&trace.Event{Kind: trace.EvictionPass, Name: "reclaimNodeLevelResources", Attrs: []trace.Attr{
		{Key: "signal", Value: string(s)}, {Key: "signals", Value: m.formatObserved(&observed)}, {Key: "stillMet", Value: thresholdList(stillMet)}}})
	return len(stillMet) == 0
}

// memoryLevel is the memory use at which a memory threshold is met: capacity minus the
// threshold, for the node (memory.available) or the kubepods cgroup
// (allocatableMemory.available, pods true). ok is false for other signals.
func (m *Manager) memoryLevel(t Threshold) (level float64, pods, ok bool) {
	var capacity float64
	switch t.Signal {
	case SignalMemoryAvailable:
		capacity = m.stats.node.MemoryCapacity
	case SignalAllocatableMemoryAvailable:
		capacity, pods = m.stats.node.KubepodsLimit, true
	default:
		return 0, false, false
	}
	q := GetThresholdQuantity(t.Value, qty(capacity))
	return capacity - float64(q.Value()), pods, true
}

// armNotifiers arms the kernel's memcg notification for the memory thresholds at
// capacity − threshold: a crossing runs synchronize at once, between polls.
func (m *Manager) armNotifiers() {
	for _, t := range m.cfg.Thresholds {
		level, pods, ok := m.memoryLevel(t)
		if !ok {
			continue
		}
		m.notifier.WatchMemory(t.Key(), pods, level, func() {
			m.notifyClk.Schedule(0, func() {
				m.notifyClk.Record(&trace.Event{Kind: trace.EvictionPass, Name: "memcgNotification", Attrs: []trace.Attr{{Key: "threshold", Value: t.String()}}})
				m.synchronize(func([]*corev1.Pod) {})
			})
		})
	}
}

// crossingReason says why a threshold crossing is ground truth the kubelet has not seen yet.
func crossingReason(up bool) *trace.Reason {
	if !up {
		return nil
	}
	return trace.Because("evictionPolls", "the kubelet does not see this moment: it polls; its next eviction pass (every 10s, or a memcg notification on cgroup v1) will find the threshold met")
}

// heldReason says why a pass that found a threshold met, or none, evicted nothing.
func heldReason(softGrace, transition bool) *trace.Reason {
	switch {
	case softGrace:
		return trace.Because("evictionSoftGracePeriod", "a soft threshold must stay met for its whole grace period (evictionSoftGracePeriod) before a pod is evicted")
	case transition:
		return trace.Because("evictionPressureTransitionPeriod", "no threshold is met, but the pressure condition stays for evictionPressureTransitionPeriod, so admission still refuses pods")
	}
	return nil
}

// rankOrder names the ranking that orders eviction candidates for signal.
func rankOrder(signal Signal) string {
	switch {
	case strings.HasPrefix(string(signal), "memory") || strings.HasPrefix(string(signal), "allocatableMemory"):
		return "rankMemoryPressure order (usage above requests, then lower priority, then most usage − requests)"
	case strings.HasPrefix(string(signal), "pid"):
		return "rankPIDPressure order (lower priority, then most processes)"
	default:
		return "rankDiskPressure order (usage above requests, then lower priority, then most usage − requests)"
	}
}

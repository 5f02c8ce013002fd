// Package prober is the kubelet's prober (upstream pkg/kubelet/prober): one worker per
// container and probe type (startup, readiness, liveness) that probes on its period, counts
// consecutive results against the thresholds, and publishes changes to the results managers
// the syncLoop selects on. What a probe sees comes from the container's behaviour script.
package prober

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/kuberuntime"
	"nodesim/model/prober/results"
	"nodesim/model/status"
	"nodesim/sim"
	"nodesim/trace"
)

// ProbeType is the kind of probe.
type ProbeType string

// Probe types.
const (
	Liveness  ProbeType = "liveness"
	Readiness ProbeType = "readiness"
	Startup   ProbeType = "startup"
)

// StatusProvider is the status manager, from which workers read the pod's latest status.
// PodStatusEntry returns the pod's entry in its cache (nil: no status cached), which a
// worker holds until the entry is dropped; the entry's Status is the cached status itself,
// which the worker only reads. A new status comes as a new value, never as a change in
// place, so a worker may keep what it derived from a status for as long as the entry
// points at the same one.
type StatusProvider interface {
	PodStatusEntry(uid types.UID) *status.PodStatusEntry
}

// Runner finds the containers probes run against: the fake runtime answers each probe from
// the container's behaviour script.
type Runner interface {
	// ProbeTarget returns the target of a probe of the container with the given runtime
	// ID, or nil if the runtime has no such container. A worker holds the target for as
	// long as it probes that container ID, instead of looking the ID up every period.
	ProbeTarget(containerID string, probe ProbeType) Target
}

// Target is one container as one kind of probe sees it.
type Target interface {
	// RunProbe runs the probe once: it reports the result and how long the probe took.
	RunProbe() (success bool, took time.Duration)
}

// SettlingTarget is a Target that can tell when its answer has settled (the fake
// runtime's targets are). Settle reports whether every probe from now until the container
// ends would succeed at once (true, no time taken); if so, the target calls ended once when
// the container ends, before any probe could see the end, and a worker need not run the
// probe until then. If not, it keeps nothing.
type SettlingTarget interface {
	Target
	Settle(ended func()) bool
}

// podWorkers is one pod's entry in Manager.byPod.
type podWorkers struct {
	// workers are the pod's workers, in keyOrder.
	workers []*worker
	// added is the pod object the last AddPod found or gave a worker for each of its
	// probes (nil: none since a worker of the pod stopped). The spec of a pod object never
	// changes (an update comes as a new object), so AddPod of that object again has
	// nothing to add until a worker of the pod stops; remove clears it then.
	added *corev1.Pod
}

type probeKey struct {
	uid       types.UID
	container string
	probe     ProbeType
}

// Manager owns the probe workers.
type Manager struct {
	s                *sim.Sim
	status           StatusProvider
	runner           Runner
	liveness         *results.Manager
	readiness        *results.Manager
	startup          *results.Manager
	kubeletStartedAt time.Time
	// byPod holds the workers of each pod that has any (upstream keys one map by pod,
	// container and probe type): the per-pod calls (AddPod at every pod sync,
	// UpdatePodStatus at every status generation) look up the pod once and find its
	// workers in a short sorted list, and need neither sort nor hash a key per worker.
	byPod map[types.UID]*podWorkers
	// synced is the pod object of the last AddPod or UpdatePodStatus, and syncedWorkers
	// its entry in byPod (nil: the pod had no workers). A pod's sync calls
	// UpdatePodStatus and then AddPod with the same object, so the second finds the entry
	// here instead of hashing the UID again. An entry stays the pod's until it leaves
	// byPod, and every change to byPod's set of pods (a pod's first worker added, its
	// last one removed) clears synced.
	synced        *corev1.Pod
	syncedWorkers *podWorkers
	// podsVersion counts the changes to byPod's set of pods (a pod's first worker added,
	// its last one removed): while it stands, each UID has the same entry, or none.
	podsVersion uint64
	// workersVersion counts the workers added. cleanedUp says CleanupPods left only
	// workers of desired pods when workersVersion was cleanedWorkers and its desired set
	// was at cleanedDesired.
	workersVersion                 uint64
	cleanedUp                      bool
	cleanedWorkers, cleanedDesired uint64
	// counts are the decimal strings of 0, 1, 2, ... that probe results record as their
	// "counted" attribute, grown on demand up to maxCounted; strings never change, so every
	// event shares them.
	counts []string
	// attrs are the attribute lists of probeResult events without a timeout, shared by
	// every event that records the same list: attrs[r][t][n] is result r (0 success,
	// 1 failure), then the attribute after "counted" (t: none, held or changed), for
	// counted n < maxCounted, built on first use of n or of a larger count. Sharing is
	// safe because nothing changes a recorded event's attributes, and each list's
	// capacity is its length, so an append to one copies it.
	attrs [2][3][][]trace.Attr

	// ChangeContainerStatusOnKubeletRestart is the feature gate of that name (deprecated and
	// off by default since v1.35). Off, a worker that finds a container which was already
	// running before this kubelet started does not reset its result to the initial value:
	// the container keeps the Started and Ready the previous kubelet reported, instead of
	// going NotReady and through its startup probe again.
	ChangeContainerStatusOnKubeletRestart bool
	// RestartGates are the run's ContainerRestartRules and
	// RestartAllContainersOnContainerExits gates: with the first on, a worker whose
	// container exited keeps going only if the container's own policy and rules (or a
	// RestartAllContainers reset) will run it again.
	RestartGates kuberuntime.RestartGates
}

// KubeletRestartGracePeriod is how long before the kubelet's start a container must have
// started to count as adopted from a previous kubelet (upstream kubeletRestartGracePeriod).
const KubeletRestartGracePeriod = 10 * time.Second

// StartedBeforeKubeletRestart reports whether a container that started at startedAt was
// running before this kubelet started (by KubeletRestartGracePeriod).
func (m *Manager) StartedBeforeKubeletRestart(startedAt time.Time) bool {
	return !startedAt.IsZero() && startedAt.Before(m.kubeletStartedAt.Add(-KubeletRestartGracePeriod))
}

// NewManager returns a prober. kubeletStartedAt decides the start-up jitter: a worker
// created within one period of the kubelet's start waits a random part of the period first.
func NewManager(s *sim.Sim, status StatusProvider, runner Runner, liveness, readiness, startup *results.Manager, kubeletStartedAt time.Time) *Manager {
	return &Manager{s: s, status: status, runner: runner, liveness: liveness, readiness: readiness, startup: startup,
		kubeletStartedAt: kubeletStartedAt, byPod: map[types.UID]*podWorkers{}, RestartGates: kuberuntime.DefaultRestartGates()}
}

// AddPod creates the workers the pod's probes need (idempotent: called on every SyncPod),
// for its regular containers and its sidecars.
func (m *Manager) AddPod(pod *corev1.Pod) {
	pw := m.podWorkersOf(pod)
	if pw != nil && pw.added == pod {
		return
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			pw = m.addWorkers(pw, pod, c)
		}
	}
	for i := range pod.Spec.Containers {
		pw = m.addWorkers(pw, pod, &pod.Spec.Containers[i])
	}
	if pw != nil {
		pw.added = pod
		m.synced, m.syncedWorkers = pod, pw
	}
}

// HasProbes reports whether AddPod(pod) may create a worker: whether a regular container
// or a sidecar of the pod has a probe. AddPod of a pod without one changes nothing.
func HasProbes(pod *corev1.Pod) bool {
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways && hasProbe(c) {
			return true
		}
	}
	for i := range pod.Spec.Containers {
		if hasProbe(&pod.Spec.Containers[i]) {
			return true
		}
	}
	return false
}

// hasProbe reports whether addWorkers would look for a worker of c.
func hasProbe(c *corev1.Container) bool {
	for _, pt := range [...]ProbeType{Startup, Readiness, Liveness} {
		if probeOf(c, pt) != nil {
			return true
		}
	}
	return false
}

// podWorkersOf returns the pod's entry in byPod, nil if it has no workers.
func (m *Manager) podWorkersOf(pod *corev1.Pod) *podWorkers {
	if pod != m.synced {
		m.synced, m.syncedWorkers = pod, m.byPod[pod.UID]
	}
	return m.syncedWorkers
}

// addWorkers creates the workers the container's probes need and does not have yet. pw
// is the pod's entry in byPod (nil: none yet); it returns the entry, which it creates
// with the pod's first worker.
func (m *Manager) addWorkers(pw *podWorkers, pod *corev1.Pod, c *corev1.Container) *podWorkers {
	for _, pt := range [...]ProbeType{Startup, Readiness, Liveness} {
		probe := probeOf(c, pt)
		if probe == nil {
			continue
		}
		var workers []*worker
		if pw != nil {
			workers = pw.workers
		}
		i, found := slices.BinarySearchFunc(workers, probeKey{pod.UID, c.Name, pt}, func(w *worker, k probeKey) int {
			return keyOrder(w.key(), k)
		})
		if found {
			continue
		}
		if pw == nil {
			pw = &podWorkers{}
			m.byPod[pod.UID] = pw
			m.synced = nil // byPod has another pod
			m.podsVersion++
		}
		w := newWorker(m, pod, c, pt, probe)
		pw.workers = slices.Insert(workers, i, w)
		m.workersVersion++
		w.start()
	}
	return pw
}

func probeOf(c *corev1.Container, pt ProbeType) *corev1.Probe {
	switch pt {
	case Liveness:
		return c.LivenessProbe
	case Readiness:
		return c.ReadinessProbe
	default:
		return c.StartupProbe
	}
}

// keyOrder orders one pod's worker keys: by container name, then probe type.
func keyOrder(a, b probeKey) int {
	if c := strings.Compare(a.container, b.container); c != 0 {
		return c
	}
	return strings.Compare(string(a.probe), string(b.probe))
}

// StopLivenessAndStartup stops the pod's liveness and startup workers (termination begins;
// readiness goes on).
func (m *Manager) StopLivenessAndStartup(pod *corev1.Pod) {
	pw := m.byPod[pod.UID]
	if pw == nil {
		return
	}
	// A copy: stopping a worker removes it from byPod.
	for _, w := range slices.Clone(pw.workers) {
		if w.probeType != Readiness {
			w.stop()
		}
	}
}

// RemovePod stops every worker of the pod.
func (m *Manager) RemovePod(pod *corev1.Pod) {
	pw := m.byPod[pod.UID]
	if pw == nil {
		return
	}
	for _, w := range slices.Clone(pw.workers) {
		w.stop()
	}
}

// CleanupPods stops the workers of pods not in desired (housekeeping). It looks at each pod
// once, through byPod, rather than at every worker.
//
// desiredVersion must change whenever desired may answer differently for some UID. A call
// leaves only workers of desired pods; while no worker was added since (workersVersion)
// and the desired set did not move, there is nothing to stop and the walk is skipped.
func (m *Manager) CleanupPods(desired func(types.UID) bool, desiredVersion uint64) {
	if m.cleanedUp && m.cleanedWorkers == m.workersVersion && m.cleanedDesired == desiredVersion {
		return
	}
	m.cleanedUp, m.cleanedWorkers, m.cleanedDesired = true, m.workersVersion, desiredVersion
	var stale []*worker
	for uid, pw := range m.byPod {
		if !desired(uid) {
			stale = append(stale, pw.workers...)
		}
	}
	if len(stale) == 0 {
		return
	}
	sort.Slice(stale, func(i, j int) bool {
		a, b := stale[i].key(), stale[j].key()
		return a.uid < b.uid || a.uid == b.uid && a.container+string(a.probe) < b.container+string(b.probe)
	})
	for _, w := range stale {
		w.stop()
	}
}

// UpdatePodStatus is called on every status generation: a readiness worker whose result is
// not Success is triggered at once, so readiness is usually probed right after a container
// starts instead of a full period later.
func (m *Manager) UpdatePodStatus(pod *corev1.Pod, _ *corev1.PodStatus) {
	m.triggerReadiness(m.podWorkersOf(pod))
}

// PodRef is a caller's memo of a pod's entry in the prober, kept from call to call of
// UpdatePodStatusRef for that pod (the zero PodRef holds nothing yet).
type PodRef struct {
	valid   bool
	uid     types.UID
	version uint64 // podsVersion when workers was looked up
	workers *podWorkers
}

// UpdatePodStatusRef is UpdatePodStatus for a caller that keeps ref for the pod: the
// pod's entry is looked up again only when byPod's set of pods changed since ref was
// filled (podsVersion), rather than hashing the UID at every status generation. The
// entry becomes the synced one, for the AddPod that follows.
func (m *Manager) UpdatePodStatusRef(pod *corev1.Pod, ref *PodRef) {
	if !ref.valid || ref.version != m.podsVersion || ref.uid != pod.UID {
		*ref = PodRef{valid: true, uid: pod.UID, version: m.podsVersion, workers: m.byPod[pod.UID]}
	}
	m.synced, m.syncedWorkers = pod, ref.workers
	m.triggerReadiness(ref.workers)
}

// triggerReadiness triggers the pod's readiness workers (pw: its entry in byPod, nil for
// none) whose result is not Success.
func (m *Manager) triggerReadiness(pw *podWorkers) {
	if pw == nil {
		return
	}
	// Triggering stops no worker, so the pod's list can be read in place.
	for _, w := range pw.workers {
		if w.probeType != Readiness || w.stopped {
			continue
		}
		if w.publishedKnown && w.published == results.Success {
			continue
		}
		w.trigger()
	}
}

// remove forgets a stopped worker.
func (m *Manager) remove(w *worker) {
	uid := w.pod.UID
	pw := m.byPod[uid]
	if pw == nil {
		return
	}
	i := slices.Index(pw.workers, w)
	if i < 0 {
		return
	}
	pw.added = nil
	if pw.workers = slices.Delete(pw.workers, i, i+1); len(pw.workers) == 0 {
		delete(m.byPod, uid)
		m.synced = nil // byPod has one pod less
		m.podsVersion++
	}
}

// maxCounted bounds the counts table and the attribute lists built on it: a day of probes
// every 5 seconds (17,280 in a row, the busy node's readiness probes) fits. The tables
// grow only as far as the longest run of each result so far, about 110 bytes per count;
// longer runs are formatted each time, two allocations per probe.
const maxCounted = 1 << 15

// counted formats n, a count of results in a row.
func (m *Manager) counted(n int) string {
	if n < 0 || n >= maxCounted {
		return strconv.Itoa(n)
	}
	for len(m.counts) <= n {
		m.counts = append(m.counts, strconv.Itoa(len(m.counts)))
	}
	return m.counts[n]
}

// The attribute a probeResult event records after "counted", if any.
const (
	tailNone    = iota
	tailHeld    // "held": below the threshold, the previous result stands
	tailChanged // "changed": the published result changes
)

// resultAttrs returns the attributes of a probe result event without a timeout from the
// shared table, nil if the table does not hold them yet (then newResultAttrs builds
// them): result r (0 success, 1 failure), counted n, and tail. It is small enough to be
// inlined into the probe round. A probe that timed out records buildResultAttrs' list.
func (m *Manager) resultAttrs(r, n, tail int) []trace.Attr {
	if table := m.attrs[r][tail]; uint(n) < uint(len(table)) {
		return table[n]
	}
	return nil
}

// newResultAttrs returns the list resultAttrs did not find: for n below maxCounted it
// grows the table up to n, building every list it adds (a run of results counts up one
// by one, so the lists below n are those the rounds before used), so that the table has
// no holes and a list in range needs no check.
func (m *Manager) newResultAttrs(r, n, tail int) []trace.Attr {
	result := results.Success
	if r != 0 {
		result = results.Failure
	}
	if n < 0 || n >= maxCounted {
		return buildResultAttrs(result, m.counted(n), "", tail)
	}
	table := &m.attrs[r][tail]
	for len(*table) <= n {
		*table = append(*table, buildResultAttrs(result, m.counted(len(*table)), "", tail))
	}
	return (*table)[n]
}

// timedOutAttrs makes the attributes of a probe result event whose probe took longer than
// its timeoutSeconds: such a list records how long it took, so it is not shared. (Out of
// the probe round, whose frame need not hold the formatting of a duration.)
func (m *Manager) timedOutAttrs(result results.Result, n int, took time.Duration, tail int) []trace.Attr {
	return buildResultAttrs(result, m.counted(n), took.String(), tail)
}

// buildResultAttrs makes a probe result event's attribute list, its capacity its length.
func buildResultAttrs(result results.Result, counted, timeout string, tail int) []trace.Attr {
	size := 2
	if timeout != "" {
		size++
	}
	if tail != tailNone {
		size++
	}
	attrs := make([]trace.Attr, 0, size)
	attrs = append(attrs, trace.Attr{Key: "result", Value: resultLabel(result)}, trace.Attr{Key: "counted", Value: counted})
	if timeout != "" {
		attrs = append(attrs, trace.Attr{Key: "timeout", Value: timeout})
	}
	switch tail {
	case tailHeld:
		attrs = append(attrs, trace.Attr{Key: "held", Value: "true"})
	case tailChanged:
		attrs = append(attrs, trace.Attr{Key: "changed", Value: "true"})
	}
	return attrs
}

func (m *Manager) resultsFor(pt ProbeType) *results.Manager {
	switch pt {
	case Liveness:
		return m.liveness
	case Readiness:
		return m.readiness
	default:
		return m.startup
	}
}

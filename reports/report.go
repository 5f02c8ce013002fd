// Package reports turns a run's trace into what users read: the JSON/YAML report of the
// output contract, tables, latency percentiles, expectation verdicts and files. Every number
// here is computed from trace events; nothing reaches back into the simulated node.
package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	api "nodesim/api/v1alpha1"
	"nodesim/trace"
)

// Report is the output contract's JSON report.
type Report struct {
	Scenario            string                  `json:"scenario"`
	Description         string                  `json:"description,omitempty"`
	Seed                uint64                  `json:"seed"`
	Duration            float64                 `json:"duration"`
	Pods                []PodReport             `json:"pods"`
	Evictions           []Eviction              `json:"evictions"`
	OOMKills            []OOMKill               `json:"oomKills"`
	AdmissionRejections []AdmissionRejection    `json:"admissionRejections"`
	NodeConditions      []NodeCondition         `json:"nodeConditions"`
	Latency             map[string]LatencyStats `json:"latency"`
	SyncLoop            SyncLoopCounts          `json:"syncLoop"`
	Expectations        []ExpectationResult     `json:"expectations"`
	Counts              map[string]int64        `json:"counts"`
	NotModelled         []string                `json:"notModelled"`
	// Warnings are what the v1.37 kubelet would warn about in this configuration as it
	// starts anyway (a deprecated or GA feature gate set). Absent when there are none.
	Warnings []string `json:"warnings,omitempty"`
	// SystemMemoryHeld lists the moments the kernel held system memory (outside pods) below
	// what the scenario asked for, because memory in use never exceeds capacity and no pod
	// process was left to kill. Absent when it never happened.
	SystemMemoryHeld []SystemMemoryHold `json:"systemMemoryHeld,omitempty"`
	Reproduce        string             `json:"reproduce"`

	samples  map[string][]float64
	phases   map[string][]phaseAt
	headroom []SignalHeadroom
}

type phaseAt struct {
	at    time.Duration
	phase string
}

// PodReport is one pod's outcome.
type PodReport struct {
	Pod                     string            `json:"pod"`
	UID                     string            `json:"uid"`
	QoS                     string            `json:"qos"`
	Phase                   string            `json:"phase"`
	Reason                  string            `json:"reason"`
	StartupLatency          *float64          `json:"startupLatency"`
	StartupLatencyWithPulls *float64          `json:"startupLatencyWithPulls"`
	DeletedAt               *float64          `json:"deletedAt"`
	TerminatedAt            *float64          `json:"terminatedAt"`
	Containers              []ContainerReport `json:"containers"`
	// DisruptionTarget is the condition the kubelet set when it evicted the pod for node
	// pressure; absent for pods it did not evict that way.
	DisruptionTarget *PodCondition `json:"disruptionTarget,omitempty"`
	// PodIP is the last pod IP the kubelet reported (kept once the sandbox is gone, as the
	// status keeps it); absent for a pod that never had a sandbox.
	PodIP string `json:"podIP,omitempty"`
	// AllContainersRestarting lists the transitions of the pod condition of that name, which
	// the kubelet sets only on a pod with a RestartAllContainers rule: True from the sync
	// that starts a reset, False once every container was removed.
	AllContainersRestarting []ConditionTransition `json:"allContainersRestarting,omitempty"`
}

// ConditionTransition is a pod condition's new status at a time.
type ConditionTransition struct {
	Time   float64 `json:"time"`
	Status string  `json:"status"`
	Reason string  `json:"reason"`
}

// PodCondition is a pod condition as the kubelet set it.
type PodCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// ContainerReport is one container's outcome.
type ContainerReport struct {
	Name            string       `json:"name"`
	Restarts        int          `json:"restarts"`
	OOMKills        int          `json:"oomKills"`
	State           string       `json:"state"`
	WaitingReason   string       `json:"waitingReason"`
	LastTermination *Termination `json:"lastTermination"`
}

// Termination is how a container instance ended.
type Termination struct {
	Reason   string `json:"reason"`
	ExitCode int    `json:"exitCode"`
}

// Eviction is one pod the eviction manager evicted.
type Eviction struct {
	Time      float64 `json:"time"`
	Pod       string  `json:"pod"`
	Signal    string  `json:"signal"`
	Observed  string  `json:"observed"`
	Threshold string  `json:"threshold"`
	// GracePeriod is the pod termination grace period the eviction manager asked for, in
	// seconds: 1 (immediate) on a hard threshold, min(evictionMaxPodGracePeriod, the pod's
	// terminationGracePeriodSeconds) on a soft one.
	GracePeriod int64 `json:"gracePeriod"`
	// PodGracePeriod is the grace period the pod worker then gave the pod, in seconds: the
	// request above, but never below 1s nor above a grace period the pod was already given.
	// Absent when the pod was already terminating.
	PodGracePeriod *int64 `json:"podGracePeriod,omitempty"`
	// ThresholdGracePeriod is the soft threshold's own grace period (evictionSoftGracePeriod),
	// how long it had to stay met before the eviction manager acted, in seconds; 0 for a hard
	// threshold and for limit evictions.
	ThresholdGracePeriod float64 `json:"thresholdGracePeriod"`
	// ThresholdMetFor is how long the threshold had been met when the pod was evicted, in
	// seconds, from the first eviction pass that saw it met; absent for limit evictions.
	ThresholdMetFor *float64          `json:"thresholdMetFor,omitempty"`
	Ranking         []RankedCandidate `json:"ranking"`
	// Message is the Evicted event's message, which is also the pod's status message.
	Message string `json:"message,omitempty"`
	// Annotations are those of the Evicted event: offending_containers,
	// offending_containers_usage, offending_pod and offending_pod_usage (a pod with
	// pod-level resources, on memory) and starved_resource (absent without pod stats).
	Annotations map[string]string `json:"annotations,omitempty"`
}

// RankedCandidate is one pod in an eviction's ranking.
type RankedCandidate struct {
	Pod                string `json:"pod"`
	ExceedsRequests    bool   `json:"exceedsRequests"`
	Priority           int32  `json:"priority"`
	UsageAboveRequests string `json:"usageAboveRequests"`
}

// OOMKill is one kill by a cgroup's or the node's OOM killer.
type OOMKill struct {
	Time        float64 `json:"time"`
	Pod         string  `json:"pod"`
	Container   string  `json:"container"`
	Kind        string  `json:"kind"`
	OOMScoreAdj int     `json:"oomScoreAdj"`
}

// SystemMemoryHold is one such moment: the bytes the system usage program asked for and the
// bytes it was held at.
type SystemMemoryHold struct {
	Time      float64 `json:"time"`
	Requested int64   `json:"requested"`
	Held      int64   `json:"held"`
}

// Sentence says what happened, for the table and the page.
func (h SystemMemoryHold) Sentence() string {
	var c ByteColumn
	req, held := strconv.FormatInt(h.Requested, 10), strconv.FormatInt(h.Held, 10)
	c.Observe(req)
	c.Observe(held)
	return fmt.Sprintf("At %s system usage asked for %s of memory; with no pod process left to kill, the kernel held it at %s, so that memory in use stays within the node's capacity.",
		FormatSeconds(h.Time), c.Format(req), c.Format(held))
}

// AdmissionRejection is a pod the kubelet refused.
type AdmissionRejection struct {
	Time    float64 `json:"time"`
	Pod     string  `json:"pod"`
	Reason  string  `json:"reason"`
	Message string  `json:"message"`
}

// NodeCondition is one transition of a node condition.
type NodeCondition struct {
	Time   float64 `json:"time"`
	Type   string  `json:"type"`
	Status string  `json:"status"`
	Reason string  `json:"reason,omitempty"`
}

// SyncLoopCounts is how often the syncLoop's select chose each channel.
type SyncLoopCounts struct {
	ConfigCh       int `json:"configCh"`
	PlegCh         int `json:"plegCh"`
	SyncCh         int `json:"syncCh"`
	HousekeepingCh int `json:"housekeepingCh"`
	LivenessCh     int `json:"livenessCh"`
	ReadinessCh    int `json:"readinessCh"`
	StartupCh      int `json:"startupCh"`
}

// ExpectationResult is one expectation's verdict.
type ExpectationResult struct {
	Expect string `json:"expect"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail"`
}

// Input is what a report is built from.
type Input struct {
	Scenario    *api.Scenario
	File        string
	Hash        string
	Seed        uint64
	End         time.Duration
	Trace       []trace.Event
	QoS         map[string]string // pod -> QoS class
	PodOrder    []string          // scenario pods in delivery order
	NotModelled []string
	Warnings    []string
	Version     string
}

func secs(d time.Duration) float64 {
	// Round to the microsecond so that float printing is stable.
	return float64(d.Round(time.Microsecond)) / float64(time.Second)
}

func fptr(v float64) *float64 { return &v }

// podState is what the trace says about one pod as the build walks it.
type podState struct {
	uid        string
	seen       time.Duration
	hasSeen    bool
	running    time.Duration
	hasRunning bool
	firstPull  time.Duration
	lastPull   time.Duration
	pulled     bool
	phase      string
	reason     string
	deleted    *float64
	terminated *float64
	containers map[string]string // last summary per container
	order      []string
	maxAttempt map[string]int
	oomKills   map[string]int
	disruption *PodCondition
	podIP      string
	restarting []ConditionTransition
}

// Builder derives the report from trace events as they are recorded, so that a run
// need not keep its trace: it is a trace.Sink.
type Builder struct {
	in             Input
	r              *Report
	pods           map[string]*podState
	lat            *latencies
	lastExit       map[containerKey]time.Duration // a container's last exit
	lastRelist     time.Duration
	relists        int
	initial        map[string]NodeCondition
	conditionOrder []string
	// slowBefore is the time before which Record takes recordBoot: 0 while conditionOrder
	// is empty, so that only the boot's events do, and the end of time while it holds
	// conditions to flush, so that the next event does. One comparison per event instead
	// of two; whatever changes conditionOrder sets it.
	slowBefore time.Duration
	pr         pressure
	hr         headroomState
}

// NewBuilder starts a report for in (whose Trace is not used).
func NewBuilder(in Input) *Builder {
	r := &Report{
		Scenario: in.Scenario.Metadata.Name, Description: strings.TrimSpace(in.Scenario.Metadata.Description),
		Seed: in.Seed, Duration: secs(in.End),
		Pods: []PodReport{}, Evictions: []Eviction{}, OOMKills: []OOMKill{}, AdmissionRejections: []AdmissionRejection{},
		NodeConditions: []NodeCondition{}, Latency: map[string]LatencyStats{}, Expectations: []ExpectationResult{},
		Counts: map[string]int64{}, NotModelled: in.NotModelled, Warnings: in.Warnings,
		phases: map[string][]phaseAt{},
	}
	if r.NotModelled == nil {
		r.NotModelled = []string{}
	}
	return &Builder{in: in, r: r, pods: map[string]*podState{}, lat: newLatencies(),
		lastExit: map[containerKey]time.Duration{}, initial: map[string]NodeCondition{}, pr: newPressure()}
}

func (b *Builder) get(key string) *podState {
	p := b.pods[key]
	if p == nil {
		p = &podState{containers: map[string]string{}, maxAttempt: map[string]int{}, oomKills: map[string]int{}}
		b.pods[key] = p
	}
	return p
}

// Build derives the report from a recorded trace.
func Build(in Input) *Report {
	b := NewBuilder(in)
	for i := range in.Trace {
		b.Record(&in.Trace[i])
	}
	return b.Finish(in.End)
}

// Record takes one trace event.
func (b *Builder) Record(e *trace.Event) {
	// Probe results are most of a busy node's events, and most of them are successes while
	// no run of failures is open, which change nothing (see probeResult): they are done
	// here, first, with one comparison of the kind and a look at the first attribute, where
	// the prober records the result. Such an event needs no look at the time either: during
	// the boot Record ignores it, and the node conditions the boot left (see recordBoot)
	// wait for the next event that is not one; only a nodeCondition or Finish adds to the
	// report's conditions after them.
	if e.Kind == kindProbeResult {
		if a := e.Attrs; b.pr.failing == 0 && len(a) > 0 && a[0].Key == "result" && a[0].Value == "success" {
			return
		}
		if e.At < b.slowBefore && b.recordBoot(e) {
			return
		}
		b.probeResult(e)
		return
	}
	if e.At < b.slowBefore && b.recordBoot(e) {
		return
	}
	// One switch on the kind for the rest (a jump on its length, then a comparison or
	// two). A stats sample has no case: the report reads none.
	switch e.Kind {
	case kindPodSeen:
		p := b.get(e.Pod)
		if !p.hasSeen {
			p.hasSeen, p.seen, p.uid = true, e.At, e.Attr("uid")
		}
	case kindSetPodStatus:
		p := b.get(e.Pod)
		if ph := e.Attr("phase"); ph != p.phase {
			b.r.phases[e.Pod] = append(b.r.phases[e.Pod], phaseAt{at: e.At, phase: ph})
		}
		p.phase, p.reason = e.Attr("phase"), e.Attr("reason")
		if ip := e.Attr("podIP"); ip != "" {
			p.podIP = ip
		}
		if c := e.Attr("condition/AllContainersRestarting"); c != "" {
			status, reason, _ := strings.Cut(c, ":")
			if n := len(p.restarting); n == 0 || p.restarting[n-1].Status != status {
				p.restarting = append(p.restarting, ConditionTransition{Time: secs(e.At), Status: status, Reason: reason})
			}
		}
		if e.Attr("allRunning") == "true" && !p.hasRunning {
			p.hasRunning, p.running = true, e.At
		}
		for _, a := range e.Attrs {
			if name, ok := strings.CutPrefix(a.Key, "container/"); ok {
				if _, known := p.containers[name]; !known {
					p.order = append(p.order, name)
				}
				p.containers[name] = a.Value
			}
		}
	case kindPullRequested:
		// Only pulls before the pod first ran belong to its start-up.
		if p := b.get(e.Pod); !p.pulled && !p.hasRunning {
			p.pulled, p.firstPull = true, e.At
		}
	case kindPulled, kindPullFailed:
		if p := b.get(e.Pod); !p.hasRunning {
			p.lastPull = e.At
		}
	case kindContainerRun:
		p := b.get(e.Pod)
		att, _ := strconv.Atoi(e.Attr("attempt"))
		if att > p.maxAttempt[e.Container] {
			p.maxAttempt[e.Container] = att
		}
		if t, ok := b.lastExit[containerKey{e.Pod, e.Container}]; ok {
			b.lat.add("containerRestart", e.At-t)
			delete(b.lastExit, containerKey{e.Pod, e.Container})
		}
		b.probeRestarted(e)
		b.r.Counts["containersStarted"]++
	case kindContainerExit:
		// OOM kills are counted from the OOM killer's own events (kindOOMKill), not from
		// exit reasons, so that a kill is never counted twice.
		b.lastExit[containerKey{e.Pod, e.Container}] = e.At
	case kindWorkerState:
		if e.Name == "terminating" {
			b.evictionGrace(e)
		}
		if e.Name == "terminated" && b.get(e.Pod).terminated == nil {
			b.get(e.Pod).terminated = fptr(secs(e.At))
			b.r.Counts["podsTerminated"]++
		}
		if e.Name == "terminated" {
			b.evictionTerminated(e)
		}
	case kindEvictionPass:
		// The levels first, as during the boot; they and the node conditions above are
		// independent.
		b.hr.evictionLevels(e)
		b.evictionPass(e)
		b.hr.observe(e)
	case trace.ThresholdCrossed:
		b.thresholdCrossed(e)
	case kindEviction:
		b.eviction(e)
	case kindOOMKill:
		b.oomKill(e)
	case trace.SystemMemoryHeld:
		req, _ := strconv.ParseInt(e.Attr("requested"), 10, 64)
		held, _ := strconv.ParseInt(e.Attr("held"), 10, 64)
		b.r.SystemMemoryHeld = append(b.r.SystemMemoryHeld, SystemMemoryHold{Time: secs(e.At), Requested: req, Held: held})
	case kindKilling:
		b.killing(e)
	case kindAPIDelete:
		if p := b.get(e.Pod); p.deleted == nil {
			p.deleted = fptr(secs(e.At))
		}
	case kindRejected:
		b.r.AdmissionRejections = append(b.r.AdmissionRejections, AdmissionRejection{Time: secs(e.At), Pod: e.Pod, Reason: e.Attr("reason"), Message: e.Attr("message")})
	case kindNodeCondition:
		b.r.NodeConditions = append(b.r.NodeConditions, NodeCondition{Time: secs(e.At), Type: e.Attr("type"), Status: e.Attr("status"), Reason: e.Attr("reason")})
	case trace.Select:
		switch e.Name {
		case "configCh":
			b.r.SyncLoop.ConfigCh++
		case "plegCh":
			b.r.SyncLoop.PlegCh++
		case "syncCh":
			b.r.SyncLoop.SyncCh++
		case "housekeepingCh":
			b.r.SyncLoop.HousekeepingCh++
		// The probe channels are livenessCh, readinessCh and startupCh; traces saved before
		// they had those names call them after their managers.
		case "livenessCh", "livenessManager":
			b.r.SyncLoop.LivenessCh++
		case "readinessCh", "readinessManager":
			b.r.SyncLoop.ReadinessCh++
		case "startupCh", "startupManager":
			b.r.SyncLoop.StartupCh++
		}
	case kindRelist:
		if e.Name == "relist" {
			b.lat.plegRelist.add(e.Dur)
			start := e.At - e.Dur
			if b.relists > 0 {
				b.lat.plegRelistInterval.add(start - b.lastRelist)
			}
			b.lastRelist = start
			b.relists++
		}
		if d := e.Attr("dropped"); d != "" && d != "0" {
			n, _ := strconv.Atoi(d)
			b.r.Counts["plegDiscardedEvents"] += int64(n)
		}
	case kindSyncEnd:
		b.lat.podWorkerSync.add(e.Dur)
	case kindIterationWait:
		b.lat.iterationWait.add(e.Dur)
	}
}

// SkipsKinds lists kinds the Builder reads nothing from, among those most events of a run
// are (see trace.Skipper): a stats sample, the steps of the pod worker and the syncLoop a
// report does not count, channel steps. Record has no case for them (and recordBoot
// none): TestSkippedKindsChangeNothing holds the list to that.
func (b *Builder) SkipsKinds() []trace.Kind {
	return []trace.Kind{kindStats, kindUpdatePod, kindSyncStart, kindPodActions, kindRequeue,
		kindHandler, kindHousekeeping, trace.Send, trace.Recv, kindBackOff, kindPatchStatus, kindPLEGEvent}
}

// recordBoot takes an event of the kubelet's boot before the scenario, and reports true,
// or flushes the node conditions the boot left (the event is the first at time zero or
// later) and reports false: Record then takes the event as usual.
func (b *Builder) recordBoot(e *trace.Event) bool {
	if e.At < 0 {
		// The kubelet's boot before the scenario: only the node's state at time zero
		// matters, and the hard eviction levels, which the eviction manager's first pass
		// records during the boot.
		switch e.Kind {
		case kindEvictionPass:
			b.hr.evictionLevels(e)
		case kindNodeCondition:
			if _, ok := b.initial[e.Attr("type")]; !ok {
				b.conditionOrder = append(b.conditionOrder, e.Attr("type"))
				b.slowBefore = math.MaxInt64
			}
			b.initial[e.Attr("type")] = NodeCondition{Time: 0, Type: e.Attr("type"), Status: e.Attr("status"), Reason: e.Attr("reason")}
		}
		return true
	}
	for _, t := range b.conditionOrder {
		b.r.NodeConditions = append(b.r.NodeConditions, b.initial[t])
	}
	b.conditionOrder, b.slowBefore = nil, 0
	return false
}

// Finish completes the report of a run that ended at end.
func (b *Builder) Finish(end time.Duration) *Report {
	b.r.Duration = secs(end)
	for _, t := range b.conditionOrder {
		b.r.NodeConditions = append(b.r.NodeConditions, b.initial[t])
	}
	b.conditionOrder, b.slowBefore = nil, 0
	// The scenario's pods in their order, then the others the kubelet saw (static pods'
	// mirrors, pods created during the run) by name. A set of the scenario's pods keeps
	// this linear in the pods: a node of 10,000 pods would otherwise compare each with each.
	order := append([]string{}, b.in.PodOrder...)
	scenarioPods := make(map[string]bool, len(order))
	for _, key := range order {
		scenarioPods[key] = true
	}
	for key, p := range b.pods {
		if !scenarioPods[key] && p.hasSeen {
			order = append(order, key)
		}
	}
	sort.SliceStable(order[len(b.in.PodOrder):], func(i, j int) bool {
		return order[len(b.in.PodOrder)+i] < order[len(b.in.PodOrder)+j]
	})
	for _, key := range order {
		p := b.get(key)
		pr := PodReport{Pod: key, UID: p.uid, QoS: b.in.QoS[key], Phase: p.phase, Reason: p.reason,
			DeletedAt: p.deleted, TerminatedAt: p.terminated, Containers: []ContainerReport{}, DisruptionTarget: p.disruption, PodIP: p.podIP,
			AllContainersRestarting: p.restarting}
		if p.phase == "" {
			pr.Phase = "Pending"
		}
		if p.hasSeen && p.hasRunning {
			with := p.running - p.seen
			pulls := time.Duration(0)
			if p.pulled && p.lastPull >= p.firstPull {
				pulls = p.lastPull - p.firstPull
			}
			pr.StartupLatencyWithPulls = fptr(secs(with))
			pr.StartupLatency = fptr(secs(with - pulls))
			b.lat.add("podStartup", with-pulls)
			b.lat.add("podStartupWithPulls", with)
			b.r.Counts["podsStarted"]++
		}
		if p.deleted != nil && p.terminated != nil {
			b.lat.add("podTermination", time.Duration((*p.terminated-*p.deleted)*float64(time.Second)))
		}
		for _, name := range p.order {
			cr := parseContainer(name, p.containers[name])
			cr.OOMKills = p.oomKills[name]
			b.r.Counts["restarts"] += int64(cr.Restarts)
			pr.Containers = append(pr.Containers, cr)
		}
		b.r.Pods = append(b.r.Pods, pr)
	}
	b.r.Counts["admissionRejections"] = int64(len(b.r.AdmissionRejections))
	b.r.Counts["evictions"] = int64(len(b.r.Evictions))
	b.lat.flush()
	b.r.Latency = b.lat.stats()
	b.r.samples = b.lat.samples
	b.r.headroom = b.hr.finish()
	for _, k := range []string{"containersStarted", "podsStarted", "podsTerminated", "restarts", "plegDiscardedEvents",
		"evictions", "admissionRejections", "oomKills", "nodeOOMKills", "cgroupOOMKills"} {
		if _, ok := b.r.Counts[k]; !ok {
			b.r.Counts[k] = 0
		}
	}
	return b.r
}

// parseContainer reads the status manager's container summary.
func parseContainer(name, summary string) ContainerReport {
	cr := ContainerReport{Name: name, State: "waiting"}
	for _, f := range strings.Fields(summary) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "state":
			parts := strings.Split(v, ":")
			cr.State = parts[0]
			if cr.State == "waiting" && len(parts) > 1 {
				cr.WaitingReason = parts[1]
			}
			if cr.State == "terminated" && len(parts) > 2 {
				code, _ := strconv.Atoi(parts[2])
				cr.LastTermination = &Termination{Reason: parts[1], ExitCode: code}
			}
		case "restarts":
			cr.Restarts, _ = strconv.Atoi(v)
		case "last":
			if cr.LastTermination == nil {
				reason, code, _ := strings.Cut(v, ":")
				c, _ := strconv.Atoi(code)
				cr.LastTermination = &Termination{Reason: reason, ExitCode: c}
			}
		}
	}
	return cr
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Package reports turns a run's trace into what users read: the JSON/YAML report of the
// output contract, tables, latency percentiles, expectation verdicts and files. Every number
// here is computed from trace events; nothing reaches back into the simulated node.
package reports

import (
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
	Reproduce           string                  `json:"reproduce"`

	samples map[string][]float64
	phases  map[string][]phaseAt
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
	Time        float64           `json:"time"`
	Pod         string            `json:"pod"`
	Signal      string            `json:"signal"`
	Observed    string            `json:"observed"`
	Threshold   string            `json:"threshold"`
	GracePeriod int64             `json:"gracePeriod"`
	Ranking     []RankedCandidate `json:"ranking"`
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
}

// Build derives the report from the trace.
func Build(in Input) *Report {
	r := &Report{
		Scenario: in.Scenario.Metadata.Name, Description: strings.TrimSpace(in.Scenario.Metadata.Description),
		Seed: in.Seed, Duration: secs(in.End),
		Pods: []PodReport{}, Evictions: []Eviction{}, OOMKills: []OOMKill{}, AdmissionRejections: []AdmissionRejection{},
		NodeConditions: []NodeCondition{}, Latency: map[string]LatencyStats{}, Expectations: []ExpectationResult{},
		Counts: map[string]int64{}, NotModelled: in.NotModelled,
		phases: map[string][]phaseAt{},
	}
	if r.NotModelled == nil {
		r.NotModelled = []string{}
	}
	pods := map[string]*podState{}
	get := func(key string) *podState {
		p := pods[key]
		if p == nil {
			p = &podState{containers: map[string]string{}, maxAttempt: map[string]int{}, oomKills: map[string]int{}}
			pods[key] = p
		}
		return p
	}
	lat := newLatencies()
	lastExit := map[string]time.Duration{} // pod/container -> last exit
	var lastRelist time.Duration
	relists := 0
	initial := map[string]NodeCondition{}
	var conditionOrder []string
	for i := range in.Trace {
		e := &in.Trace[i]
		if e.At < 0 {
			// The kubelet's boot before the scenario: only the node's state at time zero
			// matters.
			if e.Kind == kindNodeCondition {
				if _, ok := initial[e.Attr("type")]; !ok {
					conditionOrder = append(conditionOrder, e.Attr("type"))
				}
				initial[e.Attr("type")] = NodeCondition{Time: 0, Type: e.Attr("type"), Status: e.Attr("status"), Reason: e.Attr("reason")}
			}
			continue
		}
		if len(conditionOrder) > 0 {
			for _, t := range conditionOrder {
				r.NodeConditions = append(r.NodeConditions, initial[t])
			}
			conditionOrder = nil
		}
		switch e.Kind {
		case kindPodSeen:
			p := get(e.Pod)
			if !p.hasSeen {
				p.hasSeen, p.seen, p.uid = true, e.At, e.Attr("uid")
			}
		case kindSetPodStatus:
			p := get(e.Pod)
			if ph := e.Attr("phase"); ph != p.phase {
				r.phases[e.Pod] = append(r.phases[e.Pod], phaseAt{at: e.At, phase: ph})
			}
			p.phase, p.reason = e.Attr("phase"), e.Attr("reason")
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
			p := get(e.Pod)
			if !p.pulled {
				p.pulled, p.firstPull = true, e.At
			}
		case kindPulled, kindPullFailed:
			p := get(e.Pod)
			p.lastPull = e.At
		case kindContainerRun:
			p := get(e.Pod)
			att, _ := strconv.Atoi(e.Attr("attempt"))
			if att > p.maxAttempt[e.Container] {
				p.maxAttempt[e.Container] = att
			}
			if t, ok := lastExit[e.Pod+"/"+e.Container]; ok {
				lat.add("containerRestart", e.At-t)
				delete(lastExit, e.Pod+"/"+e.Container)
			}
			r.Counts["containersStarted"]++
		case kindContainerExit:
			p := get(e.Pod)
			if e.Attr("reason") == "OOMKilled" {
				p.oomKills[e.Container]++
			}
			lastExit[e.Pod+"/"+e.Container] = e.At
		case kindWorkerState:
			if e.Name == "terminated" && get(e.Pod).terminated == nil {
				get(e.Pod).terminated = fptr(secs(e.At))
				r.Counts["podsTerminated"]++
			}
		case kindAPIDelete:
			if p := get(e.Pod); p.deleted == nil {
				p.deleted = fptr(secs(e.At))
			}
		case kindRejected:
			r.AdmissionRejections = append(r.AdmissionRejections, AdmissionRejection{Time: secs(e.At), Pod: e.Pod, Reason: e.Attr("reason"), Message: e.Attr("message")})
		case kindNodeCondition:
			r.NodeConditions = append(r.NodeConditions, NodeCondition{Time: secs(e.At), Type: e.Attr("type"), Status: e.Attr("status"), Reason: e.Attr("reason")})
		case trace.Select:
			switch e.Name {
			case "configCh":
				r.SyncLoop.ConfigCh++
			case "plegCh":
				r.SyncLoop.PlegCh++
			case "syncCh":
				r.SyncLoop.SyncCh++
			case "housekeepingCh":
				r.SyncLoop.HousekeepingCh++
			case "livenessManager":
				r.SyncLoop.LivenessCh++
			case "readinessManager":
				r.SyncLoop.ReadinessCh++
			case "startupManager":
				r.SyncLoop.StartupCh++
			}
		case kindRelist:
			if e.Name == "relist" {
				lat.add("plegRelist", e.Dur)
				start := e.At - e.Dur
				if relists > 0 {
					lat.add("plegRelistInterval", start-lastRelist)
				}
				lastRelist = start
				relists++
			}
			if d := e.Attr("dropped"); d != "" && d != "0" {
				n, _ := strconv.Atoi(d)
				r.Counts["plegDiscardedEvents"] += int64(n)
			}
		case kindSyncEnd:
			lat.add("podWorkerSync", e.Dur)
		case kindIterationWait:
			lat.add("syncLoopIterationWait", e.Dur)
		}
	}

	order := append([]string{}, in.PodOrder...)
	for key := range pods {
		if !contains(order, key) && pods[key].hasSeen {
			order = append(order, key)
		}
	}
	sort.SliceStable(order[len(in.PodOrder):], func(i, j int) bool {
		return order[len(in.PodOrder)+i] < order[len(in.PodOrder)+j]
	})
	for _, key := range order {
		p := get(key)
		pr := PodReport{Pod: key, UID: p.uid, QoS: in.QoS[key], Phase: p.phase, Reason: p.reason,
			DeletedAt: p.deleted, TerminatedAt: p.terminated, Containers: []ContainerReport{}}
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
			lat.add("podStartup", with-pulls)
			lat.add("podStartupWithPulls", with)
			r.Counts["podsStarted"]++
		}
		if p.deleted != nil && p.terminated != nil {
			lat.add("podTermination", time.Duration((*p.terminated-*p.deleted)*float64(time.Second)))
		}
		for _, name := range p.order {
			cr := parseContainer(name, p.containers[name])
			cr.OOMKills = p.oomKills[name]
			r.Counts["restarts"] += int64(cr.Restarts)
			pr.Containers = append(pr.Containers, cr)
		}
		r.Pods = append(r.Pods, pr)
	}
	r.Counts["admissionRejections"] = int64(len(r.AdmissionRejections))
	r.Counts["evictions"] = int64(len(r.Evictions))
	r.Latency = lat.stats()
	r.samples = lat.samples
	for _, k := range []string{"containersStarted", "podsStarted", "podsTerminated", "restarts", "plegDiscardedEvents",
		"evictions", "admissionRejections", "oomKills", "nodeOOMKills", "cgroupOOMKills"} {
		if _, ok := r.Counts[k]; !ok {
			r.Counts[k] = 0
		}
	}
	return r
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

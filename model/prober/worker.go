package prober

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/kuberuntime"
	"nodesim/model/prober/results"
	"nodesim/sim"
	"nodesim/trace"
)

// worker probes one container with one probe type (upstream prober/worker.go).
type worker struct {
	m         *Manager
	clk       *sim.Clock
	pod       *corev1.Pod
	podKey    string // namespace/name, as the trace names the pod
	container *corev1.Container
	probeType ProbeType
	spec      *corev1.Probe
	results   *results.Manager

	initialValue results.Result
	containerID  string
	lastResult   results.Result
	resultRun    int
	onHold       bool

	// statusID is the last ContainerID read from the pod's status ("containerd://abc"), and
	// runtimeID the same without its scheme ("abc"): a probe parses the ID only when the
	// status names another container.
	statusID, runtimeID string
	// held are the reasons a probe below failureThreshold (0) or successThreshold (1)
	// records, built on first use (see heldReason).
	held [2]*trace.Reason

	// ticker fires every period and triggered once for a manual trigger; each worker keeps
	// its two timers for its whole life and re-arms them (Reset) instead of scheduling a new
	// function every round, so a round allocates no timer or closure.
	ticker    *sim.Timer
	triggered *sim.Timer
	// unblock is the continuation of a blocking result send, made once per worker.
	unblock func()
	stopped bool
	blocked bool // waiting for the syncLoop to take a result off the full channel
	pending bool // a manual trigger is scheduled
	rng     *sim.RNG
}

func newWorker(m *Manager, pod *corev1.Pod, c *corev1.Container, pt ProbeType, spec *corev1.Probe) *worker {
	key := pod.Namespace + "/" + pod.Name + "/" + c.Name + "/" + string(pt)
	w := &worker{
		m: m, pod: pod, podKey: pod.Namespace + "/" + pod.Name, container: c, probeType: pt, spec: spec, results: m.resultsFor(pt),
		clk: m.s.Clock("prober "+key, sim.PriorityDefault), rng: m.s.RNG("prober/" + key),
		lastResult: results.Unknown,
	}
	w.unblock = func() { w.blocked = false }
	switch pt {
	case Readiness:
		w.initialValue = results.Failure
	case Liveness:
		w.initialValue = results.Success
	default:
		w.initialValue = results.Unknown
	}
	return w
}

// key names the worker: its pod, container and probe type.
func (w *worker) key() probeKey { return probeKey{w.pod.UID, w.container.Name, w.probeType} }

func (w *worker) period() time.Duration { return time.Duration(w.spec.PeriodSeconds) * time.Second }

// start begins the worker's loop: probe once, then on every period. A kubelet that started
// less than a period ago first waits a random part of the period, so that probes created
// together at start-up do not all fire at once.
func (w *worker) start() {
	delay := time.Duration(0)
	if w.clk.Since(w.m.kubeletStartedAt) < w.period() {
		delay = w.rng.Uniform(0, w.period())
	}
	w.ticker = w.clk.Schedule(delay, w.tick)
}

func (w *worker) tick() {
	if w.stopped {
		return
	}
	w.ticker.Reset(w.period())
	if w.blocked {
		return // the tick is lost, as a ticker's would be while the worker is stuck
	}
	w.run()
}

// trigger asks for a probe now (the manual trigger channel has one slot).
func (w *worker) trigger() {
	if w.pending || w.stopped {
		return
	}
	w.pending = true
	if w.triggered == nil {
		w.triggered = w.clk.Schedule(0, w.runTriggered)
	} else {
		w.triggered.Reset(0)
	}
}

// runTriggered is the probe a manual trigger asked for.
func (w *worker) runTriggered() {
	w.pending = false
	if !w.stopped && !w.blocked {
		w.run()
	}
}

func (w *worker) stop() {
	if w.stopped {
		return
	}
	w.stopped = true
	if w.ticker != nil {
		w.ticker.Stop()
	}
	if w.containerID != "" {
		w.results.Remove(w.containerID)
	}
	w.m.remove(w)
}

func (w *worker) run() {
	if !w.doProbe() {
		w.stop()
	}
}

// set publishes a result; the send blocks while the syncLoop's channel is full.
func (w *worker) set(r results.Result) {
	w.blocked = true
	w.results.Set(w.containerID, r, w.pod.UID, w.unblock)
}

// resultEvent is a probeResult event with room for the two attributes every probe records
// (result and counted), so that recording the usual probe, which every worker does every
// period, takes a single allocation; the rarer third and fourth (timeout, held or changed)
// move the attributes to a slice of their own. Each event owns its attributes: a sink may
// keep them.
type resultEvent struct {
	trace.Event
	attrs [2]trace.Attr
}

// newResultEvent starts the event of a probe whose result is label, the worker's resultRun-th
// such result in a row.
func (w *worker) newResultEvent(label string) *resultEvent {
	e := &resultEvent{}
	e.attrs = [2]trace.Attr{{Key: "result", Value: label}, {Key: "counted", Value: w.m.counted(w.resultRun)}}
	e.Event = trace.Event{Kind: trace.ProbeResult, Name: string(w.probeType), Pod: w.podKey,
		Container: w.container.Name, Attrs: e.attrs[:]}
	return e
}

// resultLabel is how the trace names a result: "success" or "failure".
func resultLabel(r results.Result) string {
	switch r {
	case results.Success:
		return "success"
	case results.Failure:
		return "failure"
	default:
		return strings.ToLower(r.String())
	}
}

// heldReason is why a probe below its threshold keeps the previous result. Its text depends
// only on the worker's probe and the result, so each worker builds it once per result and
// every held probe of the worker shares it; that is safe because nothing that reads a
// recorded event changes its Reason.
func (w *worker) heldReason(result results.Result) *trace.Reason {
	i := 0
	if result == results.Success {
		i = 1
	}
	if w.held[i] == nil {
		threshold, field := w.spec.FailureThreshold, "failureThreshold"
		if result == results.Success {
			threshold, field = w.spec.SuccessThreshold, "successThreshold"
		}
		w.held[i] = trace.Because("probeThreshold/"+field,
			fmt.Sprintf("the %s probe needs %d %s results in a row (%s) before its result changes", w.probeType, threshold, resultLabel(result), field),
			trace.Attr{Key: field, Value: strconv.Itoa(int(threshold))})
	}
	return w.held[i]
}

// findStatus finds the named container's status, regular containers first.
func findStatus(st *corev1.PodStatus, name string) *corev1.ContainerStatus {
	for i := range st.ContainerStatuses {
		if st.ContainerStatuses[i].Name == name {
			return &st.ContainerStatuses[i]
		}
	}
	for i := range st.InitContainerStatuses {
		if st.InitContainerStatuses[i].Name == name {
			return &st.InitContainerStatuses[i]
		}
	}
	return nil
}

// doProbe is one round (upstream worker.doProbe); it reports whether to keep going.
func (w *worker) doProbe() bool {
	status, ok := w.m.status.PeekPodStatus(w.pod.UID)
	if !ok {
		return true // no status yet: try again next tick
	}
	if status.Phase == corev1.PodFailed || status.Phase == corev1.PodSucceeded {
		return false
	}
	c := findStatus(status, w.container.Name)
	if c == nil || c.ContainerID == "" {
		return true // the container has not been created yet
	}
	if c.ContainerID != w.statusID {
		w.statusID, w.runtimeID = c.ContainerID, c.ContainerID
		if i := strings.Index(w.runtimeID, "://"); i >= 0 {
			w.runtimeID = w.runtimeID[i+3:]
		}
	}
	id := w.runtimeID
	if w.containerID != id {
		if w.containerID != "" {
			w.results.Remove(w.containerID)
		}
		w.containerID = id
		w.lastResult, w.resultRun = results.Unknown, 0
		adopted := !w.m.ChangeContainerStatusOnKubeletRestart && c.State.Running != nil &&
			w.m.StartedBeforeKubeletRestart(c.State.Running.StartedAt.Time)
		if adopted && w.probeType == Startup && w.container.RestartPolicy != nil &&
			*w.container.RestartPolicy == corev1.ContainerRestartPolicyAlways && c.Started != nil && *c.Started {
			// a sidecar that had started: the pod's initialization must still see it started
			w.set(results.Success)
		}
		if !adopted {
			w.set(w.initialValue)
		}
		w.onHold = false
		if w.blocked {
			return true
		}
	}
	if w.onHold {
		return true
	}
	if c.State.Running == nil {
		w.set(results.Failure)
		// Stop once the container will not run again.
		if c.State.Terminated == nil {
			return true
		}
		if g := w.m.RestartGates; g.ContainerRestartRules {
			return kuberuntime.ContainerShouldRestart(w.container, &w.pod.Spec, c.State.Terminated.ExitCode, g) ||
				(g.RestartAll() && kuberuntime.ShouldAllContainersRestart(w.pod, nil, status))
		}
		return w.pod.Spec.RestartPolicy != corev1.RestartPolicyNever || kuberuntime.IsRestartableInitContainer(w.container)
	}
	if w.pod.DeletionTimestamp != nil && (w.probeType == Liveness || w.probeType == Startup) {
		w.set(results.Success)
		return false
	}
	if w.clk.Since(c.State.Running.StartedAt.Time) < time.Duration(w.spec.InitialDelaySeconds)*time.Second {
		return true
	}
	started := c.Started != nil && *c.Started
	if w.probeType == Startup && started {
		return true // the startup probe has done its job
	}
	if w.probeType != Startup && !started {
		return true // liveness and readiness wait for the startup probe
	}

	ok, took := w.m.runner.RunProbe(w.containerID, w.probeType)
	timedOut := took > time.Duration(w.spec.TimeoutSeconds)*time.Second
	result := results.Success
	if !ok || timedOut {
		result = results.Failure
	}
	if w.lastResult == result {
		w.resultRun++
	} else {
		w.lastResult, w.resultRun = result, 1
	}
	e := w.newResultEvent(resultLabel(result))
	if timedOut {
		e.Attrs = append(e.Attrs, trace.Attr{Key: "timeout", Value: took.String()})
	}
	if (result == results.Failure && w.resultRun < int(w.spec.FailureThreshold)) ||
		(result == results.Success && w.resultRun < int(w.spec.SuccessThreshold)) {
		e.Attrs = append(e.Attrs, trace.Attr{Key: "held", Value: "true"})
		e.Reason = w.heldReason(result)
		w.clk.Record(&e.Event)
		return true // below the threshold: keep the previous result
	}
	// An unchanged result is not published: Set would find it in the cache and return at
	// once, without a send.
	prev, known := w.results.Get(w.containerID)
	changed := !known || prev != result
	if changed {
		e.Attrs = append(e.Attrs, trace.Attr{Key: "changed", Value: "true"})
	}
	w.clk.Record(&e.Event)
	if changed {
		w.set(result)
	}
	if (w.probeType == Liveness || w.probeType == Startup) && result == results.Failure {
		// The container will be restarted: hold until a new container ID shows up.
		w.onHold = true
		w.resultRun = 0
	}
	return true
}

package prober

import (
	"fmt"
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

// worker probes one container with one probe type (upstream prober/worker.go).
//
// A round on an unchanged pod status does no lookup by name or ID: the worker holds the
// status it last read and the container's entry in it, the runtime's handle to the
// container, a copy of the result it last published, and its probe's settings; the
// fields a round reads come first.
type worker struct {
	stopped bool
	blocked bool // waiting for the syncLoop to take a result off the full channel
	pending bool // a manual trigger is scheduled
	onHold  bool
	// steady says the last round probed, found Success and left the published result
	// Success (not held, not on hold, the target known): while the status stays seen, the
	// next round that finds Success again changes nothing but the count of results in a
	// row, and the periodic round (newTick) takes it without doProbe's checks. Only the
	// worker's own round sets it: probed decides it afresh from every probe's outcome, a
	// slow round (doProbe) clears it before it looks at anything, and so do set and forget,
	// the only other writers of what it vouches for.
	steady bool
	// settled says the target answered Settle with true (see SettlingTarget): until its
	// container ends, every probe of it succeeds at once, so a steady round does not run
	// it. askedSettle says Settle was asked of the current target, once per target. Both
	// are cleared when the worker lets go of its target (checkStatus); the target clears
	// settled through unsettle when its container ends, before a probe could see the end.
	// (A late call from a target the worker let go of only costs the new one its probe
	// calls.)
	settled, askedSettle bool
	unsettle             func()
	// seenProbes records that the last round on status seen passed every check that
	// depends only on the status and on the clock (phase, container ID, running, initial
	// delay, started) and ran the probe: on the same status they pass again, so the next
	// round checks only what may have changed since (on hold, the pod's deletion).
	seenProbes bool
	// published is the result this worker last put in its results manager for containerID
	// (publishedKnown false: none, or removed since): what results.Get would return. The
	// worker is the only writer of that entry (one worker per container and probe type,
	// one results manager per probe type, and container IDs are never reused), so it
	// keeps the copy in step on every Set and Remove and need not look the ID up.
	publishedKnown bool
	published      results.Result
	lastResult     results.Result
	resultRun      int
	// ticker fires every period and triggered once for a manual trigger; each worker keeps
	// its two timers for its whole life and re-arms them (Reset) instead of scheduling a new
	// function every round, so a round allocates no timer or closure.
	ticker *sim.Timer
	m      *Manager
	uid    types.UID
	// entry is the pod's entry in the status manager's cache, held until the manager drops
	// it (Status nil) so that a round looks the pod up only then.
	entry *status.PodStatusEntry
	// seen is the pod status the last round read and seenCS the container's entry in it
	// (nil: none). A cached status is never changed in place (see StatusProvider), so while
	// the status manager hands out the same status the entry is the one findStatus would
	// find; and since the worker holds the pointer, a later status cannot reuse its address.
	seen   *corev1.PodStatus
	seenCS *corev1.ContainerStatus
	// target is the runtime's handle to container containerID for this probe type, held
	// until the ID changes (nil: not looked up yet, or the runtime did not know the ID).
	target Target
	// The probe's settings, read once: the spec of a worker's probe never changes (a pod
	// update comes as a new object, and AddPod keeps the existing workers).
	period, timeout time.Duration
	// thresholds are the probe's successThreshold and failureThreshold, in that order: a
	// result is held until it has come that many times in a row.
	thresholds [2]int
	clk        *sim.Clock
	probeType  ProbeType
	// killsOnFailure is probeType == Liveness || probeType == Startup, compared once: the
	// probe types whose failure restarts the container and which stop once the pod is
	// being deleted.
	killsOnFailure bool
	podKey         string // namespace/name, as the trace names the pod
	containerName  string
	// event is the probeResult event every round records, its fixed fields (kind, probe
	// type, pod, container, track) filled in once by newWorker: a round sets only its
	// attributes and reason. Record copies the event before any sink sees it and writes
	// only its time, sequence number and (with reasons off) reason, which every round
	// overwrites or sets again, so no recorded event shares it.
	event trace.Event

	pod          *corev1.Pod
	container    *corev1.Container
	spec         *corev1.Probe
	results      *results.Manager
	initialValue results.Result
	containerID  string
	// statusID is the last ContainerID read from the pod's status ("containerd://abc"), and
	// runtimeID the same without its scheme ("abc"): a probe parses the ID only when the
	// status names another container.
	statusID, runtimeID string
	// held are the reasons a probe below failureThreshold (0) or successThreshold (1)
	// records, built on first use (see heldReason).
	held      [2]*trace.Reason
	triggered *sim.Timer
	// unblock is the continuation of a blocking result send, made once per worker.
	unblock func()
	rng     *sim.RNG
}

func newWorker(m *Manager, pod *corev1.Pod, c *corev1.Container, pt ProbeType, spec *corev1.Probe) *worker {
	key := pod.Namespace + "/" + pod.Name + "/" + c.Name + "/" + string(pt)
	w := &worker{
		m: m, pod: pod, podKey: pod.Namespace + "/" + pod.Name, container: c, probeType: pt, spec: spec, results: m.resultsFor(pt),
		clk: m.s.Clock("prober "+key, sim.PriorityDefault), rng: m.s.RNG("prober/" + key),
		lastResult: results.Unknown, uid: pod.UID, containerName: c.Name,
		period: time.Duration(spec.PeriodSeconds) * time.Second, timeout: time.Duration(spec.TimeoutSeconds) * time.Second,
		thresholds: [2]int{int(spec.SuccessThreshold), int(spec.FailureThreshold)},
	}
	w.killsOnFailure = pt == Liveness || pt == Startup
	w.event = trace.Event{Track: w.clk.Track(), Kind: trace.ProbeResult, Name: string(pt), Pod: w.podKey, Container: w.containerName}
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
func (w *worker) key() probeKey { return probeKey{w.uid, w.containerName, w.probeType} }

// start begins the worker's loop: probe once, then on every period. A kubelet that started
// less than a period ago first waits a random part of the period, so that probes created
// together at start-up do not all fire at once.
func (w *worker) start() {
	delay := time.Duration(0)
	if w.clk.Since(w.m.kubeletStartedAt) < w.period {
		delay = w.rng.Uniform(0, w.period)
	}
	w.ticker = w.clk.Schedule(delay, w.newTick())
}

// newTick returns the worker's round on its period, which its ticker runs. The round is
// the closure itself rather than a method behind it: the ticker would call a method value
// (w.tick) through a wrapper of its own, one call more on every period. (Not inlined: a
// closure made inside an inlined call is compiled without inlining its own callees.)
//
//go:noinline
func (w *worker) newTick() func() {
	return func() {
		if w.stopped {
			return
		}
		w.ticker.Reset(w.period)
		if w.blocked {
			return // the tick is lost, as a ticker's would be while the worker is stuck
		}
		if w.steady && w.entry.Status == w.seen && !w.stopsOnDeletion() {
			// A steady container on the status the last round passed: doProbe's
			// checks would all pass again (the deletion was the one that could
			// differ), and another Success only counts one more result in a row.
			// A settled target would answer Success, at once.
			if !w.settled {
				if ok, took := w.target.RunProbe(); !ok || took > w.timeout {
					w.probed(ok, took)
					return
				}
			}
			w.resultRun++
			e := &w.event // Reason is nil: the last round was not held
			if e.Attrs = w.m.resultAttrs(0, w.resultRun, tailNone); e.Attrs == nil {
				e.Attrs = w.m.newResultAttrs(0, w.resultRun, tailNone)
			}
			w.clk.Record(e)
			return
		}
		if !w.doProbe() { // run, without a call of its own on every period
			w.stop()
		}
	}
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
		w.forget()
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
	w.blocked, w.steady = true, false
	w.published, w.publishedKnown = r, true
	w.results.Set(w.containerID, r, w.pod.UID, w.unblock)
}

// settle asks the target, once, whether its answer has settled (see SettlingTarget): a
// probe that takes no time is then always in time.
func (w *worker) settle() {
	w.askedSettle = true
	if t, ok := w.target.(SettlingTarget); ok && w.timeout >= 0 {
		if w.unsettle == nil {
			w.unsettle = func() { w.settled = false }
		}
		w.settled = t.Settle(w.unsettle)
	}
}

// forget removes the result of the container the worker probed.
func (w *worker) forget() {
	w.published, w.publishedKnown, w.steady = results.Unknown, false, false
	w.results.Remove(w.containerID)
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
	w.steady = false
	if w.entry == nil || w.entry.Status == nil {
		if w.entry = w.m.status.PodStatusEntry(w.uid); w.entry == nil {
			return true // no status yet: try again next tick
		}
	}
	status := w.entry.Status
	if status != w.seen {
		w.seen, w.seenCS, w.seenProbes = status, findStatus(status, w.containerName), false
	}
	if w.seenProbes && !w.onHold {
		// Of the checks the last round passed on this status, only the deletion can differ.
		if w.stopsOnDeletion() {
			w.set(results.Success)
			return false
		}
	} else {
		probe, keepGoing := w.checkStatus(status)
		if !probe {
			return keepGoing
		}
		w.seenProbes = true
	}

	t := w.target
	if t == nil {
		t = w.m.runner.ProbeTarget(w.containerID, w.probeType)
		w.target = t
	}
	ok, took := false, time.Duration(0) // a container the runtime does not know fails
	if t != nil {
		ok, took = t.RunProbe()
	}
	w.probed(ok, took)
	return true
}

// probed is the rest of a round once the probe ran and said ok, in took: it counts the
// result, records it and publishes a change.
func (w *worker) probed(ok bool, took time.Duration) {
	// Steady only if this round ends so (below): a failure, or a success held below its
	// threshold, leaves the counts and the hold to the next round's full checks.
	w.steady = false
	timedOut := took > w.timeout
	// r is the result as an index: 0 success, 1 failure (thresholds, the attribute table).
	result, r := results.Success, 0
	if !ok || timedOut {
		result, r = results.Failure, 1
	}
	if w.lastResult == result {
		w.resultRun++
	} else {
		w.lastResult, w.resultRun = result, 1
	}
	e := &w.event
	tail := tailNone
	held := w.resultRun < w.thresholds[r]
	// An unchanged result is not published: Set would find it in the cache and return at
	// once, without a send.
	changed := false
	if held {
		// Below the threshold: the previous result stands.
		tail = tailHeld
		e.Reason = w.heldReason(result)
	} else {
		if e.Reason != nil {
			e.Reason = nil
		}
		if changed = !w.publishedKnown || w.published != result; changed {
			tail = tailChanged
		}
	}
	if timedOut {
		e.Attrs = w.m.timedOutAttrs(result, w.resultRun, took, tail)
	} else {
		if e.Attrs = w.m.resultAttrs(r, w.resultRun, tail); e.Attrs == nil {
			e.Attrs = w.m.newResultAttrs(r, w.resultRun, tail)
		}
	}
	w.clk.Record(e)
	if held {
		return
	}
	if changed {
		w.set(result)
	}
	if result == results.Success {
		// Published (just now or before), neither held nor on hold, and the target
		// is known (a probe without one fails).
		w.steady = true
		if !w.askedSettle {
			w.settle()
		}
		return
	}
	if w.killsOnFailure {
		// The container will be restarted: hold until a new container ID shows up.
		w.onHold = true
		w.resultRun = 0
	}
}

// stopsOnDeletion reports whether a deleted pod's worker ends here, publishing Success:
// liveness and startup probes stop once the pod is being deleted.
func (w *worker) stopsOnDeletion() bool {
	return w.killsOnFailure && w.pod.DeletionTimestamp != nil
}

// checkStatus is the part of a round before the probe itself (upstream doProbe's checks on
// the pod's status): it reports whether to probe now and, if not, whether to keep going.
func (w *worker) checkStatus(status *corev1.PodStatus) (probe, keepGoing bool) {
	if status.Phase == corev1.PodFailed || status.Phase == corev1.PodSucceeded {
		return false, false
	}
	c := w.seenCS
	if c == nil || c.ContainerID == "" {
		return false, true // the container has not been created yet
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
			w.forget()
		}
		w.containerID, w.target = id, nil
		w.settled, w.askedSettle = false, false
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
			return false, true
		}
	}
	if w.onHold {
		return false, true
	}
	if c.State.Running == nil {
		w.set(results.Failure)
		// Stop once the container will not run again.
		if c.State.Terminated == nil {
			return false, true
		}
		if g := w.m.RestartGates; g.ContainerRestartRules {
			return false, kuberuntime.ContainerShouldRestart(w.container, &w.pod.Spec, c.State.Terminated.ExitCode, g) ||
				(g.RestartAll() && kuberuntime.ShouldAllContainersRestart(w.pod, nil, status))
		}
		return false, w.pod.Spec.RestartPolicy != corev1.RestartPolicyNever || kuberuntime.IsRestartableInitContainer(w.container)
	}
	if w.stopsOnDeletion() {
		w.set(results.Success)
		return false, false
	}
	if w.clk.Since(c.State.Running.StartedAt.Time) < time.Duration(w.spec.InitialDelaySeconds)*time.Second {
		return false, true
	}
	started := c.Started != nil && *c.Started
	if w.probeType == Startup && started {
		return false, true // the startup probe has done its job
	}
	if w.probeType != Startup && !started {
		return false, true // liveness and readiness wait for the startup probe
	}
	return true, true
}

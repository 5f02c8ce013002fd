package engine

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"nodesim/trace"
)

// InvariantViolation is a run that broke a rule no kubelet run may break. It is a fault of
// the model, not of the scenario: the run stops at the event that broke the rule.
type InvariantViolation struct {
	// Invariant names the rule.
	Invariant string
	// At is the simulated time of the event that broke it.
	At time.Duration
	// Event is that event, on one line.
	Event string
	// Detail says what was seen.
	Detail string
}

func (v *InvariantViolation) Error() string {
	return fmt.Sprintf("invariant %q violated at %s: %s (event: %s)", v.Invariant, v.At, v.Detail, v.Event)
}

// Invariant names.
const (
	InvTerminalPhase     = "phase never leaves Succeeded or Failed"
	InvRunsAfterTerm     = "no container runs for a terminated pod"
	InvStartAfterTerm    = "nothing starts after its pod's worker began terminating it"
	InvSecondInstance    = "at most one running instance of a container"
	InvMemoryOverCap     = "node memory in use never exceeds capacity without an OOM kill"
	InvEvictedRankedLast = "every evicted pod was ranked first"
	InvEvictNoThreshold  = "a pressure eviction needs a threshold met"
	InvOneEvictPerPass   = "at most one pressure eviction per monitoring pass"
	InvRestartCount      = "restart counts never fall"
)

// invariantChecker watches the trace as it is recorded and keeps the first violation. It
// holds only per-pod and per-container state, so its memory follows the node's pods, not
// the run's length.
type invariantChecker struct {
	running     map[string]map[string]bool // pod -> container -> has a running instance
	terminal    map[string]string          // pod -> terminal phase seen
	terminating map[string]bool            // pod's worker began terminating it
	terminated  map[string]bool            // pod's worker finished terminating it
	attempts    map[containerKey]int       // last attempt started
	lastMet     string                     // thresholds actionable in the last eviction pass
	passEvicted int                        // pressure evictions since the last eviction pass
	violation   *InvariantViolation
}

func newInvariantChecker() *invariantChecker {
	return &invariantChecker{running: map[string]map[string]bool{}, terminal: map[string]string{},
		terminating: map[string]bool{}, terminated: map[string]bool{}, attempts: map[containerKey]int{}}
}

// containerKey names a container of a pod, a map key that needs no joined string.
type containerKey struct{ pod, container string }

func (v *invariantChecker) fail(e *trace.Event, inv, format string, args ...any) {
	if v.violation != nil {
		return
	}
	v.violation = &InvariantViolation{Invariant: inv, At: e.At, Event: strings.TrimSpace(e.String()), Detail: fmt.Sprintf(format, args...)}
}

// checks reports whether Record has a case for e, so that the recorder calls Record only
// for the few events it checks: not for probe results, pod stats samples, syncs, selects
// and the rest, nearly every event of a busy node. It must name every kind Record has a
// case for: TestChecksCoversRecord reads Record's cases from this file. The recorder's
// common path (recorder.Record) has a case for each kind named here, and
// TestRecorderChecksWhatChecksNames holds it to this list.
func checks(e *trace.Event) bool {
	switch e.Kind {
	case "containerRunning", "containerExited", "criCall", "setPodStatus", "workerState",
		"scenarioEvent", "apiRemoved", trace.EvictionPass, trace.Eviction:
		return true
	case trace.Stats:
		return e.Name == "node"
	}
	return false
}

// Record checks one event.
func (v *invariantChecker) Record(e *trace.Event) {
	switch e.Kind {
	case "containerRunning":
		// The pod/container name is joined only for a violation's message.
		key := containerKey{e.Pod, e.Container}
		running := v.running[e.Pod]
		if running[e.Container] {
			v.fail(e, InvSecondInstance, "a second running instance of %s/%s", e.Pod, e.Container)
		}
		if v.terminated[e.Pod] {
			v.fail(e, InvRunsAfterTerm, "%s/%s started after its pod was terminated", e.Pod, e.Container)
		}
		a, _ := strconv.Atoi(e.Attr("attempt"))
		if prev, ok := v.attempts[key]; ok && a <= prev {
			v.fail(e, InvRestartCount, "%s/%s restart count went from %d to %d", e.Pod, e.Container, prev, a)
		}
		v.attempts[key] = a
		if running == nil {
			running = map[string]bool{}
			v.running[e.Pod] = running
		}
		running[e.Container] = true
	case "containerExited":
		if running := v.running[e.Pod]; running != nil {
			running[e.Container] = false
		}
	case "criCall":
		if (e.Name == "CreateContainer" || e.Name == "StartContainer") && v.terminating[e.Pod] {
			v.fail(e, InvStartAfterTerm, "%s %s/%s after the pod worker began terminating the pod", e.Name, e.Pod, e.Container)
		}
	case "setPodStatus":
		phase := e.Attr("phase")
		if prev, ok := v.terminal[e.Pod]; ok && phase != prev {
			v.fail(e, InvTerminalPhase, "%s left terminal phase %s for %s", e.Pod, prev, phase)
		}
		if phase == "Succeeded" || phase == "Failed" {
			v.terminal[e.Pod] = phase
		}
	case "workerState":
		switch e.Name {
		case "terminating":
			v.terminating[e.Pod] = true
		case "terminated":
			v.terminating[e.Pod] = true
			// Only this pod's containers, named in order so the first violation is the same
			// in every run.
			for _, c := range slices.Sorted(maps.Keys(v.running[e.Pod])) {
				if v.running[e.Pod][c] {
					v.fail(e, InvRunsAfterTerm, "%s terminated with %s still running", e.Pod, e.Pod+"/"+c)
				}
			}
			v.terminated[e.Pod] = true
		}
	case "scenarioEvent":
		if e.Name == "restartKubelet" {
			// A new kubelet has new pod workers: each decides afresh from the API's pods.
			clear(v.terminating)
			clear(v.terminated)
		}
	case "apiRemoved":
		delete(v.terminal, e.Pod)
		delete(v.terminating, e.Pod)
		delete(v.terminated, e.Pod)
	case trace.Stats:
		if e.Name == "node" {
			ws, _ := strconv.ParseInt(e.Attr("memoryWorkingSet"), 10, 64)
			capacity, _ := strconv.ParseInt(e.Attr("memoryCapacity"), 10, 64)
			if capacity > 0 && ws > capacity {
				v.fail(e, InvMemoryOverCap, "node memory in use %d above capacity %d", ws, capacity)
			}
		}
	case trace.EvictionPass:
		if e.Name == "synchronize" {
			v.lastMet = e.Attr("actionable")
			v.passEvicted = 0
		}
	case trace.Eviction:
		if ranking := e.Attr("ranking"); ranking != "" {
			if first, _, _ := strings.Cut(ranking, ";"); first != e.Pod {
				v.fail(e, InvEvictedRankedLast, "evicted %s, but %s ranked first", e.Pod, first)
			}
			if v.lastMet == "" {
				v.fail(e, InvEvictNoThreshold, "evicted %s with no threshold met", e.Pod)
			}
			v.passEvicted++
			if v.passEvicted > 1 {
				v.fail(e, InvOneEvictPerPass, "evicted %s, the %d-th pressure eviction of one pass", e.Pod, v.passEvicted)
			}
		}
	}
}

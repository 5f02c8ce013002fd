package cri

import (
	"strconv"
	"time"

	api "nodesim/api/v1alpha1"
	"nodesim/model/container"
	"nodesim/sim"
	"nodesim/trace"
)

// Exit codes a process ends with.
const (
	ExitSIGKILL = 137 // 128 + SIGKILL: killed after the grace period, or by the OOM killer
	ExitSIGTERM = 143 // 128 + SIGTERM: died from the stop signal
)

// process is the program running in a container: it follows one run of its behaviour.
type process struct {
	r   *Runtime
	c   *ctr
	b   api.Behavior
	use *programs
	// initial are the programs the process starts with, use until a setUsage replaces
	// them: part of the process record, so a start allocates them with it.
	initial  programs
	exitT    *sim.Timer
	stopping bool
	// Once stopping: when the process ends on its own after the stop signal (its shutdown
	// time), when it is SIGKILLed (the grace period's end), and the timer for the earlier.
	termAt, killAt time.Time
	stopT          *sim.Timer
}

// Effective is the behaviour of the given run (1-based): the base behaviour with the run's
// overrides laid over it; the last override repeats.
func Effective(b *api.Behavior, run int) api.Behavior {
	if b == nil {
		return api.Behavior{}
	}
	out := *b
	out.Runs = nil
	if len(b.Runs) == 0 || run < 1 {
		return out
	}
	i := run - 1
	if i >= len(b.Runs) {
		i = len(b.Runs) - 1
	}
	o := b.Runs[i]
	if o.Startup != nil {
		out.Startup = o.Startup
	}
	if o.Shutdown != nil {
		out.Shutdown = o.Shutdown
	}
	if o.PreStop != nil {
		out.PreStop = o.PreStop
	}
	if o.PostStart != nil {
		out.PostStart = o.PostStart
	}
	if o.Memory != nil {
		out.Memory = o.Memory
	}
	if o.Disk != nil {
		out.Disk = o.Disk
	}
	if o.Volumes != nil {
		out.Volumes = o.Volumes
	}
	if o.Pids != nil {
		out.Pids = o.Pids
	}
	if o.Exit != nil {
		out.Exit = o.Exit
	}
	if o.Probes != nil {
		out.Probes = o.Probes
	}
	return out
}

// start runs the container's process.
func (r *Runtime) start(c *ctr) {
	var b *api.Behavior
	if r.cfg.Behavior != nil {
		b = r.cfg.Behavior(c.sandbox.pod, c.spec.Name)
	}
	p := &process{r: r, c: c, b: Effective(b, c.attempt+1)}
	r.compilePrograms(c, &p.b, &p.initial)
	p.use = &p.initial
	c.proc = p
	c.state = container.StateRunning
	c.startedAt = r.s.Now()
	c.memOffset = 0
	r.touch(c.sandbox.uid)
	r.memoryChanged(c)
	defer r.usageChanged()
	r.s.Record(&trace.Event{Kind: KindContainerRun, Pod: c.sandbox.key, Container: c.spec.Name, Track: "runtime",
		Attrs: []trace.Attr{{Key: "id", Value: c.id}, {Key: "attempt", Value: strconv.Itoa(c.attempt)}}})
	if e := p.b.Exit; e != nil {
		code := int(e.Code)
		p.exitT = r.clk.Schedule(e.After.Duration, func() {
			if c.state == container.StateRunning {
				reason := "Completed"
				if code != 0 {
					reason = "Error"
				}
				r.exit(c, code, reason)
			}
		})
	}
}

// stop delivers the stop signal: the process exits after its shutdown time, or is killed
// when the grace period runs out. A repeated stop (a kubelet restarted mid-termination, a
// shorter grace period) does not restart the shutdown: the process is already on its way
// out, and the kill can only come sooner (the earlier of the two deadlines).
func (p *process) stop(grace time.Duration) {
	now := p.r.s.Now()
	killAt := now.Add(grace)
	if p.stopping {
		if !killAt.Before(p.killAt) {
			return
		}
		p.killAt = killAt
		p.stopT.Stop()
	} else {
		p.stopping = true
		shutdown := time.Duration(0)
		if p.b.Shutdown != nil {
			shutdown = p.b.Shutdown.Duration
		}
		p.termAt, p.killAt = now.Add(shutdown), killAt
	}
	code, at := ExitSIGTERM, p.termAt
	if p.termAt.After(p.killAt) {
		code, at = ExitSIGKILL, p.killAt
	}
	c := p.c
	p.stopT = p.r.clk.Schedule(at.Sub(now), func() {
		if c.state == container.StateRunning {
			p.r.exit(c, code, "Error")
		}
	})
}

// exit ends the container's process.
func (r *Runtime) exit(c *ctr, code int, reason string) {
	c.freeze(r.s.Elapsed())
	c.state = container.StateExited
	c.exitCode = code
	c.reason = reason
	c.finished = r.s.Now()
	r.touch(c.sandbox.uid)
	r.memoryChanged(c)
	defer r.usageChanged()
	if c.proc != nil && c.proc.exitT != nil {
		c.proc.exitT.Stop()
	}
	if c.proc != nil && c.proc.stopT != nil {
		c.proc.stopT.Stop()
	}
	// StopContainer calls waiting on this container return now, whatever ended it; the
	// caller then reads the status itself, so the trace says whether anyone was waiting.
	learns := "relist"
	if len(c.stopWaiters) > 0 {
		learns = "stopContainer"
	}
	// The container never runs again: its probe targets answer without reading it.
	for _, t := range c.probeTargets {
		t.ended = true
		if ended := t.onEnd; ended != nil {
			t.onEnd = nil
			ended()
		}
	}
	clear(c.probeTargetsBuf[:])
	c.probeTargets = nil
	waiters := c.stopWaiters
	c.stopWaiters = nil
	for _, w := range waiters {
		w()
	}
	r.s.Record(&trace.Event{Kind: KindContainerExit, Pod: c.sandbox.key, Container: c.spec.Name, Track: "runtime",
		Attrs: []trace.Attr{{Key: "id", Value: c.id}, {Key: "exitCode", Value: strconv.Itoa(code)}, {Key: "reason", Value: reason},
			{Key: "attempt", Value: strconv.Itoa(c.attempt)}, {Key: "kubeletLearnsBy", Value: learns}}, Reason: r.exitReason(c)})
}

// exitReason says how the kubelet learns of an exit: a StopContainer call waits for it,
// any other exit waits for PLEG. Both reasons are made once per runtime and shared by
// every exit event: recorded reasons are never written.
func (r *Runtime) exitReason(c *ctr) *trace.Reason {
	if c.proc != nil && c.proc.stopping {
		if r.stoppedReason == nil {
			r.stoppedReason = trace.Because("StopContainer", "the kubelet stopped this container: StopContainer returns once the process is gone, and the caller reads the pod's status right after, without waiting for a relist")
		}
		return r.stoppedReason
	}
	if r.exitedReason == nil {
		r.exitedReason = trace.Because("relistFindsExit", "the kubelet does not watch processes: it learns of this exit at PLEG's next relist")
	}
	return r.exitedReason
}

// PostStartHook is what the container's postStart hook does in this run, per its behaviour:
// how long it takes and whether it fails (a hook with no behaviour returns at once, fine).
func (r *Runtime) PostStartHook(id string) (time.Duration, bool) {
	c := r.ctrs[id]
	if c == nil || c.proc == nil || c.proc.b.PostStart == nil {
		return 0, false
	}
	var d time.Duration
	if c.proc.b.PostStart.Duration != nil {
		d = c.proc.b.PostStart.Duration.Duration
	}
	return d, c.proc.b.PostStart.Fail
}

// PreStopDuration is how long the container's preStop hook runs, per its behaviour.
func (r *Runtime) PreStopDuration(id string) time.Duration {
	c := r.ctrs[id]
	if c == nil || c.proc == nil || c.proc.b.PreStop == nil {
		return 0
	}
	return c.proc.b.PreStop.Duration
}

// RunProbe answers one probe of a running container from its behaviour's probe script: the
// first step whose window [from, to) holds the time since the container started decides;
// without a matching step the probe succeeds once the process is up (its startup time has
// passed). It also says how long the probe took (the step's latency).
func (r *Runtime) RunProbe(id string, probe string) (bool, time.Duration) {
	c := r.ctrs[id]
	if c == nil {
		return false, 0
	}
	t := ProbeTarget{s: r.s, c: c, probe: probe}
	return t.RunProbe()
}

// ProbeTarget is one container as a probe worker holds it, so that its probes need no
// lookup by ID. It stays valid for the container's whole life: a container record stands
// for one container only (a restart creates another, and IDs are never reused), it runs
// at most once, and only a container that no longer runs can be removed, so a target whose
// container is gone answers as RunProbe answers an unknown ID: the probe fails.
type ProbeTarget struct {
	s     *sim.Sim // the runtime's simulation, whose clock a probe reads
	c     *ctr
	probe string
	// What a probe reads of the running container, taken at its first probe: a container
	// starts once, and its process's behaviour and start time never change after that.
	running bool
	// ended is set when the container exits (exit, through the container's probeTargets):
	// from its first probe until then, a probe reads only the target, not the container
	// record, which the runtime rarely touches and which is mostly out of the CPU's caches.
	ended   bool
	started time.Duration // the container's start, as run time elapsed
	upAfter time.Duration // the behaviour's startup time (0 without one)
	steps   []api.ProbeStep
	// steady is set once the answer can no longer change before the container ends: it
	// has no probe steps, and its process has finished starting up (time only moves on),
	// so every probe until then succeeds at once.
	steady bool
	// onEnd is what Settle was given, called by exit along with setting ended.
	onEnd func()
}

// ProbeTarget returns the target of the given probe ("liveness", "readiness" or
// "startup") of the container with the given ID, or nil if there is no such container.
func (r *Runtime) ProbeTarget(id string, probe string) *ProbeTarget {
	c := r.ctrs[id]
	if c == nil {
		return nil
	}
	t := &ProbeTarget{s: r.s, c: c, probe: probe}
	if c.state == container.StateExited {
		t.ended = true
	} else {
		if c.probeTargets == nil {
			c.probeTargets = c.probeTargetsBuf[:0]
		}
		c.probeTargets = append(c.probeTargets, t)
	}
	return t
}

// Settle reports whether the target's answer has settled: it is steady (every probe
// succeeds at once) and its container has not ended, which is the only change that can
// come. If so, the container's exit calls ended once, when it sets ended; if not, the
// target keeps nothing. (prober.SettlingTarget)
func (t *ProbeTarget) Settle(ended func()) bool {
	if !t.steady || t.ended {
		return false
	}
	t.onEnd = ended
	return true
}

// RunProbe answers one probe of the target, as Runtime.RunProbe does.
func (t *ProbeTarget) RunProbe() (bool, time.Duration) {
	if t.ended {
		return false, 0
	}
	if t.steady {
		return true, 0
	}
	if !t.running {
		// A container leaves the running state only by exiting, which sets ended: once
		// running is set, the container is still running as long as ended is not.
		c := t.c
		if c.state != container.StateRunning || c.proc == nil {
			return false, 0
		}
		t.running = true
		t.started = c.startedAt.Sub(sim.Epoch)
		if c.proc.b.Startup != nil {
			t.upAfter = c.proc.b.Startup.Duration
		}
		if p := c.proc.b.Probes; p != nil {
			switch t.probe {
			case "liveness":
				t.steps = p.Liveness
			case "readiness":
				t.steps = p.Readiness
			case "startup":
				t.steps = p.Startup
			}
		}
	}
	since := t.s.Elapsed() - t.started // never negative
	up := since >= t.upAfter           // the process has finished starting up
	if up && len(t.steps) == 0 {
		t.steady = true
		return true, 0
	}
	for _, st := range t.steps {
		if st.From != nil && since < st.From.Duration {
			continue
		}
		if st.To != nil && since >= st.To.Duration {
			continue
		}
		var took time.Duration
		if st.Latency != nil {
			took = st.Latency.Duration
		}
		switch st.Result {
		case api.ProbeSuccess:
			return true, took
		case api.ProbeFailure:
			return false, took
		default:
			return up, took
		}
	}
	return up, 0
}

package reports

import (
	"strconv"
	"strings"
	"time"

	"nodesim/trace"
)

// pressure follows, for the Builder, the steps that span several events: a threshold met
// pass after pass until the eviction manager acts, an evicted pod until it is terminated,
// and a failing probe until the container it killed runs again. Each map holds only what is
// in flight, so a long run does not grow it.
type pressure struct {
	// metSince is, per threshold named in an evictionPass's "met" attr, the first pass of the
	// current unbroken run of passes that found it met.
	metSince map[string]time.Duration
	// evictedAt is, per pod, when it was evicted, until the kubelet finishes terminating it.
	evictedAt map[string]time.Duration
	// failingSince is, per probe of a container, the first failure of the current run of
	// failures (a success ends the run).
	failingSince map[probeKey]time.Duration
	// failing is len(failingSince), set after each change to it, so that Record tests an
	// int instead of a map's length for each of a busy node's probe successes.
	failing int
	// killedByProbe is, per container, the first failure of the run of probe failures that
	// got the container killed, until it runs again.
	killedByProbe map[containerKey]time.Duration
	// crossedAt is, per signal, when memory use last crossed a threshold's level upward (the
	// kernel's ground truth), until it goes back down.
	crossedAt map[string]time.Duration
	// graceFor is, per pod, the row in Evictions of its eviction, until its pod worker
	// records the grace period it settled on (the same instant).
	graceFor map[string]evictionRow
}

// containerKey names one container of one pod. The maps that follow containers are keyed
// by it rather than by a joined "pod/container" string, so that the Builder builds no
// string per event: probe results are half of a run's events.
type containerKey struct{ pod, container string }

// probeKey names one probe (liveness, readiness, startup) of one container.
type probeKey struct {
	probe string
	containerKey
}

// evictionRow is one row of Evictions and when the pod was evicted.
type evictionRow struct {
	i  int
	at time.Duration
}

func newPressure() pressure {
	return pressure{metSince: map[string]time.Duration{}, evictedAt: map[string]time.Duration{},
		failingSince: map[probeKey]time.Duration{}, killedByProbe: map[containerKey]time.Duration{}, crossedAt: map[string]time.Duration{},
		graceFor: map[string]evictionRow{}}
}

// evictionPass notes which thresholds a pass of the eviction manager's synchronize found met.
// A threshold met but held (waiting for its grace period) counts as met: detection is the
// time from the first pass that saw it to the eviction, grace period included. Passes without
// a "met" attr (reclaiming node-level resources, within a synchronize) say nothing of it.
func (b *Builder) evictionPass(e *trace.Event) {
	if !hasAttr(e, "met") {
		return
	}
	met := map[string]bool{}
	for _, m := range splitList(e.Attr("met"), ",") {
		met[m] = true
		if _, ok := b.pr.metSince[m]; !ok {
			b.pr.metSince[m] = e.At
		}
	}
	for m := range b.pr.metSince {
		if !met[m] {
			delete(b.pr.metSince, m)
		}
	}
}

// thresholdCrossed notes when memory use truly crossed a threshold's level (and when it
// went back), so detection is measured from the crossing, not from the first pass that saw
// it.
func (b *Builder) thresholdCrossed(e *trace.Event) {
	signal := e.Attr("signal")
	if e.Attr("direction") == "up" {
		if _, ok := b.pr.crossedAt[signal]; !ok {
			b.pr.crossedAt[signal] = e.At
		}
		return
	}
	delete(b.pr.crossedAt, signal)
}

// eviction records one pod evicted: the report's row, the count, and the detection latency:
// from the moment memory truly crossed the threshold's level where the kernel tells it
// (memory signals), else from the first pass that found the eviction's signal met.
func (b *Builder) eviction(e *trace.Event) {
	grace, _ := strconv.ParseInt(e.Attr("gracePeriod"), 10, 64)
	ev := Eviction{Time: secs(e.At), Pod: e.Pod, Signal: e.Attr("signal"), Observed: e.Attr("observed"),
		Threshold: e.Attr("threshold"), GracePeriod: grace, Ranking: parseRanking(e.Attr("ranking")), Message: e.Attr("message")}
	if d, err := time.ParseDuration(e.Attr("thresholdGracePeriod")); err == nil {
		ev.ThresholdGracePeriod = secs(d)
	}
	if d, err := time.ParseDuration(e.Attr("metFor")); err == nil {
		ev.ThresholdMetFor = fptr(secs(d))
	}
	if e.Pod != "" {
		b.pr.graceFor[e.Pod] = evictionRow{i: len(b.r.Evictions), at: e.At}
	}
	for _, a := range e.Attrs {
		if k, ok := strings.CutPrefix(a.Key, "annotation."); ok {
			if ev.Annotations == nil {
				ev.Annotations = map[string]string{}
			}
			ev.Annotations[k] = a.Value
		}
	}
	if reason := e.Attr("disruptionTarget"); reason != "" && e.Pod != "" {
		b.get(e.Pod).disruption = &PodCondition{Type: "DisruptionTarget", Status: "True", Reason: reason, Message: e.Attr("message")}
	}
	b.r.Evictions = append(b.r.Evictions, ev)
	since, ok := b.detectedSince(ev.Signal)
	if crossed, c := b.pr.crossedAt[ev.Signal]; c {
		since, ok = crossed, true
		delete(b.pr.crossedAt, ev.Signal) // the next eviction counts from the next crossing
	}
	if ok {
		b.lat.add("evictionDetection", e.At-since)
	}
	if e.Pod != "" {
		if _, ok := b.pr.evictedAt[e.Pod]; !ok {
			b.pr.evictedAt[e.Pod] = e.At
		}
		// The output contract: deletedAt is when deletion was requested, by a deletePod
		// event or an eviction.
		if p := b.get(e.Pod); p.deleted == nil {
			p.deleted = fptr(secs(e.At))
		}
	}
}

// detectedSince returns the earliest first-met time among the thresholds on signal (all met
// thresholds when none names it) and forgets them: the next eviction on the signal counts
// from the next pass that finds it met, not from the start of the whole episode.
func (b *Builder) detectedSince(signal string) (time.Duration, bool) {
	var keys []string
	for m := range b.pr.metSince {
		if signal != "" && thresholdSignal(m) == signal {
			keys = append(keys, m)
		}
	}
	if len(keys) == 0 {
		for m := range b.pr.metSince {
			keys = append(keys, m)
		}
	}
	var since time.Duration
	for i, k := range keys {
		if t := b.pr.metSince[k]; i == 0 || t < since {
			since = t
		}
		delete(b.pr.metSince, k)
	}
	return since, len(keys) > 0
}

// thresholdSignal is the signal of one "met" entry, which may carry an operator and value
// ("memory.available<100Mi") or only the signal.
func thresholdSignal(entry string) string {
	if i := strings.IndexAny(entry, "<>=(: "); i >= 0 {
		return entry[:i]
	}
	return entry
}

// evictionGrace fills in an evicted pod's podGracePeriod from its pod worker's move to
// terminating, which records the grace period calculateEffectiveGracePeriod settled on. A pod
// already terminating when it was evicted makes no such move: its row keeps none.
func (b *Builder) evictionGrace(e *trace.Event) {
	row, ok := b.pr.graceFor[e.Pod]
	if !ok {
		return
	}
	delete(b.pr.graceFor, e.Pod)
	if g, err := strconv.ParseInt(e.Attr("gracePeriod"), 10, 64); err == nil && e.At == row.at {
		b.r.Evictions[row.i].PodGracePeriod = &g
	}
}

// evictionTerminated completes an evicted pod's evictionCompletion latency.
func (b *Builder) evictionTerminated(e *trace.Event) {
	if at, ok := b.pr.evictedAt[e.Pod]; ok {
		b.lat.add("evictionCompletion", e.At-at)
		delete(b.pr.evictedAt, e.Pod)
	}
}

// oomKill records one process killed by a cgroup's or the node's OOM killer.
func (b *Builder) oomKill(e *trace.Event) {
	adj, _ := strconv.Atoi(e.Attr("oomScoreAdj"))
	kind := e.Attr("kind")
	b.r.OOMKills = append(b.r.OOMKills, OOMKill{Time: secs(e.At), Pod: e.Pod, Container: e.Container, Kind: kind, OOMScoreAdj: adj})
	b.r.Counts["oomKills"]++
	switch kind {
	case "node":
		b.r.Counts["nodeOOMKills"]++
	case "cgroup":
		b.r.Counts["cgroupOOMKills"]++
	}
	if e.Pod != "" && e.Container != "" {
		b.get(e.Pod).oomKills[e.Container]++
	}
}

// probeResult follows runs of liveness and startup probe failures, the probes whose failure
// kills the container.
func (b *Builder) probeResult(e *trace.Event) {
	// The result first: a success while no run of failures is open (most probe results)
	// changes nothing, whatever else the event says, so it is done with one look at the
	// event's first attribute, where the prober records the result.
	var result string
	if a := e.Attrs; len(a) > 0 && a[0].Key == "result" {
		result = a[0].Value
	} else {
		result = e.Attr("result")
	}
	if result != "failure" && (b.pr.failing == 0 || result != "success") {
		return
	}
	if e.Attr("reason") == "initial" {
		return // a new container's starting value, not a probe run
	}
	key := probeKey{e.Name, containerKey{e.Pod, e.Container}}
	if result == "failure" {
		if _, ok := b.pr.failingSince[key]; !ok {
			b.pr.failingSince[key] = e.At
			b.pr.failing = len(b.pr.failingSince)
		}
		return
	}
	delete(b.pr.failingSince, key)
	b.pr.failing = len(b.pr.failingSince)
}

// killing notes a container killed because its liveness or startup probe failed, dating the
// kill from the first failure of the run that caused it.
func (b *Builder) killing(e *trace.Event) {
	var probe string
	switch e.Attr("reason") {
	case "LivenessProbe":
		probe = "liveness"
	case "StartupProbe":
		probe = "startup"
	default:
		return
	}
	key := containerKey{e.Pod, e.Container}
	if since, ok := b.pr.failingSince[probeKey{probe, key}]; ok {
		b.pr.killedByProbe[key] = since
		delete(b.pr.failingSince, probeKey{probe, key})
		b.pr.failing = len(b.pr.failingSince)
	}
}

// probeRestarted completes probeFailureToRestart when a container killed by its probe runs
// again.
func (b *Builder) probeRestarted(e *trace.Event) {
	if len(b.pr.killedByProbe) == 0 {
		return
	}
	key := containerKey{e.Pod, e.Container}
	if since, ok := b.pr.killedByProbe[key]; ok {
		b.lat.add("probeFailureToRestart", e.At-since)
		delete(b.pr.killedByProbe, key)
	}
}

// parseRanking reads an eviction's ranking attr: pod;exceedsRequests;priority;usageAboveRequests
// entries joined by "|".
func parseRanking(s string) []RankedCandidate {
	out := []RankedCandidate{}
	for _, entry := range splitList(s, "|") {
		f := strings.Split(entry, ";")
		c := RankedCandidate{Pod: f[0]}
		if len(f) > 1 {
			c.ExceedsRequests = f[1] == "true"
		}
		if len(f) > 2 {
			p, _ := strconv.ParseInt(f[2], 10, 32)
			c.Priority = int32(p)
		}
		if len(f) > 3 {
			c.UsageAboveRequests = f[3]
		}
		out = append(out, c)
	}
	return out
}

func hasAttr(e *trace.Event, key string) bool {
	for _, a := range e.Attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// splitList splits a separated attr value, dropping empty entries and spaces around them.
func splitList(s, sep string) []string {
	var out []string
	for _, f := range strings.Split(s, sep) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

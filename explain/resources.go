package explain

import (
	"fmt"
	"strings"
	"time"

	"nodesim/reports"
	"nodesim/trace"
)

// resources renders the eviction manager, the OOM killer and the stats they read
// (trace/resources.go documents the attributes).
func (t *Transcript) resources(e *trace.Event) {
	switch e.Kind {
	case trace.Stats:
		t.idle(statsRefresh, e.At, Eviction)
	case trace.EvictionPass:
		t.evictionPass(e)
	case trace.Eviction:
		t.eviction(e)
	case trace.OOMKill:
		t.oomKill(e)
	case trace.ThresholdCrossed:
		t.thresholdCrossed(e)
	}
}

// thresholdCrossed renders the ground truth the kubelet does not see: memory use crossing a
// threshold's level. The kubelet finds out at its next eviction pass.
func (t *Transcript) thresholdCrossed(e *trace.Event) {
	text := "memory use crosses " + e.Attr("threshold")
	if e.Attr("direction") != "up" {
		text = "memory use is back under " + e.Attr("threshold")
	}
	l := line{at: e.At, track: e.Track, cat: Eviction, text: text}
	t.because(&l, e)
	t.emit(l)
}

// signalsText renders the observations of the named signals ("memory.available=94371840,
// nodefs.available=...") as "memory.available 90Mi"; with no names, the first observed
// signal (memory.available, which the eviction manager lists first).
func signalsText(s string, names []string) string {
	var out []string
	for i, kv := range split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		want := len(names) == 0 && i == 0
		for _, n := range names {
			if thresholdSignal(n) == k {
				want = true
			}
		}
		if want {
			out = append(out, k+" "+quantity(k, v))
		}
	}
	return strings.Join(out, ", ")
}

// thresholdSignal is the signal of a met threshold, which may be written with its
// operator and value ("memory.available<200Mi").
func thresholdSignal(s string) string {
	if i := strings.IndexAny(s, "<>= "); i >= 0 {
		return s[:i]
	}
	return s
}

// evictionPass renders one synchronize. A pass that meets no threshold is folded into the
// quiet stretch, which keeps its last observation of memory.available; so is a pass held
// for the same reason as the one before it (the soft grace period counting down, the
// pressure transition period running), since only the first says something new.
func (t *Transcript) evictionPass(e *trace.Event) {
	met := split(e.Attr("met"), ",")
	held := e.Attr("held")
	quiet := len(met) == 0 && held == ""
	if held != "" {
		key, _, _ := strings.Cut(held, " (")
		quiet = key == t.evictionHeld
		t.evictionHeld = key
	} else {
		t.evictionHeld = ""
	}
	if quiet {
		if t.f.keepQuiet(e.At, Eviction) {
			t.quiet.signals = signalsText(e.Attr("signals"), nil)
		}
		t.idle(idleEvictionPass, e.At, Eviction)
		return
	}
	observed := signalsText(e.Attr("signals"), met)
	if observed == "" {
		observed = signalsText(e.Attr("signals"), nil)
	}
	l := line{at: e.At, track: e.Track, cat: Eviction, text: "synchronize: " + observed}
	if len(met) > 0 {
		l.text += "; threshold met: " + strings.Join(met, ", ")
	}
	switch {
	case held != "" && len(met) > 0:
		l.text += "; held: " + held
	case held != "":
		l.text += "; " + held
	}
	t.because(&l, e)
	t.dispatcher = &dispatcher{at: e.At, track: e.Track}
	t.emit(l)
}

// eviction renders one evicted pod: the signal against its threshold, then the ranking
// that chose it, each candidate on its own line.
func (t *Transcript) eviction(e *trace.Event) {
	signal := e.Attr("signal")
	type candidate struct{ pod, exceeds, priority, above string }
	var ranked []candidate
	pods := podsOf(e)
	for _, entry := range split(e.Attr("ranking"), "|") {
		f := strings.Split(entry, ";")
		for len(f) < 4 {
			f = append(f, "")
		}
		ranked = append(ranked, candidate{f[0], f[1], f[2], f[3]})
		pods = appendNew(pods, f[0])
	}
	observed, threshold := quantity(signal, e.Attr("observed")), e.Attr("threshold")
	if strings.HasSuffix(signal, ".available") && signal != "pid.available" && threshold != "" {
		// One unit for both, so they compare at a glance.
		var col reports.ByteColumn
		col.Observe(e.Attr("observed"))
		col.Observe(threshold)
		observed, threshold = col.Format(e.Attr("observed")), col.Format(threshold)
	}
	text := fmt.Sprintf("evicts %s: %s %s, threshold %s", e.Pod, signal, observed, threshold)
	if g, err := time.ParseDuration(e.Attr("thresholdGracePeriod")); err == nil && g > 0 {
		text += fmt.Sprintf(" (soft, met for %s of its %s grace period)", attrSpan(e.Attr("metFor")), span(g))
	}
	if g := e.Attr("gracePeriod"); g != "" {
		text += fmt.Sprintf(", pod grace period %ss asked", g)
	}
	l := line{at: e.At, track: e.Track, cat: Eviction, tone: bad, pods: pods, text: text}
	t.because(&l, e)
	t.dispatcher = &dispatcher{at: e.At, track: e.Track}
	t.emit(l)
	for i, c := range ranked {
		var facts []string
		if c.exceeds == "true" {
			facts = append(facts, "usage above its requests")
		} else if c.exceeds == "false" {
			facts = append(facts, "within its requests")
		}
		if c.priority != "" {
			facts = append(facts, "priority "+c.priority)
		}
		if c.above != "" {
			facts = append(facts, "usage − requests "+quantity(signal, c.above))
		}
		text := fmt.Sprintf("%d. %s: %s", i+1, c.pod, strings.Join(facts, ", "))
		if c.pod == e.Pod {
			text += " ← evicted"
		}
		t.emit(line{at: e.At, track: e.Track, depth: 1, cat: Eviction, pods: []string{c.pod}, text: text})
	}
	if msg := e.Attr("message"); msg != "" {
		t.emit(line{at: e.At, track: e.Track, depth: 1, cat: Eviction, pods: podsOf(e), text: "message: " + clip(msg, 90)})
	}
}

// oomKill renders a kill by the kernel's OOM killer with the oom_score of each candidate.
func (t *Transcript) oomKill(e *trace.Event) {
	kind := e.Attr("kind")
	scope := "node out of memory"
	if kind == "cgroup" {
		scope = "container over its memory limit"
	}
	text := fmt.Sprintf("OOM killer (%s) kills %s %s, oom_score_adj %s", scope, e.Pod, e.Container, e.Attr("oomScoreAdj"))
	if u := e.Attr("usage"); u != "" {
		text += ", usage " + quantity("memory", u)
	}
	pods := podsOf(e)
	type candidate struct{ who, score string }
	var cands []candidate
	for _, c := range split(e.Attr("candidates"), ",") {
		i := strings.LastIndex(c, "=")
		if i < 0 {
			cands = append(cands, candidate{c, ""})
			continue
		}
		cands = append(cands, candidate{c[:i], c[i+1:]})
		pod := c[:i]
		if j := strings.LastIndex(pod, "/"); j > strings.Index(pod, "/") {
			pod = pod[:j]
		}
		pods = appendNew(pods, pod)
	}
	l := line{at: e.At, track: e.Track, cat: Eviction, tone: bad, pods: pods, text: text}
	t.because(&l, e)
	t.emit(l)
	for _, c := range cands {
		text := fmt.Sprintf("oom_score %s %s", c.score, c.who)
		if c.who == e.Pod+"/"+e.Container {
			text += " ← killed"
		}
		pod := c.who
		if j := strings.LastIndex(pod, "/"); j > strings.Index(pod, "/") {
			pod = pod[:j]
		}
		t.emit(line{at: e.At, track: e.Track, depth: 1, cat: Eviction, pods: []string{pod}, text: text})
	}
}

// probe renders a probe worker's result. A result that differs from the published one
// prints, so that a reader sees the count climb toward failureThreshold (or
// successThreshold); the flip prints; results that repeat the published one are counted.
func (t *Transcript) probe(e *trace.Event) {
	result := e.Attr("result")
	changed := e.Attr("changed") == "true"
	held := e.Attr("held") == "true"
	switch {
	case changed, held:
	case result == "success":
		// the worker found the result it had already published (or its initial value)
		t.idle(probeSuccess, e.At, Probes)
		return
	default:
		t.idle(probeRepeat, e.At, Probes)
		return
	}
	l := line{at: e.At, track: e.Track, cat: Probes, pods: podsOf(e),
		text: fmt.Sprintf("%s probe of %s: %s", e.Name, e.Container, result)}
	if n := atoi(e.Attr("counted")); n > 1 {
		l.text += fmt.Sprintf(" (%d in a row)", n)
	}
	if to := e.Attr("timeout"); to != "" {
		l.text += ", timed out after " + attrSpan(to)
	}
	if changed {
		l.text += " → result changes, sent on " + e.Name + "Ch"
	} else {
		l.text += ", below the threshold: result unchanged"
		t.because(&l, e)
	}
	if result != "success" {
		l.tone = bad
	}
	t.emit(l)
}

package explain

import (
	"fmt"
	"strings"

	"nodesim/trace"
)

// selectStep holds a syncLoopIteration's select until the step after it shows what the
// chosen case did: a handler (print both), nothing (a syncCh tick with no pod due is
// counted as idle), or a message with no handler (say what it carried and why nothing
// followed).
type selectStep struct {
	ev   trace.Event
	flow uint64
	// raw is every event taken so far, for a resync step to replay if need be.
	raw []trace.Event
	// ignored is the syncLoop's record of a probe result it received and let go.
	ignored *trace.Event
}

func (t *Transcript) selectCase(e *trace.Event) {
	t.dispatcher = nil
	t.skipKey = ""
	t.housekeepingShown = false
	t.held = &selectStep{ev: *e, raw: []trace.Event{*e}}
}

func (s *selectStep) absorb(t *Transcript, e *trace.Event) (bool, bool) {
	if e.Track != s.ev.Track || e.At != s.ev.At {
		return false, false
	}
	switch {
	case e.Kind == kindIterationWait:
		s.raw = append(s.raw, *e)
		return true, false
	case e.Kind == trace.Recv && e.Name == s.ev.Name:
		s.flow = e.Flow
		s.raw = append(s.raw, *e)
		return true, false
	case e.Kind == kindIgnored:
		s.ignored = ptr(*e)
		s.raw = append(s.raw, *e)
		return true, false
	case e.Kind == kindHandler && s.ev.Name == chanSync:
		if r := t.startResync(s.raw, e); r != nil {
			t.held = r
			return true, false
		}
	}
	return false, false
}

func (s *selectStep) flush(t *Transcript, next *trace.Event) {
	e := &s.ev
	name := e.Attr("select")
	if name == "" {
		name = "select"
	}
	l := line{at: e.At, track: e.Track, cat: Sync,
		text: fmt.Sprintf("%s: ready [%s] → chose %s", name, strings.Join(e.Ready, " "), e.Name)}
	note, hasNote := t.flows[s.flow]
	delete(t.flows, s.flow)
	if name != selectSyncLoop {
		t.emit(l)
		return
	}
	handled := next != nil && next.Kind == kindHandler && next.Track == e.Track && next.At == e.At
	if handled {
		l.pods = split(next.Attr("pods"), ",")
	}
	switch e.Name {
	case chanSync:
		if !handled {
			t.idle(idleSyncTick, e.At, Sync)
			return
		}
	case chanHousekeeping:
		if next != nil && next.Kind == kindHousekeeping && next.At == e.At && idleCleanup(next) {
			return // counted by housekeeping
		}
		t.dispatcher = &dispatcher{at: e.At, track: e.Track}
		t.housekeepingShown = true
	case chanPLEG:
		if !handled && hasNote {
			l.pods = note.pods
			l.text += ": " + note.text
			if note.kind == "ContainerRemoved" {
				l.text += ", not sync-worthy"
			} else {
				l.text += ", pod not in the pod manager: ignored"
			}
		}
	case chanConfig:
		if !handled && hasNote {
			l.pods = note.pods
			l.text += ": " + note.text
			switch note.kind {
			case "RECONCILE":
				l.text += " → HandlePodReconcile"
			case "ADD":
				l.text += " → sourcesReady.AddSource"
			}
		}
	}
	if s.ignored != nil && !handled {
		if s.ignored.Name == chanLiveness {
			l.text += fmt.Sprintf(": %s, no handler", s.ignored.Attr("result"))
		}
		t.because(&l, s.ignored)
	}
	t.emit(l)
}

// handler renders a syncLoop handler and the pods it passes on, indented under the select
// that chose it.
func (t *Transcript) handler(e *trace.Event) {
	pods := split(e.Attr("pods"), ",")
	cause := e.Attr("cause")
	if cause == chanSync {
		cause = "syncCh: getPodsToSync"
		if len(pods) == 1 {
			if w := t.workers[pods[0]]; w != nil && w.requeueWhy != "" {
				cause += fmt.Sprintf(", due at %s for %s", at(w.requeueDue), w.requeueWhy)
			}
		}
		for _, p := range pods {
			if w := t.workers[p]; w != nil {
				w.requeueWhy = ""
			}
		}
	}
	t.dispatcher = &dispatcher{at: e.At, track: e.Track, depth: 1}
	l := line{at: e.At, track: e.Track, depth: 1, cat: Sync, pods: pods,
		text: fmt.Sprintf("%s %s (%s)", e.Name, list(pods, 3), cause)}
	if m := e.Attr("mirror"); m != "" {
		if len(pods) == 1 && m == pods[0] {
			l.text = fmt.Sprintf("%s mirror pod of static pod %s (%s)", e.Name, m, cause)
		} else {
			l.text = fmt.Sprintf("%s %s (%s; mirror pods of static pods %s)", e.Name, list(pods, 3), cause, m)
		}
	}
	t.because(&l, e)
	t.emit(l)
}

// skipSync renders the health gate at the top of syncLoop. The first pass of a streak is
// printed; the rest, every 100ms to 5s, are counted.
func (t *Transcript) skipSync(e *trace.Event) {
	t.dispatcher = nil
	key := skipReason(e.Attr("error"))
	if key == t.skipKey {
		t.idle(repeatSkipSync, e.At, Sync)
		return
	}
	t.skipKey = key
	l := line{at: e.At, track: e.Track, cat: Sync, tone: bad,
		text: fmt.Sprintf("skippingPodSynchronization: %s; sleeps %s", clip(e.Attr("error"), 70), e.Attr("sleep"))}
	t.because(&l, e)
	t.emit(l)
}

// skipReason is the shape of a runtimeErrors message, without the figures that change on
// every pass ("pleg was last seen active 3m1s ago"): "container runtime is down, PLEG is
// not healthy".
func skipReason(err string) string {
	var parts []string
	for _, p := range strings.Split(err, ", ") {
		if i := strings.Index(p, ":"); i >= 0 {
			p = p[:i]
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// idleCleanup reports whether a HandlePodCleanups pass did nothing visible.
func idleCleanup(e *trace.Event) bool {
	if e.Attr("skipped") != "" {
		return false
	}
	for _, k := range []string{"killed", "orphans", "restarted"} {
		if v := e.Attr(k); v != "" && v != "0" {
			return false
		}
	}
	return true
}

// housekeeping renders HandlePodCleanups, which runs inline in the syncLoop goroutine.
func (t *Transcript) housekeeping(e *trace.Event) {
	if skipped := e.Attr("skipped"); skipped != "" {
		l := line{at: e.At, track: e.Track, depth: 1, cat: Housekeeping, text: "housekeeping skipped: " + skipped}
		t.because(&l, e)
		t.emit(l)
		return
	}
	if idleCleanup(e) && !t.housekeepingShown {
		t.idle(idleHousekeeping, e.At, Housekeeping)
		return
	}
	var did []string
	for _, k := range []struct{ key, one, many string }{
		{"killed", "pod killed", "pods killed"},
		{"orphans", "orphaned runtime pod killed", "orphaned runtime pods killed"},
		{"restarted", "worker restarted", "workers restarted"},
	} {
		var n int
		if _, err := fmt.Sscan(e.Attr(k.key), &n); err == nil && n > 0 {
			did = append(did, plural(n, k.one, k.many))
		}
	}
	text := e.Name + " done"
	if len(did) > 0 {
		text = e.Name + ": " + strings.Join(did, ", ")
	}
	if e.Dur > 0 {
		text += fmt.Sprintf(" (%s)", span(e.Dur))
	}
	l := line{at: e.At, track: e.Track, depth: 1, cat: Housekeeping, text: text}
	t.because(&l, e)
	t.emit(l)
}

// admission renders canAdmitPod's verdict under HandlePodAdditions.
func (t *Transcript) admission(e *trace.Event) {
	depth := 1
	if d := t.dispatcher; d != nil {
		depth = d.depth + 1
	}
	l := line{at: e.At, track: e.Track, depth: depth, cat: Sync, pods: podsOf(e),
		text: "canAdmitPod " + e.Pod + ": admitted"}
	if e.Kind == kindRejected {
		l.tone = bad
		l.text = fmt.Sprintf("canAdmitPod %s: rejected, %s: %s", e.Pod, e.Attr("reason"), clip(e.Attr("message"), 70))
		t.because(&l, e)
	}
	t.emit(l)
}

// cleanup renders the container removals that follow a container's death and the periodic
// container GC.
func (t *Transcript) cleanup(e *trace.Event) {
	l := line{at: e.At, track: e.Track, cat: Housekeeping, pods: podsOf(e)}
	switch e.Kind {
	case kindContainerClean:
		l.depth = 1
		if d := t.dispatcher; d != nil {
			l.depth = d.depth + 1
		}
		if e.Attr("kept") == "0" {
			l.text = fmt.Sprintf("cleanUpContainersInPod %s: removes every dead instance of %s (%s), keeps none",
				e.Pod, e.Container, e.Attr("removed"))
		} else {
			l.text = fmt.Sprintf("cleanUpContainersInPod %s: removes %s of %s, keeps the newest",
				e.Pod, plural(atoi(e.Attr("removed")), "older dead instance", "older dead instances"), e.Container)
		}
		t.because(&l, e)
	default:
		l.text = fmt.Sprintf("container GC: %s removed", plural(atoi(e.Attr("removed")), "dead container or sandbox", "dead containers and sandboxes"))
	}
	t.emit(l)
}

// channel renders a channel that was full: a dropped message or a blocked sender.
func (t *Transcript) channel(e *trace.Event) {
	l := line{at: e.At, track: e.Track, cat: categoryOf(e), tone: bad, pods: podsOf(e)}
	switch {
	case e.Kind == trace.Block:
		l.text = fmt.Sprintf("blocked: %s is full, the sender waits", e.Name)
	case e.Name == "relistRequest":
		l.text = "RequestRelist dropped: the on-demand relist queue is full"
	default:
		l.text = fmt.Sprintf("%s is full: message dropped", e.Name)
	}
	t.emit(l)
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

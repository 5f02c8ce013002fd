package explain

import (
	"fmt"
	"strings"
	"time"

	"nodesim/trace"
)

// workerView is what the trace has told us about one pod worker so far: enough to say
// whether an UpdatePod starts a round at once, waits for the running one, or merges into
// an update already pending.
type workerView struct {
	state string
	// sync is the sync function running now ("" between rounds), since when.
	sync  string
	since time.Duration
	// inRound is set from the start of a round (its wait on the cache or its sync) to the
	// sync's end.
	inRound bool
	waiting bool
	waitAt  time.Duration
	// pending: an UpdatePod arrived that no round has taken yet.
	pending bool
	// The last requeue: when the pod falls due in the work queue and why. It stays until
	// a syncCh tick takes the pod (getPodsToSync), as the work queue's entry does.
	requeueDue time.Duration
	requeueWhy string
}

func (t *Transcript) worker(pod string) *workerView {
	w := t.workers[pod]
	if w == nil {
		w = &workerView{}
		t.workers[pod] = w
	}
	return w
}

// workerLine is a line on the pod worker's own goroutine.
func (t *Transcript) workerLine(e *trace.Event, text string) line {
	return line{at: e.At, track: e.Track, cat: Workers, pods: podsOf(e), text: text}
}

// updatePod renders UpdatePod under the step that called it, and says what the worker
// will do with the update.
func (t *Transcript) updatePod(e *trace.Event) {
	w := t.worker(e.Pod)
	l := t.workerLine(e, fmt.Sprintf("UpdatePod %s (%s)", e.Pod, e.Name))
	if d := t.dispatcher; d != nil {
		l.track, l.depth = d.track, d.depth+1
	}
	switch {
	case w.state == "finished":
		l.text += ": the worker has finished, nothing left to do"
	case w.pending:
		l.text += ": replaces the update still pending"
		t.because(&l, e)
	case w.sync != "":
		l.text += fmt.Sprintf(": worker busy in %s since %s, runs after it", w.sync, at(w.since))
	case w.waiting:
		l.text += ": worker waiting in GetNewerThan, runs after this round"
	}
	w.pending = true
	t.emit(l)
}

// workerState renders a pod worker's state machine: syncing → terminating → terminated →
// finished.
func (t *Transcript) workerState(e *trace.Event) {
	w := t.worker(e.Pod)
	prev := w.state
	w.state = e.Name
	reason := e.Attr("reason")
	var text string
	switch {
	case reason == "created":
		text = fmt.Sprintf("new pod worker (podWorkerLoop), state %s", e.Name)
	case prev == "":
		text = fmt.Sprintf("state %s (%s)", e.Name, reason)
	default:
		text = fmt.Sprintf("%s → %s (%s)", prev, e.Name, reason)
	}
	t.emit(t.workerLine(e, text))
}

func (t *Transcript) syncStart(e *trace.Event) {
	w := t.worker(e.Pod)
	if !w.inRound {
		w.pending = false
	}
	w.inRound, w.waiting = true, false
	w.sync, w.since = e.Name, e.At
	t.emit(t.workerLine(e, fmt.Sprintf("%s (update=%s) …", e.Name, e.Attr("update"))))
}

// syncEndStep holds a sync's end for the requeue that completeWork records right after
// it, so that one line says how the sync ended and when the pod is due again.
type syncEndStep struct {
	ev      trace.Event
	requeue *trace.Event
}

func (s *syncEndStep) absorb(_ *Transcript, e *trace.Event) (bool, bool) {
	if e.Kind == kindRequeue && e.Pod == s.ev.Pod && e.At == s.ev.At {
		s.requeue = ptr(*e)
		return true, true
	}
	return false, false
}

func (s *syncEndStep) flush(t *Transcript, _ *trace.Event) {
	e := &s.ev
	w := t.worker(e.Pod)
	w.sync, w.inRound = "", false
	took := e.Attr("duration")
	if took == "" {
		took = span(e.Dur)
	} else {
		took = attrSpan(took)
	}
	l := t.workerLine(e, fmt.Sprintf("… %s done in %s", e.Name, took))
	if err := e.Attr("error"); err != "" {
		l.text = fmt.Sprintf("… %s failed after %s: %s", e.Name, took, syncError(err))
		l.tone = bad
	}
	if e.Attr("isTerminal") == "true" {
		l.text += "; the pod is terminal"
	}
	if s.requeue != nil {
		l.text += "; " + t.requeueText(s.requeue)
		t.because(&l, s.requeue)
	}
	t.emit(l)
}

// requeueText says when completeWork put the pod back in the work queue, and why; it
// also remembers it, for the syncCh tick that later finds the pod due.
func (t *Transcript) requeueText(e *trace.Event) string {
	after := e.Attr("after")
	if d, err := time.ParseDuration(after); err == nil {
		w := t.worker(e.Pod)
		w.requeueDue, w.requeueWhy = e.At+d, e.Name
	}
	switch e.Name {
	case "resync":
		return "next resync in " + attrSpan(after)
	case "back-off expiry":
		return "requeued for the back-off's end, in " + attrSpan(after)
	case "error back-off":
		return "retry in " + attrSpan(after) + " (error back-off)"
	case "phase transition":
		return "requeued at once (phase transition)"
	case "network not ready":
		return "retry in " + attrSpan(after) + " (network not ready)"
	case "waitingForStaticPodFullname":
		return "waits " + attrSpan(after) + ": another static pod with the same full name is still running"
	}
	return fmt.Sprintf("requeued in %s (%s)", attrSpan(after), e.Name)
}

// syncError shortens a sync's error to what failed and why: `failed to "StartContainer"
// for "app" with CrashLoopBackOff: "..."` becomes "StartContainer app: CrashLoopBackOff".
func syncError(err string) string {
	const head = `failed to "`
	var out []string
	rest := err
	for {
		i := strings.Index(rest, head)
		if i < 0 {
			break
		}
		rest = rest[i+len(head):]
		action, r, ok := strings.Cut(rest, `" for "`)
		if !ok {
			break
		}
		target, r, ok := strings.Cut(r, `" with `)
		if !ok {
			break
		}
		reason := r
		if j := strings.IndexAny(reason, ": "); j >= 0 {
			reason = reason[:j]
		}
		out = append(out, fmt.Sprintf("%s %s: %s", action, target, reason))
		rest = r
	}
	if len(out) == 0 {
		return clip(err, 80)
	}
	return strings.Join(out, "; ")
}

// podCache renders a worker's wait in podCache.GetNewerThan and its wake-up.
func (t *Transcript) podCache(e *trace.Event) {
	w := t.worker(e.Pod)
	if e.Kind == kindCacheReady {
		w.waiting = false
		t.emit(t.workerLine(e, fmt.Sprintf("woke after %s: the pod cache has a status newer than the last sync", span(e.At-w.waitAt))))
		return
	}
	w.waiting, w.waitAt, w.pending, w.inRound = true, e.At, false, true
	text := "waits in podCache.GetNewerThan for the pod's first status"
	if after := e.Attr("after"); after != "never" {
		text = fmt.Sprintf("waits in podCache.GetNewerThan for a status newer than its last sync (%s)", attrInstant(after))
	}
	l := t.workerLine(e, text)
	t.because(&l, e)
	t.emit(l)
}

// workerLifecycle renders the end of a worker and a termination that arrives mid-sync.
func (t *Transcript) workerLifecycle(e *trace.Event) {
	switch e.Kind {
	case kindForget:
		delete(t.workers, e.Pod)
		l := t.workerLine(e, "SyncKnownPods: the finished worker of "+e.Pod+" is forgotten")
		if d := t.dispatcher; d != nil {
			l.track, l.depth = d.track, d.depth+1
		}
		t.emit(l)
	default:
		l := t.workerLine(e, fmt.Sprintf("%s during %s: its context is cancelled, nothing more of it runs", e.Attr("reason"), e.Name))
		t.because(&l, e)
		t.emit(l)
	}
}

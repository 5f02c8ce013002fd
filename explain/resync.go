package explain

import (
	"time"

	"nodesim/trace"
)

// resyncStep folds a periodic resync that changes nothing: a syncCh tick finds one pod due
// for its resync (getPodsToSync), the worker runs SyncPod, computePodActions finds nothing
// to do, and the pod is requeued. On a long run these rounds, every 60-90s per pod, would
// bury the steps that matter, so a complete no-op round is counted in the quiet stretch
// ("3 pod resyncs"). Anything else about the pod in the meantime (a status change, an
// action, an error) makes the round print in full: the held events are played back.
//
// Other goroutines' steps at the same instant (the syncLoop serves every ready case
// before the worker runs) are held too, and play back after the fold, in their order.
type resyncStep struct {
	pod   string
	at    time.Duration
	stage int
	// events is everything held, in the order recorded; own marks the round's events.
	events []trace.Event
	own    []bool
	done   bool
}

// The events of a no-op round, in order, after the select and its handler.
const (
	resyncUpdatePod = iota
	resyncSyncStart
	resyncActions
	resyncSyncEnd
	resyncRequeue
	resyncComplete
)

// startResync returns a step for the select (held in raw) and its handler when this is a
// periodic resync of one idle pod worker, or nil. A --pod transcript shows its pod's
// rounds in full, so it never folds.
func (t *Transcript) startResync(raw []trace.Event, handler *trace.Event) *resyncStep {
	if t.replaying || t.o.Pod != "" || handler.Attr("cause") != chanSync {
		return nil
	}
	pods := split(handler.Attr("pods"), ",")
	if len(pods) != 1 {
		return nil
	}
	w := t.workers[pods[0]]
	if w == nil || w.requeueWhy != "resync" || w.sync != "" || w.waiting || w.pending || w.state != "syncing" {
		return nil
	}
	r := &resyncStep{pod: pods[0], at: handler.At}
	for _, e := range raw {
		r.events, r.own = append(r.events, e), append(r.own, true)
	}
	r.events, r.own = append(r.events, *handler), append(r.own, true)
	return r
}

func (r *resyncStep) absorb(_ *Transcript, e *trace.Event) (bool, bool) {
	if e.At != r.at {
		return false, false
	}
	if e.Pod != r.pod {
		r.events, r.own = append(r.events, *e), append(r.own, false)
		return true, false
	}
	ok := false
	switch r.stage {
	case resyncUpdatePod:
		ok = e.Kind == kindUpdatePod && e.Name == "sync"
	case resyncSyncStart:
		ok = e.Kind == kindSyncStart && e.Name == "SyncPod"
	case resyncActions:
		ok = e.Kind == kindPodActions && e.Attr("actions") == "none"
	case resyncSyncEnd:
		ok = e.Kind == kindSyncEnd && e.Attr("error") == "" && e.Attr("isTerminal") == ""
	case resyncRequeue:
		ok = e.Kind == kindRequeue && e.Name == "resync"
	}
	if !ok {
		return false, false
	}
	r.events, r.own = append(r.events, *e), append(r.own, true)
	r.stage++
	if r.stage == resyncComplete {
		r.done = true
		return true, true
	}
	return true, false
}

// flush counts a complete round and plays back the others' steps, or, when the round was
// not a no-op after all, plays back everything as it was recorded.
func (r *resyncStep) flush(t *Transcript, _ *trace.Event) {
	var replay []trace.Event
	for i, e := range r.events {
		switch {
		case r.done && r.own[i] && e.Kind == kindRequeue:
			t.requeueText(&e) // remember when the pod is due next
		case r.done && r.own[i]:
		default:
			replay = append(replay, e)
		}
	}
	if r.done {
		// The round is the syncLoop's dispatch and the worker's sync: either category
		// counts it.
		if t.f.category(Sync) {
			t.idle(idleResync, r.at, Sync)
		} else {
			t.idle(idleResync, r.at, Workers)
		}
	}
	t.replaying = true
	for i := range replay {
		t.Record(&replay[i])
	}
	t.replaying = false
}

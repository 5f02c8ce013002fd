package explain

import (
	"fmt"
	"strings"
	"time"

	"nodesim/trace"
)

// relistStep gathers one relist's lifecycle events (each sent on plegCh, or dropped when
// plegCh is full) until the relist's own record closes it, so that a relist prints as one
// line with its events beneath.
type relistStep struct {
	at     time.Duration
	track  string
	flow   uint64
	events []plegNote
	// drop is the first dropped send on plegCh, whose recorded reason explains the loss.
	drop *trace.Event
}

type plegNote struct {
	at      time.Duration
	track   string
	kind    string
	pod     string
	what    string
	dropped bool
}

func (n plegNote) text() string { return n.kind + " " + n.pod + " " + n.what }

// startRelist opens a relist's step at its first send or event.
func (t *Transcript) startRelist(e *trace.Event) {
	s := &relistStep{at: e.At, track: e.Track}
	t.held = s
	s.absorb(t, e)
}

func (s *relistStep) absorb(t *Transcript, e *trace.Event) (bool, bool) {
	if e.Track != s.track || e.At != s.at {
		return false, false
	}
	switch {
	case (e.Kind == trace.Send || e.Kind == trace.Drop) && e.Name == chanPLEG:
		s.flow = e.Flow
		if e.Kind == trace.Drop && s.drop == nil {
			s.drop = ptr(*e)
		}
		return true, false
	case e.Kind == kindPLEGEvent:
		n := plegNote{at: e.At, track: e.Track, kind: e.Name, pod: e.Pod, what: t.runtimeName(e.Attr("id")),
			dropped: e.Attr("dropped") == "true"}
		if !n.dropped && s.flow != 0 {
			t.flows[s.flow] = flowNote{text: n.text(), pods: podsOf(e), kind: n.kind}
		}
		if n.kind == "ContainerRemoved" {
			delete(t.names, e.Attr("id"))
		}
		s.flow = 0
		s.events = append(s.events, n)
		return true, false
	case e.Kind == kindRelist:
		t.relist(e, s.events, s.drop)
		s.events = nil
		return true, true
	}
	return false, false
}

// flush runs only when something interrupted the relist before its own record: its
// events print one by one.
func (s *relistStep) flush(t *Transcript, _ *trace.Event) {
	for _, n := range s.events {
		l := line{at: n.at, track: n.track, cat: PLEG, pods: []string{n.pod}, text: "PLEG event " + n.text() + " → plegCh"}
		if n.dropped {
			l.text, l.tone = "PLEG event "+n.text()+" dropped: plegCh is full", bad
		}
		t.emit(l)
	}
}

// runtimeName turns a runtime ID into what it names for a reader.
func (t *Transcript) runtimeName(id string) string {
	if strings.HasPrefix(id, "sb-") {
		return "sandbox"
	}
	if n := t.names[id]; n != "" {
		return n
	}
	return id
}

// relist renders a relist (with the events gathered for it) or a failed one.
func (t *Transcript) relist(e *trace.Event, events []plegNote, drop *trace.Event) {
	if e.Kind == kindRelistFailed {
		t.relistFailures++
		if t.relistFailures > 1 {
			t.idle(repeatFailedRelist, e.At, PLEG)
			return
		}
		l := line{at: e.At, track: e.Track, cat: PLEG, tone: bad, text: "relist failed: " + clip(e.Attr("error"), 70)}
		t.because(&l, e)
		t.emit(l)
		return
	}
	name := "relist"
	if e.Name == "relistPod" {
		name = "relistPod (on-demand)"
	}
	if t.relistFailures > 0 {
		t.emit(line{at: e.At, track: e.Track, cat: PLEG,
			text: fmt.Sprintf("%s succeeds again, after %s", name, plural(t.relistFailures, "failed relist", "failed relists"))})
		t.relistFailures = 0
	}
	if len(events) == 0 {
		t.idle(idleRelist, e.At, PLEG)
		return
	}
	var pods []string
	dropped := 0
	for _, n := range events {
		pods = appendNew(pods, n.pod)
		if n.dropped {
			dropped++
		}
	}
	head := line{at: e.At, track: e.Track, cat: PLEG, pods: pods,
		text: fmt.Sprintf("%s: %s inspected, ", name, plural(atoi(e.Attr("pods")), "pod", "pods"))}
	if dropped > 0 {
		head.tone = bad
		if drop != nil {
			t.because(&head, drop)
		}
	}
	if len(events) == 1 {
		n := events[0]
		head.text += n.text() + arrow(n)
		t.emit(head)
		return
	}
	head.text += plural(len(events), "event", "events")
	if dropped > 0 {
		head.text += fmt.Sprintf(", %d dropped", dropped)
	}
	t.emit(head)
	for _, n := range events {
		l := line{at: e.At, track: e.Track, depth: 1, cat: PLEG, pods: []string{n.pod}, text: n.text() + arrow(n)}
		if n.dropped {
			l.tone = bad
		}
		t.emit(l)
	}
}

func arrow(n plegNote) string {
	if n.dropped {
		return ": dropped, plegCh is full"
	}
	return " → plegCh"
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

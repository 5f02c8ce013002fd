package explain

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"nodesim/trace"
)

// pageState is the picture of the node a page shows at one step, built from the events up
// to that step and nothing else. It is a flat map so that a step can carry what changed as
// key/value pairs and the page's script can replay them forward and back. Keys:
//
//	L|track          the goroutine's last step ("12.034s CRI StartContainer app")
//	S|track          the goroutine's state where the trace records one: a pod worker's
//	                 workerState, the runtime down, failing relists, thresholds met, the
//	                 syncLoop skipping pod syncs, a prober worker's last result
//	B|track          a step with a span in progress ("CRI RunPodSandbox until 0.300s")
//	C|channel        the messages waiting in a channel, one per line, oldest first (the
//	                 first eight, then how many more)
//	T|channel        a ticker channel ready at the syncLoop's last select
//	A|pod            the pod in the API server (created, deleting, removed)
//	P|pod            the pod's phase, as the status manager last set it
//	K|pod|container  the container's state, as the status manager last set it
//	R|pod|container  the container's state in the runtime (the truth the kubelet learns late)
//	N|condition      a node condition's status
type pageState struct {
	kv map[string]string
	// flows are the messages in channels, by flow id, until received.
	flows map[uint64]pageFlow
	// carried is what the next message sent on a channel carries, from the step that made
	// it before sending (a configMerge for configCh).
	carried map[string]string
	// unlabeled is, per track, the message it just sent whose contents the event after the
	// send records (PLEG records its event after the send, a prober worker its first result).
	unlabeled map[string]uint64
	// described is, per track, what the next message it sends at this instant carries,
	// when the event describing it came first (a prober worker's changed result).
	described map[string]pageFlow
	// busy are the spans in progress, by track.
	busy map[string]time.Duration
	// ticks are the T| keys set by the last select.
	ticks []string
}

type pageFlow struct {
	ch, label, track string
	at               time.Duration
}

func newPageState() pageState {
	return pageState{kv: map[string]string{}, flows: map[uint64]pageFlow{}, carried: map[string]string{}, busy: map[string]time.Duration{}, unlabeled: map[string]uint64{}, described: map[string]pageFlow{}}
}

func (s *pageState) snapshot() map[string]string {
	out := make(map[string]string, len(s.kv))
	for k, v := range s.kv {
		out[k] = v
	}
	return out
}

// apply updates the picture with e and returns what changed.
func (s *pageState) apply(e *trace.Event) [][2]string {
	var set [][2]string
	put := func(k, v string) {
		if s.kv[k] == v {
			return
		}
		if v == "" {
			delete(s.kv, k)
		} else {
			s.kv[k] = v
		}
		set = append(set, [2]string{k, v})
	}
	// Spans that ended before this step, in track order.
	var ended []string
	for tr, end := range s.busy {
		if end <= e.At {
			ended = append(ended, tr)
		}
	}
	sort.Strings(ended)
	for _, tr := range ended {
		delete(s.busy, tr)
		put("B|"+tr, "")
	}
	for _, k := range s.ticks {
		put(k, "")
	}
	s.ticks = nil

	track := e.Track
	if track == "" {
		track = "kubelet"
	}
	if e.Kind != kindIterationWait && e.Kind != kindPodSeen {
		put("L|"+track, at(e.At)+" "+shortStep(e))
	}
	if e.Dur > 0 && e.Kind != kindIterationWait {
		s.busy[track] = e.At + e.Dur
		put("B|"+track, fmt.Sprintf("%s until %s", shortStep(e), at(e.At+e.Dur)))
	}

	switch e.Kind {
	case kindConfigMerge:
		s.carried[chanConfig] = mergeText(e)
	case kindPLEGEvent:
		label := strings.TrimSpace(e.Name + " " + e.Pod + " " + e.Container)
		if id := e.Attr("id"); id != "" {
			label += " (" + id + ")"
		}
		s.label(track, e.At, label, put)
	case trace.Send:
		if e.Flow == 0 {
			break
		}
		label := s.carried[e.Name]
		delete(s.carried, e.Name)
		if d, ok := s.described[track]; ok && label == "" && d.at == e.At {
			label = d.label
		}
		delete(s.described, track)
		if label == "" {
			label = "from " + track
			s.unlabeled[track] = e.Flow
		}
		s.flows[e.Flow] = pageFlow{ch: e.Name, label: label, track: track, at: e.At}
		put("C|"+e.Name, s.waiting(e.Name))
	case trace.Drop:
		delete(s.described, track)
	case trace.Recv:
		if f, ok := s.flows[e.Flow]; ok {
			delete(s.flows, e.Flow)
			put("C|"+f.ch, s.waiting(f.ch))
		}
	case trace.Select:
		put("S|"+track, "")
		for _, r := range e.Ready {
			if r == chanSync || r == chanHousekeeping {
				k := "T|" + r
				put(k, "tick ready")
				s.ticks = append(s.ticks, k)
			}
		}
	case kindSkipSync:
		put("S|"+track, "skipping pod syncs: "+e.Attr("error"))
	case kindWorkerState:
		put("S|"+track, e.Name)
	case kindRuntimeDown:
		put("S|"+track, "down")
	case kindRuntimeUp:
		put("S|"+track, "")
	case kindRelistFailed:
		put("S|"+track, "relist failing")
	case kindRelist:
		put("S|"+track, "")
	case trace.EvictionPass:
		v := ""
		if m := e.Attr("met"); m != "" {
			v = "met " + m
		}
		if h := e.Attr("held"); h != "" {
			v = strings.TrimSpace(v + " held: " + h)
		}
		put("S|"+track, v)
	case trace.ProbeResult:
		put("S|"+track, fmt.Sprintf("%s %s (%s in a row)", e.Name, e.Attr("result"), e.Attr("counted")))
		s.label(track, e.At, fmt.Sprintf("%s %s/%s %s", e.Name, e.Pod, e.Container, e.Attr("result")), put)
	case kindNodeCondition:
		t := e.Attr("type")
		if t == "" {
			t = e.Name
		}
		put("N|"+t, e.Attr("status"))
	case kindSetPodStatus:
		put("P|"+e.Pod, e.Attr("phase"))
		for _, a := range e.Attrs {
			if c, ok := strings.CutPrefix(a.Key, "container/"); ok {
				put("K|"+e.Pod+"|"+c, a.Value)
			}
		}
	case kindAPICreate:
		put("A|"+e.Pod, "created")
	case kindAPIUpdate:
		put("A|"+e.Pod, "spec updated")
	case kindAPIDelete:
		put("A|"+e.Pod, "deleting, grace "+e.Attr("gracePeriodSeconds")+"s")
	case kindAPIRemoved:
		put("A|"+e.Pod, "removed")
	case kindContainerRun:
		put("R|"+e.Pod+"|"+e.Container, "running (attempt "+e.Attr("attempt")+")")
	case kindContainerExit:
		v := "exited, code " + e.Attr("exitCode")
		if r := e.Attr("reason"); r != "" {
			v += " (" + r + ")"
		}
		put("R|"+e.Pod+"|"+e.Container, v)
	case kindScenarioEvent:
		if e.Name == "restartKubelet" {
			// A new kubelet process: its goroutines start with no state and no call in
			// progress (a pod worker exists again only when the new syncLoop creates it),
			// and its channels start empty. The runtime, the API server and the kernel go on.
			var keys []string
			for k := range s.kv {
				kind, tr, _ := strings.Cut(k, "|")
				if (kind == "S" || kind == "B") && kubeletGoroutine(tr) {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				put(k, "")
			}
			for tr := range s.busy {
				if kubeletGoroutine(tr) {
					delete(s.busy, tr)
				}
			}
			clear(s.unlabeled)
			clear(s.described)
			var chans []string
			for id, f := range s.flows {
				chans = append(chans, f.ch)
				delete(s.flows, id)
			}
			sort.Strings(chans)
			for _, c := range chans {
				put("C|"+c, "")
			}
		}
	}
	return set
}

// label names what the message track just sent carries, when that message is still
// waiting and was sent at this instant, or else what the next one it sends at this instant
// will carry; it reports whether it named a message already sent.
func (s *pageState) label(track string, now time.Duration, text string, put func(k, v string)) bool {
	id, ok := s.unlabeled[track]
	delete(s.unlabeled, track)
	f, sent := s.flows[id]
	if !ok || !sent || f.at != now {
		// Nothing sent yet: the send that follows at this instant carries it.
		s.described[track] = pageFlow{label: text, at: now}
		return false
	}
	f.label = text
	s.flows[id] = f
	put("C|"+f.ch, s.waiting(f.ch))
	return true
}

// maxShownMessages is how many of a channel's waiting messages the page names.
const maxShownMessages = 8

// kubeletGoroutine reports whether track is one of the kubelet process's own goroutines,
// which a kubelet restart ends, rather than the runtime's, the API server's, the kernel's or
// the scenario's.
func kubeletGoroutine(track string) bool {
	switch track {
	case "runtime", "apiserver", "kernel", "scenario":
		return false
	}
	return true
}

// waiting lists the messages in ch, oldest first, the first maxShownMessages of them.
func (s *pageState) waiting(ch string) string {
	var ids []uint64
	for id, f := range s.flows {
		if f.ch == ch {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var out []string
	for i, id := range ids {
		if i == maxShownMessages {
			// A page replays each change in full: listing every message of a long queue
			// at every send would grow the page with the square of its length.
			out = append(out, fmt.Sprintf("… and %d more", len(ids)-i))
			break
		}
		out = append(out, s.flows[id].label)
	}
	return strings.Join(out, "\n")
}

// mergeText is what a podConfig merge sends on configCh: its ops and their pods.
func mergeText(e *trace.Event) string {
	var parts []string
	for _, op := range []string{"add", "update", "delete", "remove", "reconcile"} {
		if v := e.Attr(op); v != "" {
			parts = append(parts, strings.ToUpper(op)+" "+v)
		}
	}
	if len(parts) == 0 {
		return "SET " + e.Name + " (no pods)"
	}
	return strings.Join(parts, "; ")
}

// shortStep names a step in a few words: its kind, name, pod and container as recorded.
func shortStep(e *trace.Event) string {
	parts := []string{string(e.Kind)}
	if e.Kind == kindCRICall {
		parts = []string{"CRI"}
	}
	for _, s := range []string{e.Name, e.Pod, e.Container} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

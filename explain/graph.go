package explain

import (
	"fmt"
	"strings"

	"nodesim/trace"
)

// selectCases renders the syncLoop's whole select, as the kubelet recorded it when its
// syncLoop started: each channel, its capacity and what feeds it. A syncLoop that started
// during the boot, which is not shown, is still shown first, at its own time, as the graph
// every later line is read against.
func (t *Transcript) selectCases(e *trace.Event) {
	if !t.f.inWindow(e.At) && e.At < 0 && !t.started {
		t.cases = ptr(*e)
		return
	}
	for _, l := range t.casesLines(e) {
		if l.why != nil {
			t.because(&l, e)
		}
		t.emit(l)
	}
}

// showBootCases prints the select recorded during the boot, before the first line; the
// time window does not hide it, the --only filter does.
func (t *Transcript) showBootCases() {
	e := t.cases
	t.cases = nil
	if e == nil || !t.f.category(Sync) {
		return
	}
	for _, l := range t.casesLines(e) {
		if l.why != nil {
			t.stated(&l, e)
		}
		t.print(&l)
	}
}

// casesLines are the select's lines: a head, then one line per channel; the line of the
// channel nothing sends on is marked for its recorded reason (why set to e.Reason, to be
// kept or dropped by the caller's because).
func (t *Transcript) casesLines(e *trace.Event) []line {
	var chans []trace.Attr
	for _, a := range e.Attrs {
		if !strings.HasPrefix(a.Key, "cap/") {
			chans = append(chans, a)
		}
	}
	out := []line{{at: e.At, track: e.Track, cat: Sync, text: fmt.Sprintf("%s selects on %d channels", e.Name, len(chans))}}
	for _, c := range chans {
		l := line{at: e.At, track: e.Track, depth: 1, cat: Sync,
			text: fmt.Sprintf("%s (holds %s) ← %s", c.Key, e.Attr("cap/"+c.Key), c.Value)}
		if c.Key == chanContainerManager {
			l.why = e.Reason
		}
		out = append(out, l)
	}
	return out
}

// podManagerChange renders a pod entering or leaving one of the pod manager's maps, under
// the handler that did it.
func (t *Transcript) podManagerChange(e *trace.Event) {
	depth := 1
	if d := t.dispatcher; d != nil && d.at == e.At && d.track == e.Track {
		depth = d.depth + 1
	}
	what := e.Pod
	into, from := "into the pod map", "from the pod map"
	if e.Attr("map") == "mirrorPods" {
		what = "mirror pod of static pod " + e.Attr("mirrorOf")
		into, from = "into the mirror-pod map", "from the mirror-pod map"
	}
	dir := into
	if e.Name == "RemovePod" {
		dir = from
	}
	t.emit(line{at: e.At, track: e.Track, depth: depth, cat: Sync, pods: podsOf(e),
		text: fmt.Sprintf("podManager.%s %s %s (now %s, %s)", e.Name, what, dir,
			plural(atoi(e.Attr("pods")), "pod", "pods"), plural(atoi(e.Attr("mirrorPods")), "mirror pod", "mirror pods"))})
}

// mirrorPod renders SyncPod's tryReconcileMirrorPods on the pod worker's goroutine.
func (t *Transcript) mirrorPod(e *trace.Event) {
	l := line{at: e.At, track: e.Track, cat: Workers, pods: podsOf(e)}
	switch e.Name {
	case "delete":
		l.text = "tryReconcileMirrorPods: deletes the stale mirror pod of static pod " + e.Pod + " from the API server"
	default:
		l.text = "tryReconcileMirrorPods: creates the mirror pod of static pod " + e.Pod + " in the API server"
	}
	t.because(&l, e)
	t.emit(l)
}

package explain

import (
	"fmt"
	"strings"
	"time"

	"nodesim/trace"
)

// selectCases renders the syncLoop's whole select, as the kubelet recorded it when its
// syncLoop started: each channel, its capacity and what feeds it. A syncLoop that started
// during the boot, which is not shown, is shown with the run's start instead, and marked so.
func (t *Transcript) selectCases(e *trace.Event) {
	if e.At < 0 && !t.f.inWindow(e.At) {
		t.cases = ptr(*e)
		return
	}
	t.showCases(e, e.At)
}

// showCases prints the select's cases as lines at the time when.
func (t *Transcript) showCases(e *trace.Event, when time.Duration) {
	var chans []trace.Attr
	for _, a := range e.Attrs {
		if !strings.HasPrefix(a.Key, "cap/") {
			chans = append(chans, a)
		}
	}
	head := fmt.Sprintf("%s selects on %d channels", e.Name, len(chans))
	if when != e.At {
		head = fmt.Sprintf("%s (its syncLoop started during the boot) selects on %d channels", e.Name, len(chans))
	}
	t.emit(line{at: when, track: e.Track, cat: Sync, text: head})
	for _, c := range chans {
		l := line{at: when, track: e.Track, depth: 1, cat: Sync,
			text: fmt.Sprintf("%s (holds %s) ← %s", c.Key, e.Attr("cap/"+c.Key), c.Value)}
		if c.Key == chanContainerManager {
			t.because(&l, e)
		}
		t.emit(l)
	}
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

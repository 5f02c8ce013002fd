package explain

import (
	"fmt"

	"nodesim/trace"
)

// scenario renders the steps that frame the run: its start and end and the scripted
// events that drive it.
func (t *Transcript) scenario(e *trace.Event) {
	l := line{at: e.At, track: e.Track, cat: always, pods: podsOf(e)}
	switch e.Kind {
	case kindRunStart:
		l.text = fmt.Sprintf("run starts: scenario %s, seed %s", e.Attr("scenario"), e.Attr("seed"))
	case kindRunEnd:
		l.text = "run ends: " + e.Attr("reason")
	default:
		switch e.Name {
		case "deletePod":
			l.text = "scenario: delete pod " + e.Pod
		case "updatePod":
			l.text = "scenario: update the spec of " + e.Pod
		case "restartKubelet":
			l.text = "scenario: the kubelet restarts (a new process, same runtime and API server)"
			// A new process: its pod workers, channels and syncLoop start empty.
			t.workers = map[string]*workerView{}
			t.flows = map[uint64]flowNote{}
			t.dispatcher, t.skipKey, t.relistFailures = nil, "", 0
		case "runtimeDown":
			l.text = fmt.Sprintf("scenario: the runtime goes down for %s", span(e.Dur))
		default:
			l.text = "scenario: " + e.Name
			if e.Pod != "" {
				l.text += " " + e.Pod
			}
		}
	}
	t.emit(l)
}

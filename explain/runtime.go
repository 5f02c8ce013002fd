package explain

import (
	"fmt"
	"strings"

	"nodesim/trace"
)

// containerView is what the trace has told us about one container of a pod: enough to
// explain why its first restart is immediate.
type containerView struct {
	exited    bool
	backedOff bool
}

func (t *Transcript) container(pod, name string) *containerView {
	key := pod + "/" + name
	c := t.containers[key]
	if c == nil {
		c = &containerView{}
		t.containers[key] = c
	}
	return c
}

// runtimeManager renders the kuberuntime steps inside a sync: computePodActions, the
// crash-loop back-off, container starts and kills.
func (t *Transcript) runtimeManager(e *trace.Event) {
	l := t.workerLine(e, "")
	switch e.Kind {
	case kindPodActions:
		actions := e.Attr("actions")
		if actions == "none" || actions == "" {
			actions = "nothing to do"
		}
		l.text = "computePodActions: " + actions
	case kindBackOff:
		t.container(e.Pod, e.Container).backedOff = true
		until := e.Attr("until")
		l.text = fmt.Sprintf("doBackOff: %s in CrashLoopBackOff (back-off %s, until %s)", e.Container, e.Attr("backoff"), attrInstant(until))
		l.tone = bad
		t.because(&l, e)
	case kindStarted:
		c := t.container(e.Pod, e.Container)
		l.text = "started " + e.Container
		if kind := e.Attr("type"); kind != "" && kind != "container" {
			l.text = fmt.Sprintf("started %s %s", kind, e.Container) // kind is upstream's typeName: "init container"
		}
		if c.exited && !c.backedOff {
			t.because(&l, e)
		}
	case kindStartFailed:
		l.tone = bad
		l.text = fmt.Sprintf("start of %s failed: %s", e.Container, e.Attr("reason"))
		if msg := e.Attr("message"); msg != "" {
			l.text += ": " + clip(msg, 70)
		}
	case kindKilling:
		l.text = fmt.Sprintf("killContainer %s, grace period %s", e.Container, e.Attr("grace"))
		if r := e.Attr("reason"); r != "" {
			l.text += " (" + r + ")"
		}
	case kindPostStart:
		l.text = fmt.Sprintf("postStart hook of %s runs %s after StartContainer; the sync waits for it", e.Container, span(e.Dur))
		if e.Attr("failed") == "true" {
			l.text += " → it fails: the container is killed (FailedPostStartHook)"
			l.tone = bad
		}
	case kindPreStop:
		l.text = fmt.Sprintf("preStop hook of %s runs %s, out of the grace period", e.Container, span(e.Dur))
	}
	if l.why == nil {
		t.because(&l, e)
	}
	t.emit(l)
}

// images renders the image manager (pull policy, image back-off) and the runtime's pulls.
func (t *Transcript) images(e *trace.Event) {
	image := e.Attr("image")
	l := t.workerLine(e, "")
	switch e.Kind {
	case kindPullRequested:
		l.text = fmt.Sprintf("EnsureImageExists %s: pulls %s", e.Container, image)
	case kindPulled:
		l.text = fmt.Sprintf("image %s pulled for %s in %s", image, e.Container, span(e.Dur))
	case kindPullFailed:
		l.tone = bad
		l.text = fmt.Sprintf("pull of %s failed: %s", image, clip(e.Attr("error"), 70))
	case kindPullBackOff:
		l.tone = bad
		l.text = fmt.Sprintf("EnsureImageExists %s: %s in back-off (ImagePullBackOff)", e.Container, image)
		t.because(&l, e)
	case kindPullStart:
		l.cat = CRI
		l.text = fmt.Sprintf("runtime pull of %s starts", image)
	case kindPullEnd:
		l.cat = CRI
		l.text = fmt.Sprintf("runtime pull of %s finished", image)
	}
	t.emit(l)
}

// runtime renders CRI calls (on the caller's goroutine, as upstream's blocking gRPC calls
// are) and what the runtime's processes do on their own.
func (t *Transcript) runtime(e *trace.Event) {
	l := line{at: e.At, track: e.Track, cat: CRI, pods: podsOf(e)}
	switch e.Kind {
	case kindCRICall:
		parts := []string{"CRI " + e.Name}
		if e.Container != "" {
			parts = append(parts, e.Container)
		}
		if image := e.Attr("image"); image != "" {
			parts = append(parts, image)
		}
		var details []string
		if e.Dur > 0 {
			details = append(details, span(e.Dur))
		}
		if g := e.Attr("grace"); g != "" {
			details = append(details, "grace "+g)
		}
		l.text = strings.Join(parts, " ")
		if len(details) > 0 {
			l.text += " (" + strings.Join(details, ", ") + ")"
		}
	case kindContainerRun:
		t.names[e.Attr("id")] = e.Container
		l.text = fmt.Sprintf("%s %s is running (attempt %s)", e.Pod, e.Container, e.Attr("attempt"))
	case kindContainerExit:
		t.names[e.Attr("id")] = e.Container
		t.container(e.Pod, e.Container).exited = true
		l.text = fmt.Sprintf("%s %s exited, code %s (%s)", e.Pod, e.Container, e.Attr("exitCode"), e.Attr("reason"))
		if e.Attr("exitCode") != "0" {
			l.tone = bad
		}
		t.because(&l, e)
	case kindRuntimeDown:
		l.tone = bad
		l.text = fmt.Sprintf("the runtime stops answering for %s: every CRI call fails", span(e.Dur))
	case kindRuntimeUp:
		l.text = "the runtime answers again"
	case kindImageRemoved:
		l.text = "image " + e.Attr("image") + " removed (image garbage collection)"
	}
	t.emit(l)
}

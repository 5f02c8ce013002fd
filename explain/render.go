package explain

import (
	"fmt"
	"strings"

	"nodesim/trace"
)

// render turns one event into its line (or its contribution to a held step or a quiet
// stretch). Each component's events have their own file; anything unknown gets a generic
// line, so that a kind added to the model shows up before it gets its own words.
func (t *Transcript) render(e *trace.Event) {
	switch e.Kind {
	case kindNoHandler:
		// Shown on the select line that received the message.
	case kindIterationWait, kindPodSeen, trace.Recv, trace.Send:
		// Plumbing: the wait is a metric, the first-seen stamp feeds latency, and channel
		// messages are shown by the steps that send and select them.
		if e.Kind == trace.Send && e.Name == chanPLEG {
			t.startRelist(e)
		}
	case trace.Select:
		t.selectCase(e)
	case kindHandler:
		t.handler(e)
	case kindSkipSync:
		t.skipSync(e)
	case kindHousekeeping:
		t.housekeeping(e)
	case kindSelectCases:
		t.selectCases(e)
	case kindPodManager:
		t.podManagerChange(e)
	case kindMirrorPod:
		t.mirrorPod(e)
	case kindAdmitted, kindRejected:
		t.admission(e)
	case kindContainerClean, kindContainerGC:
		t.cleanup(e)

	case kindUpdatePod:
		t.updatePod(e)
	case kindWorkerState:
		t.workerState(e)
	case kindSyncStart:
		t.syncStart(e)
	case kindSyncEnd:
		t.held = &syncEndStep{ev: *e}
	case kindRequeue:
		t.emit(t.workerLine(e, t.requeueText(e)))
	case kindWaitCache, kindCacheReady:
		t.podCache(e)
	case kindForget, kindCancelSync:
		t.workerLifecycle(e)
	case kindRelistRequest:
		l := t.workerLine(e, "RequestPodRelist: asks PLEG for an on-demand relist of "+e.Pod)
		t.because(&l, e)
		t.emit(l)
	case kindGracePeriod:
		l := t.workerLine(e, "the kill's grace period: "+e.Attr("grace")+"s")
		t.because(&l, e)
		t.emit(l)

	case kindPodActions, kindBackOff, kindKilling, kindPreStop, kindPostStart, kindStarted, kindStartFailed:
		t.runtimeManager(e)
	case kindPullRequested, kindPullBackOff, kindPulled, kindPullFailed, kindPullStart, kindPullEnd:
		t.images(e)
	case kindCRICall, kindContainerRun, kindContainerExit, kindRuntimeDown, kindRuntimeUp, kindImageRemoved:
		t.runtime(e)

	case trace.Drop, trace.Block:
		if e.Kind == trace.Drop && e.Name == chanPLEG {
			t.startRelist(e)
			break
		}
		t.channel(e)
	case kindPLEGEvent:
		t.startRelist(e)
	case kindRelist, kindRelistFailed:
		t.relist(e, nil, nil)

	case kindAPICreate, kindAPIDelete, kindAPIUpdate, kindAPIPatch, kindAPIRemoved:
		t.held = &configStep{api: ptr(*e)}
	case kindConfigMerge:
		t.held = newMergeStep(e)
	case kindSetPodStatus, kindTerminatePod, kindStatusDelete:
		t.status(e)
	case kindNodeCondition:
		t.nodeCondition(e)

	case trace.Stats, trace.EvictionPass, trace.Eviction, trace.OOMKill, trace.ThresholdCrossed:
		t.resources(e)
	case trace.ProbeResult:
		t.probe(e)

	case kindRunStart, kindRunEnd, kindScenarioEvent:
		t.scenario(e)
	default:
		t.generic(e)
	}
}

// generic renders a kind this package has no words for: its name and details as recorded.
func (t *Transcript) generic(e *trace.Event) {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	for _, s := range []string{e.Name, e.Pod, e.Container} {
		if s != "" {
			b.WriteString(" " + s)
		}
	}
	if e.Dur > 0 {
		fmt.Fprintf(&b, " (%s)", span(e.Dur))
	}
	for _, a := range e.Attrs {
		if a.Value != "" {
			fmt.Fprintf(&b, " %s=%s", a.Key, clip(a.Value, 60))
		}
	}
	t.emit(line{at: e.At, track: e.Track, text: b.String(), cat: categoryOf(e), pods: podsOf(e)})
}

// podsOf is the pod an event names, as a filter list.
func podsOf(e *trace.Event) []string {
	if e.Pod == "" {
		return nil
	}
	return []string{e.Pod}
}

func ptr[T any](v T) *T { return &v }

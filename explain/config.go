package explain

import (
	"fmt"
	"strings"

	"nodesim/trace"
)

// configStep holds a change at the API server and the podConfig merge it caused, until
// each op of the merge has been sent on configCh: "pod created → podConfig ADD →
// configCh" reads as one step, as the watch makes it one.
type configStep struct {
	api   *trace.Event
	merge *trace.Event
	ops   []configOp
	sent  int
}

// configOp is one message the merge sends: an op and its pods.
type configOp struct {
	op   string
	pods []string
}

// The ops in the order podConfig sends them.
func mergeOps(e *trace.Event) []configOp {
	var ops []configOp
	for _, op := range []string{"remove", "add", "update", "delete", "reconcile"} {
		if pods := split(e.Attr(op), ","); len(pods) > 0 {
			ops = append(ops, configOp{op: strings.ToUpper(op), pods: pods})
		}
	}
	return ops
}

func (o configOp) String() string { return o.op + " " + list(o.pods, 3) }

func newMergeStep(e *trace.Event) *configStep {
	return &configStep{merge: ptr(*e), ops: mergeOps(e)}
}

// expected is how many configCh messages the merge sends: one per op, or one empty ADD
// when a source reports its first snapshot with nothing in it.
func (s *configStep) expected() int {
	if len(s.ops) == 0 {
		return 1
	}
	return len(s.ops)
}

func (s *configStep) absorb(t *Transcript, e *trace.Event) (bool, bool) {
	if s.merge == nil {
		if e.Kind != kindConfigMerge || e.At != s.api.At {
			return false, false
		}
		ops := mergeOps(e)
		for _, o := range ops {
			for _, p := range o.pods {
				if p != s.api.Pod {
					return false, false
				}
			}
		}
		s.merge, s.ops = ptr(*e), ops
		return true, false
	}
	if e.Kind != trace.Send || e.Name != chanConfig || e.At != s.merge.At {
		return false, false
	}
	note := flowNote{text: fmt.Sprintf("empty ADD from %s", s.merge.Name), kind: "ADD"}
	if s.sent < len(s.ops) {
		o := s.ops[s.sent]
		note = flowNote{text: o.String(), pods: o.pods, kind: o.op}
	}
	t.flows[e.Flow] = note
	s.sent++
	return true, s.sent >= s.expected()
}

func (s *configStep) flush(t *Transcript, _ *trace.Event) {
	var parts []string
	var pods []string
	first := s.merge
	if s.api != nil {
		first = s.api
		parts = append(parts, apiText(s.api))
		pods = podsOf(s.api)
	}
	if s.merge != nil {
		var ops []string
		for _, o := range s.ops {
			ops = append(ops, o.String())
			for _, p := range o.pods {
				pods = appendNew(pods, p)
			}
		}
		merge := "podConfig (" + s.merge.Name + "): " + strings.Join(ops, "; ")
		if len(ops) == 0 {
			merge = "podConfig (" + s.merge.Name + "): first snapshot, no pods"
		}
		if s.api != nil {
			// The API server's change reaches the mux through the api source's watch.
			merge = "watch → " + merge
		}
		if s.sent > 0 {
			merge += " → configCh"
		}
		parts = append(parts, merge)
	}
	t.emit(line{at: first.At, track: first.Track, cat: Config, pods: pods, text: strings.Join(parts, " → ")})
}

// apiText is a change at the API server, as the pods bound to this node see it.
func apiText(e *trace.Event) string {
	pod := "pod " + e.Pod
	if e.Attr("mirror") == "true" {
		pod = "mirror pod of static pod " + e.Pod
	}
	switch e.Kind {
	case kindAPICreate:
		return pod + " created"
	case kindAPIDelete:
		return fmt.Sprintf("%s deleted, grace period %ss", pod, e.Attr("gracePeriodSeconds"))
	case kindAPIUpdate:
		return pod + " spec updated"
	case kindAPIPatch:
		s := "status of " + strings.TrimPrefix(pod, "pod ") + " patched"
		if p := e.Attr("phase"); p != "" {
			s += ": " + p
		}
		if r := e.Attr("reason"); r != "" {
			s += " (" + r + ")"
		}
		return s
	case kindAPIRemoved:
		return pod + " removed from the API server"
	}
	return string(e.Kind) + " " + e.Pod
}

// status renders the status manager's steps.
func (t *Transcript) status(e *trace.Event) {
	l := line{at: e.At, track: e.Track, cat: Workers, pods: podsOf(e)}
	switch e.Kind {
	case kindSetPodStatus:
		l.text = fmt.Sprintf("setPodStatus %s: %s", e.Pod, podStatusText(e))
	case kindTerminatePod:
		l.text = "TerminatePod " + e.Pod + ": the final status, every container terminated"
	case kindStatusDelete:
		l.text = e.Pod + " is terminated: the status manager deletes it from the API server"
	}
	t.emit(l)
}

// podStatusText renders a setPodStatus record: the phase, then each container's state.
func podStatusText(e *trace.Event) string {
	s := e.Attr("phase")
	if r := e.Attr("reason"); r != "" {
		s += " (" + r + ")"
	}
	for _, a := range e.Attrs {
		if name, ok := strings.CutPrefix(a.Key, "container/"); ok {
			s += "; " + name + " " + containerStatusText(a.Value)
		}
	}
	return s
}

// containerStatusText reads "state=terminated:Error:1 restarts=2 ready=false last=Error:1".
func containerStatusText(v string) string {
	f := map[string]string{}
	for _, kv := range strings.Fields(v) {
		k, val, _ := strings.Cut(kv, "=")
		f[k] = val
	}
	state, ok := f["state"]
	if !ok {
		return v
	}
	kind, detail, _ := strings.Cut(state, ":")
	out := kind
	switch kind {
	case "waiting":
		if detail != "" {
			out = "waiting (" + detail + ")"
		}
	case "terminated":
		reason, code, _ := strings.Cut(detail, ":")
		out = fmt.Sprintf("terminated (%s, exit %s)", reason, code)
	case "running":
		if f["ready"] == "true" {
			out = "running, ready"
		}
	}
	if n := atoi(f["restarts"]); n > 0 {
		out += ", " + plural(n, "restart", "restarts")
	}
	return out
}

// nodeCondition renders a node condition as the node status loop reports it.
func (t *Transcript) nodeCondition(e *trace.Event) {
	status := e.Attr("status")
	l := line{at: e.At, track: e.Track, cat: categoryOf(e), text: fmt.Sprintf("node condition %s=%s", e.Name, status)}
	var why []string
	for _, k := range []string{"reason", "message"} {
		if v := e.Attr(k); v != "" {
			why = append(why, clip(v, 70))
		}
	}
	if len(why) > 0 {
		l.text += " (" + strings.Join(why, ": ") + ")"
	}
	unhealthy := (e.Name == "Ready") != (status == "True")
	if unhealthy {
		l.tone = bad
		t.because(&l, e)
	}
	t.emit(l)
}

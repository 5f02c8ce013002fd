package reports

import (
	"strconv"

	"nodesim/trace"
)

// gauge is one measured value, or none yet.
type gauge struct {
	v  float64
	ok bool
}

func (g *gauge) setAttr(e *trace.Event, key string) bool {
	s := e.Attr(key)
	if s == "" {
		return false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	changed := !g.ok || g.v != v
	g.v, g.ok = v, true
	return changed
}

// appendText appends String's text.
func (g gauge) appendText(dst []byte) []byte {
	if !g.ok {
		return dst
	}
	return strconv.AppendFloat(dst, g.v, 'f', -1, 64)
}

func (g gauge) String() string {
	if !g.ok {
		return ""
	}
	return strconv.FormatFloat(g.v, 'f', -1, 64)
}

// How many values usage carries (constants, so that they size arrays).
const (
	nodeGauges = 4
	podGauges  = 3
	conditions = 4
)

// nodeGaugeAttrs are the node-level values a timeline carries, from stats samples with Name
// "node".
func nodeGaugeAttrs() [nodeGauges]string {
	return [...]string{"memoryWorkingSet", "memoryAvailable", "nodefsUsed", "pidsUsed"}
}

// podGaugeAttrs are the per-pod values a timeline carries, from stats samples with Name "pod".
func podGaugeAttrs() [podGauges]string { return [...]string{"memory", "disk", "pids"} }

// conditionTypes are the node conditions a timeline carries, as 0/1.
func conditionTypes() [conditions]string {
	return [...]string{"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}
}

// usage is the node's and its pods' resources and the node's conditions as of the last event
// applied: each value is carried forward from the last stats sample that gave it.
type usage struct {
	node       [nodeGauges]gauge
	pods       map[string]*podUsage
	conditions [conditions]bool
}

// podUsage is one pod's values, and the attributes of the stats sample they were last read
// from. A trace event's attributes are never written once recorded (trace.Sink), so a
// sample that carries the very same attribute list (the stats provider records an
// unchanged pod's list again) has the same values: apply need not read them again.
type podUsage struct {
	gauges [podGauges]gauge
	attrs  []trace.Attr
}

// sameAttrs reports whether a and b are one list: the same elements of the same array.
func sameAttrs(a, b []trace.Attr) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

func newUsage() usage {
	return usage{pods: map[string]*podUsage{}}
}

// apply takes one event and reports whether any value changed.
func (u *usage) apply(e *trace.Event) bool {
	changed := false
	switch e.Kind {
	case kindStats:
		switch e.Name {
		case "node":
			for i, k := range nodeGaugeAttrs() {
				changed = u.node[i].setAttr(e, k) || changed
			}
		case "pod":
			p := u.pods[e.Pod]
			if p == nil {
				p = &podUsage{}
				u.pods[e.Pod] = p
			}
			if sameAttrs(p.attrs, e.Attrs) {
				break
			}
			p.attrs = e.Attrs
			for i, k := range podGaugeAttrs() {
				changed = p.gauges[i].setAttr(e, k) || changed
			}
		}
	case kindNodeCondition:
		for i, t := range conditionTypes() {
			if e.Attr("type") == t {
				v := e.Attr("status") == "True"
				changed = u.conditions[i] != v
				u.conditions[i] = v
			}
		}
	case kindWorkerState:
		// A terminated pod has no cgroup left to measure: its values stop rather than
		// being carried forward for ever.
		if e.Name == "terminated" {
			if p := u.pods[e.Pod]; p != nil {
				delete(u.pods, e.Pod)
				changed = true
			}
		}
	}
	return changed
}

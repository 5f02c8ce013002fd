package reports

import (
	"fmt"
	"strings"
	"time"

	api "nodesim/api/v1alpha1"
)

// Evaluate checks the scenario's expectations against the report and records the verdicts
// in it. It reports whether all of them hold.
func Evaluate(r *Report, expect []api.Expectation) bool {
	ok := true
	for i := range expect {
		res := evaluate(r, &expect[i])
		if !res.Pass {
			ok = false
		}
		r.Expectations = append(r.Expectations, res)
	}
	return ok
}

func qualify(ref string) string {
	if strings.Contains(ref, "/") {
		return ref
	}
	return "default/" + ref
}

func (r *Report) pod(ref string) *PodReport {
	key := qualify(ref)
	for i := range r.Pods {
		if r.Pods[i].Pod == key {
			return &r.Pods[i]
		}
	}
	return nil
}

func bounds(min, max *int32) string {
	switch {
	case min != nil && max != nil:
		return fmt.Sprintf("in [%d, %d]", *min, *max)
	case min != nil:
		return fmt.Sprintf(">= %d", *min)
	case max != nil:
		return fmt.Sprintf("<= %d", *max)
	}
	return ""
}

func within(v int64, min, max *int64) bool {
	return (min == nil || v >= *min) && (max == nil || v <= *max)
}

func i32(p *int32) *int64 {
	if p == nil {
		return nil
	}
	v := int64(*p)
	return &v
}

func evaluate(r *Report, x *api.Expectation) ExpectationResult {
	switch {
	case x.Restarts != nil || x.OOMKilled != nil:
		c, what := x.Restarts, "restarts"
		if c == nil {
			c, what = x.OOMKilled, "oomKilled"
		}
		name := qualify(c.Pod)
		if c.Container != "" {
			name += " " + c.Container
		}
		desc := fmt.Sprintf("%s %s %s", what, name, bounds(c.Min, c.Max))
		p := r.pod(c.Pod)
		if p == nil {
			return ExpectationResult{Expect: desc, Detail: "the pod never reached the kubelet"}
		}
		var n int64
		for _, cr := range p.Containers {
			if c.Container == "" || cr.Name == c.Container {
				if what == "restarts" {
					n += int64(cr.Restarts)
				} else {
					n += int64(cr.OOMKills)
				}
			}
		}
		return ExpectationResult{Expect: desc, Pass: within(n, i32(c.Min), i32(c.Max)), Detail: fmt.Sprintf("observed %d", n)}
	case x.Phase != nil:
		desc := fmt.Sprintf("phase %s is %s", qualify(x.Phase.Pod), x.Phase.Is)
		got := ""
		if x.Phase.At != nil {
			desc += fmt.Sprintf(" at %s", x.Phase.At.Duration)
			for _, pa := range r.phases[qualify(x.Phase.Pod)] {
				if pa.at <= x.Phase.At.Duration {
					got = pa.phase
				}
			}
		} else if p := r.pod(x.Phase.Pod); p != nil {
			got = p.Phase
		}
		if got == "" {
			got = "Pending"
		}
		return ExpectationResult{Expect: desc, Pass: got == string(x.Phase.Is), Detail: "observed " + got}
	case x.Latency != nil:
		l := x.Latency
		desc := fmt.Sprintf("latency %s p%g <= %s", l.Metric, l.Percentile, l.Max.Duration)
		xs := r.samples[l.Metric]
		if len(xs) == 0 {
			return ExpectationResult{Expect: desc, Detail: "no samples of " + l.Metric + " in this run"}
		}
		v := percentile(l.Percentile, xs)
		got := FormatDuration(time.Duration(v * float64(time.Second)).Round(time.Millisecond))
		return ExpectationResult{Expect: desc, Pass: v <= l.Max.Seconds(), Detail: fmt.Sprintf("observed %s over %d samples", got, len(xs))}
	case x.Count != nil:
		c := x.Count
		desc := fmt.Sprintf("count %s", c.Metric)
		if c.Min != nil {
			desc += fmt.Sprintf(" >= %d", *c.Min)
		}
		if c.Max != nil {
			desc += fmt.Sprintf(" <= %d", *c.Max)
		}
		n := r.Counts[c.Metric]
		return ExpectationResult{Expect: desc, Pass: within(n, c.Min, c.Max), Detail: fmt.Sprintf("observed %d", n)}
	case x.AdmissionRejected != nil:
		a := x.AdmissionRejected
		desc := fmt.Sprintf("admissionRejected %s", strings.Join(a.Pods, ", "))
		if a.Reason != "" {
			desc += " with reason " + a.Reason
		}
		var missing []string
		for _, ref := range a.Pods {
			found := false
			for _, rej := range r.AdmissionRejections {
				if rej.Pod == qualify(ref) && (a.Reason == "" || rej.Reason == a.Reason) {
					found = true
				}
			}
			if !found {
				missing = append(missing, qualify(ref))
			}
		}
		if len(missing) > 0 {
			return ExpectationResult{Expect: desc, Detail: "not rejected: " + strings.Join(missing, ", ")}
		}
		return ExpectationResult{Expect: desc, Pass: true, Detail: "all rejected"}
	case x.NodeCondition != nil:
		nc := x.NodeCondition
		desc := fmt.Sprintf("nodeCondition %s=%s", nc.Type, nc.Status)
		if nc.FirstWithin.Set {
			desc += fmt.Sprintf(" first within [%s, %s]", nc.FirstWithin.From.Duration, nc.FirstWithin.To.Duration)
		}
		for _, c := range r.NodeConditions {
			if c.Type == string(nc.Type) && c.Status == string(nc.Status) {
				t := time.Duration(c.Time * float64(time.Second))
				if nc.Never {
					return ExpectationResult{Expect: desc + " never", Detail: "it was at " + FormatSeconds(c.Time)}
				}
				return ExpectationResult{Expect: desc, Pass: nc.FirstWithin.Contains(t), Detail: "first at " + FormatSeconds(c.Time)}
			}
		}
		if nc.Never {
			return ExpectationResult{Expect: desc + " never", Pass: true, Detail: "never observed"}
		}
		return ExpectationResult{Expect: desc, Detail: "never observed"}
	case x.Evicted != nil:
		e := x.Evicted
		desc := fmt.Sprintf("evicted %s", strings.Join(e.Pods, ", "))
		if e.Order == "strict" {
			desc += " in this order"
		}
		var got []string
		for _, ev := range r.Evictions {
			got = append(got, ev.Pod)
			if !e.Within.Contains(time.Duration(ev.Time*float64(time.Second))) && containsRef(e.Pods, ev.Pod) {
				return ExpectationResult{Expect: desc, Detail: fmt.Sprintf("%s evicted at %s, outside the window", ev.Pod, FormatSeconds(ev.Time))}
			}
		}
		var want []string
		for _, ref := range e.Pods {
			want = append(want, qualify(ref))
			if !contains(got, qualify(ref)) {
				return ExpectationResult{Expect: desc, Detail: fmt.Sprintf("%s was not evicted (evicted: %s)", qualify(ref), listOrNone(got))}
			}
		}
		if e.Order == "strict" {
			var seq []string
			for _, g := range got {
				if contains(want, g) && !contains(seq, g) {
					seq = append(seq, g)
				}
			}
			if strings.Join(seq, ",") != strings.Join(want, ",") {
				return ExpectationResult{Expect: desc, Detail: "evicted in the order " + strings.Join(seq, ", ")}
			}
		}
		return ExpectationResult{Expect: desc, Pass: true, Detail: "evicted: " + strings.Join(got, ", ")}
	case x.NotEvicted != nil:
		desc := "notEvicted " + strings.Join(x.NotEvicted, ", ")
		for _, ev := range r.Evictions {
			if containsRef(x.NotEvicted, ev.Pod) {
				return ExpectationResult{Expect: desc, Detail: fmt.Sprintf("%s was evicted at %s", ev.Pod, FormatSeconds(ev.Time))}
			}
		}
		return ExpectationResult{Expect: desc, Pass: true, Detail: "none of them evicted"}
	}
	return ExpectationResult{Expect: "unknown expectation", Detail: "nothing to check"}
}

func containsRef(refs []string, key string) bool {
	for _, r := range refs {
		if qualify(r) == key {
			return true
		}
	}
	return false
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

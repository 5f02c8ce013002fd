package sweep

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"nodesim/reports"
)

// Outcome is what one run of the grid (one setting × one seed) showed: every figure a row,
// a JUnit test case or the verdict needs, taken from the run's report. A sweep keeps these
// instead of whole reports, and a shard writes them to its file: rows are summarized from
// outcomes alone, so a merged sweep is summarized from exactly the same data as an
// unsharded one.
type Outcome struct {
	// Row is the setting's index in the grid (the last --set varies fastest).
	Row int `json:"row"`
	// Values are the setting's values, one per --set.
	Values []string `json:"values"`
	Seed   uint64   `json:"seed"`
	// Expectations is how many expectations were checked; Failed lists those that failed,
	// in the scenario's order.
	Expectations int       `json:"expectations"`
	Failed       []Failure `json:"failed,omitempty"`
	// Evicted lists the evicted pods in eviction order.
	Evicted    []string `json:"evicted,omitempty"`
	OOMKills   int      `json:"oomKills"`
	Restarts   int64    `json:"restarts"`
	Rejections int      `json:"admissionRejections"`
	StartupP99 float64  `json:"podStartupP99"`
	// FirstPressure is when a node pressure condition (MemoryPressure, DiskPressure,
	// PIDPressure) first went True, and which; absent when none did.
	FirstPressure     *float64 `json:"firstPressure,omitempty"`
	PressureCondition string   `json:"pressureCondition,omitempty"`
	// FirstEviction is the time of the run's first eviction; absent without one.
	FirstEviction *float64 `json:"firstEviction,omitempty"`
	// Headroom is the run's headroom above the hard thresholds of the signals a sweep
	// shows (memory.available, nodefs.available), from reports.Headroom.
	Headroom []reports.SignalHeadroom `json:"headroom,omitempty"`
}

// Failure is one failed expectation: the expectation as the report names it, and why.
type Failure struct {
	Expect string `json:"expect"`
	Detail string `json:"detail"`
}

// Passed reports whether every expectation of the run held.
func (o *Outcome) Passed() bool { return len(o.Failed) == 0 }

// HeadroomSignals are the signals whose headroom a sweep reports.
var HeadroomSignals = [...]string{"memory.available", "nodefs.available"}

// OutcomeOf takes from a run's report what the sweep keeps.
func OutcomeOf(rep *reports.Report, row int, values []string, seed uint64) Outcome {
	o := Outcome{Row: row, Values: values, Seed: seed, Expectations: len(rep.Expectations),
		OOMKills: len(rep.OOMKills), Restarts: rep.Counts["restarts"], Rejections: len(rep.AdmissionRejections),
		StartupP99: rep.Latency["podStartup"].P99}
	for _, e := range rep.Expectations {
		if !e.Pass {
			o.Failed = append(o.Failed, Failure{Expect: e.Expect, Detail: e.Detail})
		}
	}
	for _, e := range rep.Evictions {
		o.Evicted = append(o.Evicted, e.Pod)
	}
	if len(rep.Evictions) > 0 {
		t := rep.Evictions[0].Time
		o.FirstEviction = &t
	}
	for _, c := range rep.NodeConditions {
		if c.Status == "True" && strings.HasSuffix(c.Type, "Pressure") {
			t := c.Time
			o.FirstPressure, o.PressureCondition = &t, c.Type
			break
		}
	}
	for _, s := range HeadroomSignals {
		if h, ok := reports.HeadroomOf(rep, s); ok {
			o.Headroom = append(o.Headroom, h)
		}
	}
	return o
}

// Timing is when something first happened, over the runs of a row in which it happened.
type Timing struct {
	// Runs is how many of the row's runs it happened in.
	Runs int `json:"runs"`
	Spread
}

// LowestHeadroom is a row's lowest headroom of one signal over its seeds, and the seed
// that showed it (the first such seed in a tie).
type LowestHeadroom struct {
	reports.SignalHeadroom
	Seed uint64 `json:"seed"`
}

// summarizeRow makes a row from its runs' outcomes, given in seed order.
func summarizeRow(values []string, outs []*Outcome) Row {
	row := Row{Values: values}
	var ev, oom, rs, rej, p99, press, first []float64
	lowest := map[string]*LowestHeadroom{}
	for _, o := range outs {
		row.Runs++
		if o.Passed() {
			row.AllPassed++
		}
		for _, f := range o.Failed {
			if row.FailedChecks == nil {
				row.FailedChecks = map[string]int{}
			}
			row.FailedChecks[f.Expect]++
		}
		for _, p := range o.Evicted {
			if row.Evicted == nil {
				row.Evicted = map[string]int{}
			}
			row.Evicted[p]++
		}
		ev = append(ev, float64(len(o.Evicted)))
		oom = append(oom, float64(o.OOMKills))
		rs = append(rs, float64(o.Restarts))
		rej = append(rej, float64(o.Rejections))
		p99 = append(p99, o.StartupP99)
		if o.FirstPressure != nil {
			press = append(press, *o.FirstPressure)
			if row.PressureConditions == nil {
				row.PressureConditions = map[string]int{}
			}
			row.PressureConditions[o.PressureCondition]++
		}
		if o.FirstEviction != nil {
			first = append(first, *o.FirstEviction)
		}
		for _, h := range o.Headroom {
			if cur := lowest[h.Signal]; cur == nil || h.Above < cur.Above {
				lowest[h.Signal] = &LowestHeadroom{SignalHeadroom: h, Seed: o.Seed}
			}
		}
	}
	row.Evictions, row.OOMKills, row.Restarts, row.Rejections, row.StartupP99 = spread(ev), spread(oom), spread(rs), spread(rej), spread(p99)
	row.FirstPressure = Timing{Runs: len(press), Spread: spread(press)}
	row.FirstEviction = Timing{Runs: len(first), Spread: spread(first)}
	for _, s := range HeadroomSignals {
		if h := lowest[s]; h != nil {
			row.Headroom = append(row.Headroom, *h)
		}
	}
	return row
}

// summarize makes the rows of a whole grid from its outcomes, which are in grid order
// (row, then seed); a row with no outcome (cut short before any of its runs) is left out.
func summarize(res *Result, outs []Outcome) {
	res.Rows = []Row{} // "rows": [] in JSON, even for a sweep stopped before any run
	res.Runs, res.Passed = 0, 0
	for i := 0; i < len(outs); {
		j := i
		var group []*Outcome
		for ; j < len(outs) && outs[j].Row == outs[i].Row; j++ {
			group = append(group, &outs[j])
		}
		res.Rows = append(res.Rows, summarizeRow(outs[i].Values, group))
		i = j
	}
	for _, r := range res.Rows {
		res.Runs += r.Runs
		res.Passed += r.AllPassed
	}
}

// FailedRuns lists the runs whose expectations failed, as "values, seed N".
func (res *Result) FailedRuns() []string {
	var out []string
	for _, o := range res.Outcomes {
		if !o.Passed() {
			out = append(out, fmt.Sprintf("%s, seed %d", strings.Join(o.Values, ", "), o.Seed))
		}
	}
	return out
}

// sortedKeys is a map's keys in order, for output that must not follow map order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

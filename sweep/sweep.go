package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v3"

	"nodesim/reports"
	"nodesim/scenarios"
)

// Axis is one setting swept over values.
type Axis struct {
	Path   string
	Values []string
	path   []segment
	nodes  []*yaml.Node
}

// ParseAxis reads PATH=V1,V2,...
func ParseAxis(spec string) (Axis, error) {
	path, values, ok := strings.Cut(spec, "=")
	if !ok || path == "" || values == "" {
		return Axis{}, fmt.Errorf("--set %q: want PATH=VALUE,VALUE,... (e.g. spec.kubelet.evictionHard[memory.available]=100Mi,500Mi)", spec)
	}
	segs, err := parsePath(path)
	if err != nil {
		return Axis{}, fmt.Errorf("--set %q: %w", spec, err)
	}
	a := Axis{Path: path, path: segs}
	for _, v := range splitValues(values) {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(v), &doc); err != nil || len(doc.Content) != 1 {
			return Axis{}, fmt.Errorf("--set %q: value %q is not one YAML value", spec, v)
		}
		a.Values = append(a.Values, v)
		a.nodes = append(a.nodes, doc.Content[0])
	}
	return a, nil
}

// RunFunc simulates one loaded scenario with a seed and returns its report (expectations
// evaluated).
type RunFunc func(l *scenarios.Loaded, seed uint64) (*reports.Report, error)

// Row is one point of the grid: the values, and what the runs over every seed showed.
type Row struct {
	Values       []string       `json:"values"`
	Runs         int            `json:"runs"`
	AllPassed    int            `json:"runsWithAllExpectationsPassing"`
	Evictions    Spread         `json:"evictions"`
	OOMKills     Spread         `json:"oomKills"`
	Restarts     Spread         `json:"restarts"`
	Rejections   Spread         `json:"admissionRejections"`
	StartupP99   Spread         `json:"podStartupP99"`
	FailedChecks map[string]int `json:"failedExpectations,omitempty"`
	Evicted      map[string]int `json:"evictedPods,omitempty"`
}

// Spread is a figure's range over the seeds.
type Spread struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

func spread(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := Spread{Min: xs[0], Max: xs[0]}
	sum := 0.0
	for _, x := range xs {
		sum += x
		if x < s.Min {
			s.Min = x
		}
		if x > s.Max {
			s.Max = x
		}
	}
	s.Mean = sum / float64(len(xs))
	return s
}

// Result is a whole sweep.
type Result struct {
	Scenario string   `json:"scenario"`
	Paths    []string `json:"paths"`
	Seeds    []uint64 `json:"seeds"`
	Rows     []Row    `json:"rows"`
}

// DefaultMaxRuns caps a sweep's runs (variants × seeds) unless the caller raises it: a
// grid is easy to make far larger than anyone meant to wait for.
const DefaultMaxRuns = 10_000

// ErrInterrupted ends a sweep stopped by Options.Stop; the rows finished before it are in
// the result.
var ErrInterrupted = errors.New("sweep interrupted")

// Options tune a sweep.
type Options struct {
	// Parallel is how many simulations run at once (0: GOMAXPROCS).
	Parallel int
	// MaxRuns caps variants × seeds (0: DefaultMaxRuns).
	MaxRuns int
	// Stop, when set, is asked before each run starts; once it says true no run starts and
	// the sweep ends with the rows finished so far.
	Stop func() bool
	// Row, when set, gets each finished row in grid order, as soon as it and every row
	// before it are done.
	Row func(i int, r *Row)
}

// Run sweeps src over the product of the axes' values and the seeds, running up to
// parallel simulations at once (each simulation is single-threaded and deterministic, and
// results are placed by index, so the output does not depend on parallel).
func Run(src *scenarios.Source, axes []Axis, seeds []uint64, parallel int, run RunFunc) (*Result, error) {
	return RunWith(src, axes, seeds, Options{Parallel: parallel}, run)
}

// GridRuns is how many runs the axes and seeds make, or -1 above limit.
func GridRuns(axes []Axis, seeds int, limit int) int {
	n := seeds
	for _, a := range axes {
		n *= len(a.Values)
		if n > limit || n < 0 {
			return -1
		}
	}
	return n
}

// RunWith is Run with options. Variants are built as the runs reach them, and at most a
// few rows per worker are in flight, so memory follows Parallel, not the grid's size.
func RunWith(src *scenarios.Source, axes []Axis, seeds []uint64, opts Options, run RunFunc) (*Result, error) {
	maxRuns := opts.MaxRuns
	if maxRuns <= 0 {
		maxRuns = DefaultMaxRuns
	}
	if GridRuns(axes, len(seeds), maxRuns) < 0 {
		return nil, fmt.Errorf("the grid has more than %d runs (values of every --set multiplied, times the seeds); raise the cap with --max-runs", maxRuns)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(src.Data, &root); err != nil || len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: not a YAML document", src.Name)
	}
	rows := GridRuns(axes, 1, maxRuns)
	res := &Result{Scenario: src.Name, Seeds: seeds}
	for _, a := range axes {
		res.Paths = append(res.Paths, a.Path)
	}
	// values decodes row i of the grid: the last axis varies fastest.
	values := func(i int) []int {
		idx := make([]int, len(axes))
		for ai := len(axes) - 1; ai >= 0; ai-- {
			idx[ai] = i % len(axes[ai].Values)
			i /= len(axes[ai].Values)
		}
		return idx
	}
	variant := func(i int) (*scenarios.Loaded, []string, error) {
		doc := deepCopy(&root)
		var vals []string
		for ai, vi := range values(i) {
			where := fmt.Sprintf("--set %s=%s", axes[ai].Path, axes[ai].Values[vi])
			if err := set(doc.Content[0], axes[ai].path, deepCopy(axes[ai].nodes[vi]), where); err != nil {
				return nil, nil, err
			}
			vals = append(vals, axes[ai].Values[vi])
		}
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return nil, nil, fmt.Errorf("%s with %s: %w", src.Name, strings.Join(vals, ", "), err)
		}
		l, err := src.Parse(buf.Bytes())
		if err != nil {
			return nil, nil, fmt.Errorf("%s with %s:\n%w", src.Name, strings.Join(vals, ", "), err)
		}
		return l, vals, nil
	}

	parallel := opts.Parallel
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	type pending struct {
		l    *scenarios.Loaded
		row  Row
		reps []*reports.Report
		errs []error
		left int
	}
	type job struct {
		row  int
		seed int
		p    *pending
	}
	type done struct{ j job }
	jobs := make(chan job)
	results := make(chan done)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() { // runs are independent: parallelism lives only across runs
			defer wg.Done()
			for j := range jobs {
				j.p.reps[j.seed], j.p.errs[j.seed] = run(j.p.l, seeds[j.seed])
				results <- done{j}
			}
		}()
	}
	// The dispatcher below is the only goroutine that touches rows: it hands out jobs,
	// collects results, and finishes rows in grid order.
	window := 2 * parallel // rows in flight at most
	inFlight := map[int]*pending{}
	next, emitted, running := 0, 0, 0
	var firstErr error
	var queue []job
	stopped := false
	finish := func() {
		for {
			p, ok := inFlight[emitted]
			if !ok || p.left > 0 {
				return
			}
			delete(inFlight, emitted)
			if err := summarize(&p.row, p.reps, p.errs, seeds, src.Name, false); err != nil && firstErr == nil {
				firstErr = err
			}
			if firstErr != nil {
				return
			}
			res.Rows = append(res.Rows, p.row)
			if opts.Row != nil {
				opts.Row(emitted, &res.Rows[len(res.Rows)-1])
			}
			emitted++
		}
	}
	for {
		if !stopped && firstErr == nil && opts.Stop != nil && opts.Stop() {
			stopped = true
		}
		for !stopped && firstErr == nil && len(queue) == 0 && next < rows && len(inFlight) < window {
			l, vals, err := variant(next)
			if err != nil {
				firstErr = err
				break
			}
			p := &pending{l: l, row: Row{Values: vals}, reps: make([]*reports.Report, len(seeds)), errs: make([]error, len(seeds)), left: len(seeds)}
			inFlight[next] = p
			for si := range seeds {
				queue = append(queue, job{row: next, seed: si, p: p})
			}
			next++
		}
		if stopped || firstErr != nil {
			queue = nil
		}
		if len(queue) == 0 && running == 0 {
			break
		}
		var send chan job
		var head job
		if len(queue) > 0 {
			send, head = jobs, queue[0]
		}
		select {
		case send <- head:
			queue = queue[1:]
			running++
		case d := <-results:
			running--
			if d.j.p.left--; d.j.p.left == 0 {
				d.j.p.l = nil // the variant is no longer needed
			}
			finish()
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if stopped && emitted < rows {
		// Rows cut short keep the runs that finished: their figures cover those seeds.
		for _, i := range slices.Sorted(maps.Keys(inFlight)) {
			p := inFlight[i]
			if err := summarize(&p.row, p.reps, p.errs, seeds, src.Name, true); err != nil {
				return nil, err
			}
			if p.row.Runs == 0 {
				continue
			}
			res.Rows = append(res.Rows, p.row)
			if opts.Row != nil {
				opts.Row(i, &res.Rows[len(res.Rows)-1])
			}
		}
		return res, ErrInterrupted
	}
	return res, nil
}

// summarize fills a row from its runs' reports.
// A partial row (an interrupted sweep) skips the seeds that never ran.
func summarize(row *Row, reps []*reports.Report, errs []error, seeds []uint64, name string, partial bool) error {
	var ev, oom, rs, rej, p99 []float64
	for s := range seeds {
		if err := errs[s]; err != nil {
			return fmt.Errorf("%s with %s, seed %d: %w", name, strings.Join(row.Values, ", "), seeds[s], err)
		}
		rep := reps[s]
		if rep == nil && partial {
			continue
		}
		if rep == nil {
			return fmt.Errorf("%s with %s, seed %d: not run", name, strings.Join(row.Values, ", "), seeds[s])
		}
		row.Runs++
		all := true
		for _, e := range rep.Expectations {
			if !e.Pass {
				all = false
				if row.FailedChecks == nil {
					row.FailedChecks = map[string]int{}
				}
				row.FailedChecks[e.Expect]++
			}
		}
		if all {
			row.AllPassed++
		}
		for _, e := range rep.Evictions {
			if row.Evicted == nil {
				row.Evicted = map[string]int{}
			}
			row.Evicted[e.Pod]++
		}
		ev = append(ev, float64(len(rep.Evictions)))
		oom = append(oom, float64(len(rep.OOMKills)))
		rs = append(rs, float64(rep.Counts["restarts"]))
		rej = append(rej, float64(len(rep.AdmissionRejections)))
		p99 = append(p99, rep.Latency["podStartup"].P99)
	}
	row.Evictions, row.OOMKills, row.Restarts, row.Rejections, row.StartupP99 = spread(ev), spread(oom), spread(rs), spread(rej), spread(p99)
	return nil
}

func deepCopy(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = deepCopy(k)
	}
	if n.Alias != nil {
		c.Alias = deepCopy(n.Alias)
	}
	return &c
}

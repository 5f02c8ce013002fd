package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
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
	Values     []string `json:"values"`
	Runs       int      `json:"runs"`
	AllPassed  int      `json:"runsWithAllExpectationsPassing"`
	Evictions  Spread   `json:"evictions"`
	OOMKills   Spread   `json:"oomKills"`
	Restarts   Spread   `json:"restarts"`
	Rejections Spread   `json:"admissionRejections"`
	StartupP99 Spread   `json:"podStartupP99"`
	// FirstPressure is when a node pressure condition first went True (seconds), over the
	// runs where one did; FirstEviction likewise for the first eviction.
	FirstPressure Timing `json:"firstPressure"`
	FirstEviction Timing `json:"firstEviction"`
	// PressureConditions counts, per condition, the runs whose first pressure it was.
	PressureConditions map[string]int `json:"pressureConditions,omitempty"`
	// Headroom is, per signal (memory.available, then nodefs.available, those with a hard
	// threshold), the lowest headroom any seed showed.
	Headroom     []LowestHeadroom `json:"minHeadroom,omitempty"`
	FailedChecks map[string]int   `json:"failedExpectations,omitempty"`
	Evicted      map[string]int   `json:"evictedPods,omitempty"`
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
	// Runs is how many runs the rows cover, and Passed how many of them passed every
	// expectation.
	Runs   int   `json:"runs"`
	Passed int   `json:"runsWithAllExpectationsPassing"`
	Rows   []Row `json:"rows"`
	// Outcomes are the runs' own results in grid order (row, then seed): what JUnit and a
	// shard file are made of.
	Outcomes []Outcome `json:"-"`
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
	// before it are done. It is not called for a shard, whose rows are partial.
	Row func(i int, r *Row)
	// RunDone, when set, is told after each run how many of the sweep's (or the shard's)
	// runs are done, and how many there are.
	RunDone func(done, total int)
	// Shard, when set, runs only that slice of the grid (see Shard); the result then
	// carries outcomes and no rows.
	Shard *Shard
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

// rowValues decodes row i of the grid into the index of each axis's value: the last axis
// varies fastest.
func rowValues(axes []Axis, i int) []int {
	idx := make([]int, len(axes))
	for ai := len(axes) - 1; ai >= 0; ai-- {
		idx[ai] = i % len(axes[ai].Values)
		i /= len(axes[ai].Values)
	}
	return idx
}

// RunWith is Run with options. Variants are built as the runs reach them, and at most a
// few rows per worker are in flight; a finished run is kept only as its Outcome, so memory
// follows Parallel plus a small record per run, not the grid's reports.
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
	shard := opts.Shard
	if shard == nil {
		shard = &Shard{Index: 0, Count: 1}
	}
	total := shard.Runs(rows * len(seeds))
	variant := func(i int) (*scenarios.Loaded, []string, error) {
		doc := deepCopy(&root)
		var vals []string
		for ai, vi := range rowValues(axes, i) {
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
	// pending is a row under way: its variant, and per seed the outcome or the error of
	// its run (nil for a seed outside the shard or not yet run).
	type pending struct {
		index int
		l     *scenarios.Loaded
		vals  []string
		outs  []*Outcome
		errs  []error
		left  int
	}
	type job struct {
		seed int
		p    *pending
	}
	jobs := make(chan job)
	results := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() { // runs are independent: parallelism lives only across runs
			defer wg.Done()
			for j := range jobs {
				rep, err := run(j.p.l, seeds[j.seed])
				if err == nil {
					o := OutcomeOf(rep, j.p.index, j.p.vals, seeds[j.seed])
					j.p.outs[j.seed] = &o
				}
				j.p.errs[j.seed] = err
				results <- j
			}
		}()
	}
	// The dispatcher below is the only goroutine that touches rows: it hands out jobs,
	// collects results, and finishes rows in grid order.
	window := 2 * parallel  // rows in flight at most
	var inFlight []*pending // in grid order
	next, running, done := 0, 0, 0
	var firstErr error
	var queue []job
	stopped := false
	// rowErr is the first error among a row's runs, in seed order.
	rowErr := func(p *pending) error {
		for s, err := range p.errs {
			if err != nil {
				return fmt.Errorf("%s with %s, seed %d: %w", src.Name, strings.Join(p.vals, ", "), seeds[s], err)
			}
		}
		return nil
	}
	// take appends a row's outcomes to the result, and reports the row.
	take := func(p *pending) {
		var group []*Outcome
		for _, o := range p.outs {
			if o != nil {
				res.Outcomes = append(res.Outcomes, *o)
				group = append(group, o)
			}
		}
		if len(group) > 0 && opts.Row != nil && shard.Count == 1 {
			row := summarizeRow(p.vals, group)
			opts.Row(p.index, &row)
		}
	}
	finish := func() {
		for len(inFlight) > 0 && inFlight[0].left == 0 && firstErr == nil {
			p := inFlight[0]
			inFlight = inFlight[1:]
			if err := rowErr(p); err != nil {
				firstErr = err
				return
			}
			take(p)
		}
	}
	for {
		if !stopped && firstErr == nil && opts.Stop != nil && opts.Stop() {
			stopped = true
		}
		for !stopped && firstErr == nil && len(queue) == 0 && next < rows && len(inFlight) < window {
			i := next
			next++
			var mine []int
			for si := range seeds {
				if shard.Has(i*len(seeds) + si) {
					mine = append(mine, si)
				}
			}
			if len(mine) == 0 {
				continue
			}
			l, vals, err := variant(i)
			if err != nil {
				firstErr = err
				break
			}
			p := &pending{index: i, l: l, vals: vals, outs: make([]*Outcome, len(seeds)), errs: make([]error, len(seeds)), left: len(mine)}
			inFlight = append(inFlight, p)
			for _, si := range mine {
				queue = append(queue, job{seed: si, p: p})
			}
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
		case j := <-results:
			running--
			done++
			if j.p.left--; j.p.left == 0 {
				j.p.l = nil // the variant is no longer needed
			}
			if opts.RunDone != nil {
				opts.RunDone(done, total)
			}
			finish()
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	interrupted := stopped && (len(inFlight) > 0 || next < rows)
	if interrupted {
		// Rows cut short keep the runs that finished: their figures cover those seeds.
		for _, p := range inFlight {
			if err := rowErr(p); err != nil {
				return nil, err
			}
			take(p)
		}
	}
	if shard.Count == 1 {
		summarize(res, res.Outcomes)
	}
	if interrupted {
		return res, ErrInterrupted
	}
	return res, nil
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

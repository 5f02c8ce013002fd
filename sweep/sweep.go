package sweep

import (
	"bytes"
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
	Values       []string          `json:"values"`
	Runs         int               `json:"runs"`
	AllPassed    int               `json:"runsWithAllExpectationsPassing"`
	Evictions    Spread            `json:"evictions"`
	OOMKills     Spread            `json:"oomKills"`
	Restarts     Spread            `json:"restarts"`
	Rejections   Spread            `json:"admissionRejections"`
	StartupP99   Spread            `json:"podStartupP99"`
	FailedChecks map[string]int    `json:"failedExpectations,omitempty"`
	Evicted      map[string]int    `json:"evictedPods,omitempty"`
	Reports      []*reports.Report `json:"-"`
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

// Run sweeps src over the product of the axes' values and the seeds, running up to
// parallel simulations at once (each simulation is single-threaded and deterministic, and
// results are placed by index, so the output does not depend on parallel).
func Run(src *scenarios.Source, axes []Axis, seeds []uint64, parallel int, run RunFunc) (*Result, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src.Data, &root); err != nil || len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: not a YAML document", src.Name)
	}
	grid := [][]int{{}}
	for _, a := range axes {
		var next [][]int
		for _, g := range grid {
			for i := range a.Values {
				next = append(next, append(append([]int(nil), g...), i))
			}
		}
		grid = next
	}
	res := &Result{Scenario: src.Name, Seeds: seeds}
	for _, a := range axes {
		res.Paths = append(res.Paths, a.Path)
	}
	variants := make([]*scenarios.Loaded, len(grid))
	for gi, g := range grid {
		doc := deepCopy(&root)
		var vals []string
		for ai, vi := range g {
			where := fmt.Sprintf("--set %s=%s", axes[ai].Path, axes[ai].Values[vi])
			if err := set(doc.Content[0], axes[ai].path, deepCopy(axes[ai].nodes[vi]), where); err != nil {
				return nil, err
			}
			vals = append(vals, axes[ai].Values[vi])
		}
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return nil, fmt.Errorf("%s with %s: %w", src.Name, strings.Join(vals, ", "), err)
		}
		l, err := src.Parse(buf.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s with %s:\n%w", src.Name, strings.Join(vals, ", "), err)
		}
		variants[gi] = l
		res.Rows = append(res.Rows, Row{Values: vals})
	}
	type job struct{ row, seed int }
	reps := make([][]*reports.Report, len(grid))
	errs := make([][]error, len(grid))
	for i := range reps {
		reps[i] = make([]*reports.Report, len(seeds))
		errs[i] = make([]error, len(seeds))
	}
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() { // runs are independent: parallelism lives only across runs
			defer wg.Done()
			for j := range jobs {
				reps[j.row][j.seed], errs[j.row][j.seed] = run(variants[j.row], seeds[j.seed])
			}
		}()
	}
	for r := range grid {
		for s := range seeds {
			jobs <- job{r, s}
		}
	}
	close(jobs)
	wg.Wait()
	for r := range res.Rows {
		row := &res.Rows[r]
		var ev, oom, rs, rej, p99 []float64
		for s := range seeds {
			if err := errs[r][s]; err != nil {
				return nil, fmt.Errorf("%s with %s, seed %d: %w", src.Name, strings.Join(row.Values, ", "), seeds[s], err)
			}
			rep := reps[r][s]
			row.Runs++
			row.Reports = append(row.Reports, rep)
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

package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shard is one slice of a sweep's grid, for sweeps spread over several processes (a
// Kubernetes Indexed Job, a CI matrix). The grid's runs are numbered in grid order, setting
// by setting and within a setting seed by seed (run = row × seeds + seed index), and dealt
// round-robin: shard I of N runs the runs whose number modulo N is I. Round-robin spreads
// the slow settings (a low threshold that evicts, say) over every shard instead of giving
// them all to one.
type Shard struct {
	Index int // 0 ≤ Index < Count
	Count int
}

// MaxShards bounds a shard count: more shards than runs only makes empty slices.
const MaxShards = DefaultMaxRuns

// Has reports whether run number k of the grid belongs to the shard.
func (s Shard) Has(k int) bool { return k%s.Count == s.Index }

// Runs is how many of a grid's total runs belong to the shard.
func (s Shard) Runs(total int) int {
	if s.Index >= total {
		return 0
	}
	return (total-s.Index-1)/s.Count + 1
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads a shard from the --shard flag ("I/N", or "/N" with I from
// JOB_COMPLETION_INDEX) or, with no flag, from a count (--shards, or NODESIM_SHARDS, with
// I from JOB_COMPLETION_INDEX). env looks up an environment variable. ok is false when
// nothing asks for sharding.
func ParseShard(flag string, count int, env func(string) string) (s Shard, ok bool, err error) {
	index := ""
	switch {
	case flag != "":
		i, n, found := strings.Cut(flag, "/")
		if !found {
			return Shard{}, false, fmt.Errorf("--shard %q: want I/N (shard I of N, from 0) or /N with I from JOB_COMPLETION_INDEX", flag)
		}
		c, err := strconv.Atoi(n)
		if err != nil {
			return Shard{}, false, fmt.Errorf("--shard %q: the count %q is not a number", flag, n)
		}
		count, index = c, i
		if index == "" {
			index = env("JOB_COMPLETION_INDEX")
			if index == "" {
				return Shard{}, false, fmt.Errorf("--shard %s: no index given and JOB_COMPLETION_INDEX is not set", flag)
			}
		}
	case count > 0:
		index = env("JOB_COMPLETION_INDEX")
		if index == "" {
			return Shard{}, false, fmt.Errorf("--shards %d: JOB_COMPLETION_INDEX is not set (or use --shard I/N)", count)
		}
	case env("NODESIM_SHARDS") != "":
		c, err := strconv.Atoi(env("NODESIM_SHARDS"))
		if err != nil {
			return Shard{}, false, fmt.Errorf("NODESIM_SHARDS=%q is not a number", env("NODESIM_SHARDS"))
		}
		count = c
		index = env("JOB_COMPLETION_INDEX")
		if index == "" {
			return Shard{}, false, fmt.Errorf("NODESIM_SHARDS=%d: JOB_COMPLETION_INDEX is not set (or use --shard I/N)", count)
		}
	default:
		return Shard{}, false, nil
	}
	if count < 1 || count > MaxShards {
		return Shard{}, false, fmt.Errorf("shard count %d: want 1 to %d", count, MaxShards)
	}
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 || i >= count {
		return Shard{}, false, fmt.Errorf("shard index %q: want a number from 0 to %d", index, count-1)
	}
	return Shard{Index: i, Count: count}, true, nil
}

// ShardFormat names the shard file format.
const ShardFormat = "nodesim-sweep-shard/v1"

// ShardFile is what a shard writes: the grid it belongs to, which slice it ran, and the
// outcomes of its runs. Merge puts the slices back together.
type ShardFile struct {
	Format  string `json:"format"`
	Version string `json:"nodesimVersion"`
	// Grid identifies the sweep: the scenario (name and content hash, referenced files
	// included), the --set paths and values, the seeds and nodesim's version. Slices of
	// different sweeps have different grids.
	Grid     string `json:"grid"`
	Shard    int    `json:"shard"`
	Shards   int    `json:"shards"`
	Scenario string `json:"scenario"`
	// ScenarioHash is the scenario's sha256 (referenced files included), for the commands
	// that reproduce a run.
	ScenarioHash string     `json:"scenarioSha256"`
	Paths        []string   `json:"paths"`
	Values       [][]string `json:"values"`
	Seeds        []uint64   `json:"seeds"`
	Outcomes     []Outcome  `json:"outcomes"`
}

// GridID is the identity of a sweep's grid (see ShardFile.Grid).
func GridID(version, scenario, scenarioHash string, axes []Axis, seeds []uint64) string {
	id := struct {
		Version, Scenario, Hash string
		Paths                   []string
		Values                  [][]string
		Seeds                   []uint64
	}{Version: version, Scenario: scenario, Hash: scenarioHash, Seeds: seeds}
	for _, a := range axes {
		id.Paths = append(id.Paths, a.Path)
		id.Values = append(id.Values, a.Values)
	}
	data, _ := json.Marshal(id) // plain strings and numbers: cannot fail
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// NewShardFile packs a shard's result.
func NewShardFile(version, grid, scenarioHash string, s Shard, axes []Axis, res *Result) *ShardFile {
	f := &ShardFile{Format: ShardFormat, Version: version, Grid: grid, Shard: s.Index, Shards: s.Count,
		Scenario: res.Scenario, ScenarioHash: scenarioHash, Paths: res.Paths, Seeds: res.Seeds, Outcomes: res.Outcomes}
	for _, a := range axes {
		f.Values = append(f.Values, a.Values)
	}
	if f.Outcomes == nil {
		f.Outcomes = []Outcome{}
	}
	return f
}

// NamedShard is a shard file as read, with the name to report it by.
type NamedShard struct {
	Name string
	File *ShardFile
}

// Merge puts the slices of one sweep back together into the result the unsharded sweep
// gives: every slice of the same grid and count, each exactly once, each with exactly its
// runs. An error names the slice that is missing, duplicated, foreign or incomplete.
func Merge(files []NamedShard) (*Result, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("merge needs the shard files of one sweep")
	}
	first := files[0]
	for _, f := range files {
		if f.File.Format != ShardFormat {
			return nil, fmt.Errorf("%s: not a nodesim sweep shard (format %q, want %q)", f.Name, f.File.Format, ShardFormat)
		}
	}
	n := first.File.Shards
	if n < 1 || n > MaxShards {
		return nil, fmt.Errorf("%s: shard count %d out of range", first.Name, n)
	}
	byIndex := map[int]string{}
	for _, f := range files {
		if f.File.Grid != first.File.Grid {
			return nil, fmt.Errorf("%s belongs to another sweep than %s (grid %.12s, not %.12s): a different scenario, --set, seeds or nodesim version", f.Name, first.Name, f.File.Grid, first.File.Grid)
		}
		if f.File.Shards != n {
			return nil, fmt.Errorf("%s is shard %d of %d, but %s is of %d", f.Name, f.File.Shard, f.File.Shards, first.Name, n)
		}
		if f.File.Shard < 0 || f.File.Shard >= n {
			return nil, fmt.Errorf("%s: shard index %d out of range 0..%d", f.Name, f.File.Shard, n-1)
		}
		if other, dup := byIndex[f.File.Shard]; dup {
			return nil, fmt.Errorf("shard %d/%d given twice: %s and %s", f.File.Shard, n, other, f.Name)
		}
		byIndex[f.File.Shard] = f.Name
	}
	var missing []string
	for i := 0; i < n; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard %s of the sweep missing (have %d of %d shard files)", strings.Join(missing, ", "), len(files), n)
	}

	g := first.File
	rows := 1
	for _, v := range g.Values {
		rows *= len(v)
		if len(v) == 0 || rows > DefaultMaxRuns*DefaultMaxRuns {
			return nil, fmt.Errorf("%s: a malformed grid", first.Name)
		}
	}
	seedIndex := map[uint64]int{}
	for i, s := range g.Seeds {
		seedIndex[s] = i
	}
	total := rows * len(g.Seeds)
	seen := map[int]string{}
	var all []Outcome
	for _, f := range files {
		s := Shard{Index: f.File.Shard, Count: n}
		for _, o := range f.File.Outcomes {
			si, ok := seedIndex[o.Seed]
			if !ok || o.Row < 0 || o.Row >= rows {
				return nil, fmt.Errorf("%s: a run outside the grid (row %d, seed %d)", f.Name, o.Row, o.Seed)
			}
			k := o.Row*len(g.Seeds) + si
			if !s.Has(k) {
				return nil, fmt.Errorf("%s: run %d (row %d, seed %d) belongs to shard %d/%d, not %s", f.Name, k, o.Row, o.Seed, k%n, n, s)
			}
			if other, dup := seen[k]; dup {
				return nil, fmt.Errorf("%s: run %d (row %d, seed %d) is also in %s", f.Name, k, o.Row, o.Seed, other)
			}
			if want := valuesOf(g.Values, o.Row); !slices.Equal(o.Values, want) {
				return nil, fmt.Errorf("%s: row %d has values %v, the grid says %v", f.Name, o.Row, o.Values, want)
			}
			seen[k] = f.Name
			all = append(all, o)
		}
		if got, want := len(f.File.Outcomes), s.Runs(total); got != want {
			return nil, fmt.Errorf("%s: shard %s holds %d of its %d runs (an interrupted or truncated shard)", f.Name, s, got, want)
		}
	}
	slices.SortFunc(all, func(a, b Outcome) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return seedIndex[a.Seed] - seedIndex[b.Seed]
	})
	res := &Result{Scenario: g.Scenario, Paths: g.Paths, Seeds: g.Seeds, Outcomes: all}
	summarize(res, all)
	return res, nil
}

// valuesOf is row i's values, the last axis varying fastest.
func valuesOf(values [][]string, i int) []string {
	out := make([]string, len(values))
	for ai := len(values) - 1; ai >= 0; ai-- {
		out[ai] = values[ai][i%len(values[ai])]
		i /= len(values[ai])
	}
	return out
}

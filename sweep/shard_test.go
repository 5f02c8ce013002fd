package sweep

import (
	"encoding/json"
	"strings"
	"testing"

	"nodesim/scenarios"
)

func TestShardDealsRunsRoundRobin(t *testing.T) {
	// 10 runs over 3 shards: 0,3,6,9 | 1,4,7 | 2,5,8.
	want := [][]int{{0, 3, 6, 9}, {1, 4, 7}, {2, 5, 8}}
	for i, runs := range want {
		s := Shard{Index: i, Count: 3}
		var got []int
		for k := 0; k < 10; k++ {
			if s.Has(k) {
				got = append(got, k)
			}
		}
		if len(got) != len(runs) || s.Runs(10) != len(runs) {
			t.Fatalf("shard %s has %v (Runs %d), want %v", s, got, s.Runs(10), runs)
		}
		for j := range runs {
			if got[j] != runs[j] {
				t.Fatalf("shard %s has %v, want %v", s, got, runs)
			}
		}
	}
	// More shards than runs: the last ones are empty.
	if n := (Shard{Index: 5, Count: 7}).Runs(4); n != 0 {
		t.Errorf("shard 5/7 of 4 runs has %d", n)
	}
}

func TestParseShard(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	job := env(map[string]string{"JOB_COMPLETION_INDEX": "2"})
	for _, c := range []struct {
		flag  string
		count int
		env   func(string) string
		want  Shard
		ok    bool
		err   string
	}{
		{"", 0, env(nil), Shard{}, false, ""},
		{"1/4", 0, env(nil), Shard{1, 4}, true, ""},
		{"/4", 0, job, Shard{2, 4}, true, ""},
		{"", 4, job, Shard{2, 4}, true, ""},
		{"", 0, env(map[string]string{"JOB_COMPLETION_INDEX": "0", "NODESIM_SHARDS": "3"}), Shard{0, 3}, true, ""},
		{"1/4", 0, job, Shard{1, 4}, true, ""}, // the flag's index wins
		{"/4", 0, env(nil), Shard{}, false, "JOB_COMPLETION_INDEX is not set"},
		{"", 3, env(nil), Shard{}, false, "JOB_COMPLETION_INDEX is not set"},
		{"4/4", 0, env(nil), Shard{}, false, "from 0 to 3"},
		{"-1/4", 0, env(nil), Shard{}, false, "from 0 to 3"},
		{"1/0", 0, env(nil), Shard{}, false, "want 1 to"},
		{"1", 0, env(nil), Shard{}, false, "want I/N"},
		{"a/b", 0, env(nil), Shard{}, false, "not a number"},
		{"", 0, env(map[string]string{"NODESIM_SHARDS": "x"}), Shard{}, false, "not a number"},
	} {
		got, ok, err := ParseShard(c.flag, c.count, c.env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseShard(%q, %d): err %v, want %q", c.flag, c.count, err, c.err)
			}
			continue
		}
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("ParseShard(%q, %d) = %v %v %v, want %v %v", c.flag, c.count, got, ok, err, c.want, c.ok)
		}
	}
}

// Slices run through RunWith and merged give the unsharded result; a slice tampered with
// is refused, naming it.
func TestMergeEqualsUnshardedAndChecksSlices(t *testing.T) {
	src, err := scenarios.OpenBuiltin("crashloop")
	if err != nil {
		t.Fatal(err)
	}
	a1, _ := ParseAxis("spec.pods[0].behavior.app.exit.after=5s,2m")
	a2, _ := ParseAxis("spec.pods[0].behavior.app.exit.code=1,2")
	axes, seeds := []Axis{a1, a2}, []uint64{1, 2, 3}
	whole, err := RunWith(src, axes, seeds, Options{Parallel: 2}, run)
	if err != nil {
		t.Fatal(err)
	}
	grid := GridID("v", src.Name, "hash", axes, seeds)
	var files []NamedShard
	for i := 0; i < 5; i++ { // 12 runs over 5 shards
		s := Shard{Index: i, Count: 5}
		res, err := RunWith(src, axes, seeds, Options{Parallel: 2, Shard: &s}, run)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 0 || len(res.Outcomes) != s.Runs(12) {
			t.Fatalf("shard %s: %d rows, %d outcomes", s, len(res.Rows), len(res.Outcomes))
		}
		// Through JSON, as the file goes.
		data, _ := json.Marshal(NewShardFile("v", grid, "hash", s, axes, res))
		var f ShardFile
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		files = append(files, NamedShard{Name: s.String(), File: &f})
	}
	merged, err := Merge(files)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(whole)
	b, _ := json.Marshal(merged)
	if string(a) != string(b) {
		t.Fatalf("merged differs:\n%s\n%s", b, a)
	}

	tamper := func(i int, f func(*ShardFile)) []NamedShard {
		out := append([]NamedShard{}, files...)
		c := *files[i].File
		c.Outcomes = append([]Outcome{}, c.Outcomes...)
		f(&c)
		out[i] = NamedShard{Name: "tampered.json", File: &c}
		return out
	}
	for _, c := range []struct {
		files []NamedShard
		want  string
	}{
		{files[:4], "shard 4/5 of the sweep missing"},
		{append(append([]NamedShard{}, files...), files[1]), "shard 1/5 given twice: 1/5 and 1/5"},
		{tamper(2, func(f *ShardFile) { f.Outcomes = f.Outcomes[1:] }), "tampered.json: shard 2/5 holds 1 of its 2 runs"},
		{tamper(2, func(f *ShardFile) { f.Outcomes[0] = files[3].File.Outcomes[0] }), "belongs to shard 3/5, not 2/5"},
		{tamper(2, func(f *ShardFile) { f.Grid = "other" }), "tampered.json belongs to another sweep"},
		{tamper(2, func(f *ShardFile) { f.Format = "x" }), "not a nodesim sweep shard"},
		{tamper(0, func(f *ShardFile) { f.Outcomes[0].Values = []string{"9s", "1"} }), "the grid says [5s 1]"},
		{tamper(0, func(f *ShardFile) { f.Outcomes[0].Seed = 99 }), "a run outside the grid"},
	} {
		if _, err := Merge(c.files); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

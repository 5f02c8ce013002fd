package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"nodesim/sweep"
)

// softGrace sweeps soft-eviction-grace's grace period. Its threshold is met from the 129s
// pass until the memory comes back at 3m30s (the 219s pass sees it clear): 90 seconds. A 2m
// or a 90s grace is not reached by the passes that see it met (129s..209s: 80s), so no pod
// is evicted and every expectation holds; with 1m the 189s pass evicts the pod, and
// "count evictions <= 0" fails.
const softGracePath = "spec.kubelet.evictionSoftGracePeriod[memory.available]"

func softGrace(values string, extra ...string) []string {
	return append([]string{"sweep", "soft-eviction-grace", "--set", softGracePath + "=" + values}, extra...)
}

// A sweep with one failing setting exits 1 and its JUnit, valid against the JUnit schema
// CI systems read, lists that failure and only it; an all-passing sweep exits 0; --min-pass
// accepts a fraction.
func TestSweepVerdictsAndJUnit(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(dir, "sweep.xml")
	_, errOut, code := nodesim(t, softGrace("2m,1m", "--seeds", "2", "--junit", junit)...)
	if code != exitExpectation || !strings.Contains(errOut, "2 of 4 runs failed an expectation") ||
		!strings.Contains(errOut, "failed: 1m, seed 1") || !strings.Contains(errOut, "failed: 1m, seed 2") {
		t.Fatalf("exit %d, want 1 naming the 1m runs: %s", code, errOut)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if p := checkXSD(loadXSD(t, "testdata/junit-4.xsd"), data); len(p) > 0 {
		t.Fatalf("the JUnit file breaks the schema: %v\n%s", p, data)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name     string `xml:"name,attr"`
				Failures []struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	// 2 settings × 2 seeds: four cases, the two 1m ones failed, once each.
	if doc.Tests != 4 || doc.Failures != 2 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 4 {
		t.Fatalf("tests %d failures %d, want 4 and 2:\n%s", doc.Tests, doc.Failures, data)
	}
	for i, c := range doc.Suites[0].Cases {
		setting, seed := []string{"2m", "2m", "1m", "1m"}[i], 1+i%2
		if want := fmt.Sprintf("%s=%s seed=%d", softGracePath, setting, seed); c.Name != want {
			t.Errorf("case %d named %q, want %q", i, c.Name, want)
		}
		if failed := len(c.Failures) > 0; failed != (setting == "1m") {
			t.Errorf("case %q: %d failures", c.Name, len(c.Failures))
			continue
		}
		for _, f := range c.Failures {
			if !strings.Contains(f.Text, "count evictions <= 0") || f.Message == "" ||
				!strings.Contains(f.Text, fmt.Sprintf("reproduce: nodesim sweep soft-eviction-grace --set '%s=1m' --seed %d", softGracePath, seed)) {
				t.Errorf("case %q failure %+v", c.Name, f)
			}
		}
	}

	if _, errOut, code := nodesim(t, softGrace("2m,90s")...); code != 0 {
		t.Errorf("an all-passing sweep: exit %d: %s", code, errOut)
	}
	// 1 of 2 runs passed: 50%.
	if _, errOut, code := nodesim(t, softGrace("2m,1m", "--min-pass", "0.5")...); code != 0 {
		t.Errorf("--min-pass 0.5 with half passing: exit %d: %s", code, errOut)
	}
	if _, errOut, code := nodesim(t, softGrace("2m,1m", "--min-pass", "0.6")...); code != exitExpectation || !strings.Contains(errOut, "passed 50%, --min-pass asks for 60%") {
		t.Errorf("--min-pass 0.6 with half passing: exit %d: %s", code, errOut)
	}
	for _, bad := range [][]string{
		softGrace("2m", "--min-pass", "1.5"), softGrace("2m", "--min-pass", "-0.1"), softGrace("2m", "--min-pass", "half"),
		softGrace("2m", "-o", "html"), softGrace("2m", "--shard", "3/3"), softGrace("2m", "--shard", "1"),
		softGrace("2m", "--shard", "0/2", "--junit", filepath.Join(dir, "x.xml")),
		{"sweep", "merge", filepath.Join(dir, "missing.json")},
	} {
		if _, errOut, code := nodesim(t, bad...); code != exitInvalid {
			t.Errorf("%q: exit %d, want 2: %s", bad, code, errOut)
		}
	}
}

// The run's own junit.xml meets the same schema.
func TestRunJUnitMeetsSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := nodesim(t, "run", "soft-eviction-grace", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if p := checkXSD(loadXSD(t, "testdata/junit-4.xsd"), data); len(p) > 0 {
		t.Fatalf("junit.xml breaks the schema: %v\n%s", p, data)
	}
}

// A grid run as N shard processes (N = 1, 3, 7, with I and N given four ways) and merged prints
// what the unsharded sweep prints, byte for byte, in every format, with the same JUnit file
// and exit code. A missing, duplicated or foreign shard is an error naming it.
func TestShardedSweepMergesByteForByte(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := binary(t)
	dir := t.TempDir()
	// 3 settings × 3 seeds = 9 runs; the three 1m runs fail.
	grid := softGrace("2m,1m,90s", "--seeds", "3")
	want := map[string]string{}
	var wantJUnit []byte
	for _, f := range sweep.Formats {
		junit := filepath.Join(dir, "whole-"+f+".xml")
		out, errOut, code := nodesim(t, append(slices.Clone(grid), "-o", f, "--junit", junit)...)
		if code != exitExpectation {
			t.Fatalf("unsharded -o %s: exit %d: %s", f, code, errOut)
		}
		want[f] = out
		data, err := os.ReadFile(junit)
		if err != nil {
			t.Fatal(err)
		}
		if wantJUnit == nil {
			wantJUnit = data
		} else if !bytes.Equal(data, wantJUnit) {
			t.Fatalf("the unsharded JUnit differs between -o table and -o %s", f)
		}
	}

	shardFiles := map[int][]string{}
	for _, n := range []int{1, 3, 7} {
		for i := 0; i < n; i++ {
			path := filepath.Join(dir, fmt.Sprintf("n%d-shard-%d.json", n, i))
			args := slices.Clone(grid)
			env := os.Environ()
			var stdout bytes.Buffer
			switch n {
			case 1: // I/N on the command line
				args = append(args, "--shard", "0/1", "--shard-out", path)
			case 3: // an Indexed Job's index, a count flag, the slice on stdout
				args = append(args, "--shards", "3")
				env = append(env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
			case 7: // the index from the Job; the count from --shard /7, or from NODESIM_SHARDS
				args = append(args, "--shard-out", path)
				if i%2 == 0 {
					args = append(args, "--shard", "/7")
				} else {
					env = append(env, "NODESIM_SHARDS=7")
				}
				env = append(env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			cmd.Stdout = &stdout
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if code := exitCode(t, cmd.Run()); code != 0 {
				t.Fatalf("shard %d/%d: exit %d: %s", i, n, code, errb.String())
			}
			if n == 3 {
				if err := os.WriteFile(path, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if stdout.Len() != 0 {
				t.Fatalf("shard %d/%d with --shard-out printed on stdout: %s", i, n, stdout.String())
			}
			shardFiles[n] = append(shardFiles[n], path)
		}
		for _, f := range sweep.Formats {
			junit := filepath.Join(dir, fmt.Sprintf("merged-%d-%s.xml", n, f))
			// The files in reverse order: merge does not depend on it.
			files := slices.Clone(shardFiles[n])
			slices.Reverse(files)
			out, errOut, code := nodesim(t, append([]string{"sweep", "merge", "-o", f, "--junit", junit}, files...)...)
			if code != exitExpectation {
				t.Fatalf("merge of %d -o %s: exit %d: %s", n, f, code, errOut)
			}
			if out != want[f] {
				t.Errorf("merge of %d shards, -o %s, differs from the unsharded sweep:\n--- merged\n%s\n--- unsharded\n%s", n, f, out, want[f])
			}
			if data, err := os.ReadFile(junit); err != nil || !bytes.Equal(data, wantJUnit) {
				t.Errorf("merge of %d shards: JUnit differs from the unsharded sweep's (%v)", n, err)
			}
		}
	}

	seven := shardFiles[7]
	withoutFour := append(slices.Clone(seven[:4]), seven[5:]...)
	if _, errOut, code := nodesim(t, append([]string{"sweep", "merge"}, withoutFour...)...); code != exitInvalid || !strings.Contains(errOut, "shard 4/7 of the sweep missing") {
		t.Errorf("merge without shard 4 of 7: exit %d: %s", code, errOut)
	}
	if _, errOut, code := nodesim(t, append([]string{"sweep", "merge", seven[2]}, seven...)...); code != exitInvalid || !strings.Contains(errOut, "shard 2/7 given twice") {
		t.Errorf("merge with shard 2 twice: exit %d: %s", code, errOut)
	}
	if _, errOut, code := nodesim(t, append([]string{"sweep", "merge", shardFiles[3][0]}, seven[1:]...)...); code != exitInvalid || !strings.Contains(errOut, "is shard 1 of 7, but") {
		t.Errorf("merge mixing counts: exit %d: %s", code, errOut)
	}
	// A slice of another sweep (other seeds) does not belong.
	other := filepath.Join(dir, "other.json")
	if _, errOut, code := nodesim(t, append(softGrace("2m,1m,90s", "--seeds", "2"), "--shard", "0/7", "--shard-out", other)...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := nodesim(t, append([]string{"sweep", "merge", other}, seven[1:]...)...); code != exitInvalid || !strings.Contains(errOut, "belongs to another sweep") {
		t.Errorf("merge with a foreign shard: exit %d: %s", code, errOut)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"nodesim/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func nodesim(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func builtinNames(t *testing.T) []string {
	t.Helper()
	list, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range list {
		names = append(names, b.Name)
	}
	return names
}

// Every shipped scenario passes its own expectations, and its reports match the golden
// files (go test ./cmd/nodesim -update rewrites them).
func TestShippedScenariosGolden(t *testing.T) {
	for _, name := range builtinNames(t) {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join("..", "..", "scenarios", name+".yaml")
			for _, format := range []string{"json", "table"} {
				out, errOut, code := nodesim(t, "run", file, "-o", format)
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, errOut)
				}
				// The reproduce line names the file as given; make it stable.
				out = strings.ReplaceAll(out, file, "scenarios/"+name+".yaml")
				ext := map[string]string{"json": ".json", "table": ".txt"}[format]
				golden := filepath.Join("testdata", "golden", name+ext)
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./cmd/nodesim -update)", err)
				}
				if out != string(want) {
					t.Errorf("%s output differs from %s; rerun with -update and read the diff", format, golden)
				}
			}
		})
	}
}

// The same scenario and seed give the same bytes: 20 runs, and under GOMAXPROCS 1 and 8.
func TestDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, name := range builtinNames(t) {
		t.Run(name, func(t *testing.T) {
			var first string
			for i := 0; i < 20; i++ {
				procs := 1
				if i%2 == 1 {
					procs = 8
				}
				runtime.GOMAXPROCS(procs)
				out, errOut, code := nodesim(t, "run", name, "-o", "json")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				if i == 0 {
					first = out
				} else if out != first {
					t.Fatalf("run %d (GOMAXPROCS=%d) differs from run 0", i, procs)
				}
			}
			other, _, _ := nodesim(t, "run", name, "-o", "json", "--seed", "99")
			if !strings.Contains(other, `"seed": 99`) {
				t.Error("--seed did not reach the report")
			}
		})
	}
}

func TestValidateReportsThreeMistakes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	src := `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: bad}
spec:
  duration: 10 minutes
  kubelet: {evictonHard: {memory.available: 200Mi}}
  pods:
    - pod:
        metadata: {name: web}
        spec: {containers: [{name: app, image: nginx, resources: {limits: {memory: 8Gx}}}]}
`
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := nodesim(t, "validate", bad)
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	var positioned []string
	for _, line := range strings.Split(errOut, "\n") {
		if strings.HasPrefix(line, bad+":") {
			positioned = append(positioned, line)
		}
	}
	if len(positioned) != 3 {
		t.Fatalf("want 3 positioned errors, got %d:\n%s", len(positioned), errOut)
	}
	for i, want := range []string{":5:13: spec.duration:", `:6:13: spec.kubelet: unknown field "evictonHard" (did you mean "evictionHard"?)`, ":10:84: spec.pods[0].pod.spec.containers[0].resources.limits.memory: invalid value \"8Gx\""} {
		if !strings.Contains(positioned[i], want) {
			t.Errorf("error %d = %q, want %q", i, positioned[i], want)
		}
	}

	out, _, code := nodesim(t, "validate", filepath.Join("..", "..", "scenarios", "crashloop.yaml"))
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("a good file: exit %d, %q", code, out)
	}
}

func TestFailedExpectationExitsOne(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	src, err := scenarios.BuiltinSource("crashloop")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "min: 8, max: 12", "min: 1, max: 2", 1)
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := nodesim(t, "run", f, "--out", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut, "expectation failed: restarts default/crashy app in [1, 2]: observed 10") {
		t.Errorf("stderr does not name the failed expectation:\n%s", errOut)
	}
	if !strings.Contains(out, "FAIL") || !strings.Contains(out, "PASS") {
		t.Errorf("table does not show verdicts:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Errorf("--out did not write report.json: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// The trace shows, for each syncLoopIteration, the channels that were ready and the one
// the select chose.
func TestTraceShowsSelectChoices(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := nodesim(t, "run", "crashloop", "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var several int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Kind, Name string
			Ready      []string
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("bad trace line %q: %v", line, err)
		}
		if e.Kind == "select" && len(e.Ready) > 1 && slices.Contains(e.Ready, e.Name) {
			several++
		}
	}
	if several == 0 {
		t.Error("no syncLoopIteration with several ready channels in the crash loop's trace")
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"run"},
		{"run", "crashloop", "--bogus"},
		{"run", "crashloop", "-o", "xml"},
		{"run", "no-such-scenario"},
		{"frobnicate"},
	} {
		_, errOut, code := nodesim(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut)
		}
		if strings.Contains(errOut, "goroutine ") {
			t.Errorf("%v printed a stack trace", args)
		}
	}
}

func TestScenariosAndVersion(t *testing.T) {
	out, _, code := nodesim(t, "scenarios")
	if code != 0 || !strings.Contains(out, "crashloop") {
		t.Fatalf("scenarios: exit %d\n%s", code, out)
	}
	out, _, code = nodesim(t, "version")
	if code != 0 || !strings.Contains(out, "nodesim "+Version) {
		t.Fatalf("version: exit %d %q", code, out)
	}
	out, _, code = nodesim(t, "run", "--help")
	if code != 0 || !strings.Contains(out, "--seed") {
		t.Fatalf("run --help: exit %d %q", code, out)
	}
}

// --profile writes a CPU profile of the run.
func TestProfileFlag(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	if _, errOut, code := nodesim(t, "run", "crashloop", "--profile", prof, "-o", "json"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Fatalf("no profile written: %v", err)
	}
}

func TestSweepCommand(t *testing.T) {
	// crashloop expects restarts that a 2m exit delay does not make: that run fails, so the
	// sweep exits 1 naming it.
	out, errOut, code := nodesim(t, "sweep", "crashloop", "--set", "spec.pods[0].behavior.app.exit.after=5s,2m", "-o", "json")
	if code != exitExpectation || !strings.Contains(errOut, "1 of 2 runs failed an expectation") || !strings.Contains(errOut, "failed: 2m, seed 1") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"values": [`) || !strings.Contains(out, `"2m"`) {
		t.Fatalf("json output:\n%s", out)
	}
	for _, args := range [][]string{
		{"sweep", "crashloop"},
		{"sweep", "crashloop", "--set", "nothing"},
		{"sweep", "crashloop", "--set", "spec.pods[9].pod=x"},
		{"sweep", "crashloop", "--set", "spec.duration=forever"},
	} {
		if _, errOut, code := nodesim(t, args...); code != 2 || strings.Contains(errOut, "goroutine ") {
			t.Errorf("%v: exit %d, want 2 without a stack trace (%s)", args, code, errOut)
		}
	}
}

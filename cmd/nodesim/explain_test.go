package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explainCLI runs `nodesim explain args...` in-process.
func explainCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"explain"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

func TestExplainPrintsATranscript(t *testing.T) {
	out, errOut, code := explainCLI(t, "crashloop", "--to", "30s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	first := strings.SplitN(out, "\n", 2)[0]
	if !strings.HasPrefix(first, "nodesim explain crashloop --seed 1 --to 30s  (nodesim "+Version) {
		t.Errorf("the first line should reproduce the transcript: %q", first)
	}
	for _, want := range []string{"syncLoopIteration: ready [plegCh] → chose plegCh", "HandlePodSyncs default/crashy (plegCh ContainerDied)",
		"doBackOff: app in CrashLoopBackOff", "(--to 30s: the transcript stops here"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour codes in output that is not a terminal")
	}
}

func TestExplainFlags(t *testing.T) {
	out, errOut, code := explainCLI(t, "graceful-deletion", "--pod", "web", "--from", "59", "--to", "1m10s", "--only", "workers,sync", "--seed", "3", "--no-color")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "nodesim explain graceful-deletion --seed 3 --pod default/web --from 59 --to 1m10s --only sync,workers ") {
		t.Errorf("title: %q", strings.SplitN(out, "\n", 2)[0])
	}
	if !strings.Contains(out, "syncing → terminating (deleted)") || strings.Contains(out, "relist:") || strings.Contains(out, "CRI ") {
		t.Errorf("--only workers,sync:\n%s", out)
	}
}

func TestExplainBoot(t *testing.T) {
	out, _, code := explainCLI(t, "crashloop", "--boot", "--to", "1s")
	if code != 0 || !strings.Contains(out, "     -1s  ") || !strings.Contains(out, "skippingPodSynchronization: PLEG is not healthy") {
		t.Errorf("--boot should show the kubelet's start (exit %d):\n%s", code, out)
	}
	// Without --boot only the syncLoop's select, recorded as it started, shows from the boot.
	out, _, _ = explainCLI(t, "crashloop", "--to", "1s")
	if strings.Contains(out, "skippingPodSynchronization") || !strings.Contains(out, "     -1s  syncLoop                 syncLoopIteration selects on 8 channels") {
		t.Errorf("without --boot the boot shows, or the select does not:\n%s", out)
	}
}

// Invalid input exits 2 with one clear line, never a stack trace.
func TestExplainInvalidInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"no-such-scenario"}, "no-such-scenario"},
		{[]string{"missing.yaml"}, "missing.yaml"},
		{[]string{"crashloop", "--only", "plg"}, `--only: unknown category "plg"`},
		{[]string{"crashloop", "--pod", "default/nope"}, "--pod default/nope: the scenario has no such pod (its pods: default/crashy)"},
		{[]string{"crashloop", "--from", "soon"}, `--from "soon"`},
		{[]string{"crashloop", "--to", "-1m"}, "must not be negative"},
		{[]string{"crashloop", "--from", "2m", "--to", "1m"}, "--to 1m must be after --from 2m0s"},
		{[]string{"crashloop", "--colour"}, "unknown flag: --colour"},
		{[]string{}, "accepts 1 arg"},
	} {
		out, errOut, code := explainCLI(t, c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stderr %q, want %q", c.args, errOut, c.want)
		}
		if strings.Contains(errOut, "goroutine ") || out != "" {
			t.Errorf("%v: stdout %q, stderr %q", c.args, out, errOut)
		}
	}
}

// A scenario whose expectations fail still gets its whole transcript, and exits 1 as run
// does.
func TestExplainFailedExpectation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "short.yaml")
	src := `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: short}
spec:
  duration: 20s
  pods:
    - pod:
        metadata: {name: web}
        spec: {containers: [{name: app, image: "nginx:1.27"}]}
  expect:
    - restarts: {pod: default/web, container: app, min: 1}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := explainCLI(t, file)
	if code != 1 || !strings.Contains(errOut, "expectation failed") || !strings.Contains(out, "run ends: duration reached") {
		t.Errorf("exit %d, stderr %q\n%s", code, errOut, out)
	}
}

func TestUseColor(t *testing.T) {
	tty := func(io.Writer) bool { return true }
	notty := func(io.Writer) bool { return false }
	env := func(v string, set bool) func(string) (string, bool) {
		return func(string) (string, bool) { return v, set }
	}
	for _, c := range []struct {
		name     string
		noColor  bool
		env      func(string) (string, bool)
		terminal func(io.Writer) bool
		want     bool
	}{
		{"terminal", false, env("", false), tty, true},
		{"pipe", false, env("", false), notty, false},
		{"--no-color", true, env("", false), tty, false},
		{"NO_COLOR=1", false, env("1", true), tty, false},
		{"NO_COLOR empty is unset", false, env("", true), tty, true},
	} {
		if got := useColor(io.Discard, c.noColor, c.env, c.terminal); got != c.want {
			t.Errorf("%s: useColor = %v, want %v", c.name, got, c.want)
		}
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
}

// The README walks through a crash-loop transcript; its excerpts must be what nodesim
// prints today.
func TestREADMEExcerptsAreCurrent(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Skip("no README next to the module")
	}
	_, section, ok := strings.Cut(string(readme), "### A crash loop, line by line")
	if !ok {
		t.Fatal("README has no crash-loop walk-through")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	out, _, code := explainCLI(t, "crashloop", "--to", "26s")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	blocks := strings.Split(section, "```text\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("no transcript excerpt in the walk-through")
	}
	for i, b := range blocks {
		excerpt, _, _ := strings.Cut(b, "```")
		if !strings.Contains(out, excerpt) {
			t.Errorf("README excerpt %d is not what `nodesim explain crashloop --to 26s` prints now; paste the new lines", i+1)
		}
	}
}

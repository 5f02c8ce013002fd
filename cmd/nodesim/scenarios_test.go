package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"nodesim/scenarios"
)

// scenarios show prints every built-in scenario byte for byte as the file in scenarios/.
func TestScenariosShow(t *testing.T) {
	for _, name := range builtinNames(t) {
		want, err := os.ReadFile(filepath.Join("..", "..", "scenarios", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := nodesim(t, "scenarios", "show", name)
		if code != 0 || out != string(want) {
			t.Fatalf("scenarios show %s: exit %d, stderr %q, stdout differs from the shipped file: %v", name, code, errOut, out != string(want))
		}
	}
}

// An unknown name exits 2 with nothing on stdout, and names the closest built-in when one is
// a likely typo: "crashlop" is one deletion from "crashloop" (the suggestion limit for an
// 8-letter name is 8/4 = 2 edits).
func TestScenariosShowUnknown(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"crashlop", `no built-in scenario "crashlop" (did you mean "crashloop"?)`},
		{"sidecra", `no built-in scenario "sidecra" (did you mean "sidecar"?)`},
		{"zzzzzzz", `no built-in scenario "zzzzzzz" (nodesim scenarios lists them)`},
		// kubectl-dump/pods.yaml is embedded as a file podFiles reads, not a scenario.
		{"kubectl-dump/pods", `no built-in scenario "kubectl-dump/pods" (did you mean "kubectl-dump"?)`},
		{"../go.mod", `no built-in scenario "../go.mod" (nodesim scenarios lists them)`},
	} {
		out, errOut, code := nodesim(t, "scenarios", "show", tc.name)
		if code != exitInvalid || out != "" || strings.TrimSpace(errOut) != tc.want {
			t.Errorf("scenarios show %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.name, code, out, errOut, tc.want)
		}
	}
	if _, _, code := nodesim(t, "scenarios", "show"); code != exitInvalid {
		t.Errorf("scenarios show without NAME: exit %d, want 2", code)
	}
}

// run, explain and sweep answer a mistyped built-in name with the closest one and exit 2.
func TestMistypedBuiltinName(t *testing.T) {
	const want = `no built-in scenario "crashlop" (did you mean "crashloop"?)`
	for _, args := range [][]string{
		{"run", "crashlop"},
		{"explain", "crashlop"},
		{"sweep", "crashlop", "--set", "spec.seed=1,2"},
	} {
		out, errOut, code := nodesim(t, args...)
		if code != exitInvalid || out != "" || strings.TrimSpace(errOut) != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(args, " "), code, out, errOut, want)
		}
	}
}

// complete runs cobra's hidden __complete command and returns the offered words and the
// directive line (":0" ShellCompDirectiveDefault, ":4" ShellCompDirectiveNoFileComp).
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, errOut, code := nodesim(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

func TestCompletion(t *testing.T) {
	crash := []string{"crashloop", "crashloop-max-restart-period"}
	for _, cmd := range []string{"run", "explain", "sweep"} {
		// Built-in names, and files too (directive 0, the shell's default completion).
		if got, dir := complete(t, cmd, "crash"); !reflect.DeepEqual(got, crash) || dir != ":0" {
			t.Errorf("%s crash: offered %q %s, want %q :0", cmd, got, dir, crash)
		}
		want := builtinNames(t)
		if cmd == "sweep" { // and its subcommand
			want = append([]string{"merge\tMerge the slices of a sharded sweep into the whole sweep's output"}, want...)
		}
		if got, dir := complete(t, cmd, ""); !reflect.DeepEqual(got, want) || dir != ":0" {
			t.Errorf("%s with nothing typed: offered %d names %s, want %d :0", cmd, len(got), dir, len(want))
		}
		// One scenario per command: nothing after it.
		if got, dir := complete(t, cmd, "crashloop", ""); len(got) != 0 || dir != ":4" {
			t.Errorf("%s crashloop <TAB>: offered %q %s, want nothing :4", cmd, got, dir)
		}
	}
	// scenarios show takes a built-in name only, never a file.
	if got, dir := complete(t, "scenarios", "show", "crash"); !reflect.DeepEqual(got, crash) || dir != ":4" {
		t.Errorf("scenarios show crash: offered %q %s, want %q :4", got, dir, crash)
	}
	if got, dir := complete(t, "scenarios", "show", "nosuch"); len(got) != 0 || dir != ":4" {
		t.Errorf("scenarios show nosuch: offered %q %s, want nothing :4", got, dir)
	}
	// -o offers the formats each command accepts.
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "crashloop", "-o", ""}, []string{"table", "json", "yaml"}},
		{[]string{"run", "crashloop", "--output", ""}, []string{"table", "json", "yaml"}},
		{[]string{"sweep", "crashloop", "-o", ""}, []string{"table", "json", "yaml", "csv", "markdown"}},
		{[]string{"sweep", "merge", "-o", ""}, []string{"table", "json", "yaml", "csv", "markdown"}},
	} {
		if got, dir := complete(t, tc.args...); !reflect.DeepEqual(got, tc.want) || dir != ":4" {
			t.Errorf("%s: offered %q %s, want %q :4", strings.Join(tc.args, " "), got, dir, tc.want)
		}
	}
}

// The completion command is there for every shell cobra supports.
// sweep --set completes the scenario's own paths and the common kubelet settings, each
// with "=" and no space after it (directive 6: NoSpace|NoFileComp); once "=" is typed, the
// values are the user's.
func TestCompletionOfSetPaths(t *testing.T) {
	got, dir := complete(t, "sweep", "crashloop", "--set", "spec.kubelet.evictionH")
	want := []string{"spec.kubelet.evictionHard[memory.available]=", "spec.kubelet.evictionHard[nodefs.available]="}
	if !reflect.DeepEqual(got, want) || dir != ":6" {
		t.Errorf("--set spec.kubelet.evictionH: offered %q %s, want %q :6", got, dir, want)
	}
	// crashloop's one container exits with code 1 after a while: its own scalars are offered.
	got, _ = complete(t, "sweep", "crashloop", "--set", "spec.pods[0].behavior.app.exit.")
	want = []string{"spec.pods[0].behavior.app.exit.after=", "spec.pods[0].behavior.app.exit.code="}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("--set spec.pods[0].behavior.app.exit.: offered %q, want %q", got, want)
	}
	if got, dir := complete(t, "sweep", "crashloop", "--set", "spec.kubelet.maxPods="); len(got) != 0 || dir != ":4" {
		t.Errorf("--set with a value begun: offered %q %s, want nothing :4", got, dir)
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		out, errOut, code := nodesim(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "nodesim") {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, code, len(out), errOut)
		}
	}
}

// BuiltinNames, which completion and suggestions use without loading anything, lists the same
// scenarios as Builtins.
func TestBuiltinNamesMatchBuiltins(t *testing.T) {
	if got, want := scenarios.BuiltinNames(), builtinNames(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("BuiltinNames %q, Builtins %q", got, want)
	}
}

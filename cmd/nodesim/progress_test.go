package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// runWithStderr runs the binary with stdout on a pipe and stderr on a pseudo-terminal (tty)
// or on a pipe, and returns both and the exit code.
func runWithStderr(t *testing.T, tty bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	if !tty {
		cmd.Stderr = &errb
		code = exitCode(t, cmd.Run())
		return out.String(), errb.String(), code
	}
	ptmx, tt, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	cmd.Stderr = tt
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tt.Close() // the child holds its own copy
	done := make(chan struct{})
	go func() {
		io.Copy(&errb, ptmx) // ends with EIO once the child has exited
		close(done)
	}()
	code = exitCode(t, cmd.Wait())
	<-done
	return out.String(), errb.String(), code
}

// longRun is a scenario that takes a few wall-clock seconds: a crash-looping container for
// a simulated day.
func longRun(t *testing.T) string {
	t.Helper()
	const src = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: long-crashloop}
spec:
  duration: 24h
  runtime:
    images: [{name: "app:v1", size: 10Mi, present: true}]
  pods:
    - replicas: 5
      pod:
        metadata: {name: crashy}
        spec: {containers: [{name: app, image: "app:v1"}]}
      behavior:
        app: {exit: {after: 5s, code: 1}}
`
	path := filepath.Join(t.TempDir(), "long.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Progress shows on a terminal's stderr, for a sweep (runs done over the total) and a run
// (simulated time over the duration); never in a pipe, never with --quiet, never on stdout:
// stdout is the same bytes either way.
func TestProgressOnTerminalOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	sweepArgs := []string{"sweep", "crashloop", "--parallel", "1", "--min-pass", "0", "--set", "spec.duration=4h,5h,6h,7h"}
	runArgs := []string{"run", longRun(t), "-o", "json"}
	for _, tc := range []struct {
		args []string
		bar  []string // what the bar shows
	}{
		{sweepArgs, []string{"sweep", "/4)", "%", "row 1 of 4 done", "row 2 of 4 done", "row 3 of 4 done", "row 4 of 4 done"}},
		{runArgs, []string{"run long-crashloop 24h0m0s simulated", "%"}},
	} {
		ttyOut, ttyErr, ttyCode := runWithStderr(t, true, tc.args...)
		pipeOut, pipeErr, pipeCode := runWithStderr(t, false, tc.args...)
		quietOut, quietErr, quietCode := runWithStderr(t, true, append(tc.args, "--quiet")...)
		if ttyCode != 0 || pipeCode != 0 || quietCode != 0 {
			t.Fatalf("%v: exits %d %d %d\n%s\n%s", tc.args, ttyCode, pipeCode, quietCode, ttyErr, pipeErr)
		}
		for _, want := range tc.bar {
			if !strings.Contains(ttyErr, want) {
				t.Errorf("%v on a terminal: stderr lacks %q:\n%q", tc.args[0], want, ttyErr)
			}
		}
		if !strings.Contains(ttyErr, "\r") {
			t.Errorf("%v on a terminal: no bar redrawn in place:\n%q", tc.args[0], ttyErr)
		}
		for name, errText := range map[string]string{"a pipe": pipeErr, "--quiet": quietErr} {
			if strings.Contains(errText, "%") || strings.Contains(errText, "\r") || strings.Contains(errText, "simulated") {
				t.Errorf("%v with %s: a progress bar on stderr:\n%q", tc.args[0], name, errText)
			}
		}
		if ttyOut != pipeOut || ttyOut != quietOut || ttyOut == "" {
			t.Errorf("%v: stdout differs with a terminal on stderr", tc.args[0])
		}
	}
}

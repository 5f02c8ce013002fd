package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"nodesim/sim"
)

// hostileCase is one bad or hostile input and what nodesim must answer: the exit code and a
// fragment of its output (stdout and stderr together), and what the output must never hold.
type hostileCase struct {
	name    string
	args    []string
	code    int
	want    string
	notWant string
}

// The catalogue of bad and hostile inputs: every file in testdata/hostile (its first line
// says "# want exit CODE:FRAGMENT"), and the inputs only a test can make (FIFOs, symlinks
// out of the scenario's directory, devices, oversized files). Each must answer with its exit
// code and message, at once: none may hang, crash, overflow or leak a file's content.
func TestHostileInputs(t *testing.T) {
	var cases []hostileCase
	files, err := filepath.Glob("testdata/hostile/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hostile inputs: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		spec, ok := strings.CutPrefix(first, "# want exit ")
		if !ok {
			t.Fatalf("%s: first line must be \"# want exit CODE:FRAGMENT\"", f)
		}
		codeText, frag, _ := strings.Cut(spec, ":")
		code, err := strconv.Atoi(codeText)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cases = append(cases, hostileCase{name: filepath.Base(f), args: []string{"run", f}, code: code, want: frag})
	}
	cases = append(cases, madeCases(t)...)
	if len(cases) < 60 {
		t.Errorf("the catalogue holds %d inputs, want at least 60", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code, elapsed := runBounded(t, c.args)
			t.Logf("exit %d in %s", code, elapsed.Round(time.Millisecond))
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, out)
			}
			if c.notWant != "" && strings.Contains(out, c.notWant) {
				t.Errorf("output leaks %q:\n%s", c.notWant, out)
			}
			if strings.Contains(out, "goroutine ") || strings.Contains(out, "panic:") {
				t.Errorf("a Go stack trace reached the user:\n%s", out)
			}
			if strings.ContainsRune(out, 0x1b) {
				t.Errorf("a raw escape character reached the output:\n%q", out)
			}
		})
	}
}

// runBounded runs the command in-process, failing (not hanging) the test should it not
// answer within a generous bound: a hang is what this catalogue exists to catch.
func runBounded(t *testing.T, args []string) (string, int, time.Duration) {
	t.Helper()
	type result struct {
		out  string
		code int
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		var buf bytes.Buffer
		code := run(args, &buf, &buf)
		done <- result{buf.String(), code}
	}()
	select {
	case r := <-done:
		return r.out, r.code, time.Since(start)
	case <-time.After(60 * time.Second):
		t.Fatalf("nodesim %s did not answer within a minute", strings.Join(args, " "))
		return "", 0, 0
	}
}

const secret = "PASSWORD=hunter2-very-secret"

// madeCases writes the inputs that cannot live in a repository: a FIFO, symlinks, a
// secret, an oversized file, devices.
func madeCases(t *testing.T) []hostileCase {
	root := t.TempDir()
	dir := filepath.Join(root, "scenario")
	other := filepath.Join(root, "elsewhere")
	for _, d := range []string{dir, other, filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "secret.env"), secret+"\n")
	write(filepath.Join(dir, "secret.env"), secret+"\n")
	write(filepath.Join(dir, "secret.yaml"), "password: "+secret+"\n")
	write(filepath.Join(other, "kubelet.yaml"), "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n")
	if err := os.Symlink(filepath.Join(other, "kubelet.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "secret.env"), filepath.Join(dir, "secret-link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("# padding\n"), (16<<20)/10+1)
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	scenario := func(name, extra string) string {
		p := filepath.Join(dir, name+".yaml")
		write(p, "apiVersion: nodesim/v1alpha1\nkind: Scenario\nmetadata: {name: made}\nspec:\n  duration: 10s\n"+extra)
		return p
	}
	outside := "is outside the scenario's directory (--allow-outside-dir allows it)"
	return []hostileCase{
		{name: "scenario-dev-zero", args: []string{"run", "/dev/zero"}, code: 2, want: "is a device"},
		{name: "scenario-is-a-secret", args: []string{"run", filepath.Join(dir, "secret.env")}, code: 2,
			want: "not a nodesim scenario (its top level is not a YAML mapping); its content is not shown", notWant: "hunter2"},
		{name: "validate-secret", args: []string{"validate", filepath.Join(root, "secret.env")}, code: 2,
			want: "its content is not shown", notWant: "hunter2"},
		{name: "validate-dev-zero", args: []string{"validate", "/dev/zero"}, code: 2, want: "is a device"},
		{name: "scenario-fifo", args: []string{"run", filepath.Join(dir, "fifo.yaml")}, code: 2, want: "named pipe"},
		{name: "scenario-directory", args: []string{"run", dir}, code: 2, want: "is a directory"},
		{name: "scenario-too-big", args: []string{"run", filepath.Join(dir, "big.yaml")}, code: 2, want: "larger than the 16 MiB limit"},
		{name: "kubelet-config-up-a-level", args: []string{"run", scenario("up", "  kubeletConfigFile: ../secret.env\n")},
			code: 2, want: outside, notWant: "hunter2"},
		{name: "kubelet-config-secret-beside", args: []string{"run", scenario("beside", "  kubeletConfigFile: secret.env\n")},
			code: 2, want: "its content is not shown", notWant: "hunter2"},
		{name: "kubelet-config-secret-yaml", args: []string{"run", scenario("beside-yaml", "  kubeletConfigFile: secret.yaml\n")},
			code: 2, want: "its content is not shown", notWant: "hunter2"},
		{name: "kubelet-config-absolute", args: []string{"run", scenario("abs", "  kubeletConfigFile: "+filepath.Join(root, "secret.env")+"\n")},
			code: 2, want: outside, notWant: "hunter2"},
		{name: "kubelet-config-dev-zero", args: []string{"run", scenario("zero", "  kubeletConfigFile: /dev/zero\n")}, code: 2, want: outside},
		{name: "kubelet-config-dev-zero-allowed", args: []string{"run", "--allow-outside-dir", scenario("zero2", "  kubeletConfigFile: /dev/zero\n")},
			code: 2, want: "is a device"},
		{name: "kubelet-config-fifo", args: []string{"run", scenario("fifo-ref", "  kubeletConfigFile: fifo.yaml\n")}, code: 2, want: "named pipe"},
		{name: "kubelet-config-directory", args: []string{"run", scenario("dir-ref", "  kubeletConfigFile: sub\n")}, code: 2, want: "is a directory"},
		{name: "kubelet-config-symlink-out", args: []string{"run", scenario("link", "  kubeletConfigFile: link.yaml\n")}, code: 2, want: outside},
		{name: "kubelet-config-symlink-to-secret", args: []string{"run", "--allow-outside-dir", scenario("link-secret", "  kubeletConfigFile: secret-link.yaml\n")},
			code: 2, want: "its content is not shown", notWant: "hunter2"},
		{name: "pod-files-glob-etc", args: []string{"run", scenario("glob", "  podFiles: [\"/etc/*.conf\"]\n")}, code: 2, want: outside},
		{name: "pod-files-up-a-level", args: []string{"run", scenario("glob-up", "  podFiles: [\"../*.env\"]\n")}, code: 2, want: outside, notWant: "hunter2"},
		{name: "pod-files-secret", args: []string{"run", scenario("pod-secret", "  podFiles: [\"secret.env\"]\n")},
			code: 2, want: "its content is not shown", notWant: "hunter2"},
		{name: "unknown-builtin", args: []string{"run", "no-such-scenario-name"}, code: 2, want: "no-such-scenario-name"},
	}
}

// A panic is nodesim's own failure: exit 3, "internal error" and the reproduce line (its
// path quoted for a shell), the Go stack only when NODESIM_STACK asks for it.
func TestPanicIsAnInternalError(t *testing.T) {
	args := []string{"run", "my node's scenario.yaml"}
	boom := func() int { panic("index out of range [3] with length 3") }
	var buf bytes.Buffer
	t.Setenv(stackEnv, "")
	if code := guarded(args, &buf, boom); code != exitInternal {
		t.Errorf("exit %d, want %d", code, exitInternal)
	}
	out := buf.String()
	for _, want := range []string{"nodesim: internal error: index out of range", `reproduce: nodesim run 'my node'\''s scenario.yaml'`, "NODESIM_STACK=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "goroutine ") {
		t.Errorf("stack printed unasked:\n%s", out)
	}
	buf.Reset()
	t.Setenv(stackEnv, "1")
	guarded(args, &buf, boom)
	if !strings.Contains(buf.String(), "goroutine ") {
		t.Errorf("NODESIM_STACK=1 should print the stack:\n%s", buf.String())
	}
}

// A stalled simulation exits 3 with the time and the goroutine named, never 2.
func TestStallIsAnInternalError(t *testing.T) {
	err := internal(fmt.Errorf("simulating x.yaml: %w", &sim.Stalled{At: 5 * time.Second, Track: "kernel", What: "more than 1000000 events at one instant"}))
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitInternal {
		t.Fatalf("err %v, want exit %d", err, exitInternal)
	}
	if want := "nodesim: simulating x.yaml: simulation stalled at t=5s: kernel (more than 1000000 events at one instant)"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"scenarios/crashloop.yaml": "scenarios/crashloop.yaml",
		"my scenario.yaml":         "'my scenario.yaml'",
		"it's.yaml":                `'it'\''s.yaml'`,
		"$(rm -rf ~).yaml":         "'$(rm -rf ~).yaml'",
		"a\x1b[2J.yaml":            `'a\x1b[2J.yaml'`,
		"":                         "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

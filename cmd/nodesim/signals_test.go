package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"nodesim/engine"
	"nodesim/scenarios"
)

// verifyManifest checks the files of dir against its manifest, as a reader of --out does
// before trusting a file: every file listed is there with its size and hash.
func verifyManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", manifestName, err)
	}
	for _, f := range m.Files {
		fh, err := os.Open(filepath.Join(dir, f.Name))
		if err != nil {
			return &m, err
		}
		h := sha256.New()
		n, err := io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return &m, err
		}
		if n != f.Size || hex.EncodeToString(h.Sum(nil)) != f.SHA256 {
			return &m, fmt.Errorf("%s: size or hash differs from the manifest", f.Name)
		}
	}
	return &m, nil
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds nodesim once for the tests that need a real process (signals, pipes).
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nodesim-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "nodesim")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// longScenario is a full node for a day: with --out it streams a large trace for several
// seconds, long enough for a signal to land mid-run.
func longScenario(t *testing.T) string {
	t.Helper()
	const src = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: long}
spec:
  duration: 24h
  node: {capacity: {cpu: "64", memory: 256Gi, pods: "110"}}
  runtime:
    images: [{name: "app:v1", size: 10Mi, present: true}]
  pods:
    - replicas: 100
      pod:
        metadata: {name: steady}
        spec: {containers: [{name: app, image: "app:v1"}]}
    - replicas: 10
      pod:
        metadata: {name: crashy}
        spec: {containers: [{name: app, image: "app:v1"}]}
      behavior:
        app: {exit: {after: 30s, code: 1}}
`
	path := filepath.Join(t.TempDir(), "long.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitForStaging waits until dir holds a staging directory whose trace has grown: the run
// is under way.
func waitForStaging(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		stages, _ := filepath.Glob(filepath.Join(dir, stagingPrefix+"*"))
		for _, s := range stages {
			if fi, err := os.Stat(filepath.Join(s, "trace.jsonl")); err == nil && fi.Size() > 1<<20 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the run's staging directory never appeared")
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

// interruptRun starts a long run --out dir, signals it mid-run and returns its exit code and
// stderr.
func interruptRun(t *testing.T, dir string, sig syscall.Signal) (int, string) {
	t.Helper()
	cmd := exec.Command(binary(t), "run", longScenario(t), "--out", dir)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForStaging(t, dir)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return exitCode(t, cmd.Wait()), errb.String()
}

func checkNoStaging(t *testing.T, dir string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// SIGINT during a run --out into a directory that holds an older report: exit 130, no
// temporary file left, and the old report and its manifest untouched.
func TestSIGINTDuringOutKeepsTheOldReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	if _, errOut, code := nodesim(t, "run", "crashloop", "--out", dir); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	before := map[string][]byte{}
	for _, f := range append(outFileNames(), manifestName) {
		before[f] = readFile(t, dir, f)
	}
	code, errOut := interruptRun(t, dir, syscall.SIGINT)
	if code != exitSIGINT {
		t.Fatalf("exit %d, want 130 (%s)", code, errOut)
	}
	if !strings.Contains(errOut, "interrupted by SIGINT") || strings.Contains(errOut, "goroutine ") {
		t.Errorf("stderr: %q", errOut)
	}
	checkNoStaging(t, dir)
	for f, want := range before {
		if !bytes.Equal(readFile(t, dir, f), want) {
			t.Errorf("%s changed by the interrupted run", f)
		}
	}
	if _, err := verifyManifest(dir); err != nil {
		t.Errorf("the old manifest no longer vouches for its files: %v", err)
	}
}

// SIGTERM: exit 143, nothing written into an empty directory.
func TestSIGTERMDuringOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	code, errOut := interruptRun(t, dir, syscall.SIGTERM)
	if code != exitSIGTERM {
		t.Fatalf("exit %d, want 143 (%s)", code, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an interrupted run left %d entries in an empty directory", len(entries))
	}
}

// A closed stdout (nodesim run ... --out d -o yaml | head -1 with head gone) does not cost
// the files: they are committed before stdout is written, and the write's EPIPE is not fatal.
func TestClosedStdoutKeepsTheFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before nodesim writes a byte
	cmd := exec.Command(binary(t), "run", "crashloop", "--out", dir, "-o", "yaml")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &errb
	err = cmd.Run()
	w.Close()
	if code := exitCode(t, err); code != 0 {
		t.Fatalf("exit %d, want 0 (the run passed; stdout's reader left): %s", code, errb.String())
	}
	m, err := verifyManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m.Files {
		names = append(names, f.Name)
	}
	for _, f := range outFileNames() {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+f+" ") {
			t.Errorf("manifest lacks %s: %v", f, names)
		}
	}
	checkNoStaging(t, dir)
}

// SIGINT during a sweep: the rows finished before it are printed, exit 130.
func TestSIGINTDuringSweepPrintsFinishedRows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	// 200 variants of crashloop's exit delay, one run at a time.
	var vals []string
	for i := 1; i <= 200; i++ {
		vals = append(vals, fmt.Sprintf("%ds", i))
	}
	junit := filepath.Join(t.TempDir(), "sweep.xml")
	cmd := exec.Command(binary(t), "sweep", "crashloop", "--parallel", "1", "-o", "json", "--junit", junit,
		"--set", "spec.pods[0].behavior.app.exit.after="+strings.Join(vals, ","))
	var out bytes.Buffer
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the third finished row's progress line, then interrupt.
	var errb bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(errb.String(), "row 3 of 200 done") {
		n, err := stderr.Read(buf)
		errb.Write(buf[:n])
		if err != nil {
			t.Fatalf("sweep ended before row 3: %v\n%s", err, errb.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	io.Copy(&errb, stderr)
	code := exitCode(t, cmd.Wait())
	if code != exitSIGINT {
		t.Fatalf("exit %d, want 130: %s", code, errb.String())
	}
	var res struct {
		Rows []struct {
			Values []string `json:"values"`
			Runs   int      `json:"runs"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not the sweep's JSON: %v\n%s", err, out.String())
	}
	if len(res.Rows) < 3 || len(res.Rows) == 200 {
		t.Fatalf("%d rows printed, want the 3 or more finished before SIGINT and not all 200", len(res.Rows))
	}
	for i, r := range res.Rows {
		if want := fmt.Sprintf("%ds", i+1); r.Values[0] != want || r.Runs != 1 {
			t.Errorf("row %d: %v with %d runs, want %s with 1", i, r.Values, r.Runs, want)
		}
	}
	// The JUnit file holds the runs that finished, one case each, as the rows do.
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatalf("no JUnit file after SIGINT: %v", err)
	}
	if n := strings.Count(string(data), "<testcase "); n != len(res.Rows) {
		t.Errorf("%d test cases in the JUnit file, want the %d runs printed", n, len(res.Rows))
	}
}

// A grid above the cap is refused before anything runs; --max-runs raises the cap.
func TestSweepGridCap(t *testing.T) {
	var vals []string
	for i := 1; i <= 101; i++ {
		vals = append(vals, fmt.Sprintf("%ds", i))
	}
	set := "spec.pods[0].behavior.app.exit.after=" + strings.Join(vals, ",")
	// 101 values × 100 seeds = 10100 runs, above the default 10000.
	_, errOut, code := nodesim(t, "sweep", "crashloop", "--set", set, "--seeds", "100")
	if code != exitInvalid || !strings.Contains(errOut, "more than 10000 runs") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// 2 values × 3 seeds = 6 runs, above a cap of 5.
	_, errOut, code = nodesim(t, "sweep", "crashloop", "--set", "spec.pods[0].behavior.app.exit.after=5s,2m", "--seeds", "3", "--max-runs", "5")
	if code != exitInvalid || !strings.Contains(errOut, "more than 5 runs") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Raised to 6, the grid runs (its 2m runs miss crashloop's expectations: --min-pass 0
	// accepts them).
	if _, errOut, code = nodesim(t, "sweep", "crashloop", "--set", "spec.pods[0].behavior.app.exit.after=5s,2m", "--seeds", "3", "--max-runs", "6", "--min-pass", "0"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// An invariant the model breaks ends the command with exit 3, naming the rule, the
// simulated time and the event, and no stack trace.
func TestInvariantViolationExitsThree(t *testing.T) {
	saved := runEngine
	defer func() { runEngine = saved }()
	runEngine = func(l *scenarios.Loaded, seed uint64, o engine.Options) (*engine.Result, error) {
		return nil, &engine.InvariantViolation{Invariant: engine.InvStartAfterTerm, At: 28 * time.Second,
			Event: "28.000s podWorker default/web criCall StartContainer", Detail: "StartContainer default/web/app"}
	}
	_, errOut, code := nodesim(t, "run", "crashloop")
	if code != exitInternal {
		t.Fatalf("exit %d, want 3: %s", code, errOut)
	}
	for _, want := range []string{engine.InvStartAfterTerm, "28s", "criCall StartContainer"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %s", want, errOut)
		}
	}
	if strings.Contains(errOut, "goroutine ") {
		t.Errorf("stack trace on stderr: %s", errOut)
	}
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dirNames lists the entries of dir, hidden ones included, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// --artifacts junit writes junit.xml and the manifest that vouches for it, nothing else.
func TestArtifactsJUnitOnly(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := nodesim(t, "run", "crashloop", "--out", dir, "--artifacts", "junit"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"junit.xml", manifestName}) {
		t.Fatalf("--artifacts junit wrote %v", got)
	}
	m, err := verifyManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].Name != "junit.xml" {
		t.Errorf("manifest lists %+v, want junit.xml alone", m.Files)
	}
	var suites struct {
		XMLName xml.Name `xml:"testsuite"`
	}
	if err := xml.Unmarshal(readFile(t, dir, "junit.xml"), &suites); err != nil {
		t.Errorf("junit.xml: %v", err)
	}
}

// A selection writes exactly the files it names, in any order, and the default is every file.
func TestArtifactsSelection(t *testing.T) {
	for _, c := range []struct {
		flag string
		want []string
	}{
		{"csv,report", []string{"report.json", "timeline.csv"}},
		{"perfetto,html,trace", []string{"report.html", "trace.jsonl", "trace.perfetto.json"}},
		{"", outFileNames()},
	} {
		dir := t.TempDir()
		args := []string{"run", "crashloop", "--out", dir}
		if c.flag != "" {
			args = append(args, "--artifacts", c.flag)
		}
		if _, errOut, code := nodesim(t, args...); code != 0 {
			t.Fatalf("--artifacts %q: exit %d: %s", c.flag, code, errOut)
		}
		want := append(append([]string{}, c.want...), manifestName)
		slices.Sort(want)
		if got := dirNames(t, dir); !slices.Equal(got, want) {
			t.Errorf("--artifacts %q wrote %v, want %v", c.flag, got, want)
		}
		if _, err := verifyManifest(dir); err != nil {
			t.Errorf("--artifacts %q: %v", c.flag, err)
		}
	}
}

// --junit and --html stand alone: each writes its one file and nothing beside it, the same
// bytes as the file of the same name in --out.
func TestStandaloneJUnitAndHTML(t *testing.T) {
	dir := t.TempDir()
	junit, html := filepath.Join(dir, "results.xml"), filepath.Join(dir, "page.html")
	if _, errOut, code := nodesim(t, "run", "crashloop", "--junit", junit, "--html", html); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"page.html", "results.xml"}) {
		t.Fatalf("wrote %v", got)
	}
	out := runOut(t, "crashloop")
	if !bytes.Equal(readFile(t, dir, "results.xml"), readFile(t, out, "junit.xml")) {
		t.Error("--junit differs from --out's junit.xml")
	}
	if !bytes.Equal(readFile(t, dir, "page.html"), readFile(t, out, "report.html")) {
		t.Error("--html differs from --out's report.html (the charts must be recorded for it too)")
	}
}

// Misuse is refused with exit 2 before anything runs or is written.
func TestArtifactsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--artifacts", "junit"}, "give --out DIR"},
		{[]string{"--out", dir, "--artifacts", "junit,pdf"}, `unknown artifact "pdf"`},
		{[]string{"--out", dir, "--artifacts", ""}, "name at least one"},
		{[]string{"--out", dir, "--trace-max-events", "-1"}, "out of range"},
		{[]string{"--out", dir, "--trace-max-events", "4294967296"}, "out of range"},
		{[]string{"--junit", filepath.Join(dir, "r"), "--html", filepath.Join(dir, ".", "r")}, "give each its own file"},
		{[]string{"--junit", filepath.Join(dir, "r"), "--trace-max-events", "10"}, "which this run does not write"},
		{[]string{"--out", dir, "--artifacts", "junit,csv", "--trace-max-events", "10"}, "which this run does not write"},
	} {
		_, errOut, code := nodesim(t, append([]string{"run", "crashloop"}, c.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("refused runs wrote %v", got)
	}
}

// traceLines reads trace.jsonl.
func traceLines(t *testing.T, dir string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, dir, "trace.jsonl")))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	return lines
}

// --trace-max-events keeps the first N events of each trace file and ends each with a note
// that counts the rest: the dropped counts are the whole trace's events less N (trace.jsonl
// counts every event; trace.perfetto.json those from time zero on, as it leaves out the boot).
func TestTraceMaxEvents(t *testing.T) {
	const limit = 100
	full := runOut(t, "crashloop", "--artifacts", "trace")
	all := traceLines(t, full)
	fromZero := 0
	for _, l := range all {
		if l["t"].(float64) >= 0 {
			fromZero++
		}
	}
	dir := runOut(t, "crashloop", "--artifacts", "trace,perfetto", "--trace-max-events", strconv.Itoa(limit))
	cut := traceLines(t, dir)
	if len(cut) != limit+1 {
		t.Fatalf("trace.jsonl has %d lines, want %d events and the note", len(cut), limit+1)
	}
	for i := 0; i < limit; i++ {
		if cut[i]["seq"] != all[i]["seq"] || cut[i]["kind"] != all[i]["kind"] {
			t.Fatalf("line %d is not the uncut trace's line %d", i, i)
		}
	}
	note := cut[limit]
	attrs, _ := note["attrs"].(map[string]any)
	if note["kind"] != "truncated" || attrs["dropped"] != strconv.Itoa(len(all)-limit) || attrs["maxEvents"] != strconv.Itoa(limit) {
		t.Errorf("note %v; want kind truncated, maxEvents %d, dropped %d", note, limit, len(all)-limit)
	}
	if note["t"] != all[limit]["t"] {
		t.Errorf("note at %v, want the first event left out, at %v", note["t"], all[limit]["t"])
	}
	var doc struct {
		TraceEvents []map[string]any  `json:"traceEvents"`
		Metadata    map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(readFile(t, dir, "trace.perfetto.json"), &doc); err != nil {
		t.Fatal(err)
	}
	want := "the " + strconv.Itoa(fromZero-limit) + " from "
	if !strings.Contains(doc.Metadata["truncated"], want) {
		t.Errorf("perfetto metadata %q does not say %q", doc.Metadata["truncated"], want)
	}
	last := doc.TraceEvents[len(doc.TraceEvents)-1]
	if last["cat"] != "truncated" || last["s"] != "g" {
		t.Errorf("perfetto's last event %v is not the global truncation instant", last)
	}
	// A cap the run never reaches leaves the files as they are.
	same := runOut(t, "crashloop", "--artifacts", "trace", "--trace-max-events", strconv.Itoa(len(all)))
	if !bytes.Equal(readFile(t, same, "trace.jsonl"), readFile(t, full, "trace.jsonl")) {
		t.Error("a cap of the whole trace's length changed trace.jsonl")
	}
}

// A day of a 110-pod node (longScenario) with --junit alone writes one small file: no trace
// is kept anywhere. (With --out the same run streams 1.84 million trace events: about 300MB
// of trace.jsonl, more of trace.perfetto.json.)
func TestJUnitAloneOnALongRun(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a day of a full node (about 10s)")
	}
	dir := t.TempDir()
	junit := filepath.Join(dir, "junit.xml")
	if _, errOut, code := nodesim(t, "run", longScenario(t), "--junit", junit); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"junit.xml"}) {
		t.Fatalf("wrote %v", got)
	}
	fi, err := os.Stat(junit)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 64<<10 {
		t.Errorf("junit.xml is %d bytes, want kilobytes", fi.Size())
	}
}

// SIGTERM during a run with --junit and --html leaves neither file, nor their temporary
// files: both are renamed into place only once the run has ended.
func TestSIGTERMDuringStandaloneFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	cmd := exec.Command(binary(t), "run", longScenario(t), "--junit", filepath.Join(dir, "junit.xml"), "--html", filepath.Join(dir, "report.html"))
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for len(dirNames(t, dir)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // well into the simulation
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd.Wait()); code != exitSIGTERM {
		t.Fatalf("exit %d, want 143 (%s)", code, errb.String())
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("an interrupted run left %v", got)
	}
}

// --artifacts over the directory of an earlier full run: the new manifest lists only the
// files this run wrote; the older ones stay, no longer vouched for.
func TestArtifactsOverAnOlderRun(t *testing.T) {
	dir := runOut(t, "crashloop")
	oldTrace := readFile(t, dir, "trace.jsonl")
	if _, errOut, code := nodesim(t, "run", "crashloop", "--seed", "2", "--out", dir, "--artifacts", "report"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	m, err := verifyManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].Name != "report.json" || m.Seed != 2 {
		t.Errorf("manifest %+v: want report.json alone, seed 2", m)
	}
	if !bytes.Equal(readFile(t, dir, "trace.jsonl"), oldTrace) {
		t.Error("a file the run did not choose was touched")
	}
}

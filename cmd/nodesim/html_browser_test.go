package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	api "nodesim/api/v1alpha1"
	"nodesim/reports"
	"nodesim/trace"
)

// These tests open report.html in headless Chromium, as a user would from disk, and check
// that the page logs nothing to the console (no script error, no blocked fetch) and that its
// charts drew. They skip where Chromium is not installed; `make test` installs it first where
// it can (scripts/ensure-chromium.sh). Set NODESIM_SCREENSHOT_DIR to keep the screenshots.

// findChromium returns the Chromium to use: $CHROMIUM, else the first of the usual names on
// PATH. It skips the test when there is none, or when the one found cannot even print its
// version (a stub left by a package manager, a missing library): that is the machine's
// problem, not the page's.
func findChromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		t.Skip("chromium is not installed, so report.html is not checked in a browser " +
			"(install it with `apt-get install -y chromium`, or run `make test`, which tries)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput(); err != nil {
		t.Skipf("%s does not run (%v: %s), so report.html is not checked in a browser", path, err, bytes.TrimSpace(out))
	}
	return path
}

// rendering is what Chromium made of a page.
type rendering struct {
	dom        string
	console    []string
	screenshot image.Image
}

// consoleLine matches Chromium's log line for a console message (log, warning, error,
// uncaught exception, blocked fetch); the page should print none.
var consoleLine = regexp.MustCompile(`:CONSOLE[:(]`)

// render opens page (a file) in headless Chromium: once to dump the DOM after the page ran its
// script, with console messages logged to stderr, and, when screenshot is set, once more for
// a screenshot.
func render(t *testing.T, chromium, page string, screenshot bool) rendering {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := "file://" + page
	common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir()}
	run := func(args ...string) (stdout, stderr string) {
		cmd := exec.CommandContext(ctx, chromium, append(append([]string{}, common...), args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.WaitDelay = 5 * time.Second
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s", chromium, args, err, errb.String())
		}
		return out.String(), errb.String()
	}
	var r rendering
	var logs string
	r.dom, logs = run("--enable-logging=stderr", "--v=0", "--dump-dom", url)
	for _, line := range strings.Split(logs, "\n") {
		if consoleLine.MatchString(line) {
			r.console = append(r.console, line)
		}
	}
	if !screenshot {
		return r
	}
	shot := filepath.Join(t.TempDir(), "report.png")
	run("--screenshot="+shot, "--window-size=1400,2000", "--hide-scrollbars", url)
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if dir := os.Getenv("NODESIM_SCREENSHOT_DIR"); dir != "" {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".png"
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Errorf("keeping the screenshot: %v", err)
		}
	}
	if r.screenshot, err = png.Decode(bytes.NewReader(data)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return r
}

// chartMarks counts, per chart, the marks the page's source has (series, bars, bands) and
// what the page's script found drawn (data-drawn), from the dumped DOM.
func chartMarks(t *testing.T, dom string) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	svg := regexp.MustCompile(`(?s)<svg class="chart" data-chart="([a-z]+)"[^>]*?>(.*?)</svg>`)
	drawn := regexp.MustCompile(`data-drawn="(\d+)"`)
	for _, m := range svg.FindAllStringSubmatch(dom, -1) {
		open := m[0][:strings.Index(m[0], ">")]
		d := drawn.FindStringSubmatch(open)
		if d == nil {
			t.Errorf("chart %s has no data-drawn: the page's script did not run", m[1])
			continue
		}
		n, _ := strconv.Atoi(d[1])
		marks := strings.Count(m[2], `class="series"`) + strings.Count(m[2], `class="bar"`) + strings.Count(m[2], `class="band"`)
		out[m[1]] = [2]int{marks, n}
	}
	return out
}

// paintedColors is the set of exact colours (0xrrggbb) of the screenshot's opaque pixels.
func paintedColors(img image.Image) map[uint32]bool {
	out := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			if a == 0xffff {
				out[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
			}
		}
	}
	return out
}

// checkPage renders page and checks the console is silent, every chart mark was drawn
// visibly, the charts named in drawnCharts have marks, and the colours are on screen.
func checkPage(t *testing.T, chromium, page string, drawnCharts []string, colors ...string) {
	t.Helper()
	r := render(t, chromium, page, true)
	if len(r.console) > 0 {
		t.Errorf("the page wrote to the console:\n%s", strings.Join(r.console, "\n"))
	}
	marks := chartMarks(t, r.dom)
	if len(marks) != 3 {
		t.Errorf("found charts %v, want memory, conditions and startup", marks)
	}
	for chart, m := range marks {
		if m[0] != m[1] {
			t.Errorf("chart %s: %d marks in the page, %d drawn visibly", chart, m[0], m[1])
		}
	}
	for _, chart := range drawnCharts {
		if marks[chart][1] == 0 {
			t.Errorf("chart %s drew nothing", chart)
		}
	}
	if want := fmt.Sprintf(`data-charts-drawn="%d"`, countDrawn(marks)); !strings.Contains(r.dom, want) {
		t.Errorf("body lacks %s", want)
	}
	if b := r.screenshot.Bounds(); b.Dx() != 1400 || b.Dy() != 2000 {
		t.Errorf("screenshot is %v, want 1400x2000", b)
	}
	painted := paintedColors(r.screenshot)
	for _, c := range colors {
		v, _ := strconv.ParseUint(strings.TrimPrefix(c, "#"), 16, 32)
		if !painted[uint32(v)] {
			t.Errorf("no pixel of %s in the screenshot: a chart did not paint", c)
		}
	}
}

func countDrawn(marks map[string][2]int) int {
	n := 0
	for _, m := range marks {
		if m[1] > 0 {
			n++
		}
	}
	return n
}

// A shipped scenario's report.html, as `run --out` writes it: the runtime outage turns the
// node NotReady for a while (a red band between green ones) and its pods start.
func TestReportHTMLInChromium(t *testing.T) {
	chromium := findChromium(t)
	dir := runOut(t, "runtime-outage")
	checkPage(t, chromium, filepath.Join(dir, "report.html"), []string{"conditions", "startup"},
		"#8fd19e", "#d62728", "#4e79a7")
}

// The memory chart, which shipped scenarios draw only once the model records stats, from a
// hand-written trace of memory pressure: series, thresholds, an eviction and an OOM kill.
func TestMemoryChartInChromium(t *testing.T) {
	chromium := findChromium(t)
	page := filepath.Join(t.TempDir(), "report.html")
	data, err := reports.HTML(pressureReport(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `data-chart="memory" data-series-count="3"`) {
		t.Fatal("the hand-written trace did not give three memory series")
	}
	checkPage(t, chromium, page, []string{"memory", "conditions", "startup"}, "#8fd19e", "#d62728")
}

// The console check itself: a page with a script error and a blocked fetch is caught.
func TestConsoleCheckCatchesErrors(t *testing.T) {
	chromium := findChromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	src := `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'"></head>
<body><img src="http://example.invalid/x.png"><script>console.error("boom"); notDefined();</script></body></html>`
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := render(t, chromium, page, false)
	all := strings.Join(r.console, "\n")
	for _, want := range []string{"boom", "notDefined", "Content Security Policy"} {
		if !strings.Contains(all, want) {
			t.Errorf("console check missed %q; it saw:\n%s", want, all)
		}
	}
}

// pressureReport builds a report and its charts from a hand-written trace of memory pressure,
// in the vocabulary of trace/resources.go.
func pressureReport(t *testing.T) (*reports.Report, *reports.ChartRecorder) {
	t.Helper()
	at := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	ev := func(s float64, kind, name, pod string, attrs ...string) trace.Event {
		e := trace.Event{At: at(s), Kind: trace.Kind(kind), Name: name, Pod: pod}
		for i := 0; i+1 < len(attrs); i += 2 {
			e.Attrs = append(e.Attrs, trace.Attr{Key: attrs[i], Value: attrs[i+1]})
		}
		return e
	}
	mi := func(v int) string { return strconv.Itoa(v << 20) }
	tr := []trace.Event{
		ev(-0.5, "nodeCondition", "", "", "type", "Ready", "status", "True"),
		ev(-0.5, "nodeCondition", "", "", "type", "MemoryPressure", "status", "False"),
		ev(0, "podSeen", "", "default/be", "uid", "1"), ev(0, "podSeen", "", "default/bu", "uid", "2"),
	}
	for s := 0; s <= 600; s += 5 {
		be, bu := 100+s*3, 300+s/2
		if s >= 300 {
			be = 0
		}
		if s == 5 {
			tr = append(tr, ev(1.2, "setPodStatus", "", "default/be", "phase", "Running", "allRunning", "true", "container/app", "state=running restarts=0"),
				ev(2.4, "setPodStatus", "", "default/bu", "phase", "Running", "allRunning", "true", "container/app", "state=running restarts=0"))
		}
		if s == 250 {
			tr = append(tr, ev(250, "nodeCondition", "", "", "type", "MemoryPressure", "status", "True"))
		}
		if s == 290 {
			tr = append(tr, ev(290, "eviction", "", "default/be", "signal", "memory.available", "observed", "90Mi", "threshold", "100Mi", "ranking", "default/be;true;0;900Mi"))
		}
		if s == 300 {
			tr = append(tr, ev(300, "workerState", "terminated", "default/be"))
		}
		if s == 400 {
			e := ev(400, "oomKill", "", "default/bu", "kind", "cgroup", "oomScoreAdj", "999")
			e.Container = "app"
			tr = append(tr, e)
		}
		if s == 560 {
			tr = append(tr, ev(560, "nodeCondition", "", "", "type", "MemoryPressure", "status", "False"))
		}
		tr = append(tr, ev(float64(s), "stats", "node", "", "memoryCapacity", mi(2048), "memoryWorkingSet", mi(800+be+bu)))
		if s < 300 {
			tr = append(tr, ev(float64(s), "stats", "pod", "default/be", "memory", mi(be)))
		}
		tr = append(tr, ev(float64(s), "stats", "pod", "default/bu", "memory", mi(bu)))
	}
	pods := []string{"default/be", "default/bu"}
	b := reports.NewBuilder(reports.Input{Scenario: &api.Scenario{Metadata: api.Metadata{Name: "pressure"}}, PodOrder: pods,
		QoS: map[string]string{"default/be": "BestEffort", "default/bu": "Burstable"}})
	c := reports.NewChartRecorder(reports.ChartOptions{Duration: 10 * time.Minute, Pods: pods,
		EvictionHard: map[string]string{"memory.available": "100Mi"}, EvictionSoft: map[string]string{"memory.available": "300Mi"}})
	for i := range tr {
		b.Record(&tr[i])
		c.Record(&tr[i])
	}
	c.Finish(10 * time.Minute)
	r := b.Finish(10 * time.Minute)
	r.Reproduce = "reproduce: (a hand-written trace)"
	return r, c
}

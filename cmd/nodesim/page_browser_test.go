package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"nodesim/engine"
	"nodesim/explain"
	"nodesim/scenarios"
	"nodesim/trace"
)

// These tests drive the page `explain --html` writes in headless Chromium over the DevTools
// protocol (on a pipe: --remote-debugging-pipe, no port, no extra library): real key presses
// step the page, and what it shows is compared with the state Go builds from the same run's
// events. Console messages and uncaught exceptions are collected from the protocol's events.
// They skip without Chromium, like the report.html tests. Set NODESIM_SCREENSHOT_DIR to keep
// the screenshots.

// devtools is one Chromium driven over its DevTools pipe.
type devtools struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      *os.File // our end of Chromium's fd 3
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	console []string
	loaded  chan struct{}
	session string
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func startDevtools(t *testing.T, chromium string) *devtools {
	t.Helper()
	toChrome, ourIn, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ourOut, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fds 3 and 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	toChrome.Close()
	fromChrome.Close()
	d := &devtools{t: t, cmd: cmd, in: ourIn, waiting: map[int]chan cdpMessage{}, loaded: make(chan struct{}, 1)}
	go d.read(ourOut)
	t.Cleanup(func() {
		d.send("", "Browser.close", nil)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		ourIn.Close()
		ourOut.Close()
	})
	return d
}

// read dispatches Chromium's messages: replies to their callers, console and exception
// events to the console list, the load event to loaded.
func (d *devtools) read(r *os.File) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			d.mu.Lock()
			for id, ch := range d.waiting {
				close(ch)
				delete(d.waiting, id)
			}
			d.mu.Unlock()
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		d.mu.Lock()
		switch {
		case m.ID != 0:
			if ch, ok := d.waiting[m.ID]; ok {
				ch <- m
				delete(d.waiting, m.ID)
			}
		case m.Method == "Runtime.consoleAPICalled", m.Method == "Runtime.exceptionThrown", m.Method == "Log.entryAdded":
			d.console = append(d.console, m.Method+": "+string(m.Params))
		case m.Method == "Page.loadEventFired":
			select {
			case d.loaded <- struct{}{}:
			default:
			}
		}
		d.mu.Unlock()
	}
}

// send issues a command and returns its result.
func (d *devtools) send(session, method string, params any) json.RawMessage {
	d.t.Helper()
	d.mu.Lock()
	d.nextID++
	id := d.nextID
	ch := make(chan cdpMessage, 1)
	d.waiting[id] = ch
	d.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := d.in.Write(append(data, 0)); err != nil {
		if method == "Browser.close" {
			return nil
		}
		d.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			if method != "Browser.close" {
				d.t.Fatalf("%s: Chromium closed the pipe", method)
			}
			return nil
		}
		if m.Error != nil {
			d.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		return m.Result
	case <-time.After(60 * time.Second):
		if method != "Browser.close" {
			d.t.Fatalf("%s: no reply in 60s", method)
		}
		return nil
	}
}

// open makes a page of the given size and loads url in it.
func (d *devtools) open(url string, width, height int) {
	d.t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	json.Unmarshal(d.send("", "Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var att struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(d.send("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	d.session = att.SessionID
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		d.send(d.session, m, nil)
	}
	d.send(d.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false})
	d.send(d.session, "Page.navigate", map[string]any{"url": url})
	select {
	case <-d.loaded:
	case <-time.After(60 * time.Second):
		d.t.Fatal("the page did not load in 60s")
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value into v.
func (d *devtools) eval(expr string, v any) {
	d.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	json.Unmarshal(d.send(d.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r)
	if r.ExceptionDetails != nil {
		d.t.Fatalf("evaluating %s: %s", expr, r.ExceptionDetails)
	}
	if err := json.Unmarshal(r.Result.Value, v); err != nil {
		d.t.Fatalf("evaluating %s: %v (%s)", expr, err, r.Result.Value)
	}
}

// key presses and releases a key, as a user's keyboard does.
func (d *devtools) key(key string, code int, shift bool) {
	mods := 0
	if shift {
		mods = 8
	}
	for _, typ := range []string{"rawKeyDown", "keyUp"} {
		d.send(d.session, "Input.dispatchKeyEvent", map[string]any{"type": typ, "key": key, "code": key,
			"windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code, "modifiers": mods})
	}
}

func (d *devtools) screenshot(name string) []byte {
	d.t.Helper()
	var r struct {
		Data string `json:"data"`
	}
	json.Unmarshal(d.send(d.session, "Page.captureScreenshot", map[string]any{"format": "png"}), &r)
	data, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		d.t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("NODESIM_SCREENSHOT_DIR")
	if dir == "" {
		dir = d.t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		d.t.Errorf("keeping the screenshot: %v", err)
	}
	return data
}

func (d *devtools) consoleMessages() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.console...)
}

// shown is what the page displays: the current step and every value of the picture.
type shown struct {
	Step  int         `json:"step"`
	Seq   string      `json:"seq"`
	Text  string      `json:"text"`
	Lines string      `json:"lines"`
	Why   string      `json:"why"`
	Up    string      `json:"up"`
	Keys  [][2]string `json:"keys"`
	Lanes int         `json:"lanes"`
}

const shownJS = `JSON.stringify({
	step: Number(document.body.dataset.step),
	seq: document.getElementById("cur-seq").textContent,
	text: document.getElementById("cur-text").textContent,
	lines: document.getElementById("cur-lines").textContent,
	why: document.getElementById("cur-why").textContent,
	up: document.getElementById("cur-up").getAttribute("href") || "",
	keys: Array.from(document.querySelectorAll("[data-key]")).map(e => [e.getAttribute("data-key"), e.textContent]),
	lanes: document.querySelectorAll("svg text.lane-name").length
})`

func (d *devtools) shown() shown {
	d.t.Helper()
	var s string
	d.eval(shownJS, &s)
	var out shown
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		d.t.Fatal(err)
	}
	return out
}

// pageEvents runs a built-in scenario as `explain --html` does and returns its events.
func pageEvents(t *testing.T, name string) []trace.Event {
	t.Helper()
	l, err := scenarios.LoadBuiltin(name)
	if err != nil {
		t.Fatal(err)
	}
	var log trace.Log
	if _, err := engine.Run(l, l.Seed(), engine.Options{Sink: &log}); err != nil {
		t.Fatal(err)
	}
	return log.Events
}

// expectedAt is the picture after the event with sequence number seq, built by a page that
// is fed the run's events up to it and no further: Go's account of what the page must show.
func expectedAt(evs []trace.Event, seq uint64) map[string]string {
	p := explain.NewPage(explain.PageOptions{})
	for i := range evs {
		p.Record(&evs[i])
		if evs[i].Seq == seq {
			break
		}
	}
	return p.Current()
}

// checkShown compares what the page shows with the Go-built page's step k and the picture
// the events up to that step build.
func checkShown(t *testing.T, when string, got shown, p *explain.Page, k int, evs []trace.Event) {
	t.Helper()
	s := p.Steps[k]
	if got.Step != k || got.Seq != fmt.Sprint(s.Seq) || got.Text != s.Text {
		t.Errorf("%s: the page shows step %d (seq %s, %q), want step %d (seq %d, %q)", when, got.Step, got.Seq, got.Text, k, s.Seq, s.Text)
	}
	if want := strings.Join(s.Lines, "\n"); got.Lines != want {
		t.Errorf("%s: transcript lines shown %q, want %q", when, got.Lines, want)
	}
	if got.Why != s.Why {
		t.Errorf("%s: why shown %q, want %q", when, got.Why, s.Why)
	}
	if s.Up >= 0 && got.Up != p.Upstream[s.Up].URL {
		t.Errorf("%s: upstream link %q, want %q", when, got.Up, p.Upstream[s.Up].URL)
	}
	want := expectedAt(evs, s.Seq)
	placed := map[string]bool{}
	for _, kv := range got.Keys {
		placed[kv[0]] = true
		if kv[1] != want[kv[0]] {
			t.Errorf("%s: %s shows %q, the trace has %q", when, kv[0], kv[1], want[kv[0]])
		}
	}
	for k, v := range want {
		if !placed[k] {
			t.Errorf("%s: %s = %q is nowhere on the page", when, k, v)
		}
	}
}

// The page of three shipped scenarios, stepped with the keyboard: 50 steps forward, 10 back,
// then to the next syncLoopIteration. At each stop the step shown, its transcript lines, its
// why, its upstream link and every lane, channel, pod and container value must match what Go
// builds from the trace at that step; the console must stay silent.
func TestExplainPageInChromium(t *testing.T) {
	chromium := findChromium(t)
	for _, name := range []string{"crashloop", "graceful-deletion", "besteffort-evicted-first"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name+".html")
			out, errOut, code := explainCLI(t, name, "--html", path)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.HasPrefix(out, "wrote "+path) {
				t.Errorf("stdout %q", out)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Size() > 3<<20 {
				t.Errorf("page is %d bytes; a shipped scenario's page should stay under 3MiB", info.Size())
			}
			evs := pageEvents(t, name)
			p := explain.NewPage(explain.PageOptions{})
			for i := range evs {
				p.Record(&evs[i])
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if len(p.Steps) < 61 {
				t.Fatalf("only %d steps", len(p.Steps))
			}

			d := startDevtools(t, chromium)
			d.open("file://"+path, 1500, 1300)
			var ready string
			d.eval(`document.body.dataset.ready || ""`, &ready)
			if ready != "1" {
				t.Fatalf("the page's script did not finish (data-ready %q); console: %v", ready, d.consoleMessages())
			}
			got := d.shown()
			checkShown(t, "on load", got, p, 0, evs)
			if got.Lanes != len(p.Lanes) {
				t.Errorf("%d lanes drawn, the run has %d goroutines", got.Lanes, len(p.Lanes))
			}
			for i := 0; i < 50; i++ {
				d.key("ArrowRight", 39, false)
			}
			checkShown(t, "after 50 × →", d.shown(), p, 50, evs)
			d.screenshot(name + "-step50.png")
			for i := 0; i < 10; i++ {
				d.key("ArrowLeft", 37, false)
			}
			checkShown(t, "after 10 × ←", d.shown(), p, 40, evs)
			// A click on the strip's column of step 38 goes there.
			d.eval(`(function(){var c=document.querySelector('rect.col[data-step="38"]'); if (!c) return -1; c.dispatchEvent(new MouseEvent("click", {bubbles: true})); return 0})()`, new(int))
			checkShown(t, "after a click on step 38's column", d.shown(), p, 38, evs)
			d.key("ArrowRight", 39, false)
			d.key("ArrowRight", 39, false)
			checkShown(t, "after 2 × → from there", d.shown(), p, 40, evs)
			next := -1
			for k := 41; k < len(p.Steps); k++ {
				if p.Steps[k].Iter {
					next = k
					break
				}
			}
			if next > 0 {
				d.key("]", 221, false)
				checkShown(t, "after ]", d.shown(), p, next, evs)
			}
			// Play for a while at 5 steps a second, then pause: the page moved on and stays put,
			// and what it shows is still the trace's state at the step it stopped on.
			// (Polled rather than timed: on a busy machine the page's timer may fire late.)
			before := d.shown().Step
			d.key(" ", 32, false)
			for deadline := time.Now().Add(30 * time.Second); d.shown().Step == before; {
				if time.Now().After(deadline) {
					t.Fatalf("play did not move from step %d in 30s", before)
				}
				time.Sleep(200 * time.Millisecond)
			}
			d.key(" ", 32, false)
			paused := d.shown()
			time.Sleep(600 * time.Millisecond)
			if again := d.shown(); again.Step != paused.Step {
				t.Errorf("pause did not hold: step %d, then %d", paused.Step, again.Step)
			}
			checkShown(t, "after play and pause", paused, p, paused.Step, evs)

			// Jump to a time: t focuses the field, Enter jumps to the first step at or after it.
			typed := fmt.Sprintf("%.3f", p.Steps[len(p.Steps)/2].T)
			at, _ := strconv.ParseFloat(typed, 64)
			d.key("t", 84, false)
			d.send(d.session, "Input.insertText", map[string]any{"text": typed + "s"})
			d.key("Enter", 13, false)
			want := -1
			for k, s := range p.Steps {
				if s.T >= at {
					want = k
					break
				}
			}
			d.eval(`document.activeElement.blur(), 0`, new(int))
			checkShown(t, fmt.Sprintf("after jumping to %.3fs", at), d.shown(), p, want, evs)

			// With a pod chosen, stepping visits only the steps that name it (and those that
			// frame the run), as explain --pod keeps them.
			pod := p.Pods[len(p.Pods)-1]
			d.eval(fmt.Sprintf(`(function(){var s=document.getElementById("pod"); s.value=%q; s.dispatchEvent(new Event("change")); return 0})()`, pod), new(int))
			k := want
			for i := 0; i < 5; i++ {
				d.key("ArrowRight", 39, false)
				for n := k + 1; n < len(p.Steps); n++ {
					if namesPod(p, p.Steps[n], pod) {
						k = n
						break
					}
				}
			}
			checkShown(t, "after 5 × → with --pod "+pod, d.shown(), p, k, evs)

			// With only the workers category, Home goes to the first step the filter keeps
			// and → to the next ones, as explain --only workers keeps them.
			d.eval(`(function(){document.getElementById("pod").value=""; document.querySelectorAll("#cats input").forEach(function(b){b.checked = b.dataset.cat === "5"; b.dispatchEvent(new Event("change"))}); return 0})()`, new(int))
			if explain.Categories()[5] != explain.Workers {
				t.Fatalf("category 5 is %s, not workers", explain.Categories()[5])
			}
			keep := func(s explain.PageStep) bool { return s.Cat == -1 || s.Cat == 5 }
			k = -1
			for n := range p.Steps {
				if keep(p.Steps[n]) {
					k = n
					break
				}
			}
			d.key("Home", 36, false)
			for i := 0; i < 3; i++ {
				d.key("ArrowRight", 39, false)
				for n := k + 1; n < len(p.Steps); n++ {
					if keep(p.Steps[n]) {
						k = n
						break
					}
				}
			}
			checkShown(t, "after Home and 3 × → with --only workers", d.shown(), p, k, evs)
			d.screenshot(name + ".png")
			if msgs := d.consoleMessages(); len(msgs) > 0 {
				t.Errorf("the page wrote to the console:\n%s", strings.Join(msgs, "\n"))
			}
		})
	}
}

// The console check of these tests catches what it must: a script error and console.error.
func TestDevtoolsConsoleCheckCatchesErrors(t *testing.T) {
	chromium := findChromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><script>console.error("boom"); notDefined();</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startDevtools(t, chromium)
	d.open("file://"+page, 400, 300)
	all := strings.Join(d.consoleMessages(), "\n")
	for _, want := range []string{"boom", "notDefined"} {
		if !strings.Contains(all, want) {
			t.Errorf("console check missed %q; it saw:\n%s", want, all)
		}
	}
}

// namesPod is the page's pod filter: a step naming the pod, or one that frames the run.
func namesPod(p *explain.Page, s explain.PageStep, pod string) bool {
	if len(s.Pods) == 0 {
		return s.Cat == -1
	}
	for _, i := range s.Pods {
		if p.Pods[i] == pod {
			return true
		}
	}
	return false
}

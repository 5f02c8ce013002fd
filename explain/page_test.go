package explain

import (
	"bytes"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"nodesim/engine"
	"nodesim/scenarios"
	"nodesim/trace"
)

// events runs a built-in scenario with its own seed and returns its trace.
func events(t *testing.T, name string) []trace.Event {
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

func buildPage(t *testing.T, evs []trace.Event, o PageOptions) *Page {
	t.Helper()
	p := NewPage(o)
	for i := range evs {
		p.Record(&evs[i])
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// stepAt returns the index of the first step of kind (and name, when given) at or after at.
func stepAt(t *testing.T, p *Page, at float64, kind, name string) int {
	t.Helper()
	for i, s := range p.Steps {
		if s.T >= at && s.Kind == kind && (name == "" || strings.Contains(s.Text, name)) {
			return i
		}
	}
	t.Fatalf("no %s %s step at or after %gs", kind, name, at)
	return -1
}

// The picture a page replays at a step equals the one the events up to that step build,
// whether steps were folded or not: a second page fed the trace only up to that step's event
// must end with the same state. This is the check the browser test makes of the script.
func TestPageReplayMatchesEvents(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
	}{{"graceful-deletion", 0}, {"crashloop", 0}, {"crashloop", 1000}, {"besteffort-evicted-first", 300}} {
		t.Run(fmt.Sprintf("%s/max%d", tc.name, tc.max), func(t *testing.T) {
			evs := events(t, tc.name)
			p := buildPage(t, evs, PageOptions{MaxSteps: tc.max})
			n := len(p.Steps)
			for _, k := range []int{0, 1, 10, 40, 50, n / 2, n - 1} {
				q := NewPage(PageOptions{MaxSteps: tc.max})
				for i := range evs {
					q.Record(&evs[i])
					if evs[i].Seq == p.Steps[k].Seq {
						break
					}
				}
				if got, want := p.StateAt(k), q.Current(); !maps.Equal(got, want) {
					t.Errorf("step %d (seq %d): replayed picture differs from the events' picture\nreplayed: %v\nevents:   %v", k, p.Steps[k].Seq, got, want)
				}
			}
		})
	}
}

// The picture at known steps of graceful-deletion, from the values the trace records there:
// the pod is created at 0s, RunPodSandbox takes 300ms from 0s, the deletion at 60s has a 30s
// grace period, the preStop hook (3s) and SIGTERM make the process exit at 68s with 143
// (128 + SIGTERM's 15), and the status manager then sets the pod Failed.
func TestPageStateGracefulDeletion(t *testing.T) {
	p := buildPage(t, events(t, "graceful-deletion"), PageOptions{})
	if p.Thinned() || len(p.Notes) != 0 {
		t.Errorf("a short run was thinned: %v", p.Notes)
	}
	const web, worker = "default/web", "podWorker default/web"
	sandbox := stepAt(t, p, 0, "criCall", "RunPodSandbox")
	st := p.StateAt(sandbox)
	if got, want := st["B|"+worker], "CRI RunPodSandbox default/web until 300ms"; got != want {
		t.Errorf("during RunPodSandbox: B = %q, want %q (0s + 300ms)", got, want)
	}
	if got := st["A|"+web]; got != "created" {
		t.Errorf("A = %q, want created", got)
	}
	if got := st["S|"+worker]; got != "syncing" {
		t.Errorf("worker state = %q, want syncing", got)
	}
	create := stepAt(t, p, 0.3, "criCall", "CreateContainer")
	if got, want := p.StateAt(create)["B|"+worker], "CRI CreateContainer default/web nginx until 350ms"; got != want {
		t.Errorf("B = %q, want %q (0.3s + 50ms, the sandbox's span replaced)", got, want)
	}
	running := stepAt(t, p, 0.45, "containerRunning", "")
	if got := p.StateAt(running)["R|"+web+"|nginx"]; got != "running (attempt 0)" {
		t.Errorf("runtime state = %q", got)
	}
	del := stepAt(t, p, 60, "apiDelete", "")
	if got := p.StateAt(del)["A|"+web]; got != "deleting, grace 30s" {
		t.Errorf("after the deletion A = %q", got)
	}
	exit := stepAt(t, p, 68, "containerExited", "")
	st = p.StateAt(exit)
	if got := st["R|"+web+"|nginx"]; got != "exited, code 143 (Error)" {
		t.Errorf("runtime state at the exit = %q", got)
	}
	if got := st["P|"+web]; got != "Running" {
		t.Errorf("the kubelet still reports Running until it learns of the exit; phase = %q", got)
	}
	failed := stepAt(t, p, 68, "setPodStatus", "phase=Failed")
	st = p.StateAt(failed)
	if got := st["P|"+web]; got != "Failed" {
		t.Errorf("phase = %q, want Failed", got)
	}
	if got, want := st["K|"+web+"|nginx"], "state=terminated:Error:143 restarts=0 ready=false"; got != want {
		t.Errorf("kubelet's container state = %q, want %q", got, want)
	}
	removed := stepAt(t, p, 69, "apiRemoved", "")
	if got := p.StateAt(removed)["A|"+web]; got != "removed" {
		t.Errorf("A = %q, want removed", got)
	}
}

// A message waits in its channel from its send to its receive: the pod's ADD on configCh at
// 0s, and the two ContainerStarted events PLEG sends at 0.454s, which the syncLoop takes one
// per iteration.
func TestPageChannels(t *testing.T) {
	p := buildPage(t, events(t, "crashloop"), PageOptions{})
	var sends, recvs []int
	for i, s := range p.Steps {
		if s.T < 0.4 || s.T > 0.5 || s.Chan < 0 || p.Channels[s.Chan] != chanPLEG {
			continue
		}
		switch s.Kind {
		case "send":
			sends = append(sends, i)
		case "recv":
			recvs = append(recvs, i)
		}
	}
	if len(sends) != 2 || len(recvs) != 2 {
		t.Fatalf("plegCh at 0.454s: %d sends and %d receives, want 2 and 2", len(sends), len(recvs))
	}
	// PLEG records what it sent in the event after the send, so the second message is named
	// one step after it enters the channel.
	if got, want := p.StateAt(sends[1])["C|plegCh"], "ContainerStarted default/crashy (sb-000001)\nfrom pleg"; got != want {
		t.Errorf("right after the second send plegCh holds %q, want %q", got, want)
	}
	if got, want := p.StateAt(sends[1] + 1)["C|plegCh"], "ContainerStarted default/crashy (sb-000001)\nContainerStarted default/crashy (c-000002)"; got != want {
		t.Errorf("after both sends and their events plegCh holds %q, want %q", got, want)
	}
	if got, want := p.StateAt(recvs[0])["C|plegCh"], "ContainerStarted default/crashy (c-000002)"; got != want {
		t.Errorf("after the first receive plegCh holds %q, want %q", got, want)
	}
	if got := p.StateAt(recvs[1])["C|plegCh"]; got != "" {
		t.Errorf("after the second receive plegCh holds %q, want nothing", got)
	}
	// configCh is sent on by the podConfig mux alone (its goroutine "config"), whatever
	// the source: the kubelet's start, the scenario's API changes and the status manager's
	// patches coming back through the watch; plegCh by PLEG alone.
	if got := strings.Join(p.Senders(chanConfig), ","); got != "config" {
		t.Errorf("configCh senders %s", got)
	}
	if got := strings.Join(p.Senders(chanPLEG), ","); got != "pleg" {
		t.Errorf("plegCh senders %s", got)
	}
	add := stepAt(t, p, 0, "send", "configCh")
	if got := p.StateAt(add)["C|configCh"]; got != "ADD default/crashy" {
		t.Errorf("configCh after the create = %q, want ADD default/crashy", got)
	}
}

// Each step carries the transcript lines it printed and the reason the model recorded, and
// links to the upstream function.
func TestPageLinesWhyAndLinks(t *testing.T) {
	p := buildPage(t, events(t, "crashloop"), PageOptions{})
	h := stepAt(t, p, 0, "handler", "HandlePodAdditions")
	if got := strings.Join(p.Steps[h].Lines, "\n"); !strings.Contains(got, "↳ HandlePodAdditions default/crashy (configCh ADD)") {
		t.Errorf("HandlePodAdditions step lines = %q", got)
	}
	if u := p.Upstream[p.Steps[h].Up]; u.URL != upstreamBase+"pkg/kubelet/kubelet.go#L2883" || u.Func != "HandlePodAdditions" {
		t.Errorf("HandlePodAdditions links to %+v", u)
	}
	a := stepAt(t, p, 0, "computePodActions", "")
	s := p.Steps[a]
	if !strings.HasPrefix(s.Why, "computePodActions asks for killPod") {
		t.Errorf("computePodActions why = %q", s.Why)
	}
	if len(s.Lines) != 2 || !strings.HasPrefix(s.Lines[1], "why: computePodActions asks for killPod") {
		t.Errorf("computePodActions lines = %q, want its line and its why", s.Lines)
	}
	sel := stepAt(t, p, 0, "select", "configCh")
	if !p.Steps[sel].Iter {
		t.Error("a syncLoop select is not marked as an iteration")
	}
	exit := stepAt(t, p, 5, "containerExited", "")
	if p.Steps[exit].Up != -1 {
		t.Errorf("the runtime's exit links to %v; no kubelet function does it", p.Upstream[p.Steps[exit].Up])
	}
	// Every transcript line is on some step: the page drops none of them.
	var b bytes.Buffer
	tr := New(&b, Options{})
	evs := events(t, "graceful-deletion")
	for i := range evs {
		tr.Record(&evs[i])
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	want := len(body(b.String()))
	q := buildPage(t, evs, PageOptions{})
	got := 0
	for _, s := range q.Steps {
		got += len(s.Lines)
	}
	if got != want {
		t.Errorf("the page holds %d transcript lines, the transcript has %d", got, want)
	}
}

// Thinning folds quiet steps into the next step that says something and says so; past the
// bound again the page stops with a note. Every event is either a step or folded into one.
func TestPageThinningAndCut(t *testing.T) {
	evs := events(t, "crashloop")
	p := buildPage(t, evs, PageOptions{MaxSteps: 2000})
	if !p.Thinned() || len(p.Notes) != 1 || !strings.HasPrefix(p.Notes[0], "Thinned:") {
		t.Fatalf("notes = %q", p.Notes)
	}
	events, folded := 0, 0
	for _, s := range p.Steps {
		if s.quiet {
			t.Fatalf("quiet step left after thinning: %s", s.Text)
		}
		events++
		folded += s.Folded
	}
	// The run's last events (the final relists and ticks after the last step that said
	// something) have no step to fold into.
	if events+folded > p.Events || events+folded < p.Events-50 {
		t.Errorf("%d steps + %d folded, %d events in the window", events, folded, p.Events)
	}
	if !maps.Equal(p.StateAt(len(p.Steps)-1), stateAtSeq(evs, p.Steps[len(p.Steps)-1].Seq)) {
		t.Error("thinned page's last picture differs from the events'")
	}
	// Thinned while the run goes (past twice the bound, 2000 steps here) rather than at
	// its end: no transcript line is lost or moved out of order either way.
	var b bytes.Buffer
	tr := New(&b, Options{})
	for i := range evs {
		tr.Record(&evs[i])
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	want := body(b.String())
	for _, max := range []int{1000, 2000, 5000} {
		q := buildPage(t, evs, PageOptions{MaxSteps: max})
		var got []string
		for _, s := range q.Steps {
			got = append(got, s.Lines...)
		}
		if len(got) != len(want) {
			t.Errorf("max %d: %d transcript lines on the page, the transcript has %d", max, len(got), len(want))
			continue
		}
		for i := range got {
			if strings.TrimSpace(want[i]) != got[i] {
				t.Errorf("max %d: line %d is %q on the page, %q in the transcript", max, i, got[i], want[i])
				break
			}
		}
	}
	c := buildPage(t, evs, PageOptions{MaxSteps: 100})
	if len(c.Steps) != 100 || !strings.Contains(strings.Join(c.Notes, " "), "The page stops at") {
		t.Errorf("cut page: %d steps, notes %q", len(c.Steps), c.Notes)
	}
}

func stateAtSeq(evs []trace.Event, seq uint64) map[string]string {
	q := NewPage(PageOptions{})
	for i := range evs {
		q.Record(&evs[i])
		if evs[i].Seq == seq {
			break
		}
	}
	return q.Current()
}

// --from/--to: the steps lie in the window and the page starts from the picture the events
// before it built (the pod is Running at 60s, before its deletion).
func TestPageWindow(t *testing.T) {
	evs := events(t, "graceful-deletion")
	p := buildPage(t, evs, PageOptions{From: 60 * time.Second, To: 70 * time.Second})
	if len(p.Steps) == 0 {
		t.Fatal("no steps")
	}
	for _, s := range p.Steps {
		if s.T < 60 || s.T > 70 {
			t.Fatalf("step at %gs outside 60s..70s", s.T)
		}
	}
	init := p.StateAt(-1)
	if init["P|default/web"] != "Running" || init["A|default/web"] != "created" {
		t.Errorf("picture at 60s: phase %q, API %q", init["P|default/web"], init["A|default/web"])
	}
	if p.Steps[0].Kind != "scenarioEvent" && p.Steps[0].T != 60 {
		t.Errorf("first step %s at %g", p.Steps[0].Text, p.Steps[0].T)
	}
}

// The same run gives the same page, byte for byte; the data cannot close its script
// element whatever a pod's name holds.
func TestPageHTMLDeterministic(t *testing.T) {
	evs := events(t, "graceful-deletion")
	var a, b bytes.Buffer
	for _, w := range []*bytes.Buffer{&a, &b} {
		p := buildPage(t, evs, PageOptions{Title: "nodesim explain graceful-deletion --html x.html"})
		if err := p.WriteHTML(w); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two pages of the same run differ")
	}
	hostile := []trace.Event{{At: 0, Seq: 1, Track: "apiserver", Kind: kindAPICreate, Pod: "default/</script><script>alert(1)</script>"}}
	p := buildPage(t, hostile, PageOptions{})
	var h bytes.Buffer
	if err := p.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h.String(), "</script>"); n != 2 {
		t.Errorf("page has %d </script>, want 2 (the data's and the script's)", n)
	}
	for _, fetch := range []string{`src="http`, `href="http`, "url(http", "@import", "fetch(", "XMLHttpRequest"} {
		if strings.Contains(h.String(), fetch) {
			t.Errorf("the page fetches something: it contains %q", fetch)
		}
	}
	if !strings.Contains(h.String(), `content="default-src 'none'`) {
		t.Error("the page lacks its Content-Security-Policy")
	}
}

// The largest shipped scenario (150 pods) keeps a page of a few MB: a channel lists at most
// eight of its waiting messages, so a long queue does not grow the page with its square.
func TestPageSizeOfTheLargestScenario(t *testing.T) {
	p := buildPage(t, events(t, "max-pods-250"), PageOptions{})
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 3<<20 {
		t.Errorf("max-pods-250's page is %d bytes, want under 3MiB", b.Len())
	}
	longest := 0
	for _, s := range p.Steps {
		for _, kv := range s.Set {
			if strings.HasPrefix(kv[0], "C|") {
				longest = max(longest, strings.Count(kv[1], "\n")+1)
			}
		}
	}
	// Eight messages and the "… and N more" line.
	if longest != maxShownMessages+1 {
		t.Errorf("longest channel listing has %d lines, want %d", longest, maxShownMessages+1)
	}
}

// A kubelet restart ends the old process's goroutines: at the restart (300s) the pod
// workers have no state until the new syncLoop creates them again, while the runtime's
// containers go on running.
func TestPageKubeletRestart(t *testing.T) {
	p := buildPage(t, events(t, "kubelet-restart"), PageOptions{})
	r := stepAt(t, p, 300, "scenarioEvent", "restartKubelet")
	before, at := p.StateAt(r-1), p.StateAt(r)
	if before["S|podWorker default/web-0"] != "syncing" {
		t.Fatalf("before the restart web-0's worker is %q, want syncing", before["S|podWorker default/web-0"])
	}
	if got := at["S|podWorker default/web-0"]; got != "" {
		t.Errorf("at the restart web-0's worker is %q, want none", got)
	}
	if got := at["R|default/web-0|nginx"]; !strings.HasPrefix(got, "running") {
		t.Errorf("at the restart the runtime's web-0 nginx is %q, want running", got)
	}
	again := stepAt(t, p, 300, "workerState", "web-0")
	if got := p.StateAt(again)["S|podWorker default/web-0"]; got != "syncing" {
		t.Errorf("after the new worker starts: %q, want syncing", got)
	}
	if !maps.Equal(p.StateAt(again), stateAtSeq(events(t, "kubelet-restart"), p.Steps[again].Seq)) {
		t.Error("replayed picture after the restart differs from the events'")
	}
}

// A prober worker's message names its result whichever it records first: the initial
// Success (10.339s: sent, then recorded) and the third failure at 150.339s (recorded with
// changed=true, then sent: failureThreshold 3 × periodSeconds 10 after the first failure at
// 130.339s).
func TestPageProbeMessages(t *testing.T) {
	p := buildPage(t, events(t, "liveness-restart"), PageOptions{})
	first := stepAt(t, p, 10, "probeResult", "liveness")
	if got := p.StateAt(first)["C|livenessCh"]; got != "liveness default/api/server success" {
		t.Errorf("after the first probe: %q", got)
	}
	fail := stepAt(t, p, 150, "send", "livenessCh")
	if p.Steps[fail].T != 150.33944 {
		t.Fatalf("the failure is sent at %gs, want 150.33944s", p.Steps[fail].T)
	}
	st := p.StateAt(fail)
	if got := st["C|livenessCh"]; got != "liveness default/api/server failure" {
		t.Errorf("at the failure's send: %q", got)
	}
	if got := st["S|prober default/api/server/liveness"]; got != "liveness failure (3 in a row)" {
		t.Errorf("prober state: %q", got)
	}
	if p.Upstream[p.Steps[fail].Up].Func != "doProbe" {
		t.Errorf("the probe's send links to %v", p.Upstream[p.Steps[fail].Up])
	}
}

// Every transcript line lands on a step of its own time and goroutine; a summary of quiet
// steps goes just before the first line of the step that ended the stretch; why: lines
// follow the line they explain; the --to note closes the last step.
func TestPageLinesLandOnTheirSteps(t *testing.T) {
	for _, name := range []string{"graceful-deletion", "crashloop", "liveness-restart"} {
		p := buildPage(t, events(t, name), PageOptions{MaxSteps: 100000})
		for _, s := range p.Steps {
			for i, l := range s.Lines {
				when, rest, _ := strings.Cut(l, "  ")
				switch {
				case strings.HasPrefix(l, "why: "):
					if i == 0 {
						t.Errorf("%s: a why: opens step %s %s", name, at(s.at), s.Kind)
					}
				case strings.HasPrefix(strings.TrimSpace(rest), "…"):
					if i == len(s.Lines)-1 && s.Seq != p.Steps[len(p.Steps)-1].Seq {
						t.Errorf("%s: quiet summary %q ends step %s %s instead of preceding its line", name, l, at(s.at), s.Kind)
					}
				case strings.HasPrefix(when, "-") && strings.HasPrefix(rest, "syncLoop") &&
					(strings.Contains(rest, " selects on ") || strings.Contains(rest, " (holds ")):
					// The select's channels, recorded as the syncLoop started before time
					// zero: the transcript prints them before its first step, and the page
					// shows them with that step.
				case when != at(s.at) || !strings.HasPrefix(rest, s.track):
					t.Errorf("%s: line %q on step %s %s [%s]", name, l, at(s.at), s.track, s.Kind)
				}
			}
		}
	}
	p := buildPage(t, events(t, "crashloop"), PageOptions{To: 30 * time.Second})
	last := p.Steps[len(p.Steps)-1]
	if got := last.Lines[len(last.Lines)-1]; got != "(--to 30s: the transcript stops here; the run went on)" {
		t.Errorf("last line %q", got)
	}
}

// --boot keeps the kubelet's start: the page opens on an empty picture at the first event
// (-1s, podConfig's first merge) and its first steps lie before time zero.
func TestPageBoot(t *testing.T) {
	evs := events(t, "graceful-deletion")
	p := buildPage(t, evs, PageOptions{Boot: true})
	if len(p.Init) != 0 {
		t.Errorf("a page from the boot opens on %v, want nothing", p.Init)
	}
	if p.Steps[0].T != -1 || p.Steps[0].Seq != 1 {
		t.Errorf("first step at %gs (seq %d), want the first event at -1s", p.Steps[0].T, p.Steps[0].Seq)
	}
	if p.Events != len(evs) {
		t.Errorf("%d events in the page, the run has %d", p.Events, len(evs))
	}
	q := buildPage(t, evs, PageOptions{})
	if q.Steps[0].T < 0 || q.Events >= len(evs) {
		t.Errorf("without --boot the page starts at %gs with %d of %d events", q.Steps[0].T, q.Events, len(evs))
	}
}

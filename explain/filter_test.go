package explain

import (
	"strings"
	"testing"
	"time"

	"nodesim/trace"
)

// A small trace: two pods dispatched by the syncLoop at 1s and 2s, idle ticks between,
// a relist for each pod.
func twoPods() []trace.Event {
	s := time.Second
	return []trace.Event{
		ev(0, "scenario", kindRunStart, "", "", "scenario=two", "seed=1"),
		// an idle tick
		{At: 500 * time.Millisecond, Track: "syncLoop", Kind: trace.Select, Name: chanSync, Ready: []string{chanSync}, Attrs: []trace.Attr{{Key: "select", Value: selectSyncLoop}}},
		// a relist with one event for a, sent on plegCh
		{At: s, Track: "pleg", Kind: trace.Send, Name: chanPLEG, Flow: 7},
		ev(s, "pleg", kindPLEGEvent, "ContainerDied", "default/a", "type=ContainerDied", "id=c-1"),
		ev(s, "pleg", kindRelist, "relist", "", "pods=1", "events=1", "dropped=0"),
		// the syncLoop takes it and dispatches a
		{At: s, Track: "syncLoop", Kind: trace.Select, Name: chanPLEG, Ready: []string{chanPLEG}, Attrs: []trace.Attr{{Key: "select", Value: selectSyncLoop}}},
		{At: s, Track: "syncLoop", Kind: trace.Recv, Name: chanPLEG, Flow: 7},
		ev(s, "syncLoop", kindHandler, "HandlePodSyncs", "default/a", "pods=default/a", "cause=plegCh ContainerDied"),
		ev(s, "podWorker default/a", kindUpdatePod, "sync", "default/a"),
		ev(s, "podWorker default/a", kindSyncStart, "SyncPod", "default/a", "update=sync"),
		ev(s, "podWorker default/a", kindPodActions, "", "default/a", "actions=start app"),
		// b, at 2s, by the sync tick
		{At: 2 * s, Track: "syncLoop", Kind: trace.Select, Name: chanSync, Ready: []string{chanSync, chanHousekeeping}, Attrs: []trace.Attr{{Key: "select", Value: selectSyncLoop}}},
		ev(2*s, "syncLoop", kindHandler, "HandlePodSyncs", "default/b", "pods=default/b", "cause=syncCh"),
		ev(2*s, "podWorker default/b", kindUpdatePod, "sync", "default/b"),
		{At: 2 * s, Track: "podWorker default/a", Kind: kindCRICall, Name: "StartContainer", Pod: "default/a", Container: "app", Dur: 100 * time.Millisecond},
		ev(3*s, "scenario", kindRunEnd, "", "", "reason=duration reached"),
	}
}

func TestFilterPodKeepsItsDispatchers(t *testing.T) {
	out := transcript(t, Options{Pod: "default/a"}, twoPods())
	for _, want := range []string{
		"run starts",
		"relist: 1 pod inspected, ContainerDied default/a c-1 → plegCh",
		"syncLoopIteration: ready [plegCh] → chose plegCh",
		"↳ HandlePodSyncs default/a (plegCh ContainerDied)",
		"↳ UpdatePod default/a (sync)",
		"computePodActions: start app",
		"CRI StartContainer app (100ms)",
		"run ends",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, no := range []string{"default/b", "nothing new", "syncCh tick"} {
		if strings.Contains(out, no) {
			t.Errorf("--pod default/a shows %q:\n%s", no, out)
		}
	}
}

func TestFilterWindow(t *testing.T) {
	out := transcript(t, Options{From: 1500 * time.Millisecond, To: 2500 * time.Millisecond}, twoPods())
	lines := body(out)
	if !strings.Contains(out, "HandlePodSyncs default/b") || strings.Contains(out, "default/a (plegCh") {
		t.Errorf("window 1.5s-2.5s:\n%s", out)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "--to 2.5s") {
		t.Errorf("the transcript should say where --to cut it, ends with %q", last)
	}
	if strings.Contains(out, "run ends") {
		t.Errorf("a step after --to is shown:\n%s", out)
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == "1s" || strings.HasSuffix(f[0], "ms")) {
			t.Errorf("a step before --from is shown: %q", l)
		}
	}
}

func TestFilterOnly(t *testing.T) {
	out := transcript(t, Options{Only: map[Category]bool{CRI: true, PLEG: true}}, twoPods())
	if !strings.Contains(out, "CRI StartContainer") || !strings.Contains(out, "relist:") {
		t.Errorf("--only cri,pleg lost its lines:\n%s", out)
	}
	for _, no := range []string{"HandlePodSyncs", "syncLoopIteration", "computePodActions", "UpdatePod", "syncCh tick"} {
		if strings.Contains(out, no) {
			t.Errorf("--only cri,pleg shows %q:\n%s", no, out)
		}
	}
	if !strings.Contains(out, "run starts") {
		t.Error("the run's frame should show whatever --only says")
	}
}

// Idle ticks are summarised in one line, with a count, before the next step.
func TestQuietStretch(t *testing.T) {
	var events []trace.Event
	for i := 1; i <= 12; i++ {
		events = append(events, trace.Event{At: time.Duration(i) * time.Second, Track: "syncLoop", Kind: trace.Select,
			Name: chanSync, Ready: []string{chanSync}, Attrs: []trace.Attr{{Key: "select", Value: selectSyncLoop}}})
		events = append(events, ev(time.Duration(i)*time.Second+time.Millisecond, "pleg", kindRelist, "relist", "", "pods=0", "events=0", "dropped=0"))
	}
	events = append(events, ev(13*time.Second, "scenario", kindRunEnd, "", "", "reason=duration reached"))
	lines := body(transcript(t, Options{}, events))
	if len(lines) != 2 {
		t.Fatalf("want one quiet line and the end, got\n%s", strings.Join(lines, "\n"))
	}
	if want := "until 12.001s: nothing new from 12 syncCh ticks, 12 relists"; !strings.Contains(lines[0], want) {
		t.Errorf("quiet line %q, want %q", lines[0], want)
	}
}

func TestParseCategories(t *testing.T) {
	got, err := ParseCategories("PLEG, sync,,cri")
	if err != nil || len(got) != 3 || !got[PLEG] || !got[Sync] || !got[CRI] {
		t.Fatalf("got %v, %v", got, err)
	}
	if (Options{Only: got}).OnlyString() != "pleg,sync,cri" {
		t.Errorf("OnlyString %q", Options{Only: got}.OnlyString())
	}
	for _, bad := range []string{"plg", "", " , "} {
		if _, err := ParseCategories(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	if _, err := ParseCategories("plg"); !strings.Contains(err.Error(), "config, pleg, sync") {
		t.Errorf("the error should list the categories: %v", err)
	}
}

// A child line whose parent the filters hide moves to the margin.
func TestFilteredChildMovesUp(t *testing.T) {
	out := transcript(t, Options{Only: map[Category]bool{Workers: true}}, twoPods())
	for _, l := range body(out) {
		if strings.Contains(l, "↳") {
			t.Errorf("--only workers hides the handlers, yet %q points at one", l)
		}
	}
}

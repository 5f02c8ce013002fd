package explain

import (
	"strings"
	"testing"
	"time"

	"nodesim/trace"
)

// resyncRound is a worker that synced at 1s and is due again at 61s, then the syncCh tick
// that finds it due; actions is what computePodActions finds then. A housekeeping pass
// runs at the same instant, between the dispatch and the worker's round, as the syncLoop
// serves every ready case before the worker runs.
func resyncRound(actions string) []trace.Event {
	s, w, p := time.Second, "podWorker default/a", "default/a"
	sel := func(at time.Duration, ch string) trace.Event {
		return trace.Event{At: at, Track: "syncLoop", Kind: trace.Select, Name: ch, Ready: []string{ch}, Attrs: []trace.Attr{{Key: "select", Value: selectSyncLoop}}}
	}
	return []trace.Event{
		ev(s, w, kindWorkerState, "syncing", p, "reason=created"),
		ev(s, w, kindSyncStart, "SyncPod", p, "update=create"),
		ev(s, w, kindSyncEnd, "SyncPod", p, "duration=0s"),
		ev(s, w, kindRequeue, "resync", p, "after=1m0s"),
		sel(61*s, chanSync),
		ev(61*s, "syncLoop", kindHandler, "HandlePodSyncs", p, "pods="+p, "cause=syncCh"),
		ev(61*s, w, kindUpdatePod, "sync", p),
		sel(61*s, chanHousekeeping),
		ev(61*s, "syncLoop", kindHousekeeping, "HandlePodCleanups", "", "killed=0", "orphans=0", "restarted=0"),
		ev(61*s, w, kindSyncStart, "SyncPod", p, "update=sync"),
		ev(61*s, w, kindPodActions, "", p, "actions="+actions),
		ev(61*s, w, kindSyncEnd, "SyncPod", p, "duration=0s"),
		ev(61*s, w, kindRequeue, "resync", p, "after=1m10s"),
		ev(62*s, "scenario", kindRunEnd, "", "", "reason=duration reached"),
	}
}

func TestResyncThatChangesNothingIsCounted(t *testing.T) {
	out := transcript(t, Options{}, resyncRound("none"))
	if strings.Contains(out, "HandlePodSyncs") || strings.Contains(out, "1m1s  podWorker") {
		t.Errorf("a no-op resync printed in full:\n%s", out)
	}
	if !strings.Contains(out, "nothing new from 1 pod resync, 1 housekeeping pass") {
		t.Errorf("the quiet line should count the resync:\n%s", out)
	}
}

func TestResyncThatActsPrintsInFull(t *testing.T) {
	out := transcript(t, Options{}, resyncRound("start app"))
	want := []string{
		"syncLoopIteration: ready [syncCh] → chose syncCh",
		"↳ HandlePodSyncs default/a (syncCh: getPodsToSync, due at 1m1s for resync)",
		"↳ UpdatePod default/a (sync)",
		"nothing new from 1 housekeeping pass",
		"SyncPod (update=sync) …",
		"computePodActions: start app",
		"… SyncPod done in 0s; next resync in 1m10s",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("missing %q (in this order) in\n%s", w, out)
		}
		at += i + len(w)
	}
}

// With --pod, the pod's every round shows.
func TestResyncShownForItsPod(t *testing.T) {
	out := transcript(t, Options{Pod: "default/a"}, resyncRound("none"))
	if !strings.Contains(out, "computePodActions: nothing to do") {
		t.Errorf("--pod should show the resync:\n%s", out)
	}
}

func TestDroppedPLEGEvent(t *testing.T) {
	s := time.Second
	out := transcript(t, Options{}, []trace.Event{
		{At: s, Track: "pleg", Kind: trace.Drop, Name: chanPLEG, Reason: trace.Because("nonBlockingSend", "plegCh is sent without blocking and all its 1000 slots are full: the value is lost")},
		ev(s, "pleg", kindPLEGEvent, "ContainerDied", "default/a", "type=ContainerDied", "id=sb-1", "dropped=true"),
		ev(s, "pleg", kindRelist, "relist", "", "pods=1", "events=0", "dropped=1"),
	})
	if !strings.Contains(out, "relist: 1 pod inspected, ContainerDied default/a sandbox: dropped, plegCh is full") ||
		!strings.Contains(out, "why: plegCh is sent without blocking and all its 1000 slots are full") {
		t.Errorf("a dropped event should be marked and explained:\n%s", out)
	}
}

// An unknown kind still prints, with what it carries.
func TestUnknownKind(t *testing.T) {
	out := transcript(t, Options{}, []trace.Event{ev(time.Second, "newThing", "somethingNew", "n", "default/a", "k=v")})
	if !strings.Contains(out, "somethingNew n default/a k=v") {
		t.Errorf("unknown kind:\n%s", out)
	}
	if out := transcript(t, Options{Only: map[Category]bool{Sync: true}}, []trace.Event{ev(time.Second, "x", "somethingNew", "", "")}); strings.Contains(out, "somethingNew") {
		t.Errorf("--only hides kinds it does not know:\n%s", out)
	}
}

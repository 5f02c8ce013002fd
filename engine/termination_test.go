package engine

import (
	"strings"
	"testing"
	"time"

	"nodesim/trace"
)

// Latencies of the default fake runtime that end a termination: once the last container
// has stopped, StopContainer returns after 50ms, StopPodSandbox takes 100ms, and the
// kubelet reads the pod's status again (1ms for each of the sandbox and the container)
// before the worker records the pod terminated.
const (
	stopContainerLatency = 50 * time.Millisecond
	stopSandboxLatency   = 100 * time.Millisecond
	finalStatusCost      = 2 * time.Millisecond
	terminationTail      = stopContainerLatency + stopSandboxLatency + finalStatusCost
)

func all(events []trace.Event, keep func(*trace.Event) bool) []*trace.Event {
	var out []*trace.Event
	for i := range events {
		if keep(&events[i]) {
			out = append(out, &events[i])
		}
	}
	return out
}

func scenarioEvents(ev []trace.Event, name string) []*trace.Event {
	return all(ev, func(e *trace.Event) bool { return e.Kind == KindScenarioEvent && e.Name == name })
}

func terminatedAt(t *testing.T, ev []trace.Event, pod string) time.Duration {
	t.Helper()
	e := first(ev, func(e *trace.Event) bool { return e.Kind == "workerState" && e.Name == "terminated" && e.Pod == pod })
	if e == nil {
		t.Fatalf("%s never terminated", pod)
	}
	return e.At
}

func criCalls(ev []trace.Event, pod, name string) []*trace.Event {
	return all(ev, func(e *trace.Event) bool { return e.Kind == "criCall" && e.Pod == pod && e.Name == name })
}

// A force delete (gracePeriodSeconds 0): the API server writes the deletion timestamp
// with grace 0 before removing the pod; the pod worker raises 0 to 1s, killContainer
// raises 1s to its 2s minimum. The process ignores SIGTERM, so it is SIGKILLed 2s after
// the deletion: terminated at delete + 2s + 152ms, well within 3s (not the pod's 30s).
func TestForceDeleteKillsWithinThreeSeconds(t *testing.T) {
	ev := runBuiltin(t, "force-delete", nil).Trace.Events
	del := scenarioEvents(ev, "deletePod")[0]
	modified := first(ev, func(e *trace.Event) bool { return e.Kind == "apiDelete" && e.Pod == "default/web" })
	removed := first(ev, func(e *trace.Event) bool { return e.Kind == "apiRemoved" && e.Pod == "default/web" })
	if modified == nil || removed == nil || modified.Attr("gracePeriodSeconds") != "0" || removed.At != del.At {
		t.Fatalf("the API server did not write grace 0 and remove the pod at the deletion: %v %v", modified, removed)
	}
	kill := first(ev, func(e *trace.Event) bool { return e.Kind == "killing" && e.Pod == "default/web" })
	if kill == nil || kill.Attr("grace") != "1s" {
		t.Fatalf("killContainer grace %v, want the pod worker's floor of 1s", kill)
	}
	stops := criCalls(ev, "default/web", "StopContainer")
	if len(stops) != 1 || stops[0].Attr("grace") != "2s" || stops[0].At != del.At {
		t.Fatalf("StopContainer calls %v, want one with 2s at the deletion", stops)
	}
	want := del.At + 2*time.Second + terminationTail
	if got := terminatedAt(t, ev, "default/web"); got != want || got-del.At >= 3*time.Second {
		t.Errorf("terminated %s after the deletion, want %s (< 3s)", got-del.At, want-del.At)
	}
}

// A second, shorter deletion (20s, then 5s at +5s): the pod worker cancels the kill in
// flight and kills again with 5s. The new round waits for the next relist (under 1s),
// then StopContainer with 5s: SIGKILL 5s later. Terminated at that StopContainer + 5s +
// 152ms, about 10.3s after the first deletion, not 20s.
func TestShorterSecondDeletionShortensTheKillInFlight(t *testing.T) {
	ev := runBuiltin(t, "shorter-deletion", nil).Trace.Events
	dels := scenarioEvents(ev, "deletePod")
	if len(dels) != 2 {
		t.Fatalf("%d deletions", len(dels))
	}
	cancel := first(ev, func(e *trace.Event) bool { return e.Kind == "cancelSync" && e.Pod == "default/web" })
	if cancel == nil || cancel.At != dels[1].At || cancel.Name != "SyncTerminatingPod" {
		t.Fatalf("cancelSync %v, want SyncTerminatingPod cancelled at the second deletion", cancel)
	}
	stops := criCalls(ev, "default/web", "StopContainer")
	if len(stops) != 2 || stops[0].Attr("grace") != "20s" || stops[1].Attr("grace") != "5s" {
		t.Fatalf("StopContainer calls %v, want 20s then 5s", stops)
	}
	if wait := stops[1].At - dels[1].At; wait < 0 || wait >= time.Second {
		t.Errorf("second StopContainer %s after the second deletion, want within one relist period", wait)
	}
	exit := first(ev, func(e *trace.Event) bool { return e.Kind == "containerExited" && e.Pod == "default/web" })
	if exit == nil || exit.At != stops[1].At+5*time.Second || exit.Attr("exitCode") != "137" {
		t.Fatalf("exit %v, want SIGKILL 5s after the second StopContainer", exit)
	}
	want := stops[1].At + 5*time.Second + terminationTail
	got := terminatedAt(t, ev, "default/web")
	if got != want {
		t.Errorf("terminated at %s, want %s", got, want)
	}
	if got-dels[0].At >= 11*time.Second {
		t.Errorf("terminated %s after the first deletion, want under 11s", got-dels[0].At)
	}
}

// A deletion during the image pull cancels SyncPod: nothing is created or started after
// the deletion, even when the pull finishes (10s at 50Mi/s, after the deletion at 5s).
func TestDeletionDuringPullStartsNothing(t *testing.T) {
	ev := runBuiltin(t, "delete-during-pull", nil).Trace.Events
	del := scenarioEvents(ev, "deletePod")[0]
	cancel := first(ev, func(e *trace.Event) bool { return e.Kind == "cancelSync" && e.Pod == "default/web" })
	if cancel == nil || cancel.At != del.At || cancel.Name != "SyncPod" {
		t.Fatalf("cancelSync %v, want SyncPod cancelled at the deletion", cancel)
	}
	for _, call := range []string{"CreateContainer", "StartContainer"} {
		for _, e := range criCalls(ev, "default/web", call) {
			if e.At >= del.At {
				t.Errorf("%s at %s, after the deletion at %s", call, e.At, del.At)
			}
		}
	}
	if e := first(ev, func(e *trace.Event) bool { return e.Kind == "containerRunning" && e.Pod == "default/web" }); e != nil {
		t.Errorf("a container ran: %v", e)
	}
	pulled := first(ev, func(e *trace.Event) bool { return e.Kind == "imagePullFinished" })
	if pulled == nil || pulled.At <= del.At {
		t.Errorf("the pull ended at %v, want after the deletion (it is not cancelled, only its result unused)", pulled)
	}
}

// An OOM kill 20s into a 60s eviction grace period ends the termination there: the
// runtime's StopContainer returns at the exit, the pod is terminated at the OOM kill +
// 152ms with its container OOMKilled, and the eviction manager, done waiting for the kill,
// polls the cleanup once (1s) and runs its next pass then, not 40s later.
func TestOOMKillDuringEvictionGraceEndsTheTermination(t *testing.T) {
	ev := runBuiltin(t, "oom-during-eviction-grace", nil).Trace.Events
	evict := first(ev, func(e *trace.Event) bool { return e.Kind == trace.Eviction && e.Pod == "default/hog" })
	oom := first(ev, func(e *trace.Event) bool { return e.Kind == trace.OOMKill && e.Pod == "default/hog" })
	if evict == nil || oom == nil {
		t.Fatal("no eviction or no OOM kill")
	}
	// The eviction is at 69s (the soft threshold met at 39s, held for its 30s grace); the
	// ramp from 3200Mi at 59s (+10Mi/s) crosses the 3500Mi limit 30s later, at 89s: 20s
	// into the grace period, to the whole 4KiB page the kernel charges.
	if got := oom.At - evict.At; got < 20*time.Second || got >= 20*time.Second+time.Millisecond {
		t.Errorf("OOM kill %s into the grace period, want 20s", got)
	}
	term := terminatedAt(t, ev, "default/hog")
	if want := oom.At + terminationTail; term != want {
		t.Errorf("terminated at %s, want the OOM kill + 152ms = %s", term, want)
	}
	final := all(ev, func(e *trace.Event) bool { return e.Kind == "setPodStatus" && e.Pod == "default/hog" })
	if last := final[len(final)-1]; !strings.HasPrefix(last.Attr("container/app"), "state=terminated:OOMKilled:137") {
		t.Errorf("final status of app %q, want terminated OOMKilled 137", last.Attr("container/app"))
	}
	next := first(ev, func(e *trace.Event) bool {
		return e.Kind == trace.EvictionPass && e.Name == "synchronize" && e.At > evict.At
	})
	if next == nil || next.At != term+time.Second {
		t.Errorf("next eviction pass %v, want one cleanup poll (1s) after the termination at %s", next, term)
	}
}

// A kubelet restart 5s into a 20s termination: the new kubelet stops the container again
// with 20s, but the runtime keeps the original deadline. The process (30s shutdown) is
// SIGKILLed 20s after the deletion: terminated at delete + 20s + 152ms, not at the
// restart + 20s.
func TestKubeletRestartDuringTerminationKeepsTheOriginalGrace(t *testing.T) {
	ev := runBuiltin(t, "kubelet-restart-terminating", nil).Trace.Events
	del := scenarioEvents(ev, "deletePod")[0]
	restart := scenarioEvents(ev, "restartKubelet")[0]
	stops := criCalls(ev, "default/web", "StopContainer")
	if len(stops) != 2 || stops[0].At != del.At || stops[1].At <= restart.At {
		t.Fatalf("StopContainer calls %v, want one at the deletion and one from the new kubelet", stops)
	}
	exit := first(ev, func(e *trace.Event) bool { return e.Kind == "containerExited" && e.Pod == "default/web" })
	if exit == nil || exit.At != del.At+20*time.Second || exit.Attr("exitCode") != "137" {
		t.Fatalf("exit %v, want SIGKILL at the deletion + 20s", exit)
	}
	if got, want := terminatedAt(t, ev, "default/web"), del.At+20*time.Second+terminationTail; got != want {
		t.Errorf("terminated %s after the deletion, want %s", got-del.At, want-del.At)
	}
}

// A pod force-deleted as the kubelet restarts is an orphan to the new kubelet: the first
// housekeeping pass after the restart (every 2s) kills its runtime pod with grace 1
// (StopContainer with killContainer's 2s minimum); no panic, and the pod that stays keeps
// running.
func TestOrphanedRuntimePodIsKilledByHousekeeping(t *testing.T) {
	ev := runBuiltin(t, "orphaned-runtime-pod", nil).Trace.Events
	restart := scenarioEvents(ev, "restartKubelet")[0]
	hk := first(ev, func(e *trace.Event) bool {
		return e.Name == "HandlePodCleanups" && e.At > restart.At && e.Attr("orphans") == "1"
	})
	if hk == nil {
		t.Fatal("no housekeeping pass killed an orphan")
	}
	if hk.At-restart.At > 2*time.Second {
		t.Errorf("orphan found %s after the restart, want at the first housekeeping pass (2s)", hk.At-restart.At)
	}
	kill := first(ev, func(e *trace.Event) bool { return e.Kind == "killing" && e.Pod == "default/web" && e.At >= hk.At })
	if kill == nil || kill.Attr("grace") != "1s" {
		t.Fatalf("orphan kill %v, want grace 1s", kill)
	}
	stops := criCalls(ev, "default/web", "StopContainer")
	if len(stops) != 1 || stops[0].Attr("grace") != "2s" || stops[0].At != hk.At {
		t.Fatalf("StopContainer calls %v, want one with 2s at housekeeping", stops)
	}
	if got, want := terminatedAt(t, ev, "default/web"), hk.At+2*time.Second+stopContainerLatency+stopSandboxLatency; got != want {
		t.Errorf("orphan terminated at %s, want %s", got, want)
	}
	if e := first(ev, func(e *trace.Event) bool { return e.Kind == "containerExited" && e.Pod == "default/keep" }); e != nil {
		t.Errorf("the known pod's container exited: %v", e)
	}
}

// With ChangeContainerStatusOnKubeletRestart off (v1.35+), a restart keeps Started and
// Ready: no status of the pod after the restart says not ready, and the startup probe,
// which succeeded before the restart, is not run again.
func TestKubeletRestartKeepsStartedAndReady(t *testing.T) {
	ev := runBuiltin(t, "restart-keeps-ready", nil).Trace.Events
	restart := scenarioEvents(ev, "restartKubelet")[0]
	before := all(ev, func(e *trace.Event) bool {
		return e.Kind == "setPodStatus" && e.Pod == "default/legacy" && e.At < restart.At
	})
	if len(before) == 0 {
		t.Fatal("no status before the restart")
	}
	ready := before[len(before)-1]
	if !strings.Contains(ready.Attr("container/app"), "ready=true") {
		t.Fatalf("the pod was not ready before the restart: %q", ready.Attr("container/app"))
	}
	statuses := all(ev, func(e *trace.Event) bool { return e.Kind == "setPodStatus" && e.Pod == "default/legacy" })
	after := statuses[len(before)-1:] // from the last status before the restart on
	for _, e := range after {
		if !strings.Contains(e.Attr("container/app"), "state=running") || !strings.Contains(e.Attr("container/app"), "ready=true") {
			t.Errorf("%s: status %q, want running and ready throughout", e.At, e.Attr("container/app"))
		}
	}
	if last := after[len(after)-1]; last.At <= restart.At {
		t.Error("no status written after the restart")
	}
	for _, e := range all(ev, func(e *trace.Event) bool {
		return e.Kind == trace.ProbeResult && e.Name == "startup" && e.At > restart.At
	}) {
		t.Errorf("startup probe run again after the restart at %s", e.At)
	}
}

// Updating a mirror pod's labels keeps the mirror annotation: the kubelet still sees the
// mirror of its static pod, creates no second mirror pod and starts no second copy.
func TestMirrorPodUpdateKeepsOneCopy(t *testing.T) {
	ev := runBuiltin(t, "mirror-pod-update", nil).Trace.Events
	update := scenarioEvents(ev, "updatePod")[0]
	if n := len(all(ev, func(e *trace.Event) bool { return e.Kind == "containerRunning" })); n != 1 {
		t.Errorf("%d containers started, want the static pod's one", n)
	}
	for _, e := range all(ev, func(e *trace.Event) bool {
		return (e.Kind == "apiCreate" || e.Kind == "apiRemoved") && e.At >= update.At
	}) {
		t.Errorf("%s %s after the update: the mirror pod was replaced", e.Kind, e.Pod)
	}
}

// An init container failing in a restartPolicy Never pod: the pod is Failed and its
// regular container, which never ran, stays waiting PodInitializing in the final status
// (TerminatePod marks regular containers only once the pod has initialized).
func TestFailedInitKeepsRegularContainersWaiting(t *testing.T) {
	ev := runBuiltin(t, "init-failure", nil).Trace.Events
	final := all(ev, func(e *trace.Event) bool { return e.Kind == "setPodStatus" && e.Pod == "default/job" })
	last := final[len(final)-1]
	if last.Attr("phase") != "Failed" {
		t.Errorf("phase %s, want Failed", last.Attr("phase"))
	}
	if got := last.Attr("container/app"); !strings.HasPrefix(got, "state=waiting:PodInitializing ") {
		t.Errorf("app %q, want waiting PodInitializing", got)
	}
	if got := last.Attr("container/migrate"); !strings.HasPrefix(got, "state=terminated:Error:1 ") {
		t.Errorf("migrate %q, want terminated Error 1", got)
	}
	if tp := first(ev, func(e *trace.Event) bool { return e.Kind == "terminatePod" && e.Pod == "default/job" }); tp == nil || tp.At > last.At {
		t.Errorf("TerminatePod %v did not come before the final status", tp)
	}
}

package engine

import (
	"testing"
	"time"

	"nodesim/trace"
)

// poststart-hook: the sandbox (300ms), create (50ms) and start (100ms) put the container up
// at 0.45s; its first postStart hook runs 3s and fails, so killContainer (reason
// FailedPostStartHook) comes at 3.45s, the process exits at once (no shutdown time), and the
// start fails with PostStartHookError. The restart's hook takes 2s: the kubelet counts the
// container started (containerStartedByKubelet) exactly 2s after it is running again.
func TestPostStartHookHoldsTheSyncAndAFailureKills(t *testing.T) {
	ev := runBuiltin(t, "poststart-hook", nil).Trace.Events
	kill := first(ev, func(e *trace.Event) bool { return e.Kind == "killing" && e.Pod == "default/web" })
	if kill == nil || kill.At != 3450*time.Millisecond || kill.Attr("reason") != "FailedPostStartHook" {
		t.Fatalf("kill: %v; want FailedPostStartHook at 3.45s", kill)
	}
	failed := first(ev, func(e *trace.Event) bool { return e.Kind == "containerStartFailed" && e.Pod == "default/web" })
	if failed == nil || failed.Attr("reason") != "PostStartHookError" {
		t.Errorf("start failure: %v; want PostStartHookError", failed)
	}
	var rerun *trace.Event
	for i := range ev {
		if ev[i].Kind == "containerRunning" && ev[i].Attr("attempt") == "1" {
			rerun = &ev[i]
		}
	}
	if rerun == nil {
		t.Fatal("the container never ran again")
	}
	started := first(ev, func(e *trace.Event) bool {
		return e.Kind == "containerStartedByKubelet" && e.Pod == "default/web" && e.At > rerun.At
	})
	if started == nil || started.At != rerun.At+2*time.Second {
		t.Errorf("started at %v, want %s (running at %s plus the 2s hook)", started, rerun.At+2*time.Second, rerun.At)
	}
	if first(ev, func(e *trace.Event) bool { return e.Kind == "containerStartedByKubelet" && e.At < rerun.At }) != nil {
		t.Error("the first run counted as started although its postStart hook failed")
	}
}

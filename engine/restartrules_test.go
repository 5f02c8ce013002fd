package engine

import (
	"strings"
	"testing"
	"time"

	"nodesim/scenarios"
	"nodesim/trace"
)

// runs lists a container's instances as the runtime ran them: the attempt of each start and
// the exit code of each exit, in order.
func runs(res *Result, pod, ctr string) (attempts, exits []string) {
	for _, e := range res.Trace.Events {
		if e.Pod != pod || e.Container != ctr {
			continue
		}
		switch e.Kind {
		case "containerRunning":
			attempts = append(attempts, e.Attr("attempt"))
		case "containerExited":
			exits = append(exits, e.Attr("exitCode"))
		}
	}
	return attempts, exits
}

func lastPhase(res *Result, pod string) string {
	phase := ""
	for _, e := range res.Trace.Events {
		if e.Kind == "setPodStatus" && e.Pod == pod {
			phase = e.Attr("phase")
		}
	}
	return phase
}

// restart-rules: in restartPolicy Never pods, a container with restartPolicy Never and the
// rule Restart In [42] runs three times (exit 42, 42, then 1): ContainerShouldRestart
// matches the rule for both 42s, and neither the rule nor the Never policy restarts it
// after 1, so getPhase (ContainerRestartRules branch: no stopped container will restart,
// one exited non-zero) makes the pod Failed. The restarts go through the crash-loop
// back-off as any other: the first at once (the back-off starts at 10s from the first
// exit), the second no earlier than 10s after the second exit and within the requeue
// jitter (half the remaining 10s) plus 3s of syncLoop latency, as TestCrashLoopBackOffGaps
// bounds it. The same spec exiting 1 never restarts; in the Always pod, migrate
// (restartPolicy OnFailure) exits 0 and stays down while server runs on.
func TestRestartRulesRestartOnMatchingExitCodes(t *testing.T) {
	res := runBuiltin(t, "restart-rules", nil)
	attempts, exits := runs(res, "default/retry-42", "app")
	if strings.Join(attempts, ",") != "0,1,2" || strings.Join(exits, ",") != "42,42,1" {
		t.Errorf("retry-42: attempts %v exits %v; want attempts 0,1,2 exiting 42,42,1", attempts, exits)
	}
	gaps := restartGaps(t, res, "default/retry-42")
	if len(gaps) != 2 {
		t.Fatalf("retry-42 restarted %d times, want 2", len(gaps))
	}
	if gaps[0] > 3*time.Second {
		t.Errorf("first restart %s after the exit, want at once (within 3s)", gaps[0])
	}
	if gaps[1] < 10*time.Second || gaps[1] > 10*time.Second+5*time.Second+3*time.Second {
		t.Errorf("second restart %s after the exit, want within [10s, 18s]: the crash-loop back-off applies", gaps[1])
	}
	if p := lastPhase(res, "default/retry-42"); p != "Failed" {
		t.Errorf("retry-42 ends %s, want Failed", p)
	}
	if attempts, exits := runs(res, "default/other-code", "app"); len(attempts) != 1 || strings.Join(exits, ",") != "1" {
		t.Errorf("other-code: attempts %v exits %v; want one run exiting 1", attempts, exits)
	}
	if p := lastPhase(res, "default/other-code"); p != "Failed" {
		t.Errorf("other-code ends %s, want Failed", p)
	}
	if attempts, _ := runs(res, "default/mixed", "migrate"); len(attempts) != 1 {
		t.Errorf("mixed: migrate ran %d times; its restartPolicy OnFailure keeps it down after exit 0", len(attempts))
	}
	if p := lastPhase(res, "default/mixed"); p != "Running" {
		t.Errorf("mixed ends %s, want Running", p)
	}

	// With ContainerRestartRules off the API server drops the fields, and the pod's policy
	// alone decides: retry-42 (Never) runs once; migrate, in an Always pod, is restarted
	// after each exit 0.
	src, err := scenarios.OpenBuiltin("restart-rules")
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(string(src.Data), "  duration: 3m\n",
		"  duration: 3m\n  kubelet: {featureGates: {ContainerRestartRules: false, RestartAllContainersOnContainerExits: false}}\n", 1)
	l, err := src.Parse([]byte(off))
	if err != nil {
		t.Fatal(err)
	}
	// One warning per dropped field: restartPolicy and restartPolicyRules of retry-42's and
	// other-code's app (2 × 2), migrate's restartPolicy (1): 5.
	if len(l.Warnings) != 5 {
		t.Errorf("gate off: %d warnings, want 5, one per dropped field: %v", len(l.Warnings), l.Warnings)
	}
	if len(l.NotModelled) != 0 {
		t.Errorf("gate off: not modelled %v; both gates are read", l.NotModelled)
	}
	res, err = Run(l, l.Seed(), Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	if attempts, _ := runs(res, "default/retry-42", "app"); len(attempts) != 1 {
		t.Errorf("gate off: retry-42 ran %d times, want once", len(attempts))
	}
	if attempts, _ := runs(res, "default/mixed", "migrate"); len(attempts) < 3 {
		t.Errorf("gate off: migrate ran %d times; the pod's Always restarts it", len(attempts))
	}
}

// restart-all-containers: app exits 42, its rule RestartAllContainers. The sync that sees
// it generates AllContainersRestarting=True and resets: helper, still running, is killed
// with grace 0, which killContainer raises to minimumGracePeriodInSeconds, 2s, and which
// skips its 10s preStop hook; its 5s shutdown outlasts that, so it is SIGKILLed exactly 2s
// after the kill (exit 137). Then every instance is removed in upstream's order: the
// regular targets (helper), the init targets (setup), the sources (app). The requeued sync
// sees them all gone, clears the condition and starts setup in the same sandbox; each
// container's next instance is attempt 1 (the kept logs), started with no back-off.
func TestRestartAllContainersResetsThePod(t *testing.T) {
	res := runBuiltin(t, "restart-all-containers", nil)
	ev := res.Trace.Events
	exit42 := first(ev, func(e *trace.Event) bool {
		return e.Kind == "containerExited" && e.Container == "app" && e.Attr("exitCode") == "42"
	})
	kill := first(ev, func(e *trace.Event) bool { return e.Kind == "killing" && e.Container == "helper" })
	if exit42 == nil || kill == nil {
		t.Fatal("app never exited 42, or helper was never killed")
	}
	if kill.Attr("grace") != "0s" || kill.Attr("graceRaisedTo") != "2s" || kill.Attr("reason") != "RestartAllContainers" {
		t.Errorf("helper killed with %v; want grace 0s raised to 2s, reason RestartAllContainers", kill.Attrs)
	}
	if first(ev, func(e *trace.Event) bool { return e.Kind == "preStop" && e.Container == "helper" }) != nil {
		t.Error("helper's preStop hook ran; a kill with grace 0 skips it")
	}
	helperExit := first(ev, func(e *trace.Event) bool {
		return e.Kind == "containerExited" && e.Container == "helper" && e.At > kill.At
	})
	if helperExit == nil || helperExit.At-kill.At != 2*time.Second || helperExit.Attr("exitCode") != "137" {
		t.Errorf("helper exit %+v; want 137 exactly 2s after the kill at %s", helperExit, kill.At)
	}
	var removed []string
	for _, e := range ev {
		if e.Kind == "criCall" && e.Name == "RemoveContainer" && e.Track == "podWorker default/web" {
			removed = append(removed, e.Container)
		}
	}
	if strings.Join(removed, ",") != "helper,setup,app" {
		t.Errorf("reset removed %v, want helper,setup,app", removed)
	}
	for _, c := range []string{"setup", "app", "helper"} {
		if attempts, _ := runs(res, "default/web", c); strings.Join(attempts, ",") != "0,1" {
			t.Errorf("%s attempts %v, want 0,1 (the restart count continues from the kept logs)", c, attempts)
		}
	}
	for _, e := range ev {
		if e.Kind == "crashLoopBackOff" && e.Pod == "default/web" {
			t.Errorf("back-off at %s for %s: a reset leaves no exited instance to back off from", e.At, e.Container)
		}
	}
	var conds []string
	for _, e := range ev {
		if e.Kind == "setPodStatus" && e.Pod == "default/web" {
			c := e.Attr("condition/AllContainersRestarting")
			if len(conds) == 0 || conds[len(conds)-1] != c {
				conds = append(conds, c)
			}
		}
	}
	if strings.Join(conds, " → ") != "False: → True:RestartAllContainersStarted → False:" {
		t.Errorf("AllContainersRestarting went %v; want False, True (RestartAllContainersStarted), False", conds)
	}
}

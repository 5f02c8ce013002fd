package engine

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"time"

	"nodesim/scenarios"
	"nodesim/trace"
)

// Every shipped scenario runs under the invariant checker (Run always checks): none may
// break a rule.
func TestInvariantsHoldInEveryShippedScenario(t *testing.T) {
	list, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range list {
		t.Run(b.Name, func(t *testing.T) { runBuiltin(t, b.Name, nil) })
	}
}

// updateEvictDelete changes the pod's image at 2m (the new image pulls for 40s at 1Mi/s),
// raises system memory at 2m2s so that memory.available falls under 200Mi and the eviction
// manager evicts the pod during the pull, then deletes the pod at 2m20s.
const updateEvictDelete = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: update-evict-delete}
spec:
  duration: 5m
  node:
    capacity: {cpu: "4", memory: 4Gi}
    systemUsage: {memory: [{set: 500Mi}]}
  kubelet:
    evictionHard: {memory.available: 200Mi}
  runtime:
    pullBandwidth: 1Mi
    images:
      - {name: "web:v1", size: 40Mi, present: true}
      - {name: "web:v2", size: 40Mi}
  pods:
    - pod:
        metadata: {name: web}
        spec:
          terminationGracePeriodSeconds: 10
          containers: [{name: app, image: "web:v1"}]
      behavior:
        app: {shutdown: 2s}
  events:
    - at: 2m
      updatePod: default/web
      pod:
        spec:
          terminationGracePeriodSeconds: 10
          containers: [{name: app, image: "web:v2"}]
    - at: 2m2s
      setSystemUsage: {memory: [{set: 3900Mi}]}
    - at: 2m20s
      deletePod: default/web
`

// Once the pod worker is terminating a pod, the sync that was pulling its new image must
// not create or start the container when the pull returns (upstream cancels that sync's
// context; the create and start calls fail with it).
func TestUpdateEvictDeleteStartsNothingAfterTermination(t *testing.T) {
	l, err := scenarios.Parse("update-evict-delete.yaml", []byte(updateEvictDelete), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(l, 1, Options{KeepTrace: true})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	var terminatingAt time.Duration = -1
	starts := 0
	for _, e := range res.Trace.Events {
		if e.Pod != "default/web" {
			continue
		}
		if e.Kind == "workerState" && e.Name == "terminating" && terminatingAt < 0 {
			terminatingAt = e.At
		}
		if e.Kind == "containerRunning" {
			starts++
			if terminatingAt >= 0 {
				t.Errorf("%s started at %s, after the worker began terminating at %s", e.Container, e.At, terminatingAt)
			}
		}
		if e.Kind == "containerStartFailed" && !strings.Contains(e.Attr("message"), "termination requested") {
			t.Errorf("unexpected start failure: %s", e.String())
		}
	}
	// The v1 container starts once (attempt 0); the update kills it at 2m and the eviction
	// comes before the v2 pull ends at about 2m2s+40s, so nothing starts again.
	if starts != 1 {
		t.Errorf("%d container starts, want 1 (the first one only)", starts)
	}
	if terminatingAt < 2*time.Minute || terminatingAt > 2*time.Minute+20*time.Second {
		t.Errorf("worker began terminating at %s, want the eviction between 2m and 2m20s", terminatingAt)
	}
}

// brokenCheck flags the first running container: a checker that breaks on purpose.
type brokenCheck struct{ c *invariantChecker }

func (b brokenCheck) Record(e *trace.Event) {
	if e.Kind == "containerRunning" {
		b.c.fail(e, "test rule", "%s ran", e.Pod)
	}
}

// A violation stops the run at the event that broke the rule and names the rule, the
// simulated time and the event.
func TestViolationStopsTheRun(t *testing.T) {
	saved := newChecker
	defer func() { newChecker = saved }()
	newChecker = func() (trace.Sink, *invariantChecker) {
		c := newInvariantChecker()
		return brokenCheck{c}, c
	}
	l, err := scenarios.LoadBuiltin("crashloop")
	if err != nil {
		t.Fatal(err)
	}
	var last trace.Event
	_, err = Run(l, 1, Options{Sink: sinkFunc(func(e *trace.Event) { last = *e })})
	var v *InvariantViolation
	if !errors.As(err, &v) {
		t.Fatalf("got %v, want an InvariantViolation", err)
	}
	if v.Invariant != "test rule" || !strings.Contains(v.Event, "containerRunning") {
		t.Errorf("violation %+v: want the test rule at a containerRunning event", v)
	}
	// The step that broke the rule finishes (its events share its instant); nothing after.
	if last.At != v.At {
		t.Errorf("run went on past the violation at %s: last event %s", v.At, last.String())
	}
}

// Interrupted stops the run between events with ErrInterrupted.
func TestInterruptedStopsTheRun(t *testing.T) {
	l, err := scenarios.LoadBuiltin("crashloop")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = Run(l, 1, Options{Interrupted: func() bool { n++; return n > 100 }})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	if n != 101 {
		t.Errorf("asked %d times, want 101 (stopped at the first true)", n)
	}
}

type sinkFunc func(*trace.Event)

func (f sinkFunc) Record(e *trace.Event) { f(e) }

// A pod whose worker finished terminating it with containers still running breaks
// InvRunsAfterTerm, naming the first of them by name; another pod's running container (in a
// pod whose name shares the prefix) does not count, and an exited one neither.
func TestTerminatedWithRunningContainerNamesTheFirst(t *testing.T) {
	v := newInvariantChecker()
	for _, e := range []trace.Event{
		{Kind: "containerRunning", Pod: "ns/web-2", Container: "app", Attrs: []trace.Attr{{Key: "attempt", Value: "0"}}},
		{Kind: "containerRunning", Pod: "ns/web", Container: "zeta", Attrs: []trace.Attr{{Key: "attempt", Value: "0"}}},
		{Kind: "containerRunning", Pod: "ns/web", Container: "beta", Attrs: []trace.Attr{{Key: "attempt", Value: "0"}}},
		{Kind: "containerRunning", Pod: "ns/web", Container: "alpha", Attrs: []trace.Attr{{Key: "attempt", Value: "0"}}},
		{Kind: "containerExited", Pod: "ns/web", Container: "alpha"},
		{Kind: "workerState", Name: "terminated", Pod: "ns/web-3"},
	} {
		v.Record(&e)
	}
	if v.violation != nil {
		t.Fatalf("a pod without containers terminated: %+v", v.violation)
	}
	v.Record(&trace.Event{Kind: "workerState", Name: "terminated", Pod: "ns/web"})
	if v.violation == nil || v.violation.Invariant != InvRunsAfterTerm ||
		v.violation.Detail != "ns/web terminated with ns/web/beta still running" {
		t.Fatalf("violation %+v, want beta named", v.violation)
	}
}

// checks lets the recorder skip the events Record has no case for: it must let through
// every kind Record's switch names (read from the source, so that a case added there
// without being added to checks fails here), and a stats sample only when it is the node's.
func TestChecksCoversRecord(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "invariants.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	traceKinds := map[string]trace.Kind{"Stats": trace.Stats, "EvictionPass": trace.EvictionPass, "Eviction": trace.Eviction}
	var kinds []trace.Kind
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "Record" || fn.Recv == nil {
			continue
		}
		for _, st := range fn.Body.List {
			sw, ok := st.(*ast.SwitchStmt)
			if !ok {
				continue
			}
			for _, c := range sw.Body.List {
				for _, x := range c.(*ast.CaseClause).List {
					switch x := x.(type) {
					case *ast.BasicLit:
						k, err := strconv.Unquote(x.Value)
						if err != nil {
							t.Fatal(err)
						}
						kinds = append(kinds, trace.Kind(k))
					case *ast.SelectorExpr:
						k, ok := traceKinds[x.Sel.Name]
						if !ok {
							t.Fatalf("Record has a case for trace.%s: add it to this test's table", x.Sel.Name)
						}
						kinds = append(kinds, k)
					default:
						t.Fatalf("Record has a case this test cannot read: %T", x)
					}
				}
			}
		}
	}
	if len(kinds) < 10 {
		t.Fatalf("read %d kinds from Record's switch: %v", len(kinds), kinds)
	}
	for _, k := range kinds {
		name := ""
		if k == trace.Stats {
			name = "node"
		}
		if !checks(&trace.Event{Kind: k, Name: name}) {
			t.Errorf("checks skips %s, which Record checks", k)
		}
	}
	for _, e := range []trace.Event{{Kind: trace.ProbeResult, Name: "readiness"}, {Kind: trace.Stats, Name: "pod"}, {Kind: "syncStart"}} {
		if checks(&e) {
			t.Errorf("checks lets %s %s through, which Record has no case for", e.Kind, e.Name)
		}
	}
}

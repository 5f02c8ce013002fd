package engine

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"nodesim/scenarios"
)

// Bounds of one fuzzed run, so that each input simulates in a fraction of a second.
const (
	fuzzMaxDuration = 5 * time.Minute
	fuzzMaxPods     = 20
	fuzzMaxEvents   = 50_000 // recorded trace events: a step cap on the run
	fuzzHang        = 60 * time.Second
)

// hostileSeeds are inputs at the edges: huge quantities, tiny periods and events that
// overlap a pod's pull, termination or a kubelet restart.
var hostileSeeds = []string{
	// huge quantities and a tiny sync period
	`apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: huge}
spec:
  duration: 10m
  node: {capacity: {cpu: "1000", memory: 1Pi, pods: "110"}}
  kubelet: {syncFrequency: 1s, evictionHard: {memory.available: 1Ki}}
  runtime: {pullBandwidth: 1, images: [{name: "a:1", size: 1Ti}]}
  pods:
    - pod: {metadata: {name: p}, spec: {containers: [{name: c, image: "a:1", resources: {limits: {memory: 1Pi}}}]}}
      behavior: {c: {memory: [{set: 1Ti}]}}
`,
	// a delete during a pull, then an update during termination
	`apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: delete-during-pull}
spec:
  duration: 5m
  runtime: {pullBandwidth: 1Mi, images: [{name: "a:1", size: 60Mi}]}
  pods:
    - pod: {metadata: {name: p}, spec: {terminationGracePeriodSeconds: 30, containers: [{name: c, image: "a:1"}]}}
      behavior: {c: {shutdown: 20s}}
  events:
    - {at: 10s, deletePod: default/p, gracePeriodSeconds: 30}
    - at: 20s
      updatePod: default/p
      pod: {spec: {terminationGracePeriodSeconds: 30, containers: [{name: c, image: "a:2"}]}}
`,
	// a kubelet restart during termination, and a runtime outage
	`apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: restart-during-termination}
spec:
  duration: 5m
  runtime: {images: [{name: "a:1", size: 1Mi, present: true}]}
  pods:
    - pod: {metadata: {name: p}, spec: {terminationGracePeriodSeconds: 60, containers: [{name: c, image: "a:1"}]}}
      behavior: {c: {shutdown: 45s}}
  events:
    - {at: 30s, deletePod: default/p}
    - {at: 40s, restartKubelet: true}
    - {at: 50s, runtimeDown: 5s}
`,
	updateEvictDelete,
}

// FuzzRun parses and simulates short scenarios under the invariant checker: no input may
// panic the engine or break an invariant.
func FuzzRun(f *testing.F) {
	list, err := scenarios.Builtins()
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range list {
		src, err := scenarios.BuiltinSource(b.Name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range hostileSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(string) ([]byte, error) { return nil, errors.New("no files beside a fuzzed scenario") }
		glob := func(string) ([]string, error) { return nil, nil }
		l, err := scenarios.Parse("fuzz.yaml", data, read, glob)
		if err != nil {
			return
		}
		if len(l.Pods) > fuzzMaxPods {
			return
		}
		if l.Scenario.Spec.Duration.Duration > fuzzMaxDuration {
			l.Scenario.Spec.Duration.Duration = fuzzMaxDuration
		}
		// A run that takes more than fuzzHang of wall time is a hang: crash the worker so
		// that the fuzzer keeps the input.
		hang := time.AfterFunc(fuzzHang, func() { panic(fmt.Sprintf("run still going after %s:\n%s", fuzzHang, data)) })
		defer hang.Stop()
		events := 0
		_, err = Run(l, l.Seed(), Options{Interrupted: func() bool { events++; return events > fuzzMaxEvents }})
		var v *InvariantViolation
		if errors.As(err, &v) {
			t.Fatalf("%v\nscenario:\n%s", v, strings.TrimSpace(string(data)))
		}
		if err != nil && !errors.Is(err, ErrInterrupted) && !strings.HasPrefix(err.Error(), "eviction thresholds") {
			t.Fatalf("run: %v", err)
		}
	})
}

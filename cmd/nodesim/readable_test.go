package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"nodesim/reports"
)

// softGrace90s is a soft memory threshold with a 90s grace period and the default
// evictionMaxPodGracePeriod (0): the case that printed "GRACE 0s" for a 90s grace.
const softGrace90s = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: soft-grace-90s}
spec:
  duration: 6m
  node: {capacity: {cpu: "4", memory: 4Gi}}
  kubelet:
    evictionHard: {memory.available: 100Mi}
    evictionSoft: {memory.available: 1Gi}
    evictionSoftGracePeriod: {memory.available: 90s}
  runtime:
    images: [{name: "app:v1", size: 20Mi, present: true}]
  pods:
    - pod:
        metadata: {name: cache}
        spec:
          containers: [{name: app, image: "app:v1", resources: {requests: {memory: 1Gi}}}]
      behavior:
        app: {memory: [{set: 1Gi}, {at: 2m, set: 3300Mi}]}
`

// A soft eviction carries both grace periods, each for what it is: the threshold's own
// (how long it had to stay met) and the pod's termination grace period, as asked and as
// given.
func TestSoftEvictionShowsItsGrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "soft.yaml")
	if err := os.WriteFile(path, []byte(softGrace90s), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := nodesim(t, "run", path, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r reports.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Evictions) != 1 {
		t.Fatalf("%d evictions, want 1", len(r.Evictions))
	}
	e := r.Evictions[0]
	// The kubelet boots at -1s and its eviction manager passes every 10s: 9s, 19s, ...
	// The pod starts at 0.45s, so its usage jumps to 3300Mi at 120.45s; the pass at 129s is
	// the first to see memory.available = 4096Mi - 3300Mi = 796Mi < 1Gi. The threshold must
	// stay met 90s: the pass at 129s + 90s = 219s evicts, met for exactly 90s.
	// The pod grace period asked is min(evictionMaxPodGracePeriod 0, terminationGracePeriod-
	// Seconds 30) = 0; the pod worker never gives less than 1s.
	if e.Time != 219 || e.Observed != "796Mi" || e.ThresholdGracePeriod != 90 || e.ThresholdMetFor == nil || *e.ThresholdMetFor != 90 ||
		e.GracePeriod != 0 || e.PodGracePeriod == nil || *e.PodGracePeriod != 1 {
		t.Errorf("eviction %+v; want at 219s, observed 796Mi, thresholdGracePeriod 90, met for 90, gracePeriod 0, podGracePeriod 1", e)
	}
	transcript, _, _ := explainCLI(t, path, "--only", "eviction")
	if want := "evicts default/cache: memory.available 796Mi, threshold 1024Mi (soft, met for 1m30s of its 1m30s grace period), pod grace period 0s asked"; !strings.Contains(transcript, want) {
		t.Errorf("the transcript lacks %q:\n%s", want, transcript)
	}
	table, _, _ := nodesim(t, "run", path)
	for _, want := range []string{"│ 3m39s │", "│ 796Mi    │ 1024Mi (soft, grace 1m30s) │ 1m30s   │ 1s (asked 0s) │", "scenario soft-grace-90s (seed 1), 6m simulated"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// Every report carries a headroom line per signal with a hard threshold: the table, the
// HTML page and the explain transcript, checked against values worked out by hand.
func TestHeadroomLine(t *testing.T) {
	// soft-eviction-grace: a 4Gi node, no system usage, one pod at 1Gi that jumps to 3300Mi
	// from 2m after it started (0.45s) to 3m30s. The eviction manager passes at 9s, 19s, ...:
	// the pass at 129s (2m9s) is the first to see memory.available = 4096Mi - 3300Mi = 796Mi,
	// the lowest of the run (later passes see the same until it clears, and the earlier one
	// is kept). The hard threshold is 100Mi: 796Mi - 100Mi = 696Mi above it. Nothing is
	// evicted.
	const calm = "lowest memory.available 796Mi at 2m9s, 696Mi above the hard threshold (100Mi)"
	// besteffort-evicted-first: a 4Gi node whose system usage ramps from 500Mi at 16m to
	// 3300Mi at 21m; at the last eviction, 20m21.304s (1221.304s), only the Guaranteed pod's
	// 1000Mi is left beside it: 500Mi + 2800Mi x 261.304s/300s = 2938.837Mi, and
	// memory.available = 4096Mi - 1000Mi - 2938.837Mi = 157.16Mi (the pass observed 160936Ki,
	// 157.164Mi), 42.8Mi below the 200Mi hard threshold. After it only the system's 3300Mi
	// is left (796Mi available), so this is the lowest.
	const pressed = "lowest memory.available 157.2Mi at 20m21.304s, 42.8Mi below the hard threshold (200Mi)"
	for _, c := range []struct{ scenario, want string }{{"soft-eviction-grace", calm}, {"besteffort-evicted-first", pressed}} {
		table, errOut, code := nodesim(t, "run", c.scenario)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.scenario, code, errOut)
		}
		if !strings.Contains(table, "\nHeadroom\n"+c.want+"\n") {
			t.Errorf("%s: the table lacks the headroom line %q:\n%s", c.scenario, c.want, table)
		}
		transcript, _, _ := explainCLI(t, c.scenario, "--to", "1s")
		if !strings.Contains(transcript, "\nheadroom: "+c.want+"\n") {
			t.Errorf("%s: the transcript lacks the headroom line (the whole run's, whatever --to shows)", c.scenario)
		}
		page := filepath.Join(t.TempDir(), "page.html")
		if _, errOut, code := nodesim(t, "run", c.scenario, "--html", page); code != 0 {
			t.Fatalf("%s --html: exit %d: %s", c.scenario, code, errOut)
		}
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(html), "<li>"+c.want+"</li>") {
			t.Errorf("%s: report.html lacks the headroom line", c.scenario)
		}
	}
}

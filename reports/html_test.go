package reports

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	api "nodesim/api/v1alpha1"
	"nodesim/trace"
)

// pressureRun is a hand-written trace of memory pressure: two pods whose memory grows, an
// eviction, an OOM kill and a MemoryPressure episode; the report and charts built from it.
func pressureRun(t *testing.T) (*Report, *ChartRecorder) {
	t.Helper()
	var tr []trace.Event
	tr = append(tr, ev(-500*ms, kindNodeCondition, "", "type", "Ready", "status", "True"),
		ev(-500*ms, kindNodeCondition, "", "type", "MemoryPressure", "status", "False"))
	for s := 0; s <= 600; s += 10 {
		at := time.Duration(s) * time.Second
		be, bu := 100+s*2, 200+s
		if s >= 300 {
			be = 0
		}
		node := 1000 + be + bu
		tr = append(tr, stats(at, "node", "", "memoryCapacity", strconv.Itoa(2048<<20), "memoryWorkingSet", strconv.Itoa(node<<20),
			"memoryAvailable", strconv.Itoa((2048-node)<<20)))
		if s < 300 {
			tr = append(tr, stats(at, "pod", "default/be", "memory", strconv.Itoa(be<<20)))
		}
		tr = append(tr, stats(at, "pod", "default/bu", "memory", strconv.Itoa(bu<<20)))
	}
	tr = append(tr,
		ev(0, kindPodSeen, "default/be", "uid", "1"), ev(0, kindPodSeen, "default/bu", "uid", "2"),
		ev(1200*ms, kindSetPodStatus, "default/be", "phase", "Running", "allRunning", "true", "container/app", "state=running restarts=0"),
		ev(2100*ms, kindSetPodStatus, "default/bu", "phase", "Running", "allRunning", "true", "container/app", "state=running restarts=0"),
		ev(250*time.Second, kindNodeCondition, "", "type", "MemoryPressure", "status", "True"),
		named(ev(280*time.Second, kindOOMKill, "default/bu", "kind", "cgroup", "oomScoreAdj", "999"), "", "app"),
		ev(290*time.Second, kindEviction, "default/be", "signal", "memory.available", "observed", "90Mi", "threshold", "100Mi", "ranking", "default/be;true;0;600Mi"),
		named(ev(300*time.Second, kindWorkerState, "default/be"), "terminated", ""),
		ev(560*time.Second, kindNodeCondition, "", "type", "MemoryPressure", "status", "False"),
	)
	sortEvents(tr)
	c := NewChartRecorder(ChartOptions{Duration: 10 * time.Minute, Pods: []string{"default/be", "default/bu"},
		EvictionHard: map[string]string{"memory.available": "100Mi"}, EvictionSoft: map[string]string{"memory.available": "10%"}})
	b := NewBuilder(Input{Scenario: &api.Scenario{Metadata: api.Metadata{Name: "pressure"}}, PodOrder: []string{"default/be", "default/bu"},
		QoS: map[string]string{"default/be": "BestEffort", "default/bu": "Burstable"}})
	for i := range tr {
		b.Record(&tr[i])
		c.Record(&tr[i])
	}
	c.Finish(10 * time.Minute)
	r := b.Finish(10 * time.Minute)
	r.Reproduce = "reproduce: nodesim run pressure.yaml --seed 1"
	r.Expectations = []ExpectationResult{{Expect: "evicted default/be", Pass: true, Detail: "evicted: default/be"}}
	return r, c
}

// sortEvents puts a hand-written trace in time order, as a run records it.
func sortEvents(tr []trace.Event) {
	sort.SliceStable(tr, func(i, j int) bool { return tr[i].At < tr[j].At })
}

// The page is self-contained (no fetch of any kind), its charts carry what they drew, and the
// same run renders the same bytes.
func TestHTMLCharts(t *testing.T) {
	r, c := pressureRun(t)
	page, err := HTML(r, c)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := HTML(r, c)
	if !bytes.Equal(page, again) {
		t.Error("two renderings of the same report differ")
	}
	s := string(page)
	if strings.Contains(s, "http:") || strings.Contains(s, "https:") || regexp.MustCompile(`(src|href)="[^d#]`).MatchString(s) {
		t.Error("the page refers to something outside itself")
	}
	if strings.Contains(s, "ZgotmplZ") {
		t.Error("html/template rejected a value")
	}
	for _, want := range []string{
		`data-chart="memory" data-series-count="3" data-threshold-count="2" data-marker-count="2"`,
		`data-series="default/be"`, `data-series="node working set"`,
		`class="marker eviction" data-pod="default/be"`, `class="marker oom" data-pod="default/bu"`,
		`eviction hard: memory.available&lt;100Mi`, `eviction soft: memory.available&lt;10%`,
		`data-chart="conditions" data-lane-count="2" data-band-count="4"`,
		`data-condition="MemoryPressure" data-status="True"`,
		`data-chart="startup" data-series-count="2" data-sample-count="2"`,
		`<table id="evictions">`, `<table id="oomkills">`, `<table id="pods">`, `<table id="expectations">`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

// A long run keeps at most chartPoints buckets per series.
func TestChartRecorderBounded(t *testing.T) {
	c := NewChartRecorder(ChartOptions{Duration: 30 * 24 * time.Hour})
	peak := 0 // the highest value in the first bucket
	for s := 0; s < 30*24*3600; s += 7 {
		e := stats(time.Duration(s)*time.Second, "node", "", "memoryWorkingSet", strconv.Itoa(s%1000))
		c.Record(&e)
		if time.Duration(s)*time.Second < c.step {
			peak = max(peak, s%1000)
		}
	}
	c.Finish(30 * 24 * time.Hour)
	if n := len(c.node.points); n > chartPoints+1 {
		t.Errorf("%d points for a 30-day run, want at most %d", n, chartPoints+1)
	}
	if c.node.points[0] != float64(peak) {
		t.Errorf("a bucket keeps its highest value: got %v", c.node.points[0])
	}
}

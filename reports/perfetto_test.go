package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"nodesim/trace"
)

// Slices start where their step started, whichever end the trace stamped; the boot is left
// out; a flow is drawn only for a send that was received.
func TestPerfettoFromTrace(t *testing.T) {
	tr := []trace.Event{
		{At: -time.Second, Track: "config", Kind: trace.Send, Name: "configCh", Flow: 1},
		{At: -900 * ms, Track: "syncLoop", Kind: trace.Recv, Name: "configCh", Flow: 1},
		{At: 500 * ms, Track: "syncLoop", Kind: kindIterationWait, Dur: 900 * ms},
		{At: time.Second, Track: "config", Kind: trace.Send, Name: "configCh", Flow: 5},
		{At: 1200 * ms, Track: "syncLoop", Kind: trace.Recv, Name: "configCh", Flow: 5},
		{At: 2 * time.Second, Track: "pleg", Kind: kindRelist, Name: "relist", Dur: 2 * ms, Attrs: []trace.Attr{{Key: "pods", Value: "1"}}},
		{At: 3 * time.Second, Track: "podWorker default/web", Kind: "criCall", Name: "RunPodSandbox", Pod: "default/web", Dur: 300 * ms},
		{At: 3*time.Second + 1500, Track: "pleg", Kind: trace.Send, Name: "plegCh", Flow: 9},
	}
	b := perfettoOf(t, tr)
	var doc struct {
		DisplayTimeUnit string
		TraceEvents     []struct {
			Name, Ph, S, Bp string
			Ts              json.Number
			Dur             json.Number
			Tid             int
			ID              uint64
			Args            map[string]any
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if doc.DisplayTimeUnit != "ms" {
		t.Errorf("displayTimeUnit %q", doc.DisplayTimeUnit)
	}
	threads := map[int]string{}
	type slice struct{ ph, ts, dur string }
	got := map[string]slice{}
	var flows []string
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				threads[e.Tid] = e.Args["name"].(string)
			}
		case "s", "f":
			flows = append(flows, e.Ph+" "+threads[e.Tid]+" "+e.Ts.String()+" "+e.Bp)
		default:
			got[e.Name] = slice{e.Ph, e.Ts.String(), e.Dur.String()}
		}
	}
	for name, want := range map[string]slice{
		"iterationWait":         {"X", "0", "500000"}, // began in the boot: cut at time zero
		"relist":                {"X", "1998000", "2000"},
		"criCall RunPodSandbox": {"X", "3000000", "300000"},
		"send plegCh":           {"X", "3000001.5", "0.001"}, // a channel step is a 1ns slice
		"recv configCh":         {"X", "1200000", "0.001"},
	} {
		if got[name] != want {
			t.Errorf("%s = %+v, want %+v", name, got[name], want)
		}
	}
	wantFlows := []string{"s config 1000000 e", "f syncLoop 1200000 e"}
	if len(flows) != 2 || flows[0] != wantFlows[0] || flows[1] != wantFlows[1] {
		t.Errorf("flows %q, want %q", flows, wantFlows)
	}
	if len(threads) != 4 {
		t.Errorf("threads %v, want config, syncLoop, pleg and the pod worker", threads)
	}
}

// An UpdatePod recorded on the worker's track is drawn from the goroutine that called it (the
// step recorded just before, elsewhere, at the same instant) to the worker's next sync; two
// calls before one sync give two arrows into that sync; a call from the worker's own goroutine
// crosses no goroutine and gets none.
func TestPerfettoUpdatePodFlows(t *testing.T) {
	w := "podWorker default/web"
	tr := []trace.Event{
		{At: time.Second, Track: "syncLoop", Kind: "handler", Name: "HandlePodSyncs", Pod: "default/web"},
		{At: time.Second, Track: w, Kind: kindUpdatePod, Name: "sync", Pod: "default/web"},
		{At: 2 * time.Second, Track: "evictionManager", Kind: "evictionPass"},
		{At: 2 * time.Second, Track: w, Kind: kindUpdatePod, Name: "kill", Pod: "default/web"},
		{At: 3 * time.Second, Track: w, Kind: kindUpdatePod, Name: "sync", Pod: "default/web"}, // no caller at 3s: its own track
		{At: 4 * time.Second, Track: w, Kind: kindSyncStart, Name: "SyncPod", Pod: "default/web"},
	}
	b := perfettoOf(t, tr)
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			Ts       json.Number
			Tid      int
			ID       uint64
			Args     map[string]any
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	threads := map[int]string{}
	var flows []string
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				threads[e.Tid] = e.Args["name"].(string)
			}
		case "s", "f":
			flows = append(flows, e.Ph+" "+threads[e.Tid]+" "+e.Ts.String())
		}
	}
	want := []string{
		"s syncLoop 1000000", "f " + w + " 4000000",
		"s evictionManager 2000000", "f " + w + " 4000000",
	}
	if strings.Join(flows, "|") != strings.Join(want, "|") {
		t.Errorf("flows\n%q\nwant\n%q", flows, want)
	}
}

// A blocking call is a slice as long as the simulated wait: GetNewerThan from waitCache to
// cacheReady, and a StopContainer recorded without a duration until the container's exit the
// kubelet learns of by that call (63s to 68s: a 27s grace cut short by a 5s exit).
func TestPerfettoBlockingWaits(t *testing.T) {
	w := "podWorker default/web"
	tr := []trace.Event{
		{At: 63 * time.Second, Track: w, Kind: kindCRICall, Name: "StopContainer", Pod: "default/web", Container: "nginx"},
		{At: 68 * time.Second, Track: "runtime", Kind: kindContainerExit, Pod: "default/web", Container: "nginx",
			Attrs: []trace.Attr{{Key: "kubeletLearnsBy", Value: "stopContainer"}}},
		{At: 68152 * ms, Track: w, Kind: kindWaitCache, Name: "GetNewerThan", Pod: "default/web"},
		{At: 69153 * ms, Track: w, Kind: kindCacheReady, Name: "GetNewerThan", Pod: "default/web"},
	}
	b := perfettoOf(t, tr)
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			Ts, Dur  json.Number
			Tid      int
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			got = append(got, e.Name+" "+e.Ts.String()+" "+e.Dur.String())
		}
	}
	// The wake-up itself is a 1ns slice (an arrow from PLEG may end on it), drawn before
	// the wait it ends: 68.152s to 69.153s is 1001000µs.
	want := []string{
		"StopContainer (waiting for exit) 63000000 5000000",
		"cacheReady GetNewerThan 69153000 0.001",
		"GetNewerThan (waiting) 68152000 1001000",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("slices %q, want %q", got, want)
	}
}

// The node's memory is a counter, in bytes, from each node stats refresh.
func TestPerfettoMemoryCounter(t *testing.T) {
	tr := []trace.Event{{At: 10 * time.Second, Track: "cadvisor", Kind: kindStats, Name: "node",
		Attrs: []trace.Attr{{Key: "memoryWorkingSet", Value: "1048576"}, {Key: "memoryAvailable", Value: "8588886016"}}}}
	b := perfettoOf(t, tr)
	want := `{"name":"node memory (bytes)","ph":"C","ts":10000000,"pid":1,"tid":0,"args":{"memoryAvailable":8588886016,"memoryWorkingSet":1048576}}`
	if !strings.Contains(b.String(), want) {
		t.Errorf("no counter %s in\n%s", want, b.String())
	}
}

// perfettoOf is the Perfetto file the writer makes of tr.
func perfettoOf(t *testing.T, tr []trace.Event) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	p := NewPerfettoWriter(&b, "nodesim t")
	for i := range tr {
		p.Record(&tr[i])
	}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	return &b
}

// flowEnds lists a trace's arrows as "cat name: fromTid@ts -> toTid@ts".
func flowEnds(t *testing.T, data []byte) []string {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Name, Cat, Ph string
			Ts            json.Number
			Tid           int
			ID            uint64
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	starts := map[uint64]string{}
	var out []string
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "s":
			starts[e.ID] = fmt.Sprintf("%s %s: %d@%s", e.Cat, e.Name, e.Tid, e.Ts)
		case "f":
			out = append(out, fmt.Sprintf("%s -> %d@%s", starts[e.ID], e.Tid, e.Ts))
		}
	}
	return out
}

// A relist that writes the pod cache wakes the worker waiting in GetNewerThan: the arrow
// starts inside the relist's slice on pleg (relist 1.002s to 1.004s, the arrow at its last
// nanosecond, 1003999.999µs) and ends on the worker's wake-up at 1.004s. A tick taken by the
// syncLoop at 2.000s, sent at 2.000s, gets an arrow from its ticker's thread.
func TestPerfettoCacheAndTickerArrows(t *testing.T) {
	ms := time.Millisecond
	tr := []trace.Event{
		{At: 1004 * ms, Track: "pleg", Kind: kindRelist, Name: "relist", Dur: 2 * ms},
		{At: 1004 * ms, Track: "podWorker default/web", Kind: kindCacheReady, Name: "GetNewerThan", Pod: "default/web"},
		{At: 2000 * ms, Track: "syncLoop", Kind: trace.Select, Name: "syncCh", Ready: []string{"syncCh"},
			Attrs: []trace.Attr{{Key: "select", Value: "syncLoopIteration"}, {Key: "sentAt", Value: "2000000000"}}},
	}
	b := perfettoOf(t, tr)
	// Threads in order of first use: pleg 1, the worker 2, syncLoop 3, ticker syncCh 4.
	want := []string{
		"podCache podCache → GetNewerThan: 1@1003999.999 -> 2@1004000",
		"ticker syncCh: 4@2000000 -> 3@2000000",
	}
	if got := flowEnds(t, b.Bytes()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("arrows %q, want %q", got, want)
	}
}

// Each send, receive and drop recorded with the channel's depth draws a counter sample.
func TestPerfettoChannelDepthCounter(t *testing.T) {
	tr := []trace.Event{
		{At: time.Second, Track: "pleg", Kind: trace.Send, Name: "plegCh", Flow: 7, Attrs: []trace.Attr{{Key: "len", Value: "1"}}},
		{At: time.Second, Track: "syncLoop", Kind: trace.Recv, Name: "plegCh", Flow: 7, Attrs: []trace.Attr{{Key: "len", Value: "0"}}},
	}
	b := perfettoOf(t, tr)
	for _, want := range []string{
		`{"name":"plegCh depth","ph":"C","ts":1000000,"pid":1,"tid":0,"args":{"len":1}}`,
		`{"name":"plegCh depth","ph":"C","ts":1000000,"pid":1,"tid":0,"args":{"len":0}}`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no counter sample %s", want)
		}
	}
}

// A sync's RequestPodRelist at 0.450s draws an arrow to the relistPod that serves it, which
// ran from 0.450001s to 0.454s (its slice starts at 450001µs); a request a periodic relist
// covers (made at 1.5s, before the relist that began at 2.000s) gets none. The pod
// manager's maps are a counter.
func TestPerfettoRelistRequestArrowAndPodManagerCounter(t *testing.T) {
	ms, us := time.Millisecond, time.Microsecond
	w := "podWorker default/web"
	tr := []trace.Event{
		{At: 0, Track: "syncLoop", Kind: kindPodManager, Name: "AddPod", Pod: "default/web",
			Attrs: []trace.Attr{{Key: "map", Value: "pods"}, {Key: "pods", Value: "1"}, {Key: "mirrorPods", Value: "0"}}},
		{At: 450 * ms, Track: w, Kind: kindRelistRequest, Pod: "default/web", Attrs: []trace.Attr{{Key: "uid", Value: "u1"}}},
		{At: 454 * ms, Track: "pleg", Kind: kindRelist, Name: "relistPod", Dur: 454*ms - (450*ms + us), Attrs: []trace.Attr{{Key: "uid", Value: "u1"}}},
		{At: 1500 * ms, Track: w, Kind: kindRelistRequest, Pod: "default/web", Attrs: []trace.Attr{{Key: "uid", Value: "u1"}}},
		{At: 2004 * ms, Track: "pleg", Kind: kindRelist, Name: "relist", Dur: 4 * ms},
		{At: 2010 * ms, Track: "pleg", Kind: kindRelist, Name: "relistPod", Dur: 4 * ms, Attrs: []trace.Attr{{Key: "uid", Value: "u1"}}},
	}
	b := perfettoOf(t, tr)
	// Threads: syncLoop 1, the worker 2, pleg 3.
	want := []string{"relistRequest RequestPodRelist: 2@450000 -> 3@450001"}
	if got := flowEnds(t, b.Bytes()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("arrows %q, want %q", got, want)
	}
	counter := `{"name":"podManager","ph":"C","ts":0,"pid":1,"tid":0,"args":{"mirrorPods":0,"pods":1}}`
	if !strings.Contains(b.String(), counter) {
		t.Errorf("no counter %s", counter)
	}
}

// A relist that ended exactly at time zero was all boot, so it draws no slice and no podCache
// arrow: the worker it woke at time zero gets none, rather than an arrow from -1ns (which is
// no valid JSON number: the writer would stop with an error).
func TestPerfettoNoCacheArrowFromABootRelist(t *testing.T) {
	tr := []trace.Event{
		{At: 0, Track: "pleg", Kind: kindRelist, Name: "relist", Dur: 2 * time.Millisecond},
		{At: 0, Track: "podWorker default/web", Kind: kindCacheReady, Name: "GetNewerThan", Pod: "default/web"},
	}
	b := perfettoOf(t, tr)
	if got := flowEnds(t, b.Bytes()); len(got) != 0 {
		t.Errorf("arrows %q, want none", got)
	}
}

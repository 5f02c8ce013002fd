package oom

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	api "nodesim/api/v1alpha1"
	"nodesim/model/cri"
	"nodesim/sim"
	"nodesim/trace"
)

const mi = 1 << 20

func q(s string) *resource.Quantity   { v := resource.MustParse(s); return &v }
func d(x time.Duration) *api.Duration { v := api.D(x); return &v }

type node struct {
	s   *sim.Sim
	rt  *cri.Runtime
	k   *Kernel
	log *trace.Log
}

// newNode starts one container per program, in order, with the given limits and scores.
func newNode(t *testing.T, capacity float64, progs []api.Program, limits []int64, adjs []int) *node {
	t.Helper()
	log := &trace.Log{}
	s := sim.New(1, log)
	byName := map[string]*api.Behavior{}
	rt := cri.New(s, cri.Config{Latency: cri.DefaultLatency(), Behavior: func(_ *corev1.Pod, name string) *api.Behavior { return byName[name] }})
	k := NewKernel(s, rt, capacity, 0, false)
	w := s.Clock("worker", sim.PriorityPodWorker)
	for i, p := range progs {
		name := string(rune('a' + i))
		byName[name] = &api.Behavior{Memory: p}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID("u" + name), Name: "p" + name, Namespace: "ns"}}
		spec := &corev1.Container{Name: name, Image: "i"}
		cfg := cri.ContainerConfig{MemoryLimit: limits[i], OOMScoreAdj: adjs[i]}
		w.Schedule(0, func() {
			rt.RunPodSandbox(pod, 0, func(sb string, _ error) {
				rt.CreateContainer(sb, spec, 0, cfg, func(id string, _ error) { rt.StartContainer(id, func(error) {}) })
			})
		})
	}
	return &node{s: s, rt: rt, k: k, log: log}
}

func (n *node) kills() []trace.Event {
	var out []trace.Event
	for _, e := range n.log.Events {
		if e.Kind == trace.OOMKill {
			out = append(out, e)
		}
	}
	return out
}

// A container ramping past its limit dies at the exact crossing, not at a sample.
func TestCgroupOOMAtTheCrossing(t *testing.T) {
	// Starts at 0.45s (sandbox, create, start); 100Mi growing 10Mi/s crosses 200Mi 10s later.
	n := newNode(t, 8<<30, []api.Program{{{Set: q("100Mi")}, {RampTo: q("1100Mi"), Over: d(100 * time.Second)}}}, []int64{200 * mi}, []int{500})
	n.s.RunUntil(time.Minute)
	k := n.kills()
	if len(k) != 1 || k[0].Attr("kind") != "cgroup" {
		t.Fatalf("kills: %v", k)
	}
	want := 450*time.Millisecond + 10*time.Second
	if got := k[0].At; got < want || got > want+time.Millisecond {
		t.Errorf("killed at %s, want just after %s", got, want)
	}
}

// When the node runs out, the kernel kills the highest badness: usage plus oom_score_adj in
// thousandths of memory, so a BestEffort process goes before a bigger Burstable one.
func TestNodeOOMPicksHighestBadness(t *testing.T) {
	progs := []api.Program{
		{{Set: q("600Mi")}}, // a: burstable, big
		{{Set: q("100Mi")}, {At: d(5 * time.Second), Set: q("500Mi")}}, // b: best effort, pushes the node over 1Gi
	}
	n := newNode(t, 1<<30, progs, []int64{0, 0}, []int{500, 1000})
	n.s.RunUntil(time.Minute)
	k := n.kills()
	if len(k) != 1 || k[0].Attr("kind") != "node" || k[0].Container != "b" {
		t.Fatalf("want the BestEffort process killed by the node OOM killer: %v", k)
	}
}

// A level watch reports each crossing, both ways.
func TestWatchLevel(t *testing.T) {
	progs := []api.Program{{{Set: q("100Mi")}, {At: d(10 * time.Second), Set: q("600Mi")}, {At: d(20 * time.Second), Set: q("100Mi")}}}
	n := newNode(t, 8<<30, progs, []int64{0}, []int{0})
	var got []string
	n.k.WatchLevel("t", false, 500*mi, func(up bool) {
		got = append(got, map[bool]string{true: "up", false: "down"}[up]+"@"+n.s.Elapsed().String())
	})
	n.s.RunUntil(time.Minute)
	want := []string{"up@10.45s", "down@20.45s"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("crossings %v, want %v", got, want)
	}
}

// System usage ramping past capacity: the kernel kills the pod processes first (node OOM),
// then, with none left, holds system memory at capacity instead of re-planning the same
// instant forever. Hand arithmetic: capacity 1Gi; the container holds 200Mi from 0.45s;
// system memory ramps from 0 to 2Gi over 100s, 20.48Mi/s, so pods + system cross 1Gi when
// system reaches 824Mi, at 824/20.48 = 40.234375s (kill), and system alone crosses 1Gi at
// 1024/20.48 = 50s (hold).
func TestSystemUsagePastCapacityIsHeld(t *testing.T) {
	log := &trace.Log{}
	s := sim.New(1, log)
	beh := &api.Behavior{Memory: api.Program{{Set: q("200Mi")}}}
	rt := cri.New(s, cri.Config{Latency: cri.DefaultLatency(),
		SystemMemory: api.Program{{Set: q("0")}, {RampTo: q("2Gi"), Over: d(100 * time.Second)}},
		Behavior:     func(*corev1.Pod, string) *api.Behavior { return beh }})
	NewKernel(s, rt, 1<<30, 0, false)
	w := s.Clock("worker", sim.PriorityPodWorker)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"}}
	spec := &corev1.Container{Name: "a", Image: "i"}
	w.Schedule(0, func() {
		rt.RunPodSandbox(pod, 0, func(sb string, _ error) {
			rt.CreateContainer(sb, spec, 0, cri.ContainerConfig{OOMScoreAdj: 1000}, func(id string, _ error) { rt.StartContainer(id, func(error) {}) })
		})
	})
	s.RunUntil(5 * time.Minute) // a livelock would never return
	var kills, holds []trace.Event
	for _, e := range log.Events {
		switch e.Kind {
		case trace.OOMKill:
			kills = append(kills, e)
		case trace.SystemMemoryHeld:
			holds = append(holds, e)
		}
	}
	if len(kills) != 1 || kills[0].Attr("kind") != "node" {
		t.Fatalf("kills: %v", kills)
	}
	if want := 40234375 * time.Microsecond; kills[0].At < want || kills[0].At > want+time.Millisecond {
		t.Errorf("node OOM kill at %s, want %s", kills[0].At, want)
	}
	if len(holds) != 1 {
		t.Fatalf("holds: %v", holds)
	}
	if want := 50 * time.Second; holds[0].At < want || holds[0].At > want+time.Millisecond {
		t.Errorf("held at %s, want %s", holds[0].At, want)
	}
	if got := holds[0].Attr("held"); got != "1073741824" {
		t.Errorf("held at %s bytes, want 1Gi", got)
	}
	if sys, _ := rt.SystemUsage(); sys > 1<<30 {
		t.Errorf("system memory %v above capacity at the end", sys)
	}
}

// A pod-level memory limit is the pod cgroup's: when the pod's containers together go past
// it the kernel kills the worst of that pod only, scored against the pod limit. Container a
// holds 300Mi (oom_score_adj 625), b starts at 100Mi and grows 10Mi/s (875), limit 1000Mi:
// 300 + 100 + 10·t > 1000 at t = 60s after the containers start (0.45s for both: sandbox,
// then create and start of each in parallel, as one pod worker would not do, but the kernel
// does not care). b has the higher badness (its pages plus 875 thousandths of the limit's
// pages against a's 300Mi plus 625 thousandths), so b dies; the 8Gi node is far from full.
func TestPodCgroupOOM(t *testing.T) {
	log := &trace.Log{}
	s := sim.New(1, log)
	beh := map[string]*api.Behavior{
		"a": {Memory: api.Program{{Set: q("300Mi")}}},
		"b": {Memory: api.Program{{Set: q("100Mi")}, {RampTo: q("2100Mi"), Over: d(200 * time.Second)}}},
	}
	rt := cri.New(s, cri.Config{Latency: cri.DefaultLatency(), Behavior: func(_ *corev1.Pod, name string) *api.Behavior { return beh[name] }})
	NewKernel(s, rt, 8<<30, 0, false)
	w := s.Clock("worker", sim.PriorityPodWorker)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "u", Name: "p", Namespace: "ns"}}
	w.Schedule(0, func() {
		rt.RunPodSandbox(pod, 0, func(sb string, _ error) {
			for _, c := range []struct {
				name string
				adj  int
			}{{"a", 625}, {"b", 875}} {
				spec := &corev1.Container{Name: c.name, Image: "i"}
				cfg := cri.ContainerConfig{OOMScoreAdj: c.adj, PodMemoryLimit: 1000 * mi}
				rt.CreateContainer(sb, spec, 0, cfg, func(id string, _ error) { rt.StartContainer(id, func(error) {}) })
			}
		})
	})
	s.RunUntil(2 * time.Minute)
	var kills []trace.Event
	for _, e := range log.Events {
		if e.Kind == trace.OOMKill {
			kills = append(kills, e)
		}
	}
	if len(kills) != 1 || kills[0].Attr("kind") != "pod" || kills[0].Container != "b" || kills[0].Attr("limit") != strconv.Itoa(1000*mi) {
		t.Fatalf("kills: %v", kills)
	}
	want := 450*time.Millisecond + 60*time.Second
	if got := kills[0].At; got < want || got > want+10*time.Millisecond {
		t.Errorf("killed at %s, want just after %s", got, want)
	}
}

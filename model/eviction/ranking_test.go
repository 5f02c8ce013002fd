package eviction

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// The ranking tables reuse the pods, usages and expected orders of upstream's
// TestOrderedByExceedsRequestMemory, TestOrderedByExceedsRequestDisk,
// TestOrderedByPriority, TestOrderedbyDisk, TestOrderedbyInodes, TestOrderedByPriorityDisk,
// TestOrderedByPriorityInodes, TestOrderedByMemory, TestOrderedByPriorityMemory and
// TestOrderedByPriorityProcess. Upstream often sorts with a single comparator; here the
// full ranking is applied, and the expected orders are the same because the earlier
// stages do not separate those pods.

const (
	evLowPriority     = -1
	evDefaultPriority = 0
	evHighPriority    = 1
)

// evRL builds a resource list from name/quantity pairs.
func evRL(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func evCtr(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

// evPod makes a pod in namespace "default" with one emptyDir volume, created at a fixed
// instant so that only explicit differences order it.
func evPod(name string, priority int32, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))},
		Spec: corev1.PodSpec{
			Priority:   ptr.To(priority),
			Containers: containers,
			Volumes:    []corev1.Volume{{Name: "local-volume", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		},
	}
}

// evSimple is a pod with a single container named after it.
func evSimple(name string, priority int32, requests corev1.ResourceList) *corev1.Pod {
	return evPod(name, priority, evCtr(name, requests, nil))
}

func evMiB(n int64) int64 { return n << 20 }

// evMem is upstream's newPodMemoryStats: the pod's working set.
func evMem(ws int64) *PodStats { return &PodStats{MemoryWorkingSet: ws} }

// evDisk is upstream's newPodDiskStats for a pod with one container and one local volume.
func evDisk(root, logs, vol int64) *PodStats {
	return &PodStats{RootFsUsed: root, LogsUsed: logs, LocalVolumesUsed: vol}
}

// evInodes is upstream's newPodInodeStats for one container and one local volume.
func evInodes(root, logs, vol int64) *PodStats {
	return &PodStats{RootFsInodes: root, LogsInodes: logs, LocalVolumesInodes: vol}
}

func evStats(m map[*corev1.Pod]*PodStats) StatsFunc {
	return func(p *corev1.Pod) (*PodStats, bool) {
		st, ok := m[p]
		return st, ok
	}
}

func evNames(pods []*corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

var evAllFs = FsMeasure{Root: true, Logs: true, LocalVolumes: true}

type evRankCase struct {
	name  string
	pods  []*corev1.Pod // input order
	stats map[*corev1.Pod]*PodStats
	rank  func([]*corev1.Pod, StatsFunc)
	want  []string
}

func evRun(t *testing.T, cases []evRankCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pods := append([]*corev1.Pod{}, tc.pods...)
			tc.rank(pods, evStats(tc.stats))
			if got := evNames(pods); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			// The result does not depend on the input order.
			rev := make([]*corev1.Pod, len(tc.pods))
			for i, p := range tc.pods {
				rev[len(tc.pods)-1-i] = p
			}
			tc.rank(rev, evStats(tc.stats))
			if got := evNames(rev); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("reversed input: got %v, want %v", got, tc.want)
			}
		})
	}
}

func memRank(p []*corev1.Pod, s StatsFunc) { RankMemoryPressure(p, s, true) }
func pidRank(p []*corev1.Pod, s StatsFunc) { RankPIDPressure(p, s) }
func diskRank(m FsMeasure, inodes bool) func([]*corev1.Pod, StatsFunc) {
	return func(p []*corev1.Pod, s StatsFunc) { RankDiskPressure(p, s, m, inodes, true) }
}

func TestRankMemoryPressure(t *testing.T) {
	below := evSimple("below-requests", -1, evRL("memory", "200Mi"))
	exceeds := evSimple("exceeds-requests", 1, evRL("memory", "100Mi"))

	low := evSimple("low-priority", -134, nil)
	medium := evSimple("medium-priority", 1, evRL("cpu", "100m", "memory", "100Mi"))
	high := evSimple("high-priority", 12534, evRL("cpu", "200m", "memory", "200Mi"))

	m1 := evSimple("best-effort-high", evDefaultPriority, nil)
	m2 := evSimple("best-effort-low", evDefaultPriority, nil)
	m3 := evSimple("burstable-high", evDefaultPriority, evRL("memory", "100Mi"))
	m4 := evSimple("burstable-low", evDefaultPriority, evRL("memory", "100Mi"))
	m5 := evSimple("guaranteed-high", evDefaultPriority, evRL("memory", "1Gi"))
	m6 := evSimple("guaranteed-low", evDefaultPriority, evRL("memory", "1Gi"))

	p1 := evSimple("above-requests-low-priority-high-usage", evLowPriority, nil)
	p2 := evSimple("above-requests-low-priority-low-usage", evLowPriority, nil)
	p3 := evSimple("above-requests-high-priority-high-usage", evHighPriority, evRL("memory", "100Mi"))
	p4 := evSimple("above-requests-high-priority-low-usage", evHighPriority, evRL("memory", "100Mi"))
	p5 := evSimple("below-requests-low-priority-high-usage", evLowPriority, evRL("memory", "1Gi"))
	p6 := evSimple("below-requests-low-priority-low-usage", evLowPriority, evRL("memory", "1Gi"))
	p7 := evSimple("below-requests-high-priority-high-usage", evHighPriority, evRL("memory", "1Gi"))
	p8 := evSimple("below-requests-high-priority-low-usage", evHighPriority, evRL("memory", "1Gi"))

	noStatsHigh := evSimple("no-stats-high-priority", 1000, evRL("memory", "1Gi"))
	busyLow := evSimple("busy-low-priority", -1000, nil)

	// A pod whose only memory request sits in an init container: the effective request is
	// the init phase's 1Gi, so 600Mi does not exceed it.
	initHeavy := evPod("init-heavy", evDefaultPriority, evCtr("app", evRL("memory", "100Mi"), nil))
	initHeavy.Spec.InitContainers = []corev1.Container{evCtr("setup", evRL("memory", "1Gi"), nil)}
	plain := evSimple("plain", evDefaultPriority, evRL("memory", "100Mi"))

	evRun(t, []evRankCase{
		{"exceeds requests first (upstream TestOrderedByExceedsRequestMemory)", []*corev1.Pod{below, exceeds},
			map[*corev1.Pod]*PodStats{below: evMem(evMiB(199)), exceeds: evMem(evMiB(101))}, memRank,
			[]string{"exceeds-requests", "below-requests"}},
		{"priority decides among pods without stats (upstream TestOrderedByPriority)", []*corev1.Pod{high, medium, low},
			nil, memRank, []string{"low-priority", "medium-priority", "high-priority"}},
		{"usage above request (upstream TestOrderedByMemory)", []*corev1.Pod{m1, m2, m3, m4, m5, m6},
			map[*corev1.Pod]*PodStats{m1: evMem(evMiB(500)), m2: evMem(evMiB(300)), m3: evMem(evMiB(800)),
				m4: evMem(evMiB(300)), m5: evMem(evMiB(800)), m6: evMem(evMiB(200))}, memRank,
			[]string{"burstable-high", "best-effort-high", "best-effort-low", "burstable-low", "guaranteed-high", "guaranteed-low"}},
		{"exceeds, priority, usage (upstream TestOrderedByPriorityMemory)", []*corev1.Pod{p8, p7, p6, p5, p4, p3, p2, p1},
			map[*corev1.Pod]*PodStats{p1: evMem(evMiB(500)), p2: evMem(evMiB(50)), p3: evMem(evMiB(600)), p4: evMem(evMiB(150)),
				p5: evMem(evMiB(800)), p6: evMem(evMiB(200)), p7: evMem(evMiB(800)), p8: evMem(evMiB(200))}, memRank,
			evNames([]*corev1.Pod{p1, p2, p3, p4, p5, p6, p7, p8})},
		{"nodesim: a pod without stats goes first whatever its priority", []*corev1.Pod{busyLow, noStatsHigh},
			map[*corev1.Pod]*PodStats{busyLow: evMem(evMiB(900))}, memRank,
			[]string{"no-stats-high-priority", "busy-low-priority"}},
		{"nodesim: init-phase request counts", []*corev1.Pod{initHeavy, plain},
			map[*corev1.Pod]*PodStats{initHeavy: evMem(evMiB(600)), plain: evMem(evMiB(150))}, memRank,
			[]string{"plain", "init-heavy"}},
	})
}

func TestRankDiskPressure(t *testing.T) {
	below := evSimple("below-requests", -1, evRL("ephemeral-storage", "200Mi"))
	exceeds := evSimple("exceeds-requests", 1, evRL("ephemeral-storage", "100Mi"))

	d1 := evSimple("best-effort-high", evDefaultPriority, nil)
	d2 := evSimple("best-effort-low", evDefaultPriority, nil)
	d3 := evSimple("burstable-high", evDefaultPriority, evRL("ephemeral-storage", "100Mi"))
	d4 := evSimple("burstable-low", evDefaultPriority, evRL("ephemeral-storage", "100Mi"))
	d5 := evSimple("guaranteed-high", evDefaultPriority, evRL("ephemeral-storage", "400Mi"))
	d6 := evSimple("guaranteed-low", evDefaultPriority, evRL("ephemeral-storage", "400Mi"))

	q1 := evSimple("above-requests-low-priority-high-usage", evLowPriority, nil)
	q2 := evSimple("above-requests-low-priority-low-usage", evLowPriority, nil)
	q3 := evSimple("above-requests-high-priority-high-usage", evHighPriority, evRL("ephemeral-storage", "100Mi"))
	q4 := evSimple("above-requests-high-priority-low-usage", evHighPriority, evRL("ephemeral-storage", "100Mi"))
	q5 := evSimple("below-requests-low-priority-high-usage", evLowPriority, evRL("ephemeral-storage", "1Gi"))
	q6 := evSimple("below-requests-low-priority-low-usage", evLowPriority, evRL("ephemeral-storage", "1Gi"))
	q7 := evSimple("below-requests-high-priority-high-usage", evHighPriority, evRL("ephemeral-storage", "1Gi"))
	q8 := evSimple("below-requests-high-priority-low-usage", evHighPriority, evRL("ephemeral-storage", "1Gi"))

	iLow := evSimple("low", evDefaultPriority, nil)
	iMedium := evSimple("medium", evDefaultPriority, nil)
	iHigh := evSimple("high", evDefaultPriority, nil)

	r1 := evSimple("low-priority-high-usage", evLowPriority, nil)
	r2 := evSimple("low-priority-low-usage", evLowPriority, nil)
	r3 := evSimple("high-priority-high-usage", evHighPriority, nil)
	r4 := evSimple("high-priority-low-usage", evHighPriority, nil)

	// Dedicated imagefs: nodefs ranks on logs and local volumes only, so a huge writable
	// layer does not count.
	bigRoot := evSimple("big-writable-layer", evDefaultPriority, nil)
	bigLogs := evSimple("big-logs", evDefaultPriority, nil)

	// Inode ranking subtracts the ephemeral-storage byte request from the inode count
	// (upstream quirk): 1000 inodes minus a 1Ki request ranks below 10 inodes.
	inodeReq := evSimple("inodes-with-byte-request", evDefaultPriority, evRL("ephemeral-storage", "1Ki"))
	inodeNoReq := evSimple("inodes-without-request", evDefaultPriority, nil)

	evRun(t, []evRankCase{
		{"exceeds requests first (upstream TestOrderedByExceedsRequestDisk)", []*corev1.Pod{below, exceeds},
			map[*corev1.Pod]*PodStats{below: evDisk(evMiB(100), evMiB(99), 0), exceeds: evDisk(evMiB(90), evMiB(11), 0)},
			diskRank(evAllFs, false), []string{"exceeds-requests", "below-requests"}},
		{"usage above request (upstream TestOrderedbyDisk)", []*corev1.Pod{d1, d2, d3, d4, d5, d6},
			map[*corev1.Pod]*PodStats{d1: evDisk(evMiB(50), evMiB(100), evMiB(150)), d2: evDisk(evMiB(25), evMiB(25), evMiB(50)),
				d3: evDisk(evMiB(150), evMiB(150), evMiB(50)), d4: evDisk(evMiB(25), evMiB(35), evMiB(50)),
				d5: evDisk(evMiB(225), evMiB(100), evMiB(50)), d6: evDisk(evMiB(25), evMiB(45), evMiB(50))},
			diskRank(evAllFs, false), []string{"best-effort-high", "burstable-high", "best-effort-low", "burstable-low", "guaranteed-high", "guaranteed-low"}},
		{"inodes (upstream TestOrderedbyInodes)", []*corev1.Pod{iLow, iMedium, iHigh},
			map[*corev1.Pod]*PodStats{iLow: evInodes(50000, 100000, 50000), iMedium: evInodes(100000, 150000, 50000), iHigh: evInodes(200000, 150000, 50000)},
			diskRank(evAllFs, true), []string{"high", "medium", "low"}},
		{"exceeds, priority, usage (upstream TestOrderedByPriorityDisk)", []*corev1.Pod{q8, q7, q6, q5, q4, q3, q2, q1},
			map[*corev1.Pod]*PodStats{q1: evDisk(evMiB(200), evMiB(100), evMiB(200)), q2: evDisk(evMiB(10), evMiB(10), evMiB(30)),
				q3: evDisk(evMiB(200), evMiB(150), evMiB(250)), q4: evDisk(evMiB(90), evMiB(50), evMiB(10)),
				q5: evDisk(evMiB(500), evMiB(200), evMiB(100)), q6: evDisk(evMiB(50), evMiB(100), evMiB(50)),
				q7: evDisk(evMiB(250), evMiB(500), evMiB(50)), q8: evDisk(evMiB(100), evMiB(60), evMiB(40))},
			diskRank(evAllFs, false), evNames([]*corev1.Pod{q1, q2, q3, q4, q5, q6, q7, q8})},
		{"priority then inodes (upstream TestOrderedByPriorityInodes)", []*corev1.Pod{r4, r3, r2, r1},
			map[*corev1.Pod]*PodStats{r1: evInodes(50000, 100000, 250000), r2: evInodes(60000, 30000, 10000),
				r3: evInodes(150000, 150000, 50000), r4: evInodes(10000, 40000, 100000)},
			diskRank(evAllFs, true), evNames([]*corev1.Pod{r1, r2, r3, r4})},
		{"nodesim: the measure selects the usages", []*corev1.Pod{bigRoot, bigLogs},
			map[*corev1.Pod]*PodStats{bigRoot: evDisk(evMiB(5000), evMiB(1), 0), bigLogs: evDisk(0, evMiB(10), 0)},
			diskRank(FsMeasure{Logs: true, LocalVolumes: true}, false), []string{"big-logs", "big-writable-layer"}},
		{"nodesim: same pods, all usages", []*corev1.Pod{bigRoot, bigLogs},
			map[*corev1.Pod]*PodStats{bigRoot: evDisk(evMiB(5000), evMiB(1), 0), bigLogs: evDisk(0, evMiB(10), 0)},
			diskRank(evAllFs, false), []string{"big-writable-layer", "big-logs"}},
		{"nodesim: inodes minus the byte request", []*corev1.Pod{inodeReq, inodeNoReq},
			map[*corev1.Pod]*PodStats{inodeReq: evInodes(1000, 0, 0), inodeNoReq: evInodes(10, 0, 0)},
			diskRank(evAllFs, true), []string{"inodes-without-request", "inodes-with-byte-request"}},
	})
}

func TestRankPIDPressure(t *testing.T) {
	p1 := evSimple("low-priority-high-usage", evLowPriority, nil)
	p2 := evSimple("low-priority-low-usage", evLowPriority, nil)
	p3 := evSimple("high-priority-high-usage", evHighPriority, nil)
	p4 := evSimple("high-priority-low-usage", evHighPriority, nil)
	noStats := evSimple("high-priority-no-stats", evHighPriority, nil)
	evRun(t, []evRankCase{
		{"priority then processes (upstream TestOrderedByPriorityProcess)", []*corev1.Pod{p4, p3, p2, p1},
			map[*corev1.Pod]*PodStats{p1: {Processes: 20}, p2: {Processes: 6}, p3: {Processes: 20}, p4: {Processes: 5}},
			pidRank, evNames([]*corev1.Pod{p1, p2, p3, p4})},
		// Priority comes before the stats check for pids, so a pod without stats only goes
		// ahead of pods of its own priority.
		{"nodesim: no stats is first within its priority only", []*corev1.Pod{p3, noStats, p1},
			map[*corev1.Pod]*PodStats{p1: {Processes: 20}, p3: {Processes: 20}},
			pidRank, []string{"low-priority-high-usage", "high-priority-no-stats", "high-priority-high-usage"}},
	})
}

func TestRankTieBreak(t *testing.T) {
	mk := func(ns, name string, created int) *corev1.Pod {
		p := evSimple(name, evDefaultPriority, nil)
		p.Namespace = ns
		p.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, created, 0, 0, time.UTC))
		return p
	}
	older := mk("zeta", "z-older", 0)
	newerA := mk("alpha", "b", 5)
	newerB := mk("alpha", "c", 5)
	newerC := mk("beta", "a", 5)
	same := func(pods ...*corev1.Pod) map[*corev1.Pod]*PodStats {
		out := map[*corev1.Pod]*PodStats{}
		for _, p := range pods {
			out[p] = &PodStats{MemoryWorkingSet: 1 << 20, RootFsUsed: 1 << 20, Processes: 3}
		}
		return out
	}
	want := []string{"z-older", "b", "c", "a"}
	pods := []*corev1.Pod{newerC, newerB, older, newerA}
	evRun(t, []evRankCase{
		{"memory ties: older, then namespace/name", pods, same(pods...), memRank, want},
		{"disk ties", pods, same(pods...), diskRank(evAllFs, false), want},
		{"pid ties", pods, same(pods...), pidRank, want},
		{"ties without stats", pods, nil, memRank, want},
	})
}

func TestPodRequestAndLimit(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := func(name string, req corev1.ResourceList) corev1.Container {
		c := evCtr(name, req, req)
		c.RestartPolicy = &always
		return c
	}
	cases := []struct {
		name      string
		pod       *corev1.Pod
		res       corev1.ResourceName
		wantReq   string
		wantLimit string // "" means no limit found
	}{
		{"sum of regular containers", func() *corev1.Pod {
			return evPod("p", 0, evCtr("a", evRL("memory", "100Mi"), evRL("memory", "200Mi")), evCtr("b", evRL("memory", "50Mi"), nil))
		}(), corev1.ResourceMemory, "150Mi", "200Mi"},
		{"init container larger than the regular sum", func() *corev1.Pod {
			p := evPod("p", 0, evCtr("a", evRL("memory", "100Mi"), nil))
			p.Spec.InitContainers = []corev1.Container{evCtr("init", evRL("memory", "1Gi"), evRL("memory", "1Gi"))}
			return p
		}(), corev1.ResourceMemory, "1Gi", "1Gi"},
		{"sidecars add to the regular sum and to later init phases", func() *corev1.Pod {
			p := evPod("p", 0, evCtr("a", evRL("memory", "100Mi"), nil))
			p.Spec.InitContainers = []corev1.Container{sidecar("log", evRL("memory", "200Mi")), evCtr("init", evRL("memory", "250Mi"), nil)}
			return p
		}(), corev1.ResourceMemory, "450Mi", "200Mi"},
		{"overhead only on a non-zero request", func() *corev1.Pod {
			p := evPod("p", 0, evCtr("a", nil, nil))
			p.Spec.Overhead = evRL("memory", "10Mi")
			return p
		}(), corev1.ResourceMemory, "0", ""},
		{"overhead added to requests and limits", func() *corev1.Pod {
			p := evPod("p", 0, evCtr("a", evRL("ephemeral-storage", "1Gi"), evRL("ephemeral-storage", "2Gi")))
			p.Spec.Overhead = evRL("ephemeral-storage", "100Mi")
			return p
		}(), corev1.ResourceEphemeralStorage, "1124Mi", "2148Mi"},
		{"nothing declared", evPod("p", 0, evCtr("a", nil, nil)), corev1.ResourceEphemeralStorage, "0", ""},
		{"inodes are never requested", evPod("p", 0, evCtr("a", evRL("ephemeral-storage", "1Gi"), nil)), ResourceInodes, "0", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := podRequest(tc.pod, tc.res, true)
			if req.Cmp(resource.MustParse(tc.wantReq)) != 0 || req.String() != tc.wantReq {
				t.Errorf("request = %s, want %s", req.String(), tc.wantReq)
			}
			lim, found := podLimit(tc.pod, tc.res)
			if found != (tc.wantLimit != "") {
				t.Fatalf("limit found = %v, want %v", found, tc.wantLimit != "")
			}
			if found && lim.Cmp(resource.MustParse(tc.wantLimit)) != 0 {
				t.Errorf("limit = %s, want %s", lim.String(), tc.wantLimit)
			}
		})
	}
}

func TestCandidates(t *testing.T) {
	a := evSimple("a", 5, evRL("memory", "100Mi", "ephemeral-storage", "1Gi"))
	b := evSimple("b", -3, nil)
	stats := evStats(map[*corev1.Pod]*PodStats{
		a: {MemoryWorkingSet: evMiB(150), RootFsUsed: evMiB(512), LogsUsed: evMiB(512), LocalVolumesUsed: evMiB(100), RootFsInodes: 2000, Processes: 7},
	})
	type row struct {
		exceeds bool
		above   string
	}
	cases := []struct {
		signal  Signal
		measure FsMeasure
		want    []row
	}{
		{SignalMemoryAvailable, FsMeasure{}, []row{{true, "50Mi"}, {false, "0"}}},
		{SignalAllocatableMemoryAvailable, FsMeasure{}, []row{{true, "50Mi"}, {false, "0"}}},
		{SignalNodeFsAvailable, evAllFs, []row{{true, "100Mi"}, {false, "0"}}},
		{SignalNodeFsAvailable, FsMeasure{Logs: true}, []row{{false, "-512Mi"}, {false, "0"}}},
		{SignalImageFsInodesFree, FsMeasure{Root: true}, []row{{true, "-1073739824"}, {false, "0"}}},
		{SignalPIDAvailable, FsMeasure{}, []row{{false, "7"}, {false, "0"}}},
		{"swap.available", FsMeasure{}, []row{{false, "0"}, {false, "0"}}},
	}
	for _, tc := range cases {
		got := Candidates([]*corev1.Pod{a, b}, stats, tc.signal, tc.measure, true)
		if len(got) != 2 || got[0].Pod != "default/a" || got[1].Pod != "default/b" || got[0].Priority != 5 || got[1].Priority != -3 {
			t.Fatalf("%s: candidates %+v", tc.signal, got)
		}
		for i, w := range tc.want {
			if got[i].ExceedsRequests != w.exceeds || got[i].UsageAboveRequests.String() != w.above {
				t.Errorf("%s[%d]: exceeds=%v above=%s, want %v %s", tc.signal, i, got[i].ExceedsRequests, got[i].UsageAboveRequests.String(), w.exceeds, w.above)
			}
		}
	}
}

func TestLocalVolumeNames(t *testing.T) {
	pod := evPod("p", 0)
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "tmpfs", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
		{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}},
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
		{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}},
		{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}},
	}
	if got, want := LocalVolumeNames(pod), []string{"scratch", "host", "config"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A pod-level memory request is the pod's request when ranking (upstream
// GetResourceRequestQuantity with PodLevelResources on). "pod-level" declares 1Gi at pod
// level and nothing in its container, working set 800Mi: below its request, so it goes after
// "container-level" (request 100Mi, working set 200Mi, exceeding) although its usage is
// larger. With the gate off its request is 0, it exceeds too, and the larger usage above
// request (800Mi - 0 > 200Mi - 100Mi) puts it first.
func TestRankMemoryPressurePodLevelResources(t *testing.T) {
	podLevel := evPod("pod-level", evDefaultPriority, evCtr("c", nil, nil))
	podLevel.Spec.Resources = &corev1.ResourceRequirements{Requests: evRL("memory", "1Gi")}
	containerLevel := evSimple("container-level", evDefaultPriority, evRL("memory", "100Mi"))
	stats := map[*corev1.Pod]*PodStats{podLevel: evMem(evMiB(800)), containerLevel: evMem(evMiB(200))}
	pods := []*corev1.Pod{podLevel, containerLevel}
	evRun(t, []evRankCase{
		{"gate on", pods, stats, func(p []*corev1.Pod, s StatsFunc) { RankMemoryPressure(p, s, true) }, []string{"container-level", "pod-level"}},
		{"gate off", pods, stats, func(p []*corev1.Pod, s StatsFunc) { RankMemoryPressure(p, s, false) }, []string{"pod-level", "container-level"}},
	})
}

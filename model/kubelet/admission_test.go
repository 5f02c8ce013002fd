package kubelet

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/podworkers"
	"nodesim/trace"
)

func memPod(uid, memory string) *corev1.Pod {
	p := testPod(uid, nil)
	p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}}}}
	return p
}

// The active set's summed requests follow additions, replacements (a new object for a known
// UID) and removals, and its index always points at each pod's place. Memory is
// admittedResources[1]: a 1Gi + b 2Gi = 3Gi; a replaced by 3Gi: 5Gi; c 4Gi: 9Gi; b removed
// (c takes its place): 7Gi; a removed: 4Gi.
func TestActivePodsBookkeeping(t *testing.T) {
	kl := &Kubelet{requests: map[types.UID]cachedRequests{}}
	a := &activePods{index: map[types.UID]int{}}
	check := func(step, wantMem string, wantUIDs ...string) {
		t.Helper()
		if got := a.used[1]; got.Cmp(resource.MustParse(wantMem)) != 0 {
			t.Errorf("%s: memory in use %s, want %s", step, got.String(), wantMem)
		}
		if len(a.pods) != len(wantUIDs) || len(a.index) != len(wantUIDs) || len(a.req) != len(wantUIDs) {
			t.Fatalf("%s: %d pods, %d indexed, %d requests; want %d", step, len(a.pods), len(a.index), len(a.req), len(wantUIDs))
		}
		for _, uid := range wantUIDs {
			i, ok := a.index[types.UID(uid)]
			if !ok || a.pods[i].UID != types.UID(uid) {
				t.Errorf("%s: %s indexed at %d (%v)", step, uid, i, ok)
			}
		}
	}
	kl.addActive(a, memPod("a", "1Gi"))
	kl.addActive(a, memPod("b", "2Gi"))
	check("a and b", "3Gi", "a", "b")
	kl.addActive(a, memPod("a", "3Gi"))
	check("a replaced", "5Gi", "a", "b")
	kl.addActive(a, memPod("c", "4Gi"))
	a.remove("b")
	check("c added, b removed", "7Gi", "a", "c")
	a.remove("nobody")
	check("unknown removed", "7Gi", "a", "c")
	a.remove("a")
	check("a removed", "4Gi", "c")
}

// Between refreshes in which no pod's termination state or terminal phase moved, the kubelet
// rechecks only the pods whose objects the pod manager replaced, added or removed. Over a
// long random sequence of such changes (pods added, replaced by Failed or Running copies,
// removed, in batches of 1 to 5), the set it keeps, its order and its sums included, equals
// the full pass over every pod run from the same set.
func TestRefreshActivePodsRechecksOnlyTouchedPods(t *testing.T) {
	_, kl := newTestKubelet(t, &trace.Log{})
	rng := rand.New(rand.NewPCG(1, 2))
	pod := func(i int, phase corev1.PodPhase) *corev1.Pod {
		p := memPod(fmt.Sprintf("uid-%03d", i), fmt.Sprintf("%dMi", 1+i%7))
		p.Name, p.Namespace, p.Status.Phase = fmt.Sprintf("p%03d", i), "default", phase
		return p
	}
	kl.refreshActivePods()
	incremental := 0
	for step := 0; step < 400; step++ {
		for n := 1 + rng.IntN(5); n > 0; n-- {
			i := rng.IntN(60)
			switch rng.IntN(4) {
			case 0, 1:
				kl.podManager.AddPod(pod(i, corev1.PodRunning))
			case 2:
				kl.podManager.UpdatePod(pod(i, corev1.PodFailed))
			case 3:
				if p, ok := kl.podManager.GetPodByUID(types.UID(fmt.Sprintf("uid-%03d", i))); ok {
					kl.podManager.RemovePod(p)
				}
			}
		}
		before := kl.active
		want := &activePods{pods: slices.Clone(before.pods), req: slices.Clone(before.req),
			index: maps.Clone(before.index), used: before.used}
		kl.refreshAll(want)
		if before.workers == kl.podWorkers.TerminationVersion() && before.statuses == kl.statusManager.TerminalVersion() {
			incremental++
		}
		got := kl.refreshActivePods()
		if !slices.Equal(got.pods, want.pods) || !maps.Equal(got.index, want.index) {
			t.Fatalf("step %d: set %v, the full pass gives %v", step, uids(got.pods), uids(want.pods))
		}
		for r := range got.used {
			if got.used[r].Cmp(want.used[r]) != 0 {
				t.Fatalf("step %d: %s in use %s, the full pass gives %s", step, admittedResources[r], got.used[r].String(), want.used[r].String())
			}
		}
	}
	if incremental < 390 {
		t.Fatalf("only %d of 400 refreshes rechecked just the touched pods", incremental)
	}
}

func uids(pods []*corev1.Pod) []types.UID {
	out := make([]types.UID, len(pods))
	for i, p := range pods {
		out[i] = p.UID
	}
	return out
}

// filterOutInactivePods reuses what it read of the pod manager's pods while their UIDs, the
// workers' terminations and the terminal statuses are unchanged; over random histories of
// pods coming, changing and going, kills and terminal statuses, it gives what checking
// every pod gives.
func TestFilterOutInactivePodsMatchesTheFullPass(t *testing.T) {
	s, kl := newTestKubelet(t, &trace.Log{})
	rng := rand.New(rand.NewPCG(7, 8))
	pod := func(i int, phase corev1.PodPhase) *corev1.Pod {
		p := memPod(fmt.Sprintf("uid-%03d", i), "1Mi")
		p.Name, p.Namespace, p.Status.Phase = fmt.Sprintf("p%03d", i), "default", phase
		return p
	}
	reused := 0
	for step := 0; step < 600; step++ {
		for n := rng.IntN(3); n > 0; n-- {
			i := rng.IntN(40)
			cur, ok := kl.podManager.GetPodByUID(types.UID(fmt.Sprintf("uid-%03d", i)))
			switch rng.IntN(6) {
			case 0:
				kl.podManager.AddPod(pod(i, corev1.PodRunning))
			case 1:
				kl.podManager.UpdatePod(pod(i, corev1.PodSucceeded))
			case 2:
				if ok {
					kl.podManager.RemovePod(cur)
				}
			case 3:
				if ok {
					kl.podWorkers.UpdatePod(podworkers.UpdatePodOptions{Pod: cur, UpdateType: podworkers.SyncPodKill, StartTime: kl.clk.Now()})
				}
			case 4:
				if ok {
					kl.statusManager.SetPodStatus(cur, corev1.PodStatus{Phase: corev1.PodFailed})
				}
			}
		}
		if rng.IntN(2) == 0 {
			s.RunUntil(s.Elapsed() + time.Duration(rng.IntN(2000))*time.Millisecond)
		}
		pods := kl.podManager.GetPods()
		var want []*corev1.Pod
		for _, p := range pods {
			if kl.isActive(p) {
				want = append(want, p)
			}
		}
		c := kl.activeFilter
		if c.valid && c.pods == kl.podManager.podsVersion && c.workers == kl.podWorkers.TerminationVersion() && c.statuses == kl.statusManager.TerminalVersion() {
			reused++
		}
		if got := kl.filterOutInactivePods(pods); !slices.Equal(got, want) {
			t.Fatalf("step %d: active %v, checking every pod gives %v", step, uids(got), uids(want))
		}
	}
	if reused < 50 {
		t.Fatalf("only %d of 600 calls reused what the previous one read", reused)
	}
	t.Logf("%d of 600 calls reused what the previous one read", reused)
}

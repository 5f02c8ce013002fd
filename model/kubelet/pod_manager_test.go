package kubelet

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/podconfig"
	"nodesim/sim"
	"nodesim/trace"
)

// The pod manager records a pod entering or leaving its pod map or its mirror-pod map, with
// both maps' sizes after the change; an update of a pod it holds records nothing.
func TestPodManagerRecordsItsMaps(t *testing.T) {
	var got []string
	m := newPodManager(func(e *trace.Event) {
		got = append(got, fmt.Sprintf("%s %s %s pods=%s mirrorPods=%s", e.Name, e.Pod, e.Attr("map"), e.Attr("pods"), e.Attr("mirrorPods")))
	})
	static := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-n", UID: "s1"}}
	mirror := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-n", UID: "m1",
		Annotations: map[string]string{podconfig.ConfigMirrorAnnotationKey: "s1"}}}
	web := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "w1"}}
	m.AddPod(static)
	m.AddPod(mirror)
	m.UpdatePod(static) // held already: nothing recorded
	m.UpdatePod(web)    // not held: an UpdatePod that adds
	m.RemovePod(mirror)
	m.RemovePod(mirror) // gone already: nothing recorded
	want := []string{
		"AddPod kube-system/etcd-n pods pods=1 mirrorPods=0",
		"AddPod kube-system/etcd-n mirrorPods pods=1 mirrorPods=1",
		"UpdatePod default/web pods pods=2 mirrorPods=1",
		"RemovePod kube-system/etcd-n mirrorPods pods=2 mirrorPods=0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("recorded\n got  %q\n want %q", got, want)
	}
}

func testPod(uid string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: "p-" + uid, Namespace: "ns", Annotations: annotations}}
}

func uidsOf(pods []*corev1.Pod) string {
	out := ""
	for _, p := range pods {
		out += string(p.UID) + ","
	}
	return out
}

// GetPods keeps the desired pods in UID order as they come and go (mirror pods aside), and
// a slice it handed out never changes afterwards.
func TestPodManagerKeepsPodsSortedAndHandedOutSlicesStable(t *testing.T) {
	m := newPodManager(func(*trace.Event) {})
	for _, uid := range []string{"c", "a", "b"} {
		m.AddPod(testPod(uid, nil))
	}
	m.AddPod(testPod("m", map[string]string{"kubernetes.io/config.mirror": "x"}))
	held := m.GetPods()
	if got := uidsOf(held); got != "a,b,c," {
		t.Fatalf("GetPods = %s, want a,b,c,", got)
	}
	newA := testPod("a", nil)
	m.AddPod(testPod("0", nil))
	m.RemovePod(testPod("b", nil))
	m.UpdatePod(newA)
	m.RemovePod(testPod("zz", nil)) // not known: nothing changes
	got := m.GetPods()
	if uidsOf(got) != "0,a,c," || got[1] != newA {
		t.Fatalf("GetPods = %s (a updated: %v), want 0,a,c, with the updated a", uidsOf(got), got[1] == newA)
	}
	if uidsOf(held) != "a,b,c," || held[0] == newA {
		t.Fatalf("the slice handed out earlier changed: %s", uidsOf(held))
	}
	// No GetPods since: changes work in place and show at the next call.
	m.AddPod(testPod("b2", nil))
	if got := uidsOf(m.GetPods()); got != "0,a,b2,c," {
		t.Fatalf("GetPods = %s, want 0,a,b2,c,", got)
	}
}

// fakeNow is a work queue's clock that a test moves by hand.
type fakeNow struct{ t time.Time }

func (c *fakeNow) Now() time.Time { return c.t }

func (c *fakeNow) Elapsed() time.Duration { return c.t.Sub(sim.Epoch) }

// getPodsToSync looks only at the due pods (the work queue's heap) and the pods with an
// active deadline (the pod manager's index); over random histories of pods coming, changing
// and going, with and without deadlines, and of requeues, some replacing an entry not yet
// due, it gives what the full pass gives: every desired pod in UID order, taken when its
// queue entry is strictly before now or it is past its active deadline.
func TestGetPodsToSyncMatchesTheFullPass(t *testing.T) {
	_, kl := newTestKubelet(t, &trace.Log{})
	clock := &fakeNow{t: kl.clk.Now()}
	kl.podManager = newPodManager(nil)
	kl.workQueue = newWorkQueue(clock)
	ref := map[types.UID]time.Time{} // the work queue as a plain map, walked whole
	rng := rand.New(rand.NewPCG(3, 4))
	uid := func(i int) types.UID { return types.UID(fmt.Sprintf("uid-%03d", i)) }
	taken := 0
	for step := 0; step < 2000; step++ {
		for n := rng.IntN(6); n > 0; n-- {
			i := rng.IntN(40)
			switch rng.IntN(6) {
			case 0, 1:
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p%03d", i), UID: uid(i)}}
				if rng.IntN(2) == 0 {
					d := int64(rng.IntN(20))
					p.Spec.ActiveDeadlineSeconds = &d
					start := metav1.NewTime(kl.clk.Now().Add(-time.Duration(rng.IntN(20)) * time.Second))
					kl.statusManager.SetPodStatus(p, corev1.PodStatus{StartTime: &start})
				}
				if rng.IntN(2) == 0 {
					kl.podManager.AddPod(p)
				} else {
					kl.podManager.UpdatePod(p)
				}
			case 2:
				if p, ok := kl.podManager.GetPodByUID(uid(i)); ok {
					kl.podManager.RemovePod(p)
				}
			default:
				delay := time.Duration(rng.IntN(4000)) * time.Millisecond
				kl.workQueue.Enqueue(uid(i), delay)
				ref[uid(i)] = clock.t.Add(delay)
			}
		}
		clock.t = clock.t.Add(time.Duration(rng.IntN(1500)) * time.Millisecond)
		var want []*corev1.Pod
		for _, pod := range kl.podManager.GetPods() {
			due := false
			if at, ok := ref[pod.UID]; ok && at.Before(clock.t) {
				due = true
			}
			if due || pod.Spec.ActiveDeadlineSeconds != nil && kl.pastActiveDeadline(pod) {
				want = append(want, pod)
			}
		}
		for u, at := range ref {
			if at.Before(clock.t) {
				delete(ref, u)
			}
		}
		got := kl.getPodsToSync()
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: got %v, the full pass gives %v", step, uids(got), uids(want))
		}
		taken += len(got)
	}
	if taken < 1000 || kl.workQueue.queuedItems() > 200 {
		t.Fatalf("%d pods taken, %d items left: the history does not exercise the queue", taken, kl.workQueue.queuedItems())
	}
}

// The work queue keeps a pod's entry while the pod may still be taken, and drops idle
// entries once they outnumber the others: pods that pass through once (a node's pods
// coming and going) leave a bounded number of entries behind, and each is taken exactly
// when its latest time has passed, a replaced time never taking it.
func TestWorkQueueDropsIdleEntries(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)}
	q := newWorkQueue(clock)
	for i := 0; i < 5000; i++ {
		uid := types.UID(fmt.Sprintf("uid-%05d", i))
		q.Enqueue(uid, time.Second)
		q.Enqueue(uid, 3*time.Second) // replaces the first time, whose heap item goes stale
		clock.t = clock.t.Add(2 * time.Second)
		if got := q.GetWork(); got != nil {
			t.Fatalf("pod %d: taken at its replaced time: %v", i, got)
		}
		clock.t = clock.t.Add(2 * time.Second)
		if got := q.GetWork(); len(got) != 1 || got[0] != uid {
			t.Fatalf("pod %d: GetWork = %v, want [%s]", i, got, uid)
		}
		if len(q.ids) > 2*workQueueIdleSlack+2 || len(q.entries) > 2*workQueueIdleSlack+2 {
			t.Fatalf("pod %d: %d entries (%d places) kept for pods that left", i, len(q.ids), len(q.entries))
		}
	}
	if n := q.queuedItems(); n != 0 {
		t.Fatalf("%d items left", n)
	}
}

// TestCompareTakenIsUIDOrder checks that GetWork's order of due pods (by uidKey, then the
// whole UID) is the UIDs' string order, for short UIDs, shared prefixes and zero bytes.
func TestCompareTakenIsUIDOrder(t *testing.T) {
	uids := []types.UID{"", "a", "ab", "ab\x00", "ab\x00x", "ab\x01", "abcdefgh", "abcdefgh\x00", "abcdefghi",
		"abcdefgg~", "b", "\xff", "53842afe-623a-6f1e-182f-9c81e2492a92", "53842afe-623a-6f1e-182f-9c81e2492a91",
		"53842afd-ffff", "96603d4d-fddd-0a0c-5450-8001fb4ef027", "abcdefg"}
	q := newWorkQueue(&fakeNow{t: sim.Epoch})
	taken := map[types.UID]takenPod{}
	for _, u := range uids {
		q.Enqueue(u, time.Hour)
		taken[u] = takenPod{key: uidKey(u), id: q.ids[u]}
	}
	for _, a := range uids {
		for _, b := range uids {
			got := q.compareTaken(taken[a], taken[b])
			if want := strings.Compare(string(a), string(b)); got != want {
				t.Errorf("compareTaken(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// Before the run's time zero (the kubelet boots at -1s, a longer boot earlier still) the
// queue takes what is due like at any other time, and files what it keeps in its first slot.
func TestWorkQueueBeforeTimeZero(t *testing.T) {
	clock := &fakeNow{t: sim.Epoch.Add(-5 * time.Second)}
	q := newWorkQueue(clock)
	q.Enqueue("early", -time.Second)               // due at -6s
	q.Enqueue("later", 3*time.Second)              // due at -2s
	q.Enqueue("after-zero", 5500*time.Millisecond) // due at 0.5s
	clock.t = sim.Epoch.Add(-3 * time.Second)
	if got := q.GetWork(); !slices.Equal(got, []types.UID{"early"}) {
		t.Fatalf("GetWork at -3s = %v, want [early]", got)
	}
	clock.t = sim.Epoch.Add(-1500 * time.Millisecond)
	if got := q.GetWork(); !slices.Equal(got, []types.UID{"later"}) {
		t.Fatalf("GetWork at -1.5s = %v, want [later]", got)
	}
	if got := q.GetWork(); got != nil {
		t.Fatalf("second GetWork at -1.5s = %v, want none", got)
	}
	clock.t = sim.Epoch.Add(time.Second)
	if got := q.GetWork(); !slices.Equal(got, []types.UID{"after-zero"}) {
		t.Fatalf("GetWork at 1s = %v, want [after-zero]", got)
	}
}

// The work queue takes exactly the pods whose latest time is before now, in UID order,
// whether their items wait in the wheel or, due more than the wheel's span ahead, in the
// heap; with negative delays, and with the clock standing still or leaping a wheel or more
// between calls.
func TestWorkQueueWheelAndHeapMatchAMap(t *testing.T) {
	clock := &fakeNow{t: time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)}
	q := newWorkQueue(clock)
	ref := map[types.UID]time.Time{}
	rng := rand.New(rand.NewPCG(5, 6))
	inHeap := 0
	for step := 0; step < 5000; step++ {
		for n := rng.IntN(8); n > 0; n-- {
			u := types.UID(fmt.Sprintf("uid-%03d", rng.IntN(300)))
			var delay time.Duration
			switch rng.IntN(10) {
			case 0:
				delay = -time.Duration(rng.IntN(3000)) * time.Millisecond
			case 1:
				delay = time.Duration(rng.IntN(1200)) * time.Second // often past the wheel
			case 2:
				delay = time.Duration(500000+rng.IntN(20000)) * time.Millisecond // the wheel's far end
			default:
				delay = time.Duration(rng.IntN(90000)) * time.Millisecond
			}
			q.Enqueue(u, delay)
			ref[u] = clock.t.Add(delay)
		}
		inHeap = max(inHeap, len(q.due))
		switch rng.IntN(20) {
		case 0:
			clock.t = clock.t.Add(time.Duration(rng.IntN(1500)) * time.Second)
		case 2:
			clock.t = clock.t.Add(time.Duration(505000+rng.IntN(15000)) * time.Millisecond) // about a wheel
		case 1:
			// the clock stands still
		default:
			clock.t = clock.t.Add(time.Duration(rng.IntN(2500)) * time.Millisecond)
		}
		var want []types.UID
		for u, at := range ref {
			if at.Before(clock.t) {
				want = append(want, u)
				delete(ref, u)
			}
		}
		slices.Sort(want)
		if got := q.GetWork(); !slices.Equal(got, want) {
			t.Fatalf("step %d: GetWork = %v, want %v", step, got, want)
		}
	}
	if inHeap == 0 {
		t.Fatal("no item ever waited in the heap: the history does not exercise it")
	}
}

// sortTaken puts due pods in UID order, short lists and long ones.
func TestSortTakenIsUIDOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 2, 5, 17, 32, 33, 200} {
		q := newWorkQueue(&fakeNow{t: sim.Epoch})
		var taken []takenPod
		var want []types.UID
		for i := 0; i < n; i++ {
			u := types.UID(fmt.Sprintf("%08x-%d", rng.IntN(64), rng.IntN(1000))) // shared keys too
			q.Enqueue(u, time.Hour)
			taken = append(taken, takenPod{key: uidKey(u), id: q.ids[u]})
			want = append(want, u)
		}
		q.sortTaken(taken)
		slices.Sort(want)
		for i := range taken {
			if got := q.entries[taken[i].id].uid; got != want[i] {
				t.Fatalf("n=%d: at %d got %q, want %q", n, i, got, want[i])
			}
		}
	}
}

// Over random histories of pods added, replaced (by new objects, as status echoes do) and
// removed, GetPods lists the latest object of every pod held, in UID order, GetPodByUID
// and GetPodByFullName find them, and no list handed out changes afterwards.
func TestPodManagerListsTheLatestObjects(t *testing.T) {
	m := newPodManager(nil)
	ref := map[types.UID]*corev1.Pod{}
	rng := rand.New(rand.NewPCG(9, 10))
	var kept [][]*corev1.Pod
	for step := 0; step < 3000; step++ {
		i := rng.IntN(40)
		u := types.UID(fmt.Sprintf("uid-%03d", i))
		switch rng.IntN(5) {
		case 0:
			if p, ok := ref[u]; ok {
				m.RemovePod(p)
				delete(ref, u)
			}
		default:
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p%03d", i), UID: u}}
			if rng.IntN(2) == 0 {
				m.AddPod(p)
			} else {
				m.UpdatePod(p)
			}
			ref[u] = p
		}
		var want []*corev1.Pod
		for _, p := range ref {
			want = append(want, p)
		}
		slices.SortFunc(want, func(a, b *corev1.Pod) int { return strings.Compare(string(a.UID), string(b.UID)) })
		if rng.IntN(3) == 0 {
			got := m.GetPods()
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: GetPods = %v, want %v", step, uids(got), uids(want))
			}
			kept = append(kept, got, slices.Clone(got)) // a handed-out list, and a copy
		}
		for _, p := range want {
			if got, ok := m.GetPodByUID(p.UID); !ok || got != p {
				t.Fatalf("step %d: GetPodByUID(%s) = %p, want %p", step, p.UID, got, p)
			}
			if got, ok := m.GetPodByFullName(fullName(p)); !ok || got != p {
				t.Fatalf("step %d: GetPodByFullName(%s) = %p, want %p", step, fullName(p), got, p)
			}
		}
	}
	for i := 0; i < len(kept); i += 2 {
		if !slices.Equal(kept[i], kept[i+1]) {
			t.Fatalf("list %d handed out changed under its holder", i/2)
		}
	}
}

// A sync tick on the second takes what is due before it, and nothing of its own slot:
// a time on that very instant is not before now, and a negative delay given while the
// slot was the cursor's (filed there, though earlier) is taken at once.
func TestWorkQueueTickOnTheSecond(t *testing.T) {
	clock := &fakeNow{t: sim.Epoch.Add(500 * time.Millisecond)}
	q := newWorkQueue(clock)
	q.Enqueue("on-the-second", 500*time.Millisecond) // due at 1s: slot 1's first instant
	q.Enqueue("just-before", 400*time.Millisecond)   // due at 0.9s
	q.Enqueue("just-after", 600*time.Millisecond)    // due at 1.1s
	clock.t = sim.Epoch.Add(time.Second)
	if got := q.GetWork(); !slices.Equal(got, []types.UID{"just-before"}) {
		t.Fatalf("GetWork at 1s = %v, want [just-before]", got)
	}
	clock.t = sim.Epoch.Add(1200 * time.Millisecond)
	q.Enqueue("negative", -time.Second) // due at 0.2s, filed in the cursor's slot (1)
	if got := q.GetWork(); !slices.Equal(got, []types.UID{"just-after", "negative", "on-the-second"}) {
		t.Fatalf("GetWork at 1.2s = %v, want [just-after negative on-the-second]", got)
	}
	clock.t = sim.Epoch.Add(2 * time.Second)
	if got := q.GetWork(); got != nil {
		t.Fatalf("GetWork at 2s = %v, want none", got)
	}
	q.Enqueue("again", -500*time.Millisecond) // due at 1.5s, filed in slot 2 (the cursor's)
	if got := q.GetWork(); !slices.Equal(got, []types.UID{"again"}) {
		t.Fatalf("second GetWork at 2s = %v, want [again]", got)
	}
}

package kubelet

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
	if taken < 1000 || len(kl.workQueue.due) > 200 {
		t.Fatalf("%d pods taken, %d heap items left: the history does not exercise the queue", taken, len(kl.workQueue.due))
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
	if len(q.due) != 0 {
		t.Fatalf("%d heap items left", len(q.due))
	}
}

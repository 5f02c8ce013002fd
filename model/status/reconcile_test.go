package status

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/apiserver"
	"nodesim/sim"
	"nodesim/trace"
)

// safetyFake answers CouldHaveRunningContainers from a set the scenario changes.
type safetyFake map[types.UID]bool

func (f safetyFake) CouldHaveRunningContainers(uid types.UID) bool { return f[uid] }

// reconcileRun plays a random scenario against a status manager and its API server and
// returns everything either recorded, one line per event, and the API's pods at the end.
// narrowOff makes the periodic reconcile visit every pod.
func reconcileRun(seed uint64, narrowOff bool) (string, int) {
	log := &trace.Log{}
	s := sim.New(seed, log)
	api := apiserver.New(s)
	safety := safetyFake{}
	m := NewManager(s, api, safety)
	m.narrowOff = narrowOff
	m.Start()
	r := rand.New(rand.NewPCG(seed, 1))

	const n = 10
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(fmt.Sprintf("uid-%02d", i)), Namespace: "ns", Name: fmt.Sprintf("p%d", i),
			Annotations: map[string]string{}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
		if i%4 == 3 {
			p.Annotations["kubernetes.io/config.source"] = "file"
		}
		pods[i] = p
	}
	mirror := func(p *corev1.Pod) *corev1.Pod {
		mp := p.DeepCopy()
		mp.UID = "mirror-" + p.UID
		mp.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "hash", "kubernetes.io/config.source": "api"}
		return mp
	}
	randomStatus := func() corev1.PodStatus {
		phases := []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}
		st := corev1.PodStatus{Phase: phases[r.IntN(len(phases))], PodIP: fmt.Sprintf("10.0.0.%d", r.IntN(3))}
		cs := corev1.ContainerStatus{Name: "c", ContainerID: ContainerIDScheme + fmt.Sprintf("c%d", r.IntN(3)), Ready: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			cs.State.Running = &corev1.ContainerStateRunning{}
		} else {
			cs.State.Terminated = &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 1}
		}
		st.ContainerStatuses = []corev1.ContainerStatus{cs}
		ready := corev1.ConditionFalse
		if cs.Ready {
			ready = corev1.ConditionTrue
		}
		st.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}, {Type: corev1.ContainersReady, Status: ready}}
		return st
	}
	// A watcher that, on some changes, sets another pod's status at once: a change of one
	// pod while the reconcile is visiting another.
	api.Watch(func([]*corev1.Pod) {}, func(ev apiserver.WatchEvent) {
		if r.IntN(3) != 0 {
			return
		}
		m.SetPodStatus(pods[r.IntN(n)], randomStatus())
	})

	knownVersion := uint64(0)
	for range 400 {
		s.Step(time.Duration(r.IntN(6000)) * time.Millisecond)
		p := pods[r.IntN(n)]
		switch op := r.IntN(11); op {
		case 0, 1, 2:
			m.SetPodStatus(p, randomStatus())
		case 3:
			m.SetContainerReadiness(p, fmt.Sprintf("c%d", r.IntN(3)), r.IntN(2) == 0)
		case 4:
			if r.IntN(4) == 0 {
				m.TerminatePod(p)
			}
		case 5:
			if p.Annotations["kubernetes.io/config.source"] == "file" {
				if api.PeekByName(p.Namespace, p.Name) == nil {
					api.Create(mirror(p))
				}
			} else if api.Peek(p.UID) == nil {
				api.Create(p)
			}
		case 6:
			target := p
			if p.Annotations["kubernetes.io/config.source"] == "file" {
				target = mirror(p)
			}
			if cur := api.Peek(target.UID); cur != nil {
				up := cur.DeepCopy()
				up.Labels = map[string]string{"v": fmt.Sprint(r.IntN(100))}
				api.Update(up)
			}
		case 7:
			graces := []*int64{nil, new(int64), ptr(int64(5))}
			uid := p.UID
			if r.IntN(3) == 0 {
				uid = "mirror-" + uid
			}
			api.Delete(uid, graces[r.IntN(len(graces))])
		case 8:
			// another writer's status patch
			uid := p.UID
			if p.Annotations["kubernetes.io/config.source"] == "file" {
				uid = "mirror-" + uid
			}
			if cur := api.Peek(uid); cur != nil {
				st := randomStatus()
				st.Conditions = append(st.Conditions, corev1.PodCondition{Type: "example.com/Gate", Status: corev1.ConditionTrue})
				api.PatchStatus(uid, st)
			}
		case 9:
			safety[p.UID] = !safety[p.UID]
		case 10:
			if r.IntN(5) == 0 {
				gone := pods[r.IntN(n)].UID
				knownVersion++
				m.RemoveOrphanedStatuses(func(u types.UID) bool { return u != gone }, knownVersion)
			}
		}
	}
	s.Step(time.Minute)

	var b strings.Builder
	writes := 0
	for _, e := range log.Events {
		fmt.Fprintf(&b, "%v %d %s %s %s %s %v\n", e.At, e.Seq, e.Track, e.Kind, e.Name, e.Pod, e.Attrs)
		if e.Kind == apiserver.KindPatchStatus {
			writes++
		}
	}
	for _, p := range api.List() {
		fmt.Fprintf(&b, "%s %s %+v\n", p.UID, p.ResourceVersion, p.Status)
	}
	return b.String(), writes
}

func ptr[T any](v T) *T { return &v }

// The periodic reconcile visits only the pods in reconcile; random scenarios (status
// changes, user updates and deletions, other writers' status patches, static pods and
// their mirrors, orphans, and changes made from a watcher while the reconcile runs) must
// record exactly what the full visit of every pod records.
func TestNarrowedReconcileMatchesFullPass(t *testing.T) {
	totalWrites := 0
	for seed := uint64(1); seed <= 60; seed++ {
		full, writes := reconcileRun(seed, true)
		narrow, _ := reconcileRun(seed, false)
		totalWrites += writes
		if full != narrow {
			fl, nl := strings.Split(full, "\n"), strings.Split(narrow, "\n")
			for i := range min(len(fl), len(nl)) {
				if fl[i] != nl[i] {
					t.Fatalf("seed %d: first difference at line %d:\nfull:   %s\nnarrow: %s", seed, i, fl[i], nl[i])
				}
			}
			t.Fatalf("seed %d: %d lines in the full run, %d in the narrowed one", seed, len(fl), len(nl))
		}
	}
	if totalWrites == 0 {
		t.Fatal("the scenarios wrote no status: they test nothing")
	}
}

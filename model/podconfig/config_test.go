package podconfig

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/sim"
	"nodesim/trace"
)

func pod(uid, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name, Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
}

// drain returns the operations sent, as "OP:name,name".
func drain(c *PodConfig) []string {
	var out []string
	for c.Updates().Len() > 0 {
		u, _ := c.Updates().TryRecv()
		s := u.Op.String() + ":"
		for i, p := range u.Pods {
			if i > 0 {
				s += ","
			}
			s += p.Name
		}
		out = append(out, s)
	}
	return out
}

// After upstream's config_test.go: a new source's first snapshot, then adds, updates,
// graceful deletes, removes and status-only changes, each sent as its own operation in a
// fixed order (REMOVE, ADD, UPDATE, DELETE, RECONCILE).
func TestMergeOperations(t *testing.T) {
	s := sim.New(1, nil)
	c := New(s, ApiserverSource)

	c.Merge(ApiserverSource, nil)
	if got := drain(c); !reflect.DeepEqual(got, []string{"ADD:"}) {
		t.Fatalf("first empty snapshot: %v, want an empty ADD marking the source seen", got)
	}
	a, b := pod("1", "a"), pod("2", "b")
	c.Merge(ApiserverSource, []*corev1.Pod{a, b})
	if got := drain(c); !reflect.DeepEqual(got, []string{"ADD:a,b"}) {
		t.Fatalf("adds: %v", got)
	}
	c.Merge(ApiserverSource, []*corev1.Pod{a, b})
	if got := drain(c); len(got) != 0 {
		t.Fatalf("an identical snapshot sent %v", got)
	}

	a2 := a.DeepCopy()
	a2.Spec.Containers[0].Image = "i2"
	b2 := b.DeepCopy()
	now := metav1.NewTime(sim.Epoch.Add(time.Minute))
	grace := int64(30)
	b2.DeletionTimestamp, b2.DeletionGracePeriodSeconds = &now, &grace
	c3 := pod("3", "c")
	c.Merge(ApiserverSource, []*corev1.Pod{a2, b2, c3})
	if got := drain(c); !reflect.DeepEqual(got, []string{"ADD:c", "UPDATE:a", "DELETE:b"}) {
		t.Fatalf("mixed snapshot: %v", got)
	}

	a3 := a2.DeepCopy()
	a3.Status.Phase = corev1.PodRunning
	c.Merge(ApiserverSource, []*corev1.Pod{a3, c3})
	if got := drain(c); !reflect.DeepEqual(got, []string{"REMOVE:b", "RECONCILE:a"}) {
		t.Fatalf("remove and status-only change: %v", got)
	}
}

// A watch event for one pod gives the same operation a snapshot with that change would.
func TestUpdateMatchesMerge(t *testing.T) {
	s := sim.New(1, nil)
	c := New(s, ApiserverSource)
	c.Merge(ApiserverSource, nil)
	drain(c)
	a := pod("1", "a")
	c.Update(ApiserverSource, a, false)
	a2 := a.DeepCopy()
	a2.Labels = map[string]string{"x": "y"}
	c.Update(ApiserverSource, a2, false)
	a3 := a2.DeepCopy()
	a3.Status.Phase = corev1.PodRunning
	c.Update(ApiserverSource, a3, false)
	c.Update(ApiserverSource, a3, false)
	c.Update(ApiserverSource, a3, true)
	want := []string{"ADD:a", "UPDATE:a", "RECONCILE:a", "REMOVE:a"}
	if got := drain(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// The kubelet's own annotations do not count as changes, and the first-seen time is kept.
func TestKubeletAnnotationsAreNotChanges(t *testing.T) {
	s := sim.New(1, nil)
	c := New(s, ApiserverSource)
	c.Merge(ApiserverSource, []*corev1.Pod{pod("1", "a")})
	first := drain(c)
	s.Step(time.Minute)
	again := pod("1", "a")
	again.Annotations = map[string]string{ConfigSourceAnnotationKey: "api"}
	c.Merge(ApiserverSource, []*corev1.Pod{again})
	if got := drain(c); len(got) != 0 || len(first) != 1 {
		t.Fatalf("a kubelet annotation was taken for a change: %v", got)
	}
	if seen := c.pods[ApiserverSource]["1"].pod.Annotations[ConfigFirstSeenAnnotationKey]; seen != sim.Epoch.Format("2006-01-02T15:04:05.000000000Z07:00") {
		t.Fatalf("first-seen annotation changed to %q", seen)
	}
}

// The configCh send blocks when 50 updates wait: the 51st parks until the syncLoop reads.
func TestSendBlocksWhenFull(t *testing.T) {
	s := sim.New(1, nil)
	c := New(s, ApiserverSource)
	for i := 0; i < ChannelCapacity+1; i++ {
		c.Update(ApiserverSource, pod(string(rune('A'+i)), "p"), false)
	}
	if c.Updates().Len() != ChannelCapacity {
		t.Fatalf("channel holds %d, want %d", c.Updates().Len(), ChannelCapacity)
	}
	c.Updates().TryRecv()
	if c.Updates().Len() != ChannelCapacity {
		t.Fatal("the parked send did not go through once there was room")
	}
}

func TestSourcesReady(t *testing.T) {
	r := NewSourcesReady([]string{FileSource, ApiserverSource})
	r.AddSource(ApiserverSource)
	if r.AllReady() {
		t.Fatal("ready with the file source unseen")
	}
	r.AddSource(FileSource)
	if !r.AllReady() {
		t.Fatal("not ready with every source seen")
	}
}

// A status patch sent as such gives the operations Update gives for it: RECONCILE when the
// status changed, nothing when it did not, ADD for a pod the mux has not seen.
func TestUpdateStatusMatchesUpdate(t *testing.T) {
	s := sim.New(1, nil)
	c := New(s, ApiserverSource)
	c.Merge(ApiserverSource, nil)
	drain(c)
	a := pod("1", "a")
	c.UpdateStatus(ApiserverSource, a)
	a2 := a.DeepCopy()
	a2.Status.Phase = corev1.PodRunning
	c.UpdateStatus(ApiserverSource, a2)
	c.UpdateStatus(ApiserverSource, a2)
	want := []string{"ADD:a", "RECONCILE:a"}
	if got := drain(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// specChanged keeps apimachinery's semantic equality: nil and empty maps are equal, the
// kubelet's annotations do not count, deletion fields compare by value.
func TestSpecChanged(t *testing.T) {
	now := metav1.NewTime(sim.Epoch)
	grace, grace2 := int64(30), int64(30)
	cases := []struct {
		name string
		edit func(p *corev1.Pod)
		want bool
	}{
		{"nothing", func(*corev1.Pod) {}, false},
		{"empty labels", func(p *corev1.Pod) { p.Labels = map[string]string{} }, false},
		{"a label", func(p *corev1.Pod) { p.Labels = map[string]string{"k": "v"} }, true},
		{"kubelet annotations", func(p *corev1.Pod) {
			p.Annotations = map[string]string{ConfigSourceAnnotationKey: "api", ConfigHashAnnotationKey: "h", ConfigFirstSeenAnnotationKey: "t"}
		}, false},
		{"a user annotation", func(p *corev1.Pod) { p.Annotations = map[string]string{"k": "v"} }, true},
		{"an annotation value", func(p *corev1.Pod) { p.Annotations = map[string]string{"u": "w"} }, true},
		{"deletion timestamp", func(p *corev1.Pod) { p.DeletionTimestamp = &now }, true},
		{"grace", func(p *corev1.Pod) { p.DeletionGracePeriodSeconds = &grace2 }, true},
		{"image", func(p *corev1.Pod) { p.Spec.Containers[0].Image = "j" }, true},
	}
	for _, tc := range cases {
		a, b := pod("1", "a"), pod("1", "a")
		if tc.name == "an annotation value" {
			a.Annotations = map[string]string{"u": "v"}
		}
		tc.edit(b)
		if got := specChanged(a, b); got != tc.want {
			t.Errorf("%s: specChanged = %v, want %v", tc.name, got, tc.want)
		}
		if got := specChanged(b, a); got != tc.want {
			t.Errorf("%s (swapped): specChanged = %v, want %v", tc.name, got, tc.want)
		}
	}
	a, b := pod("1", "a"), pod("1", "a")
	a.DeletionTimestamp, a.DeletionGracePeriodSeconds = &now, &grace
	later := metav1.NewTime(sim.Epoch)
	b.DeletionTimestamp, b.DeletionGracePeriodSeconds = &later, &grace2
	if specChanged(a, b) {
		t.Error("equal deletion fields behind distinct pointers were taken for a change")
	}
}

// The kubelet's copy of a pod has annotations of its own (the source's pod keeps none of
// the kubelet's), and a status patch's copy keeps the first-seen time, takes the new
// status and resource version, and records the same configMerge attributes as before.
func TestCopiesKeepTheSourcesPodAsItWas(t *testing.T) {
	log := &trace.Log{}
	s := sim.New(1, log)
	c := New(s, ApiserverSource)
	c.Merge(ApiserverSource, nil)
	drain(c)
	a := pod("1", "a")
	a.Annotations = map[string]string{"user": "v"}
	a.ResourceVersion = "1"
	c.Update(ApiserverSource, a, false)
	added, _ := c.Updates().TryRecv()
	if len(a.Annotations) != 1 || added.Pods[0].Annotations[ConfigSourceAnnotationKey] != ApiserverSource || added.Pods[0].Annotations["user"] != "v" {
		t.Fatalf("source annotations %v, copy's %v", a.Annotations, added.Pods[0].Annotations)
	}
	patched := a.DeepCopy()
	patched.ResourceVersion = "2"
	patched.Status.Phase = corev1.PodRunning
	c.UpdateStatus(ApiserverSource, patched)
	u, _ := c.Updates().TryRecv()
	p := u.Pods[0]
	if u.Op != RECONCILE || p.ResourceVersion != "2" || p.Status.Phase != corev1.PodRunning || p == added.Pods[0] ||
		p.Annotations[ConfigFirstSeenAnnotationKey] != added.Pods[0].Annotations[ConfigFirstSeenAnnotationKey] {
		t.Fatalf("status patch gave %v %+v", u.Op, p)
	}
	if added.Pods[0].ResourceVersion != "1" || added.Pods[0].Status.Phase != "" {
		t.Fatal("the status patch changed the earlier copy")
	}
	patched2 := patched.DeepCopy()
	patched2.ResourceVersion = "3"
	patched2.Status.Phase = corev1.PodSucceeded
	c.UpdateStatus(ApiserverSource, patched2)
	var merges [][]trace.Attr
	for _, e := range log.Events {
		if e.Kind == KindMerge {
			merges = append(merges, e.Attrs)
		}
	}
	want := []trace.Attr{{Key: "add", Value: ""}, {Key: "update", Value: ""}, {Key: "delete", Value: ""}, {Key: "remove", Value: ""}, {Key: "reconcile", Value: "ns/a"}}
	if n := len(merges); n < 2 || !reflect.DeepEqual(merges[n-1], want) || !reflect.DeepEqual(merges[n-2], want) {
		t.Fatalf("configMerge attributes of the reconciles: %v", merges)
	}
}

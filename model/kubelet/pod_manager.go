package kubelet

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/kuberuntime"
	"nodesim/model/podconfig"
	"nodesim/sim"
	"nodesim/trace"
)

// podManager holds the desired pods and mirror pods (upstream pkg/kubelet/pod): a pod map
// (by UID and by full name) and a mirror-pod map (by the full name of the static pod each
// mirrors). A pod entering or leaving either map is recorded (KindPodManager), so that a
// transcript can say which map a handler's pod went to.
type podManager struct {
	// sorted is GetPods' answer, kept in UID order as pods come and go: re-sorting every
	// pod at each addition made a node's pods, arriving one by one, cost the square of
	// their number. Once handed out it is shared, so the next change works on a copy.
	sorted       []*corev1.Pod
	handedOut    bool
	byUID        map[types.UID]*corev1.Pod
	byFullName   map[string]*corev1.Pod
	mirrorByName map[string]*corev1.Pod
	// record receives the map changes; nil records nothing (unit tests).
	record func(*trace.Event)
	// touched holds the UIDs of the (non-mirror) pods added, replaced or removed since
	// admission last brought its active set up to date (see refreshActivePods).
	touched map[types.UID]struct{}
}

// KindPodManager is a pod entering (Name AddPod, or UpdatePod for a pod it did not hold)
// or leaving (RemovePod) one of the pod manager's maps. Attrs: map ("pods" or "mirrorPods"), mirrorOf (the static pod a mirror pod
// belongs to), and the maps' sizes after the change, pods and mirrorPods.
const KindPodManager trace.Kind = "podManager"

func newPodManager(record func(*trace.Event)) *podManager {
	return &podManager{byUID: map[types.UID]*corev1.Pod{}, byFullName: map[string]*corev1.Pod{}, mirrorByName: map[string]*corev1.Pod{}, record: record}
}

func fullName(p *corev1.Pod) string { return p.Name + "_" + p.Namespace }

// AddPod files p in the pod map, or in the mirror-pod map when it is a mirror pod.
func (m *podManager) AddPod(p *corev1.Pod) { m.set("AddPod", p) }

// UpdatePod replaces p's entry, adding it when it is new (as upstream's does).
func (m *podManager) UpdatePod(p *corev1.Pod) { m.set("UpdatePod", p) }

// set files p; op, the caller's name, is recorded when p enters a map.
func (m *podManager) set(op string, p *corev1.Pod) {
	if podconfig.IsMirrorPod(p) {
		_, had := m.mirrorByName[fullName(p)]
		m.mirrorByName[fullName(p)] = p
		if !had {
			m.changed(op, p)
		}
		return
	}
	_, had := m.byUID[p.UID]
	m.byUID[p.UID] = p
	m.touch(p.UID)
	m.byFullName[fullName(p)] = p
	i, found := m.search(p.UID)
	m.own(1)
	if found {
		m.sorted[i] = p
	} else {
		m.sorted = slices.Insert(m.sorted, i, p)
	}
	if !had {
		m.changed(op, p)
	}
}

// search finds where the pod with this UID is, or would go, in sorted.
func (m *podManager) search(uid types.UID) (int, bool) {
	return slices.BinarySearchFunc(m.sorted, uid, func(p *corev1.Pod, uid types.UID) int { return cmp.Compare(p.UID, uid) })
}

// own makes sorted safe to change, with room for grow more pods, copying it if it was
// handed out.
func (m *podManager) own(grow int) {
	if m.handedOut {
		m.sorted = append(make([]*corev1.Pod, 0, len(m.sorted)+grow), m.sorted...)
		m.handedOut = false
	}
}

// RemovePod takes p out of its map.
func (m *podManager) RemovePod(p *corev1.Pod) {
	if podconfig.IsMirrorPod(p) {
		if _, had := m.mirrorByName[fullName(p)]; had {
			delete(m.mirrorByName, fullName(p))
			m.changed("RemovePod", p)
		}
		return
	}
	_, had := m.byUID[p.UID]
	delete(m.byUID, p.UID)
	m.touch(p.UID)
	if i, found := m.search(p.UID); found {
		m.own(0)
		m.sorted = slices.Delete(m.sorted, i, i+1)
	}
	if cur, ok := m.byFullName[fullName(p)]; ok && cur.UID == p.UID {
		delete(m.byFullName, fullName(p))
	}
	if had {
		m.changed("RemovePod", p)
	}
}

func (m *podManager) changed(op string, p *corev1.Pod) {
	if m.record == nil {
		return
	}
	e := &trace.Event{Kind: KindPodManager, Name: op, Pod: p.Namespace + "/" + p.Name,
		Attrs: []trace.Attr{{Key: "map", Value: "pods"}}}
	if podconfig.IsMirrorPod(p) {
		e.Attrs = []trace.Attr{{Key: "map", Value: "mirrorPods"}, {Key: "mirrorOf", Value: p.Namespace + "/" + p.Name}}
	}
	e.Attrs = append(e.Attrs, trace.Attr{Key: "pods", Value: strconv.Itoa(len(m.byUID))},
		trace.Attr{Key: "mirrorPods", Value: strconv.Itoa(len(m.mirrorByName))})
	m.record(e)
}

func (m *podManager) GetPodByUID(uid types.UID) (*corev1.Pod, bool) {
	p, ok := m.byUID[uid]
	return p, ok
}

// HasUID reports whether the pod is desired.
func (m *podManager) HasUID(uid types.UID) bool {
	_, ok := m.byUID[uid]
	return ok
}

func (m *podManager) GetPodByFullName(name string) (*corev1.Pod, bool) {
	p, ok := m.byFullName[name]
	return p, ok
}

func (m *podManager) GetMirrorPodByPod(p *corev1.Pod) (*corev1.Pod, bool) {
	mp, ok := m.mirrorByName[fullName(p)]
	return mp, ok
}

// GetPods returns the desired pods (not mirror pods), ordered by UID. The slice is shared:
// callers must not modify it.
func (m *podManager) GetPods() []*corev1.Pod {
	m.handedOut = true
	return m.sorted
}

func newWorkQueue(s *sim.Sim) *workQueue {
	return &workQueue{s: s, queue: map[string]time.Time{}}
}

// Enqueue sets the pod's next sync time, replacing any earlier entry.
func (q *workQueue) Enqueue(uid types.UID, delay time.Duration) {
	q.queue[string(uid)] = q.s.Now().Add(delay)
}

// GetWork removes and returns the pods whose time is strictly before now (nil when none
// is due, the common case once a second).
func (q *workQueue) GetWork() map[types.UID]bool {
	now := q.s.Now()
	var out map[types.UID]bool
	for uid, t := range q.queue {
		if t.Before(now) {
			if out == nil {
				out = map[types.UID]bool{}
			}
			out[types.UID(uid)] = true
			delete(q.queue, uid)
		}
	}
	return out
}

// reasonCache remembers why each container's last start failed (upstream reason_cache.go).
type reasonCache struct {
	m map[types.UID]map[string]reasonEntry
}

type reasonEntry struct{ err, message string }

func newReasonCache() *reasonCache { return &reasonCache{m: map[types.UID]map[string]reasonEntry{}} }

// Update records the start results of one runtime sync: a failure is remembered, a success
// forgets the container's entry.
func (c *reasonCache) Update(uid types.UID, result *kuberuntime.PodSyncResult) {
	for _, r := range result.SyncResults {
		if r.Action != kuberuntime.StartContainer {
			continue
		}
		if r.Error != nil {
			if c.m[uid] == nil {
				c.m[uid] = map[string]reasonEntry{}
			}
			name := r.Error.Error()
			if errorsIsBackoff(r.Error) {
				name = kuberuntime.ErrCrashLoopBackOff.Error()
			}
			c.m[uid][r.Target] = reasonEntry{err: name, message: r.Message}
		} else if c.m[uid] != nil {
			delete(c.m[uid], r.Target)
		}
	}
}

func (c *reasonCache) Get(uid types.UID, name string) (reasonEntry, bool) {
	e, ok := c.m[uid][name]
	return e, ok
}

func (c *reasonCache) Remove(uid types.UID) { delete(c.m, uid) }

// touch notes that the pod with this UID changed in the manager.
func (m *podManager) touch(uid types.UID) {
	if m.touched == nil {
		m.touched = map[types.UID]struct{}{}
	}
	m.touched[uid] = struct{}{}
}

// takeTouched returns the UIDs touched since the last call, in UID order (GetPods' order),
// and forgets them.
func (m *podManager) takeTouched() []types.UID {
	uids := make([]types.UID, 0, len(m.touched))
	for uid := range m.touched {
		uids = append(uids, uid)
	}
	clear(m.touched)
	slices.Sort(uids)
	return uids
}

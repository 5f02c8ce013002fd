package kubelet

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/kuberuntime"
	"nodesim/model/podconfig"
	"nodesim/model/podworkers"
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
	sorted    []*corev1.Pod
	handedOut bool
	// terminalPods counts the pods of sorted whose own status phase is terminal (Succeeded
	// or Failed), kept as pods come, go and are replaced: while none is, and the pod
	// workers and the status manager hold no pod terminal, every pod is active, which
	// filterOutInactivePods then knows without reading each pod.
	terminalPods int
	// byUID holds each desired pod through an entry that set points at each new object of
	// the pod, kept until the pod leaves: an entry holder (the work queue's, see
	// duePod) then reads the pod without a lookup, and a replaced pod costs no map store.
	byUID map[types.UID]*uidEntry
	// entryChunk is where new entries are cut from, many to an allocation; an entry is
	// never reused (a gone one may still be held), so a chunk is left to its entries once
	// cut up.
	entryChunk []uidEntry
	// podsVersion counts the UIDs entering or leaving byUID: HasUID, and which pods GetPods
	// lists (not the objects), may answer differently only once it moved.
	podsVersion uint64
	// byFullName holds each full name's pod through a podRef, which set points at each new
	// object of the pod: a pod's every status change from the API server replaces its
	// object, and assigning a map entry stores its key, which would be made anew each time.
	byFullName   map[string]*podRef
	mirrorByName map[string]*corev1.Pod
	// record receives the map changes; nil records nothing (unit tests).
	record func(*trace.Event)
	// withDeadline is the pods of sorted that have an active deadline, in UID order: the
	// ones getPodsToSync must look at on every tick whether or not they are due.
	withDeadline []*corev1.Pod
	// touched holds the UIDs of the (non-mirror) pods added, replaced or removed since
	// admission last brought its active set up to date (see refreshActivePods).
	touched map[types.UID]struct{}
}

// KindPodManager is a pod entering (Name AddPod, or UpdatePod for a pod it did not hold)
// or leaving (RemovePod) one of the pod manager's maps. Attrs: map ("pods" or "mirrorPods"), mirrorOf (the static pod a mirror pod
// belongs to), and the maps' sizes after the change, pods and mirrorPods.
const KindPodManager trace.Kind = "podManager"

func newPodManager(record func(*trace.Event)) *podManager {
	return &podManager{byUID: map[types.UID]*uidEntry{}, byFullName: map[string]*podRef{}, mirrorByName: map[string]*corev1.Pod{}, record: record}
}

func fullName(p *corev1.Pod) string { return p.Name + "_" + p.Namespace }

// podRef is a pod manager entry that set updates in place. filed says byFullName holds it:
// RemovePod clears it as it drops the ref, and only a dropped name is given a new ref, so
// a uidEntry's ref that is still filed is the one its full name maps to.
type podRef struct {
	pod   *corev1.Pod
	filed bool
}

// uidEntry is the pod map's entry for one UID: the pod object set last. RemovePod marks
// it gone as it drops it (a UID that comes back gets a new entry), so that whoever keeps
// an entry knows, without a lookup, whether it still is the pod's.
type uidEntry struct {
	pod  *corev1.Pod
	gone bool
	// fullName is fullName(pod), made once: a pod's name does not change, and set files
	// the pod by it on every status echo.
	fullName string
	// ref is byFullName's ref for fullName as set last found or made it (see podRef).
	ref *podRef
	// worker is the pod's worker as its last sync found it (see syncDesiredPod): an entry
	// belongs to one UID, and the pod workers check that the worker it holds is still the
	// UID's before they use it (podworkers.WorkerRef).
	worker podworkers.WorkerRef
	// at is where set last found or put the pod in sorted. Pods come and go elsewhere in
	// the list since, so it is only a guess, which set checks (the pod at that place has
	// this UID, and UIDs are unique in sorted) before using it instead of a search.
	at int
	// handler is handlerMemo's entry for the pod, for the handlers of syncs that have the
	// entry at hand; nil until the first. The memo forgets a pod as it leaves the pod
	// manager, which marks this entry gone: a pod that comes back gets a new entry.
	handler *handlerPod
}

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
	e := m.byUID[p.UID]
	had := e != nil
	if !had {
		if len(m.entryChunk) == 0 {
			m.entryChunk = make([]uidEntry, 64)
		}
		e = &m.entryChunk[0]
		m.entryChunk = m.entryChunk[1:]
		m.byUID[p.UID] = e
		m.podsVersion++
	}
	if e.pod == nil || e.pod.Name != p.Name || e.pod.Namespace != p.Namespace {
		e.fullName, e.ref = fullName(p), nil
	}
	e.pod = p
	m.touch(p.UID)
	if e.ref == nil || !e.ref.filed {
		// Not at hand: look the name up, filing a new ref if the name has none.
		e.ref = m.byFullName[e.fullName]
		if e.ref == nil {
			e.ref = &podRef{filed: true}
			m.byFullName[e.fullName] = e.ref
		}
	}
	e.ref.pod = p
	// A pod already in sorted is usually where set left it: a status echo replaces the
	// object of a pod the list has held for long, and pods seldom come and go before it.
	i, found := e.at, e.at < len(m.sorted) && m.sorted[e.at].UID == p.UID
	if !found {
		i, found = m.search(p.UID)
	}
	switch {
	case found:
		m.own(1)
		m.terminalPods -= terminalCount(m.sorted[i])
		m.sorted[i] = p
	case m.handedOut:
		// The copy own would make, made with p in its place: the pods after it are
		// copied once, not copied and then shifted.
		grown := make([]*corev1.Pod, len(m.sorted)+1)
		copy(grown, m.sorted[:i])
		grown[i] = p
		copy(grown[i+1:], m.sorted[i:])
		m.sorted, m.handedOut = grown, false
	default:
		m.sorted = slices.Insert(m.sorted, i, p)
	}
	m.terminalPods += terminalCount(p)
	e.at = i
	m.fileDeadline(p, p.Spec.ActiveDeadlineSeconds != nil)
	if !had {
		m.changed(op, p)
	}
}

// terminalCount is 1 for a pod whose status phase is terminal, 0 otherwise (terminalPods).
func terminalCount(p *corev1.Pod) int {
	if isTerminal(p.Status.Phase) {
		return 1
	}
	return 0
}

// search finds where the pod with this UID is, or would go, in sorted.
func (m *podManager) search(uid types.UID) (int, bool) {
	return slices.BinarySearchFunc(m.sorted, uid, func(p *corev1.Pod, uid types.UID) int { return strings.Compare(string(p.UID), string(uid)) })
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
	e := m.byUID[p.UID]
	had := e != nil
	if had {
		e.gone = true
		delete(m.byUID, p.UID)
		m.podsVersion++
	}
	m.touch(p.UID)
	if i, found := m.search(p.UID); found {
		m.own(0)
		m.terminalPods -= terminalCount(m.sorted[i])
		m.sorted = slices.Delete(m.sorted, i, i+1)
	}
	m.fileDeadline(p, false)
	if ref := m.byFullName[fullName(p)]; ref != nil && ref.pod.UID == p.UID {
		delete(m.byFullName, fullName(p))
		ref.filed = false
	}
	if had {
		m.changed("RemovePod", p)
	}
}

// fileDeadline puts p in withDeadline (replacing the pod of its UID) when has, or takes
// its UID out.
func (m *podManager) fileDeadline(p *corev1.Pod, has bool) {
	i, found := slices.BinarySearchFunc(m.withDeadline, p.UID, func(q *corev1.Pod, uid types.UID) int { return strings.Compare(string(q.UID), string(uid)) })
	switch {
	case has && found:
		m.withDeadline[i] = p
	case has:
		m.withDeadline = slices.Insert(m.withDeadline, i, p)
	case found:
		m.withDeadline = slices.Delete(m.withDeadline, i, i+1)
	}
}

// podsWithActiveDeadline returns the desired pods that have an active deadline, ordered by
// UID. The slice is the manager's: callers must not keep or modify it.
func (m *podManager) podsWithActiveDeadline() []*corev1.Pod { return m.withDeadline }

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

// GetPodByUID returns the desired pod with this UID: never a mirror pod, since set files
// those in the mirror-pod map only.
func (m *podManager) GetPodByUID(uid types.UID) (*corev1.Pod, bool) {
	if e := m.byUID[uid]; e != nil {
		return e.pod, true
	}
	return nil, false
}

// entry is the pod map's entry for uid, nil if the pod is not desired.
func (m *podManager) entry(uid types.UID) *uidEntry { return m.byUID[uid] }

// HasUID reports whether the pod is desired.
func (m *podManager) HasUID(uid types.UID) bool {
	_, ok := m.byUID[uid]
	return ok
}

func (m *podManager) GetPodByFullName(name string) (*corev1.Pod, bool) {
	if ref := m.byFullName[name]; ref != nil {
		return ref.pod, true
	}
	return nil, false
}

func (m *podManager) GetMirrorPodByPod(p *corev1.Pod) (*corev1.Pod, bool) {
	if len(m.mirrorByName) == 0 {
		return nil, false // most nodes have no static pods: spare the key and its lookup
	}
	mp, ok := m.mirrorByName[fullName(p)]
	return mp, ok
}

// isHandedOut reports whether pods is the list GetPods last handed out and the pod map has
// not changed since: such a list is never written to again.
func (m *podManager) isHandedOut(pods []*corev1.Pod) bool {
	return m.handedOut && len(pods) == len(m.sorted) && (len(pods) == 0 || &pods[0] == &m.sorted[0])
}

// GetPods returns the desired pods (not mirror pods), ordered by UID. The slice is shared:
// callers must not modify it.
func (m *podManager) GetPods() []*corev1.Pod {
	m.handedOut = true
	return m.sorted
}

// workQueue is the syncLoop's work queue: pod UIDs with the time their next sync is due
// (upstream pkg/kubelet/util/queue).
//
// Each pod the queue holds has an entry (ids gives its place in entries) with its current
// time, kept while the pod comes and goes from the queue sync after sync, so that a pod's
// every sync costs one map lookup (Enqueue's) rather than a store, a lookup and a delete.
// Times are offsets from sim.Epoch (exact for any time a run reaches), and the items
// hold the time and the entry's place, no pointer: an item moves without write barriers.
// An entry that is neither queued nor named by an item is idle; idle entries are dropped
// (sweep) once they outnumber the others, so the entries stay proportional to the pods
// queued, not to every pod ever seen.
//
// Every time given since the pod last came due, replaced ones included, is an item (see
// GetWork). An item goes to the wheel when its time falls within queueSlots slots of
// the cursor, the usual case (resyncs a minute ahead, back-offs a few), and to the heap
// of times otherwise. The wheel's slot k (at wheel[k%queueSlots]) holds the items whose
// time is in [k, k+1)·queueSlot, in no order, as a list of nodes linked through one array
// (nodes: a slot of its own each would make hundreds of small arrays); every slot
// before cursor is empty. GetWork,
// called about once a slot by the sync ticker, empties the slots before now's and looks
// through now's: each item is appended once and looked at once or twice, where the heap
// moved it through every level of a heap of all the queued pods, twice.
type workQueue struct {
	s       simClock
	ids     map[types.UID]int32
	entries []queueEntry
	free    []int32           // places in entries no pod has
	idle    int               // entries neither queued nor named by an item
	wheel   [queueSlots]int32 // each slot's first node, as its place in nodes plus one (0: none)
	nodes   []queueNode
	// freeNode is the first node no slot holds (its place plus one, 0: none); each links
	// to the next.
	freeNode   int32
	wheelItems int   // items in the wheel
	cursor     int64 // the first slot that may hold items
	due        queueHeap
	// taken is takeDue's due pods, sorted into UID order, kept until the next call; out
	// is GetWork's answer. Both reused.
	taken []takenPod
	out   []types.UID
}

// The work queue's wheel: a slot per sync tick (the period GetWork is called at), and
// room for the resync period and the longest back-off with some to spare.
const (
	queueSlot  = time.Second
	queueSlots = 512
)

// queueNode is an item in a wheel slot, and the place plus one of the slot's next node
// (0: none).
type queueNode struct {
	t    time.Duration
	id   int32
	next int32
}

// slotOf is the wheel slot of time t.
func slotOf(t time.Duration) int64 { return int64(t / queueSlot) }

// queueEntry is one pod's place in the work queue.
type queueEntry struct {
	uid types.UID
	// pod is the pod manager's entry for uid as duePod last found it (nil: none yet). The
	// queue never reads it; a new queue entry starts without one.
	pod    *uidEntry
	key    uint64        // uidKey(uid)
	t      time.Duration // the pod's current time, when queued
	queued bool
	items  int32 // heap items naming this entry
}

// takenPod is a due pod as GetWork sorts it: its UID's uidKey and its entry's place. It
// holds no pointer, so that sorting moves it without write barriers.
type takenPod struct {
	key uint64
	id  int32
}

// uidKey is the first 8 bytes of uid as a big-endian number, shorter UIDs padded with
// zero bytes: a UID whose key is smaller sorts before one whose key is larger, as strings
// compare (a zero byte is the least, as the end of a shorter string is), so that most
// comparisons of UIDs, whose first bytes are random, need no string comparison.
func uidKey(uid types.UID) uint64 {
	var k uint64
	for i := 0; i < 8; i++ {
		k <<= 8
		if i < len(uid) {
			k |= uint64(uid[i])
		}
	}
	return k
}

// sortTaken sorts due pods into UID order. A sync tick takes a few pods (a node's pods
// over the resync period, a dozen or two on the largest nodes), which an insertion sort
// with the comparison written out orders in a fraction of a general sort's time.
func (q *workQueue) sortTaken(taken []takenPod) {
	if len(taken) > 32 {
		slices.SortFunc(taken, q.compareTaken)
		return
	}
	for i := 1; i < len(taken); i++ {
		x := taken[i]
		j := i
		for ; j > 0; j-- {
			y := taken[j-1]
			if y.key < x.key || y.key == x.key && q.entries[y.id].uid <= q.entries[x.id].uid {
				break
			}
			taken[j] = y
		}
		taken[j] = x
	}
}

// compareTaken orders due pods by UID: by key, then, for the rare equal keys, by the
// whole UID.
func (q *workQueue) compareTaken(a, b takenPod) int {
	if a.key != b.key {
		return cmp.Compare(a.key, b.key)
	}
	return strings.Compare(string(q.entries[a.id].uid), string(q.entries[b.id].uid))
}

func (e *queueEntry) isIdle() bool { return !e.queued && e.items == 0 }

// simClock is the work queue's clock: Elapsed is the time as an offset from sim.Epoch
// (Now().Sub(sim.Epoch), without making and subtracting a time.Time).
type simClock interface{ Elapsed() time.Duration }

func newWorkQueue(s simClock) *workQueue {
	return &workQueue{s: s, ids: map[types.UID]int32{}}
}

// now is the clock's time as an offset from sim.Epoch.
func (q *workQueue) now() time.Duration { return q.s.Elapsed() }

// Enqueue sets the pod's next sync time, replacing any earlier entry.
func (q *workQueue) Enqueue(uid types.UID, delay time.Duration) {
	t := q.now() + delay
	id, ok := q.ids[uid]
	if !ok {
		if n := len(q.free); n > 0 {
			id = q.free[n-1]
			q.free = q.free[:n-1]
		} else {
			id = int32(len(q.entries))
			q.entries = append(q.entries, queueEntry{})
		}
		q.entries[id] = queueEntry{uid: uid, key: uidKey(uid)}
		q.ids[uid] = id
	} else if q.entries[id].isIdle() {
		q.idle--
	}
	e := &q.entries[id]
	e.t, e.queued = t, true
	e.items++
	// A time before the cursor's slot (a negative delay) goes to the cursor's slot, which
	// GetWork looks through first.
	switch k := max(slotOf(t), q.cursor); {
	case k < q.cursor+queueSlots:
		n := q.freeNode
		if n != 0 {
			q.freeNode = q.nodes[n-1].next
		} else {
			q.nodes = append(q.nodes, queueNode{})
			n = int32(len(q.nodes))
		}
		head := &q.wheel[k%queueSlots]
		q.nodes[n-1] = queueNode{t: t, id: id, next: *head}
		*head = n
		q.wheelItems++
	default:
		q.due.push(queueItem{t, id})
	}
}

// GetWork removes and returns the pods whose time is strictly before now, in UID order
// (nil when none is due). The slice is reused by the next call.
func (q *workQueue) GetWork() []types.UID {
	taken := q.takeDue()
	if len(taken) == 0 {
		return nil
	}
	out := q.out[:0]
	for _, t := range taken {
		out = append(out, q.entries[t.id].uid)
	}
	q.out = out
	return out
}

// takeDue is GetWork answering with the due pods' places in entries, in UID order: the
// syncLoop reads each pod's UID there, and the pod manager entry it keeps with it (see
// duePod), without a copy of the UIDs. The slice is reused by the next call, and the
// places stay the pods' until then: only sweep frees a place, and it runs as a call
// starts, before anything is taken.
//
// The pods come from the items whose time is before now, in the wheel's slots and off
// the heap: an item whose pod has since been given another time (Enqueue replaced its
// entry) no longer matches the pod's entry and is dropped when its own time comes, so
// only due items are looked at, not every queued pod. Which items are due is all that
// decides the answer (it is sorted), not the order they are found in.
func (q *workQueue) takeDue() []takenPod {
	// The entries the last call left idle (its pods, until their workers requeue them)
	// are dropped here, once the idle ones outnumber the others.
	if q.idle > len(q.ids)-q.idle+workQueueIdleSlack {
		q.sweep()
	}
	now := q.now()
	taken := q.taken[:0]
	// Every slot before now's holds only due items; when now is a whole wheel or more
	// ahead of the cursor, that is every slot. Before the run's time zero slotOf rounds
	// toward zero and Enqueue files every item at or after the cursor, so now's slot is
	// never taken as one before the cursor (that would index the wheel below zero).
	end := max(slotOf(now), q.cursor)
	for k := q.cursor; k < end && k < q.cursor+queueSlots; k++ {
		taken = q.takeSlot(taken, &q.wheel[k%queueSlots], true, now)
	}
	// Now's slot holds times from its first instant on, but for the cursor's (Enqueue
	// files earlier times there): when now is that first instant (a sync tick on the
	// second) and the slot was not the cursor's, none of its items is due.
	atStart := end > q.cursor && time.Duration(end)*queueSlot == now
	if end < q.cursor+queueSlots && !atStart {
		taken = q.takeSlot(taken, &q.wheel[end%queueSlots], false, now)
	}
	q.cursor = max(q.cursor, end)
	for len(q.due) > 0 && q.due[0].t < now {
		taken = q.take(taken, q.due.pop())
	}
	q.sortTaken(taken)
	q.taken = taken
	return taken
}

// take is GetWork taking the due item it: its pod is added to taken if the item holds the
// pod's current time.
func (q *workQueue) take(taken []takenPod, it queueItem) []takenPod {
	e := &q.entries[it.id]
	e.items--
	if e.queued && e.t == it.t {
		taken = append(taken, takenPod{e.key, it.id})
		e.queued = false
	}
	if e.isIdle() {
		q.idle++
	}
	return taken
}

// takeSlot takes the items of the wheel slot whose first node is *link, all of them or
// those with a time before now, unlinking their nodes and freeing them.
func (q *workQueue) takeSlot(taken []takenPod, link *int32, all bool, now time.Duration) []takenPod {
	for n := *link; n != 0; n = *link {
		nd := &q.nodes[n-1]
		if !all && nd.t >= now {
			link = &nd.next // kept: nothing appends to nodes while a slot is walked
			continue
		}
		*link = nd.next
		taken = q.take(taken, queueItem{nd.t, nd.id})
		nd.next, q.freeNode = q.freeNode, n
		q.wheelItems--
	}
	return taken
}

// queuedItems is how many items the queue holds, in the wheel and in the heap.
func (q *workQueue) queuedItems() int { return q.wheelItems + len(q.due) }

// workQueueIdleSlack is how many idle entries beyond the others the queue keeps before
// sweeping: a sync tick leaves the pods it took idle until their workers requeue them.
// takeDue sweeps as it starts, never between handing out places and the next call.
const workQueueIdleSlack = 64

// sweep drops the idle entries, in the order of their places (the map's order never
// decides anything here). A dropped pod that is queued again gets a new entry.
func (q *workQueue) sweep() {
	for id := range q.entries {
		e := &q.entries[id]
		if e.uid == "" || !e.isIdle() {
			continue
		}
		delete(q.ids, e.uid)
		*e = queueEntry{}
		q.free = append(q.free, int32(id))
	}
	q.idle = 0
}

// queueItem is one Enqueue: the time the pod was given, and the place of its entry.
type queueItem struct {
	t  time.Duration
	id int32
}

// queueHeap is a min-heap of queue items by time (ties in any order: GetWork sorts what it
// returns).
type queueHeap []queueItem

func (h *queueHeap) push(it queueItem) {
	*h = append(*h, it)
	a := *h
	for i := len(a) - 1; i > 0; {
		parent := (i - 1) / 2
		if a[i].t >= a[parent].t {
			break
		}
		a[i], a[parent] = a[parent], a[i]
		i = parent
	}
}

// pop removes the earliest item. The last item sinks from the root through a hole: each
// step moves the earlier child up once, instead of swapping it with the item.
func (h *queueHeap) pop() queueItem {
	a := *h
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	if n > 0 {
		i := 0
		for {
			c := 2*i + 1
			if c >= n {
				break
			}
			if r := c + 1; r < n && a[r].t < a[c].t {
				c = r
			}
			if last.t <= a[c].t {
				break
			}
			a[i] = a[c]
			i = c
		}
		a[i] = last
	}
	*h = a
	return top
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

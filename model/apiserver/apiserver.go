// Package apiserver is the minimal API server a single node sees: the pods bound to it.
// Users create, update and delete pods (the scenario's pods and events); the kubelet's status
// manager patches their status and, once a deleted pod has terminated, deletes it for good.
// Every change is pushed to the watchers (the kubelet's api config source) at once.
package apiserver

import (
	"slices"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/sim"
	"nodesim/trace"
)

// Trace kinds.
const (
	KindCreate      trace.Kind = "apiCreate"
	KindDelete      trace.Kind = "apiDelete"
	KindUpdate      trace.Kind = "apiUpdate"
	KindPatchStatus trace.Kind = "apiPatchStatus"
	KindRemoved     trace.Kind = "apiRemoved"
)

// KindNodeCondition records a change of a node condition's status in the Node object.
const KindNodeCondition trace.Kind = "nodeCondition"

// Server holds the node's pods and its Node object's conditions.
type Server struct {
	s   *sim.Sim
	clk *sim.Clock
	// conditions holds each condition type's latest post, updated in place: the node
	// status loop posts every condition at each update, nearly always unchanged.
	conditions map[corev1.NodeConditionType]*corev1.NodeCondition
	pods       map[types.UID]*storedPod
	// byName lists the UIDs of the pods called namespace/name (usually one), so that a
	// lookup by name need not scan every pod. Kept by put and remove, the only places
	// pods come, go or are replaced.
	byName   map[string][]types.UID
	watchers []func(WatchEvent)
	// observers are told the UID of every pod that changes (see Observe); a cancelled
	// one is nil.
	observers []func(types.UID)
	rv        int
}

// storedPod is one pod the server holds, with what its status patches' events reuse.
type storedPod struct {
	pod *corev1.Pod
	// key is namespace/name, as the trace names the pod (a UID keeps its name).
	key string
	// patchAttrs are the attributes of the pod's last status patch event (see patchAttrs).
	patchAttrs []trace.Attr
}

// WatchEvent is one change to a pod. Pod is the API server's own object: watchers must not
// modify it. They may keep what it points to (its spec, labels, annotations, status): the
// server never writes into those once stored, but replaces them (an update stores a new
// object, a status patch a new status, a deletion new deletion fields).
type WatchEvent struct {
	Pod     *corev1.Pod
	Deleted bool
	// StatusOnly says the change touched only the pod's status and resource version (a
	// status patch): everything else is as the watcher's previous event of the pod (or its
	// initial list) gave it, since every change to a pod is sent to every watcher.
	StatusOnly bool
}

// New returns an empty API server.
func New(s *sim.Sim) *Server {
	return &Server{s: s, clk: s.Clock("apiserver", sim.PriorityConfig), pods: map[types.UID]*storedPod{},
		byName: map[string][]types.UID{}, conditions: map[corev1.NodeConditionType]*corev1.NodeCondition{}}
}

// Watch gives initial the node's pods now, then every change to changed (a reflector's
// list, then its watch).
func (a *Server) Watch(initial func([]*corev1.Pod), changed func(WatchEvent)) {
	a.watchers = append(a.watchers, changed)
	initial(a.List())
}

// Peek returns the API server's own copy of a pod, or nil; callers must not modify it.
func (a *Server) Peek(uid types.UID) *corev1.Pod {
	if sp, ok := a.pods[uid]; ok {
		return sp.pod
	}
	return nil
}

// List returns the node's pods ordered by UID.
func (a *Server) List() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(a.pods))
	for _, sp := range a.pods {
		out = append(out, sp.pod.DeepCopy())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	return out
}

// Get returns the pod with uid, or nil.
func (a *Server) Get(uid types.UID) *corev1.Pod {
	if sp, ok := a.pods[uid]; ok {
		return sp.pod.DeepCopy()
	}
	return nil
}

// GetByName returns the pod called namespace/name, or nil.
func (a *Server) GetByName(namespace, name string) *corev1.Pod {
	if p := a.PeekByName(namespace, name); p != nil {
		return p.DeepCopy()
	}
	return nil
}

// PeekByName returns the API server's own copy of the pod called namespace/name (the one
// with the lowest UID, should there be several), or nil; callers must not modify it.
func (a *Server) PeekByName(namespace, name string) *corev1.Pod {
	uids := a.byName[nameKey(namespace, name)]
	if len(uids) == 0 {
		return nil
	}
	return a.pods[slices.Min(uids)].pod
}

func nameKey(namespace, name string) string { return namespace + "/" + name }

// put stores p under its UID, replacing any pod stored there, and indexes it by name.
func (a *Server) put(p *corev1.Pod) {
	if cur, ok := a.pods[p.UID]; ok {
		a.unindex(cur.pod)
	}
	key := nameKey(p.Namespace, p.Name)
	a.pods[p.UID] = &storedPod{pod: p, key: key}
	a.byName[key] = append(a.byName[key], p.UID)
}

func (a *Server) unindex(p *corev1.Pod) {
	key := nameKey(p.Namespace, p.Name)
	uids := slices.DeleteFunc(a.byName[key], func(u types.UID) bool { return u == p.UID })
	if len(uids) == 0 {
		delete(a.byName, key)
	} else {
		a.byName[key] = uids
	}
}

// Observe has f told the UID of every pod the server stores, changes or removes (a create,
// an update, a deletion, a removal, a status patch), before the watchers hear of it: every
// change to a pod goes through changed or statusChanged. f must only take note; cancel
// stops the calls.
func (a *Server) Observe(f func(types.UID)) (cancel func()) {
	i := len(a.observers)
	a.observers = append(a.observers, f)
	return func() { a.observers[i] = nil }
}

func (a *Server) observe(uid types.UID) {
	for _, f := range a.observers {
		if f != nil {
			f(uid)
		}
	}
}

func (a *Server) changed(p *corev1.Pod, deleted bool) {
	a.observe(p.UID)
	for _, w := range a.watchers {
		w(WatchEvent{Pod: p, Deleted: deleted})
	}
}

func (a *Server) statusChanged(p *corev1.Pod) {
	a.observe(p.UID)
	for _, w := range a.watchers {
		w(WatchEvent{Pod: p, StatusOnly: true})
	}
}

func (a *Server) bump(p *corev1.Pod) {
	a.rv++
	p.ResourceVersion = itoa(a.rv)
}

// Create adds a pod bound to the node.
func (a *Server) Create(pod *corev1.Pod) {
	p := pod.DeepCopy()
	a.bump(p)
	a.put(p)
	// A static pod's mirror is created by the kubelet's tryReconcileMirrorPods.
	a.clk.Record(&trace.Event{Kind: KindCreate, Pod: p.Namespace + "/" + p.Name, Attrs: mirrorAttr(p, nil)})
	a.changed(p, false)
}

// Update replaces a pod's spec, labels and annotations (a user edit). The mirror pod
// annotation is the API server's to guard: validation forbids adding, changing or removing
// it on update (ValidatePodSpecificAnnotationUpdates), so an edit keeps the current value,
// as an edit of the live object (kubectl edit, a patch) does; without it a mirror pod would
// stop being one and the kubelet would start a second copy of the static pod.
func (a *Server) Update(pod *corev1.Pod) bool {
	stored, ok := a.pods[pod.UID]
	if !ok {
		return false
	}
	cur := stored.pod
	p := pod.DeepCopy()
	mirror, isMirror := cur.Annotations[corev1.MirrorPodAnnotationKey]
	if _, has := p.Annotations[corev1.MirrorPodAnnotationKey]; has || isMirror {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		if isMirror {
			p.Annotations[corev1.MirrorPodAnnotationKey] = mirror
		} else {
			delete(p.Annotations, corev1.MirrorPodAnnotationKey)
		}
	}
	p.Status = cur.Status
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = cur.DeletionTimestamp, cur.DeletionGracePeriodSeconds
	p.CreationTimestamp = cur.CreationTimestamp
	a.bump(p)
	a.put(p)
	a.clk.Record(&trace.Event{Kind: KindUpdate, Pod: p.Namespace + "/" + p.Name, Attrs: mirrorAttr(p, nil)})
	a.changed(p, false)
	return true
}

// Delete is a user's delete of a pod, as the API server's graceful deletion runs it
// (BeforeDelete with the pod strategy's CheckGracefulDelete, then the store's update and
// delete). The grace period is the request's, else the pod's terminationGracePeriodSeconds;
// 0 for a pod already terminal; a negative one counts as 1. The first deletion writes the
// deletion timestamp and grace period. A later one may only shorten them: the timestamp
// moves back by the difference (never into the past; a graceful request whose whole period
// has already gone by becomes 1s). A grace period of 0 (a force delete) is still written
// first, so that watchers see the deletion timestamp with grace 0, and the object is removed
// right after.
func (a *Server) Delete(uid types.UID, gracePeriodSeconds *int64) bool {
	sp, ok := a.pods[uid]
	if !ok {
		return false
	}
	p := sp.pod
	grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if p.Spec.TerminationGracePeriodSeconds != nil {
		grace = *p.Spec.TerminationGracePeriodSeconds
	}
	if gracePeriodSeconds != nil {
		grace = *gracePeriodSeconds
	}
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		grace = 0
	}
	if grace < 0 {
		grace = 1
	}
	key := p.Namespace + "/" + p.Name
	a.clk.Record(&trace.Event{Kind: KindDelete, Pod: key, Attrs: mirrorAttr(p, []trace.Attr{{Key: "gracePeriodSeconds", Value: itoa(int(grace))}})})
	now := a.s.Now()
	switch {
	case p.DeletionTimestamp == nil:
		ts := metav1.NewTime(now.Add(time.Duration(grace) * time.Second))
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
	case p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds == 0:
		// a deletion with grace 0 that was written but not carried out: remove it now
		a.remove(uid, p)
		return true
	case grace >= *p.DeletionGracePeriodSeconds:
		return true // a graceful deletion is pending; only a shorter one changes it
	default:
		prev := *p.DeletionGracePeriodSeconds
		ts := p.DeletionTimestamp.Add(time.Duration(grace-prev) * time.Second)
		if ts.Before(now) {
			ts = now
			if grace != 0 {
				grace = 1
			}
		}
		mts := metav1.NewTime(ts)
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &mts, &grace
	}
	a.bump(p)
	a.changed(p, false)
	if grace == 0 {
		a.remove(uid, p)
	}
	return true
}

func (a *Server) remove(uid types.UID, p *corev1.Pod) {
	a.unindex(p)
	delete(a.pods, uid)
	a.clk.Record(&trace.Event{Kind: KindRemoved, Pod: p.Namespace + "/" + p.Name, Attrs: mirrorAttr(p, nil)})
	a.changed(p, true)
}

// mirrorAttr adds mirror=true to attrs when p is a static pod's mirror pod, so that the
// trace names it as such.
func mirrorAttr(p *corev1.Pod, attrs []trace.Attr) []trace.Attr {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		attrs = append(attrs, trace.Attr{Key: "mirror", Value: "true"})
	}
	return attrs
}

// ResourceVersion is the pod's current resource version ("" when it does not exist).
func (a *Server) ResourceVersion(uid types.UID) string {
	if sp, ok := a.pods[uid]; ok {
		return sp.pod.ResourceVersion
	}
	return ""
}

// PatchStatus stores a pod's status as the kubelet reports it.
func (a *Server) PatchStatus(uid types.UID, status corev1.PodStatus) bool {
	sp, ok := a.pods[uid]
	if !ok {
		return false
	}
	status.DeepCopyInto(&sp.pod.Status)
	a.patched(sp)
	return true
}

// PatchOwnedStatus is PatchStatus for a status that nobody changes in place (the status
// manager's merged status, which shares its values with the manager's cached status): the
// server keeps it as it is instead of copying it. That is safe because the server never
// writes into a stored status either (a patch replaces it, PatchStatus with a copy), and
// its watchers only read the pods it hands them. The caller must not change status, or
// anything it points to, afterwards.
func (a *Server) PatchOwnedStatus(uid types.UID, status corev1.PodStatus) bool {
	sp, ok := a.pods[uid]
	if !ok {
		return false
	}
	sp.pod.Status = status
	a.patched(sp)
	return true
}

// patched records and announces the status patch just stored in sp's pod.
func (a *Server) patched(sp *storedPod) {
	p := sp.pod
	a.bump(p)
	a.clk.Record(&trace.Event{Kind: KindPatchStatus, Pod: sp.key, Attrs: sp.patchEventAttrs()})
	a.statusChanged(p)
}

// patchEventAttrs returns the attributes of a status patch event of the pod as it is now:
// its phase and reason, and mirror=true for a mirror pod. The last ones made are kept and
// returned again while they still say the same (a pod's patches nearly always do): a
// recorded event keeps its attributes, but nothing writes them, so events may share them.
func (sp *storedPod) patchEventAttrs() []trace.Attr {
	p := sp.pod
	_, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]
	if a := sp.patchAttrs; a != nil && a[0].Value == string(p.Status.Phase) && a[1].Value == p.Status.Reason && (len(a) == 3) == mirror {
		return a
	}
	sp.patchAttrs = mirrorAttr(p, []trace.Attr{{Key: "phase", Value: string(p.Status.Phase)}, {Key: "reason", Value: p.Status.Reason}})
	return sp.patchAttrs
}

// ForceDelete removes a pod outright (the status manager's final delete with grace 0, after
// the kubelet finished terminating it).
func (a *Server) ForceDelete(uid types.UID) {
	sp, ok := a.pods[uid]
	if !ok {
		return
	}
	a.remove(uid, sp.pod)
}

func itoa(i int) string { return strconv.Itoa(i) }

// SetNodeCondition stores a condition the kubelet posts; a change of status is recorded.
func (a *Server) SetNodeCondition(c corev1.NodeCondition) {
	cur := a.conditions[c.Type]
	if cur != nil && cur.Status == c.Status {
		*cur = c
		return
	}
	if cur == nil {
		cur = new(corev1.NodeCondition)
		a.conditions[c.Type] = cur
	}
	*cur = c
	attrs := []trace.Attr{{Key: "type", Value: string(c.Type)}, {Key: "status", Value: string(c.Status)}}
	if c.Reason != "" {
		attrs = append(attrs, trace.Attr{Key: "reason", Value: c.Reason}, trace.Attr{Key: "message", Value: c.Message})
	}
	a.s.Record(&trace.Event{Kind: KindNodeCondition, Name: string(c.Type), Attrs: attrs})
}

// NodeCondition returns the node's condition of a type.
func (a *Server) NodeCondition(t corev1.NodeConditionType) (corev1.NodeCondition, bool) {
	if c := a.conditions[t]; c != nil {
		return *c, true
	}
	return corev1.NodeCondition{}, false
}

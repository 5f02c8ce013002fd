// Package apiserver is the minimal API server a single node sees: the pods bound to it.
// Users create, update and delete pods (the scenario's pods and events); the kubelet's status
// manager patches their status and, once a deleted pod has terminated, deletes it for good.
// Every change is pushed to the watchers (the kubelet's api config source) at once.
package apiserver

import (
	"maps"
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
	s          *sim.Sim
	clk        *sim.Clock
	conditions map[corev1.NodeConditionType]corev1.NodeCondition
	pods       map[types.UID]*corev1.Pod
	watchers   []func(WatchEvent)
	rv         int
}

// WatchEvent is one change to a pod. Pod is the API server's own object: watchers must not
// modify it.
type WatchEvent struct {
	Pod     *corev1.Pod
	Deleted bool
}

// New returns an empty API server.
func New(s *sim.Sim) *Server {
	return &Server{s: s, clk: s.Clock("apiserver", sim.PriorityConfig), pods: map[types.UID]*corev1.Pod{},
		conditions: map[corev1.NodeConditionType]corev1.NodeCondition{}}
}

// Watch gives initial the node's pods now, then every change to changed (a reflector's
// list, then its watch).
func (a *Server) Watch(initial func([]*corev1.Pod), changed func(WatchEvent)) {
	a.watchers = append(a.watchers, changed)
	initial(a.List())
}

// Peek returns the API server's own copy of a pod, or nil; callers must not modify it.
func (a *Server) Peek(uid types.UID) *corev1.Pod { return a.pods[uid] }

// List returns the node's pods ordered by UID.
func (a *Server) List() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(a.pods))
	for _, p := range a.pods {
		out = append(out, p.DeepCopy())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	return out
}

// Get returns the pod with uid, or nil.
func (a *Server) Get(uid types.UID) *corev1.Pod {
	if p, ok := a.pods[uid]; ok {
		return p.DeepCopy()
	}
	return nil
}

// GetByName returns the pod called namespace/name, or nil.
func (a *Server) GetByName(namespace, name string) *corev1.Pod {
	for _, uid := range a.sortedUIDs() {
		if p := a.pods[uid]; p.Namespace == namespace && p.Name == name {
			return p.DeepCopy()
		}
	}
	return nil
}

func (a *Server) sortedUIDs() []types.UID {
	return slices.Sorted(maps.Keys(a.pods))
}

func (a *Server) changed(p *corev1.Pod, deleted bool) {
	for _, w := range a.watchers {
		w(WatchEvent{Pod: p, Deleted: deleted})
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
	a.pods[p.UID] = p
	a.clk.Record(&trace.Event{Kind: KindCreate, Pod: p.Namespace + "/" + p.Name})
	a.changed(p, false)
}

// Update replaces a pod's spec, labels and annotations (a user edit).
func (a *Server) Update(pod *corev1.Pod) bool {
	cur, ok := a.pods[pod.UID]
	if !ok {
		return false
	}
	p := pod.DeepCopy()
	p.Status = cur.Status
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = cur.DeletionTimestamp, cur.DeletionGracePeriodSeconds
	p.CreationTimestamp = cur.CreationTimestamp
	a.bump(p)
	a.pods[p.UID] = p
	a.clk.Record(&trace.Event{Kind: KindUpdate, Pod: p.Namespace + "/" + p.Name})
	a.changed(p, false)
	return true
}

// Delete requests a graceful deletion: the pod gets a deletion timestamp and grace period
// (the request's, else the pod's terminationGracePeriodSeconds). A grace period of 0 (a
// force delete) or a pod already terminal removes it at once.
func (a *Server) Delete(uid types.UID, gracePeriodSeconds *int64) bool {
	p, ok := a.pods[uid]
	if !ok {
		return false
	}
	grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if p.Spec.TerminationGracePeriodSeconds != nil {
		grace = *p.Spec.TerminationGracePeriodSeconds
	}
	if gracePeriodSeconds != nil {
		grace = *gracePeriodSeconds
	}
	key := p.Namespace + "/" + p.Name
	a.clk.Record(&trace.Event{Kind: KindDelete, Pod: key, Attrs: []trace.Attr{{Key: "gracePeriodSeconds", Value: itoa(int(grace))}}})
	if grace == 0 || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		delete(a.pods, uid)
		a.clk.Record(&trace.Event{Kind: KindRemoved, Pod: key})
		a.changed(p, true)
		return true
	}
	if p.DeletionTimestamp != nil {
		if p.DeletionGracePeriodSeconds != nil && *p.DeletionGracePeriodSeconds <= grace {
			return true
		}
	} else {
		now := metav1.NewTime(a.s.Now().Add(time.Duration(grace) * time.Second))
		p.DeletionTimestamp = &now
	}
	p.DeletionGracePeriodSeconds = &grace
	a.bump(p)
	a.changed(p, false)
	return true
}

// ResourceVersion is the pod's current resource version ("" when it does not exist).
func (a *Server) ResourceVersion(uid types.UID) string {
	if p, ok := a.pods[uid]; ok {
		return p.ResourceVersion
	}
	return ""
}

// PatchStatus stores a pod's status as the kubelet reports it.
func (a *Server) PatchStatus(uid types.UID, status corev1.PodStatus) bool {
	p, ok := a.pods[uid]
	if !ok {
		return false
	}
	p.Status = *status.DeepCopy()
	a.bump(p)
	a.clk.Record(&trace.Event{Kind: KindPatchStatus, Pod: p.Namespace + "/" + p.Name, Attrs: []trace.Attr{{Key: "phase", Value: string(status.Phase)}, {Key: "reason", Value: status.Reason}}})
	a.changed(p, false)
	return true
}

// ForceDelete removes a pod outright (the status manager's final delete with grace 0, after
// the kubelet finished terminating it).
func (a *Server) ForceDelete(uid types.UID) {
	p, ok := a.pods[uid]
	if !ok {
		return
	}
	delete(a.pods, uid)
	a.clk.Record(&trace.Event{Kind: KindRemoved, Pod: p.Namespace + "/" + p.Name})
	a.changed(p, true)
}

func itoa(i int) string { return strconv.Itoa(i) }

// SetNodeCondition stores a condition the kubelet posts; a change of status is recorded.
func (a *Server) SetNodeCondition(c corev1.NodeCondition) {
	if cur, ok := a.conditions[c.Type]; ok && cur.Status == c.Status {
		a.conditions[c.Type] = c
		return
	}
	a.conditions[c.Type] = c
	attrs := []trace.Attr{{Key: "type", Value: string(c.Type)}, {Key: "status", Value: string(c.Status)}}
	if c.Reason != "" {
		attrs = append(attrs, trace.Attr{Key: "reason", Value: c.Reason}, trace.Attr{Key: "message", Value: c.Message})
	}
	a.s.Record(&trace.Event{Kind: KindNodeCondition, Name: string(c.Type), Attrs: attrs})
}

// NodeCondition returns the node's condition of a type.
func (a *Server) NodeCondition(t corev1.NodeConditionType) (corev1.NodeCondition, bool) {
	c, ok := a.conditions[t]
	return c, ok
}

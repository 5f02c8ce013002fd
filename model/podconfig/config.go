// Package podconfig is the kubelet's pod config (upstream pkg/kubelet/config): each source
// (the API server watch, the static pod directory) pushes full snapshots of its pods; the
// mux compares each snapshot with the last one from that source, by UID, and sends the
// differences to the syncLoop's configCh as ADD, UPDATE, DELETE, REMOVE and RECONCILE
// operations. The channel holds 50 updates and the send blocks when it is full.
package podconfig

import (
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/apiserver"
	"nodesim/sim"
	"nodesim/trace"
)

// PodOperation is the kind of change an update carries.
type PodOperation int

// Operations, as upstream's kubetypes.
const (
	SET PodOperation = iota
	ADD
	DELETE
	REMOVE
	UPDATE
	RECONCILE
)

func (o PodOperation) String() string {
	return [...]string{"SET", "ADD", "DELETE", "REMOVE", "UPDATE", "RECONCILE"}[o]
}

// Sources.
const (
	ApiserverSource = "api"
	FileSource      = "file"
)

// Annotations the kubelet sets on pods it receives.
const (
	ConfigSourceAnnotationKey    = "kubernetes.io/config.source"
	ConfigMirrorAnnotationKey    = "kubernetes.io/config.mirror"
	ConfigFirstSeenAnnotationKey = "kubernetes.io/config.seen"
	ConfigHashAnnotationKey      = "kubernetes.io/config.hash"
)

// PodUpdate is one message on configCh.
type PodUpdate struct {
	Pods   []*corev1.Pod
	Op     PodOperation
	Source string
}

// ChannelCapacity is configCh's capacity.
const ChannelCapacity = 50

// KindMerge is recorded for every snapshot a source pushes.
const KindMerge trace.Kind = "configMerge"

// PodConfig merges the sources.
type PodConfig struct {
	s       *sim.Sim
	clk     *sim.Clock
	updates *sim.Chan[PodUpdate]
	// pods holds each source's pods, each through an entry that a change of the pod
	// updates in place: a status echo, the commonest change, then stores nothing in the
	// map.
	pods    map[string]map[types.UID]*sourcePod
	seen    map[string]bool
	sources []string
}

// sourcePod is a source's pod: the kubelet's copy of it as classify made it last, and the
// attributes of the configMerge event of a RECONCILE of that pod alone (a status patch's
// echo), made at the first one (nil until then): they depend only on the pod's namespace
// and name (checked at each use), and a recorded event keeps its attributes but nothing
// writes them, so every such event may share them. The entry goes when the source drops
// the pod.
type sourcePod struct {
	pod        *corev1.Pod
	reconciled []trace.Attr
}

// New returns a mux for the given sources.
func New(s *sim.Sim, sources ...string) *PodConfig {
	c := &PodConfig{
		s: s, clk: s.Clock("config", sim.PriorityConfig),
		// Upstream the mux's merge sends from its own goroutine: record it there.
		updates: sim.NewChan[PodUpdate](s, "configCh", ChannelCapacity).SentFrom("config"),
		pods:    map[string]map[types.UID]*sourcePod{},
		seen:    map[string]bool{},
		sources: sources,
	}
	for _, src := range sources {
		c.pods[src] = map[types.UID]*sourcePod{}
	}
	return c
}

// Updates is configCh.
func (c *PodConfig) Updates() *sim.Chan[PodUpdate] { return c.updates }

// Sources lists the configured sources.
func (c *PodConfig) Sources() []string { return c.sources }

// Merge takes a source's full snapshot and sends what changed (upstream podStorage.Merge).
func (c *PodConfig) Merge(source string, snapshot []*corev1.Pod) {
	firstSet := !c.seen[source]
	c.seen[source] = true
	old := c.pods[source]
	next := map[types.UID]*sourcePod{}
	var adds, updates, deletes, removes, reconciles []*corev1.Pod
	for _, in := range snapshot {
		// A new entry, which keeps the old one's attributes: the old entry must still
		// give its pod to any later pod of the snapshot with the same UID.
		var prev *corev1.Pod
		var reconciled []trace.Attr
		if sp := old[in.UID]; sp != nil {
			prev, reconciled = sp.pod, sp.reconciled
		}
		p, op := c.classify(source, prev, in, false)
		next[p.UID] = &sourcePod{pod: p, reconciled: reconciled}
		switch op {
		case ADD:
			adds = append(adds, p)
		case UPDATE:
			updates = append(updates, p)
		case DELETE:
			deletes = append(deletes, p)
		case RECONCILE:
			reconciles = append(reconciles, p)
		}
	}
	for uid, sp := range old {
		if _, ok := next[uid]; !ok {
			removes = append(removes, sp.pod)
		}
	}
	c.pods[source] = next
	c.record(source, adds, updates, deletes, removes, reconciles)
	send := func(op PodOperation, pods []*corev1.Pod) {
		if len(pods) == 0 {
			return
		}
		sortPods(pods)
		c.updates.Send(PodUpdate{Pods: pods, Op: op, Source: source}, nil)
	}
	send(REMOVE, removes)
	send(ADD, adds)
	send(UPDATE, updates)
	send(DELETE, deletes)
	if firstSet && len(adds) == 0 && len(updates) == 0 && len(deletes) == 0 {
		// The source has reported: an empty ADD marks it seen.
		c.updates.Send(PodUpdate{Op: ADD, Source: source}, nil)
	}
	send(RECONCILE, reconciles)
}

// noChange is classify's answer for an identical pod.
const noChange PodOperation = -1

// classify takes the kubelet's copy of a pod from a source and says what changed since
// prev (nil: never seen): upstream checkAndUpdatePod.
//
// The copy is a new Pod with annotations of its own (the kubelet adds its own to them);
// everything else it shares with in: the kubelet never writes into a pod's spec, labels,
// status or other fields that hold references (a pod with another spec is another
// object), and neither does a source into the pods it gives (the API server replaces what
// it changes, see apiserver.WatchEvent; the file source gives fresh copies).
//
// statusOnly says in differs from the pod the source last gave (prev's origin) only in its
// status and resource version (the API server's status patch, which comes on every status
// write). The copy is then prev with in's resource version and status, and specChanged need
// not look:
//   - prev's spec and object meta are the ones the source gave before, with the kubelet's
//     annotations, which hold the same values for the copy (the source; the first-seen
//     time is prev's): the copy shares them, its annotations included (nothing writes to
//     a pod's annotations once classify made them).
//   - The status is the API server's, shared as above.
func (c *PodConfig) classify(source string, prev, in *corev1.Pod, statusOnly bool) (*corev1.Pod, PodOperation) {
	if statusOnly && prev != nil {
		p := &corev1.Pod{TypeMeta: in.TypeMeta, ObjectMeta: prev.ObjectMeta, Spec: prev.Spec, Status: in.Status}
		p.ResourceVersion = in.ResourceVersion
		if !apiserver.StatusSemanticEqual(&prev.Status, &p.Status) {
			return p, RECONCILE
		}
		return p, noChange
	}
	p := &corev1.Pod{TypeMeta: in.TypeMeta, ObjectMeta: in.ObjectMeta, Spec: in.Spec, Status: in.Status}
	p.Annotations = make(map[string]string, len(in.Annotations)+2)
	maps.Copy(p.Annotations, in.Annotations)
	p.Annotations[ConfigSourceAnnotationKey] = source
	if prev == nil {
		p.Annotations[ConfigFirstSeenAnnotationKey] = c.clk.Now().Format("2006-01-02T15:04:05.000000000Z07:00")
		return p, ADD
	}
	p.Annotations[ConfigFirstSeenAnnotationKey] = prev.Annotations[ConfigFirstSeenAnnotationKey]
	switch {
	case specChanged(prev, p):
		if p.DeletionTimestamp != nil {
			return p, DELETE
		}
		return p, UPDATE
	case !apiserver.StatusSemanticEqual(&prev.Status, &p.Status):
		return p, RECONCILE
	}
	return p, noChange
}

// Update takes one changed pod from a source (a watch event) and sends what changed, as
// Merge would for a snapshot that differs from the last one only in that pod.
func (c *PodConfig) Update(source string, in *corev1.Pod, deleted bool) {
	c.update(source, in, deleted, false)
}

// UpdateStatus is Update for a change of only the pod's status and resource version since
// the source last gave it (the API server's status patch): the mux then skips comparing
// what did not change.
func (c *PodConfig) UpdateStatus(source string, in *corev1.Pod) {
	c.update(source, in, false, true)
}

func (c *PodConfig) update(source string, in *corev1.Pod, deleted, statusOnly bool) {
	old := c.pods[source]
	sp := old[in.UID]
	if deleted {
		if sp == nil {
			return
		}
		delete(old, in.UID)
		c.record(source, nil, nil, nil, []*corev1.Pod{sp.pod}, nil)
		c.updates.Send(PodUpdate{Pods: []*corev1.Pod{sp.pod}, Op: REMOVE, Source: source}, nil)
		return
	}
	var prev *corev1.Pod
	if sp != nil {
		prev = sp.pod
	}
	p, op := c.classify(source, prev, in, statusOnly)
	if sp == nil {
		sp = &sourcePod{}
		old[p.UID] = sp
	}
	sp.pod = p
	if op == noChange {
		return
	}
	one := []*corev1.Pod{p}
	switch op {
	case ADD:
		c.record(source, one, nil, nil, nil, nil)
	case UPDATE:
		c.record(source, nil, one, nil, nil, nil)
	case DELETE:
		c.record(source, nil, nil, one, nil, nil)
	case RECONCILE:
		c.clk.Record(&trace.Event{Kind: KindMerge, Name: source, Attrs: sp.reconcileAttrs()})
	}
	c.updates.Send(PodUpdate{Pods: one, Op: op, Source: source}, nil)
}

func (c *PodConfig) record(source string, adds, updates, deletes, removes, reconciles []*corev1.Pod) {
	c.clk.Record(&trace.Event{Kind: KindMerge, Name: source, Attrs: mergeAttrs(names(adds), names(updates), names(deletes), names(removes), names(reconciles))})
}

func mergeAttrs(adds, updates, deletes, removes, reconciles string) []trace.Attr {
	return []trace.Attr{{Key: "add", Value: adds}, {Key: "update", Value: updates}, {Key: "delete", Value: deletes},
		{Key: "remove", Value: removes}, {Key: "reconcile", Value: reconciles}}
}

// reconcileAttrs is record's attributes for a RECONCILE of sp's pod alone (see sourcePod).
func (sp *sourcePod) reconcileAttrs() []trace.Attr {
	p, attrs := sp.pod, sp.reconciled
	if attrs == nil || !isKey(attrs[len(attrs)-1].Value, p.Namespace, p.Name) { // the reconcile attribute
		attrs = mergeAttrs("", "", "", "", names([]*corev1.Pod{p}))
		sp.reconciled = attrs
	}
	return attrs
}

// specChanged compares what the kubelet acts on: spec, labels, annotations other than the
// kubelet's own, deletion timestamp and grace, each with apimachinery's semantic equality
// (nil and empty maps are equal). The labels and annotations, string maps, are compared
// with maps.Equal, which is that relation, and the deletion fields skip reflection when both are nil, as they nearly always
// are.
func specChanged(a, b *corev1.Pod) bool {
	if !apiequality.Semantic.DeepEqual(a.Spec, b.Spec) || !maps.Equal(a.Labels, b.Labels) {
		return true
	}
	if (a.DeletionTimestamp != nil || b.DeletionTimestamp != nil) && !apiequality.Semantic.DeepEqual(a.DeletionTimestamp, b.DeletionTimestamp) {
		return true
	}
	if (a.DeletionGracePeriodSeconds != nil || b.DeletionGracePeriodSeconds != nil) &&
		!apiequality.Semantic.DeepEqual(a.DeletionGracePeriodSeconds, b.DeletionGracePeriodSeconds) {
		return true
	}
	return !userAnnotationsEqual(a.Annotations, b.Annotations)
}

// kubeletAnnotation reports whether an annotation is one the kubelet sets itself.
func kubeletAnnotation(k string) bool {
	return k == ConfigSourceAnnotationKey || k == ConfigFirstSeenAnnotationKey || k == ConfigHashAnnotationKey
}

// userAnnotationsEqual is maps.Equal over the annotations the kubelet does not set.
func userAnnotationsEqual(a, b map[string]string) bool {
	n := 0
	for k, v := range a {
		if kubeletAnnotation(k) {
			continue
		}
		if w, ok := b[k]; !ok || w != v {
			return false
		}
		n++
	}
	for k := range b {
		if !kubeletAnnotation(k) {
			n--
		}
	}
	return n == 0
}

// isKey reports whether key is namespace/name.
func isKey(key, namespace, name string) bool {
	return len(key) == len(namespace)+1+len(name) && key[len(namespace)] == '/' &&
		key[:len(namespace)] == namespace && key[len(namespace)+1:] == name
}

func sortPods(pods []*corev1.Pod) {
	sort.Slice(pods, func(i, j int) bool { return pods[i].UID < pods[j].UID })
}

func names(pods []*corev1.Pod) string {
	if len(pods) == 0 {
		return ""
	}
	n := make([]string, len(pods))
	for i, p := range pods {
		n[i] = p.Namespace + "/" + p.Name
	}
	sort.Strings(n)
	return strings.Join(n, ",")
}

// SourcesReady tracks which sources have delivered and been consumed by the syncLoop
// (upstream config.SourcesReady).
type SourcesReady struct {
	all  []string
	seen map[string]bool
	// ready: every source has been seen. Sources are only ever added to seen, so once
	// true it stays true, and AllReady, asked at every housekeeping pass, answers without
	// looking each source up.
	ready bool
}

// NewSourcesReady returns the tracker for the given sources.
func NewSourcesReady(sources []string) *SourcesReady {
	return &SourcesReady{all: sources, seen: map[string]bool{}}
}

// AddSource marks a source as seen by the syncLoop.
// Once every source is seen nothing another AddSource notes can change an answer.
func (s *SourcesReady) AddSource(source string) {
	if !s.ready {
		s.seen[source] = true
	}
}

// AllReady reports whether every source has been seen.
func (s *SourcesReady) AllReady() bool {
	if s.ready {
		return true
	}
	for _, src := range s.all {
		if !s.seen[src] {
			return false
		}
	}
	s.ready = true
	return true
}

// IsMirrorPod reports whether a pod is the API copy of a static pod.
func IsMirrorPod(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[ConfigMirrorAnnotationKey]
	return ok
}

// IsStaticPod reports whether a pod comes from a file source.
func IsStaticPod(pod *corev1.Pod) bool {
	return pod.Annotations[ConfigSourceAnnotationKey] == FileSource
}

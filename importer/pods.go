package importer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	api "nodesim/api/v1alpha1"
	"nodesim/scenarios"
)

// priorityClass is a PriorityClass the captured pods resolved to, as the API server's
// Priority admission wrote it into them.
type priorityClass struct {
	value  int32
	policy corev1.PreemptionPolicy
	from   string // the first pod that named it
}

// buildPods is spec.pods: each captured pod that still holds the node, as the API server
// returned it, with what the API server and the kubelet set themselves dropped, and each
// container's captured usage as its behaviour. It returns the pods, the PriorityClasses
// they name, and the memory, disk and emptyDir usage the behaviours add up to.
func (im *importer) buildPods(nodeName string, stats map[string]*statsv1alpha1.PodStats) (pods, classes *yaml.Node, mem, disk, vols int64) {
	pods = sequence()
	byClass := map[string]*priorityClass{}
	var terminal, elsewhere []string
	for _, cp := range im.pods {
		pod := cp.pod
		key := podKey(pod.Namespace, pod.Name)
		if nodeName != "" && pod.Spec.NodeName != "" && pod.Spec.NodeName != nodeName {
			// Captured without --field-selector spec.nodeName=N: not this node's pod.
			elsewhere = append(elsewhere, key+" ("+pod.Spec.NodeName+")")
			continue
		}
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			// A finished pod holds nothing on the node; re-creating it would run it again.
			terminal = append(terminal, key)
			continue
		}
		if pod.DeletionTimestamp != nil {
			im.warn("pod %s was terminating when captured (deletion requested at %s): imported as running; add a deletePod event to simulate its end", key, stamp(*pod.DeletionTimestamp))
		}
		out, static := im.cleanPod(pod, nodeName, byClass, key)
		podNode, err := fromJSON(out)
		if err != nil {
			im.warn("%s: pod %s left out: %v", cp.at, key, err)
			continue
		}
		drop(podNode, "status")
		dropEmptyResources(podNode)
		behavior, m, d, v, note := im.behavior(pod, stats[key])
		mem, disk, vols = mem+m, disk+d, vols+v
		var entries []entry
		head := fmt.Sprintf("%s (%s)", key, cp.at)
		if note != "" {
			head += ": " + note
		}
		if static {
			entries = append(entries, entry{key: "source", value: str(api.SourceFile),
				line: "a static pod: its mirror pod was captured; the kubelet names it <name>-<node>"})
		}
		entries = append(entries, entry{key: "pod", value: podNode}, entry{key: "behavior", value: behavior})
		item := mapping(entries...)
		item.HeadComment = comment(head)
		pods.Content = append(pods.Content, item)
	}
	if len(terminal) > 0 {
		im.warn("%d pods left out as Succeeded or Failed (they hold nothing on the node): %s", len(terminal), strings.Join(terminal, ", "))
	}
	if len(elsewhere) > 0 {
		im.warn("%d pods left out as bound to another node than %s (capture with --field-selector spec.nodeName=%s): %s",
			len(elsewhere), nodeName, nodeName, strings.Join(elsewhere, ", "))
	}
	im.imported = len(pods.Content)
	if len(pods.Content) == 0 {
		pods = nil
	}
	return pods, im.classes(byClass), mem, disk, vols
}

// cleanPod drops what the API server and the kubelet set themselves, as re-creating the pod
// from a dump does: status, uid, resourceVersion, generation, creationTimestamp, the
// deletion fields, managedFields, selfLink and spec.nodeName. A mirror pod becomes the
// static pod it mirrors. The priority of a pod the API server admitted is left for the
// loader to resolve from its class again (recorded in byClass).
func (im *importer) cleanPod(in *corev1.Pod, nodeName string, byClass map[string]*priorityClass, key string) (*corev1.Pod, bool) {
	pod := in.DeepCopy()
	scenarios.DropServerFields(pod)
	pod.APIVersion, pod.Kind = "", ""
	if n := len(pod.Spec.EphemeralContainers); n > 0 {
		im.warn("pod %s: %d ephemeral containers (kubectl debug) left out: nodesim does not model them", key, n)
		pod.Spec.EphemeralContainers = nil
	}
	if _, mirror := pod.Annotations[mirrorAnnotation]; mirror {
		for _, a := range []string{mirrorAnnotation, hashAnnotation, seenAnnotation, sourceAnnotation} {
			delete(pod.Annotations, a)
		}
		if len(pod.Annotations) == 0 {
			pod.Annotations = nil
		}
		var owners []metav1.OwnerReference
		for _, o := range pod.OwnerReferences {
			if o.Kind != "Node" {
				owners = append(owners, o)
			}
		}
		pod.OwnerReferences = owners
		if nodeName != "" {
			pod.Name = strings.TrimSuffix(pod.Name, "-"+nodeName)
		}
		// A static pod never meets admission: it keeps the priority it was written with.
		return pod, true
	}
	if name := pod.Spec.PriorityClassName; name != "" && pod.Spec.Priority == nil && !strings.HasPrefix(name, "system-") {
		im.warn("pod %s names priority class %s but has no priority (admission never resolved it): the class is left out", key, name)
		pod.Spec.PriorityClassName = ""
	} else if name != "" {
		if !strings.HasPrefix(name, "system-") {
			policy := corev1.PreemptLowerPriority
			if pod.Spec.PreemptionPolicy != nil {
				policy = *pod.Spec.PreemptionPolicy
			}
			if c, ok := byClass[name]; !ok {
				byClass[name] = &priorityClass{value: *pod.Spec.Priority, policy: policy, from: key}
			} else if c.value != *pod.Spec.Priority || c.policy != policy {
				im.warn("pod %s has priority %d (%s) from class %s, pod %s has %d (%s): the class changed between them; both get the first",
					key, *pod.Spec.Priority, policy, name, c.from, c.value, c.policy)
			}
		}
	} else if p := pod.Spec.Priority; p != nil && *p != 0 {
		im.warn("pod %s has priority %d but no priorityClassName: nodesim's Priority admission gives it 0", key, *p)
	}
	pod.Spec.Priority = nil
	pod.Spec.PreemptionPolicy = nil
	return pod, false
}

// classes is spec.priorityClasses: one PriorityClass per class the pods name, with the
// value and preemption policy admission gave them.
func (im *importer) classes(byClass map[string]*priorityClass) *yaml.Node {
	if len(byClass) == 0 {
		return nil
	}
	names := make([]string, 0, len(byClass))
	for n := range byClass {
		names = append(names, n)
	}
	sort.Strings(names)
	seq := sequence()
	for _, n := range names {
		c := byClass[n]
		entries := []entry{
			{key: "apiVersion", value: str("scheduling.k8s.io/v1")},
			{key: "kind", value: str("PriorityClass")},
			{key: "metadata", value: mapping(entry{key: "name", value: str(n)})},
			{key: "value", value: integer(strconv.Itoa(int(c.value)))},
		}
		if c.policy != corev1.PreemptLowerPriority {
			entries = append(entries, entry{key: "preemptionPolicy", value: str(string(c.policy))})
		}
		m := mapping(entries...)
		m.Style = yaml.FlowStyle
		seq.Content = append(seq.Content, m)
	}
	return seq
}

// behavior is a pod's behaviour: per container, its captured working set as its memory
// program and its rootfs and logs usage as its disk program; an emptyDir volume's captured
// usage as the volume program of the first container that mounts it; an init container
// that has finished exits as it did. It returns the memory, disk and volume bytes the
// programs hold, and a note for the pod's comment.
func (im *importer) behavior(pod *corev1.Pod, ps *statsv1alpha1.PodStats) (*yaml.Node, int64, int64, int64, string) {
	byName := map[string]*statsv1alpha1.ContainerStats{}
	if ps != nil {
		for i := range ps.Containers {
			byName[ps.Containers[i].Name] = &ps.Containers[i]
		}
	}
	finished := map[string]*corev1.ContainerStateTerminated{}
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, s := range list {
			if t := s.State.Terminated; t != nil {
				finished[s.Name] = t
			}
		}
	}
	var mem, disk, vols int64
	var entries []entry
	var noStats []string
	volumes := im.volumePrograms(pod, ps)
	type ctr struct {
		c    *corev1.Container
		init bool
	}
	var all []ctr
	for i := range pod.Spec.InitContainers {
		all = append(all, ctr{&pod.Spec.InitContainers[i], true})
	}
	for i := range pod.Spec.Containers {
		all = append(all, ctr{&pod.Spec.Containers[i], false})
	}
	for _, x := range all {
		c := x.c
		var b []entry
		if x.init && !isSidecar(c) {
			// A finished init container: without an exit it would run for ever and hold the
			// pod's start.
			after := time.Duration(0)
			line := "an init container: exits 0 at once (no termination captured)"
			if t := finished[c.Name]; t != nil && !t.StartedAt.IsZero() && !t.FinishedAt.IsZero() && t.FinishedAt.After(t.StartedAt.Time) {
				after = t.FinishedAt.Sub(t.StartedAt.Time).Round(time.Second)
				line = fmt.Sprintf("an init container: ran %s (started %s, finished %s)", after, stamp(t.StartedAt), stamp(t.FinishedAt))
			}
			exit := mapping(entry{key: "after", value: str(after.String())}, entry{key: "code", value: integer("0")})
			exit.Style = yaml.FlowStyle
			b = append(b, entry{key: "exit", value: exit, line: line})
		} else if t := finished[c.Name]; !x.init && t != nil && pod.Spec.RestartPolicy != corev1.RestartPolicyAlways {
			// A container of a pod that does not restart it, finished before the capture:
			// it runs as long as it ran and exits as it did.
			after := time.Duration(0)
			if !t.StartedAt.IsZero() && t.FinishedAt.After(t.StartedAt.Time) {
				after = t.FinishedAt.Sub(t.StartedAt.Time).Round(time.Second)
			}
			exit := mapping(entry{key: "after", value: str(after.String())}, entry{key: "code", value: integer(strconv.Itoa(int(t.ExitCode)))})
			exit.Style = yaml.FlowStyle
			b = append(b, entry{key: "exit", value: exit, line: fmt.Sprintf("finished before the capture: ran %s, exit code %d (%s)", after, t.ExitCode, t.Reason)})
		} else if cs := byName[c.Name]; cs != nil {
			if m := cs.Memory; m != nil && m.WorkingSetBytes != nil {
				ws := int64(*m.WorkingSetBytes)
				b = append(b, entry{key: "memory", value: program(ws), line: "working set at " + stamp(m.Time)})
				mem += (ws + 512) / 1024 * 1024
			}
			var used int64
			var parts []string
			var at metav1.Time
			for _, f := range []struct {
				name string
				fs   *statsv1alpha1.FsStats
			}{{"rootfs", cs.Rootfs}, {"logs", cs.Logs}} {
				if f.fs != nil && f.fs.UsedBytes != nil {
					used += int64(*f.fs.UsedBytes)
					parts = append(parts, fmt.Sprintf("%s %s", f.name, quantity(int64(*f.fs.UsedBytes))))
					at = f.fs.Time
				}
			}
			if len(parts) > 0 {
				b = append(b, entry{key: "disk", value: program(used), line: strings.Join(parts, " + ") + " at " + stamp(at)})
				disk += (used + 512) / 1024 * 1024
			}
		} else {
			noStats = append(noStats, c.Name)
		}
		if v := volumes[c.Name]; v != nil {
			b = append(b, entry{key: "volumes", value: v.node})
			vols += v.bytes
		}
		if len(b) > 0 {
			entries = append(entries, entry{key: c.Name, value: mapping(b...)})
		}
	}
	note := ""
	switch {
	case ps == nil && im.summary != nil:
		note = "not in the stats summary: its containers use their memory requests"
	case len(noStats) > 0 && im.summary != nil:
		note = fmt.Sprintf("no stats for %s (not running when captured): using their memory requests", strings.Join(noStats, ", "))
	}
	if len(entries) == 0 {
		return nil, 0, 0, 0, note
	}
	return mapping(entries...), mem, disk, vols, note
}

// volumeProgram is the volumes behaviour of one container.
type volumeProgram struct {
	node  *yaml.Node
	bytes int64
}

// volumePrograms assigns each disk-backed emptyDir volume's captured usage to the first
// container (regular before init) that mounts it. Memory-backed ones are left out: their
// pages are in the writing container's working set already.
func (im *importer) volumePrograms(pod *corev1.Pod, ps *statsv1alpha1.PodStats) map[string]*volumeProgram {
	out := map[string]*volumeProgram{}
	if ps == nil {
		return out
	}
	used := map[string]statsv1alpha1.VolumeStats{}
	for _, v := range ps.VolumeStats {
		if v.UsedBytes != nil {
			used[v.Name] = v
		}
	}
	for _, v := range pod.Spec.Volumes {
		st, ok := used[v.Name]
		if v.EmptyDir == nil || v.EmptyDir.Medium == corev1.StorageMediumMemory || !ok {
			continue
		}
		owner := ""
		for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for _, c := range list {
				for _, m := range c.VolumeMounts {
					if m.Name == v.Name && owner == "" {
						owner = c.Name
					}
				}
			}
		}
		if owner == "" {
			owner = pod.Spec.Containers[0].Name
		}
		p := out[owner]
		if p == nil {
			p = &volumeProgram{node: mapping()}
			out[owner] = p
		}
		b := int64(*st.UsedBytes)
		p.node.Content = append(p.node.Content, mapping(entry{key: v.Name, value: program(b), line: "emptyDir usage at " + stamp(st.Time)}).Content...)
		p.bytes += (b + 512) / 1024 * 1024
	}
	return out
}

// dropEmptyResources removes the `resources: {}` JSON gives a container without any.
func dropEmptyResources(pod *yaml.Node) {
	spec := lookup(pod, "spec")
	for _, field := range []string{"initContainers", "containers"} {
		list := lookup(spec, field)
		if list == nil {
			continue
		}
		for _, c := range list.Content {
			if r := lookup(c, "resources"); r != nil && r.Kind == yaml.MappingNode && len(r.Content) == 0 {
				drop(c, "resources")
			}
		}
	}
}

package eviction

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"nodesim/internal/upstream"
)

// Ranking orders pods evict-first first, as upstream's rankMemoryPressure,
// rankDiskPressureFunc and rankPIDPressure do:
//
//   - memory: pods whose working set exceeds their memory request, then lower priority,
//     then larger working set minus request;
//   - disk: pods whose usage exceeds their request for the measured resource, then lower
//     priority, then larger usage minus the ephemeral-storage request;
//   - pids: lower priority, then more processes.
//
// A pod without stats goes before one with stats at the first stats-based step (for pids
// that step comes after priority). QoS class plays no part.
//
// Upstream sorts with sort.Sort, which is unstable, over pods in random (pod manager map)
// order, so ties land anywhere. nodesim breaks every remaining tie by creation timestamp
// (older first), then namespace, then name, and sorts stably, so the result does not depend
// on the input order.

// podRequest is the pod's effective request for one resource, upstream's
// GetResourceRequestQuantity (imported through internal/upstream): the larger of (regular
// containers + restartable init containers) and the largest init phase, plus pod overhead
// only when that total is non-zero. With the PodLevelResources gate on and pod-level cpu or
// memory set, the containers are skipped and only the pod-level cpu and memory requests
// count (so such a pod requests no ephemeral-storage here, as upstream). In-place resize
// status is not modelled.
func podRequest(pod *corev1.Pod, name corev1.ResourceName, podLevelResources bool) resource.Quantity {
	return upstream.GetResourceRequestQuantity(pod, name, podLevelResources)
}

// podLimit is the pod's limit for one resource, as upstream's PodLimits: the same sidecar
// arithmetic over limits, plus overhead when the limit is non-zero; found is false when no
// container declares the resource.
func podLimit(pod *corev1.Pod, name corev1.ResourceName) (resource.Quantity, bool) {
	q, found := aggregate(pod, name, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits })
	if ov, ok := pod.Spec.Overhead[name]; ok && found && !q.IsZero() {
		q.Add(ov)
	}
	return q, found
}

// aggregate applies the sidecar-aware sum/max rule of upstream's container aggregation to
// one resource. The zero value carries the resource's usual format so that printing an
// absent request gives "0".
func aggregate(pod *corev1.Pod, name corev1.ResourceName, list func(*corev1.Container) corev1.ResourceList) (resource.Quantity, bool) {
	total := resource.Quantity{Format: formatFor(name)}
	found := false
	for i := range pod.Spec.Containers {
		if q, ok := list(&pod.Spec.Containers[i])[name]; ok {
			total.Add(q)
			found = true
		}
	}
	sidecars := resource.Quantity{Format: formatFor(name)}
	sidecarsFound := false
	var initMax resource.Quantity
	initFound := false
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		q, ok := list(c)[name]
		var phase resource.Quantity
		phaseFound := false
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			if ok {
				total.Add(q)
				found = true
				sidecars.Add(q)
				sidecarsFound = true
			}
			phase, phaseFound = sidecars.DeepCopy(), sidecarsFound
		} else {
			phase = resource.Quantity{Format: formatFor(name)}
			if ok {
				phase.Add(q)
			}
			if sidecarsFound {
				phase.Add(sidecars)
			}
			phaseFound = ok || sidecarsFound
		}
		if phaseFound && (!initFound || phase.Cmp(initMax) > 0) {
			initMax = phase.DeepCopy()
			initFound = true
		}
	}
	if initFound && (!found || initMax.Cmp(total) > 0) {
		total = initMax
		found = true
	}
	return total, found
}

// formatFor is the quantity format upstream uses for a resource: binary for bytes,
// decimal for counts.
func formatFor(name corev1.ResourceName) resource.Format {
	switch name {
	case corev1.ResourceMemory, corev1.ResourceStorage, corev1.ResourceEphemeralStorage:
		return resource.BinarySI
	}
	return resource.DecimalSI
}

// podPriority is the pod's resolved priority; nil counts as 0, as upstream's PodPriority.
func podPriority(pod *corev1.Pod) int32 {
	if pod.Spec.Priority != nil {
		return *pod.Spec.Priority
	}
	return 0
}

// lookupStats calls stats and treats a nil result as "no stats".
func lookupStats(stats StatsFunc, pod *corev1.Pod) (*PodStats, bool) {
	if stats == nil {
		return nil, false
	}
	st, ok := stats(pod)
	if !ok || st == nil {
		return nil, false
	}
	return st, true
}

// IsLocalVolume reports whether upstream counts the volume's usage toward a pod's disk
// usage when ranking (localVolumeNames): hostPath volumes and local ephemeral volumes
// (emptyDir on the default medium, configMap, gitRepo). Older upstream releases also
// counted downwardAPI and any non-memory emptyDir; the current volume util does not.
func IsLocalVolume(v *corev1.Volume) bool {
	if v.HostPath != nil || v.GitRepo != nil || v.ConfigMap != nil {
		return true
	}
	return v.EmptyDir != nil && v.EmptyDir.Medium == corev1.StorageMediumDefault
}

// LocalVolumeNames lists, in spec order, the pod's volumes whose usage belongs in
// PodStats.LocalVolumesUsed.
func LocalVolumeNames(pod *corev1.Pod) []string {
	var out []string
	for i := range pod.Spec.Volumes {
		if IsLocalVolume(&pod.Spec.Volumes[i]) {
			out = append(out, pod.Spec.Volumes[i].Name)
		}
	}
	return out
}

// diskUsage is the pod's usage for a disk signal under the measure, in bytes or inodes.
func diskUsage(st *PodStats, measure FsMeasure, inodes bool) int64 {
	var total int64
	if measure.Root {
		total += pick(inodes, st.RootFsInodes, st.RootFsUsed)
	}
	if measure.Logs {
		total += pick(inodes, st.LogsInodes, st.LogsUsed)
	}
	if measure.LocalVolumes {
		total += pick(inodes, st.LocalVolumesInodes, st.LocalVolumesUsed)
	}
	return total
}

func pick(cond bool, a, b int64) int64 {
	if cond {
		return a
	}
	return b
}

// rankEntry holds the figures a ranking compares, computed once per pod.
type rankEntry struct {
	pod      *corev1.Pod
	hasStats bool
	exceeds  bool
	priority int32
	// above is usage minus request (memory, disk) or the process count (pids).
	above resource.Quantity
}

// rankKind selects the comparator.
type rankKind int

const (
	rankMemory rankKind = iota
	rankDisk
	rankPIDs
)

// entryFor computes a pod's ranking figures for the kind of signal.
func entryFor(pod *corev1.Pod, stats StatsFunc, kind rankKind, measure FsMeasure, inodes, podLevelResources bool) rankEntry {
	st, ok := lookupStats(stats, pod)
	e := rankEntry{pod: pod, hasStats: ok, priority: podPriority(pod)}
	switch kind {
	case rankMemory:
		var ws int64
		if ok {
			ws = st.MemoryWorkingSet
		}
		usage := resource.NewQuantity(ws, resource.BinarySI)
		req := podRequest(pod, corev1.ResourceMemory, podLevelResources)
		e.exceeds = ok && usage.Cmp(req) > 0
		usage.Sub(req)
		e.above = *usage
	case rankDisk:
		measured, format := corev1.ResourceEphemeralStorage, resource.BinarySI
		if inodes {
			measured, format = ResourceInodes, resource.DecimalSI
		}
		var used int64
		if ok {
			used = diskUsage(st, measure, inodes)
		}
		usage := resource.NewQuantity(used, format)
		e.exceeds = ok && usage.Cmp(podRequest(pod, measured, podLevelResources)) > 0
		// Upstream subtracts the ephemeral-storage byte request even from an inode count.
		usage.Sub(podRequest(pod, corev1.ResourceEphemeralStorage, podLevelResources))
		e.above = *usage
	case rankPIDs:
		var procs int64
		if ok {
			procs = st.Processes
		}
		e.above = *resource.NewQuantity(procs, resource.DecimalSI)
	}
	return e
}

// before is the evict-first order for two entries of one kind.
func before(a, b *rankEntry, kind rankKind) bool {
	if kind == rankPIDs {
		if a.priority != b.priority {
			return a.priority < b.priority
		}
		if a.hasStats != b.hasStats {
			return !a.hasStats
		}
		if a.hasStats {
			if c := a.above.Cmp(b.above); c != 0 {
				return c > 0
			}
		}
		return tieBreak(a.pod, b.pod)
	}
	if a.hasStats != b.hasStats {
		return !a.hasStats
	}
	if a.hasStats && a.exceeds != b.exceeds {
		return a.exceeds
	}
	if a.priority != b.priority {
		return a.priority < b.priority
	}
	if a.hasStats {
		if c := a.above.Cmp(b.above); c != 0 {
			return c > 0
		}
	}
	return tieBreak(a.pod, b.pod)
}

// tieBreak is nodesim's replacement for upstream's random tie order: older pods first,
// then namespace, then name.
func tieBreak(a, b *corev1.Pod) bool {
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// rank sorts pods in place by the comparator of the kind.
func rank(pods []*corev1.Pod, stats StatsFunc, kind rankKind, measure FsMeasure, inodes, podLevelResources bool) {
	entries := make([]rankEntry, len(pods))
	for i, p := range pods {
		entries[i] = entryFor(p, stats, kind, measure, inodes, podLevelResources)
	}
	sort.SliceStable(entries, func(i, j int) bool { return before(&entries[i], &entries[j], kind) })
	for i := range entries {
		pods[i] = entries[i].pod
	}
}

// RankMemoryPressure sorts pods in place for memory.available and
// allocatableMemory.available: exceeding the memory request first, then lower priority,
// then larger working set above request. podLevelResources is the run's PodLevelResources
// gate, which decides whether pod-level requests are the pod's request.
func RankMemoryPressure(pods []*corev1.Pod, stats StatsFunc, podLevelResources bool) {
	rank(pods, stats, rankMemory, FsMeasure{}, false, podLevelResources)
}

// RankDiskPressure sorts pods in place for a disk signal, counting the usages the measure
// selects, in inodes when inodes is set: exceeding the request first (for inodes any use
// does, as nothing requests inodes), then lower priority, then larger usage minus the
// ephemeral-storage request.
func RankDiskPressure(pods []*corev1.Pod, stats StatsFunc, measure FsMeasure, inodes, podLevelResources bool) {
	rank(pods, stats, rankDisk, measure, inodes, podLevelResources)
}

// RankPIDPressure sorts pods in place for pid.available: lower priority first, then more
// processes.
func RankPIDPressure(pods []*corev1.Pod, stats StatsFunc) {
	rank(pods, stats, rankPIDs, FsMeasure{}, false, false)
}

// kindFor maps a signal to its ranking; ok is false for an unknown signal.
func kindFor(s Signal) (kind rankKind, inodes bool, ok bool) {
	switch SignalToResource(s) {
	case corev1.ResourceMemory:
		return rankMemory, false, true
	case corev1.ResourceEphemeralStorage:
		return rankDisk, false, true
	case ResourceInodes:
		return rankDisk, true, true
	case ResourcePIDs:
		return rankPIDs, false, true
	}
	return 0, false, false
}

// Candidates describes already ranked pods, in the given order, with the figures the
// signal's ranking compared (measure applies to disk signals). For an unknown signal only
// the pod and its priority are filled.
func Candidates(ranked []*corev1.Pod, stats StatsFunc, signal Signal, measure FsMeasure, podLevelResources bool) []Candidate {
	kind, inodes, ok := kindFor(signal)
	out := make([]Candidate, 0, len(ranked))
	for _, p := range ranked {
		c := Candidate{Pod: p.Namespace + "/" + p.Name, Priority: podPriority(p)}
		if ok {
			e := entryFor(p, stats, kind, measure, inodes, podLevelResources)
			c.ExceedsRequests = e.exceeds
			c.UsageAboveRequests = e.above
		}
		out = append(out, c)
	}
	return out
}

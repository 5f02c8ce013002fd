package eviction

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"nodesim/internal/upstream"
)

// Message texts, worded as upstream's so that pod status and events read the same. Every
// one ends with ". " because upstream concatenates them.
const (
	nodeLowMessageFmt                   = "The node was low on resource: %v. "
	thresholdMetMessageFmt              = "Threshold quantity: %v, available: %v. "
	containerMessageFmt                 = "Container %s was using %s, request is %s, has larger consumption of %v. "
	podMessageFmt                       = "Pod %s was using %s, request is %s, has larger consumption of %v. "
	containerEphemeralStorageMessageFmt = "Container %s exceeded its local ephemeral storage limit %q. "
	podEphemeralStorageMessageFmt       = "Pod ephemeral local storage usage exceeds the total limit of containers %s. "
	emptyDirMessageFmt                  = "Usage of EmptyDir volume %q exceeds the limit %q. "
)

// EvictionMessage builds the status message and event annotations for an eviction on the
// threshold path:
//
//   - "The node was low on resource: <resource>. ";
//   - "Threshold quantity: <q>, available: <a>. " from the first threshold (in the order
//     given, which the manager passes sorted by ByEvictionPriority) whose signal reclaims
//     this resource and has an observation;
//   - for memory, when the pod sets pod-level resources and a pod-level memory request
//     (gate PodLevelResources), "Pod <name> was using <u>, request is <r>, has larger
//     consumption of memory. " with the pod's working set, whatever it is against the
//     request (upstream does not compare them), and the annotations offending_pod and
//     offending_pod_usage;
//   - for memory and ephemeral-storage, one "Container <name> was using <u>, request is
//     <r>, has larger consumption of <resource>. " per regular or init container whose
//     usage (working set; writable layer plus logs) is strictly above its own request.
//
// Quantities print in canonical form ("100Mi", "51200Ki", "0" for no request). The
// annotations name the offending containers and their usage (comma-separated) and the
// starved resource; a pod without stats gets no container lines and no annotations, as
// upstream. Upstream walks containers in the stats' order; nodesim uses spec order
// (regular containers, then init containers).
func EvictionMessage(starved corev1.ResourceName, pod *corev1.Pod, stats StatsFunc, thresholds []Threshold, observations SignalObservations, podLevelResources bool) (message string, annotations map[string]string) {
	annotations = map[string]string{}
	message = fmt.Sprintf(nodeLowMessageFmt, starved)
	for _, t := range thresholds {
		if SignalToResource(t.Signal) != starved {
			continue
		}
		obs, ok := observations[t.Signal]
		if !ok || obs.Available == nil {
			continue
		}
		available := obs.Available.DeepCopy()
		message += fmt.Sprintf(thresholdMetMessageFmt, GetThresholdQuantity(t.Value, obs.Capacity).String(), available.String())
		break
	}
	st, ok := lookupStats(stats, pod)
	if !ok {
		return message, annotations
	}
	if starved == corev1.ResourceMemory && upstream.IsPodLevelResourcesSet(pod, podLevelResources) {
		if request, ok := pod.Spec.Resources.Requests[corev1.ResourceMemory]; ok {
			usage := resource.NewQuantity(st.MemoryWorkingSet, resource.BinarySI)
			message += fmt.Sprintf(podMessageFmt, pod.Name, usage.String(), request.String(), starved)
			annotations[OffendingPodKey] = pod.Name
			annotations[OffendingPodUsageKey] = usage.String()
		}
	}
	var offenders, usages []string
	containers := make([]corev1.Container, 0, len(pod.Spec.Containers)+len(pod.Spec.InitContainers))
	containers = append(containers, pod.Spec.Containers...)
	containers = append(containers, pod.Spec.InitContainers...)
	for _, c := range containers {
		cs, ok := st.Container(c.Name)
		if !ok {
			continue
		}
		var usage *resource.Quantity
		switch starved {
		case corev1.ResourceMemory:
			usage = resource.NewQuantity(cs.MemoryWorkingSet, resource.BinarySI)
		case corev1.ResourceEphemeralStorage:
			usage = resource.NewQuantity(cs.RootFsUsed+cs.LogsUsed, resource.BinarySI)
		}
		request := c.Resources.Requests[starved]
		if usage == nil || usage.Cmp(request) <= 0 {
			continue
		}
		message += fmt.Sprintf(containerMessageFmt, c.Name, usage.String(), request.String(), starved)
		offenders = append(offenders, c.Name)
		usages = append(usages, usage.String())
	}
	annotations[OffendingContainersKey] = strings.Join(offenders, ",")
	annotations[OffendingContainersUsageKey] = strings.Join(usages, ",")
	annotations[StarvedResourceKey] = string(starved)
	return message, annotations
}

// EmptyDirMessage is the status message for a pod evicted because an emptyDir volume
// outgrew its sizeLimit.
func EmptyDirMessage(volume string, limit resource.Quantity) string {
	return fmt.Sprintf(emptyDirMessageFmt, volume, limit.String())
}

// PodEphemeralStorageMessage is the status message for a pod evicted because its total
// ephemeral storage outgrew the sum of its containers' limits.
func PodEphemeralStorageMessage(limit resource.Quantity) string {
	return fmt.Sprintf(podEphemeralStorageMessageFmt, limit.String())
}

// ContainerEphemeralStorageMessage is the status message for a pod evicted because one
// container outgrew its ephemeral-storage limit.
func ContainerEphemeralStorageMessage(container string, limit resource.Quantity) string {
	return fmt.Sprintf(containerEphemeralStorageMessageFmt, container, limit.String())
}

// EmptyDirLimitExceeded checks the pod's emptyDir volumes in spec order and returns the
// message for the first whose reported usage is strictly above a positive sizeLimit.
// Memory-backed emptyDirs count too; a volume without reported usage is skipped.
func EmptyDirLimitExceeded(pod *corev1.Pod, stats *PodStats) (string, bool) {
	if pod == nil || stats == nil {
		return "", false
	}
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.Sign() != 1 {
			continue
		}
		used, ok := stats.Volumes[v.Name]
		if !ok {
			continue
		}
		if resource.NewQuantity(used, resource.BinarySI).Cmp(*v.EmptyDir.SizeLimit) > 0 {
			return EmptyDirMessage(v.Name, *v.EmptyDir.SizeLimit), true
		}
	}
	return "", false
}

// PodEphemeralStorageLimitExceeded checks the pod's total ephemeral usage (writable
// layers, logs and local volumes) against its ephemeral-storage limit, aggregated as
// upstream's PodLimits (sidecar-aware, plus overhead). It applies only when some container
// declares such a limit, and then containers without one still add their usage but
// nothing to the limit.
func PodEphemeralStorageLimitExceeded(pod *corev1.Pod, stats *PodStats) (string, bool) {
	if pod == nil || stats == nil {
		return "", false
	}
	limit, found := podLimit(pod, corev1.ResourceEphemeralStorage)
	if !found {
		return "", false
	}
	used := resource.NewQuantity(stats.RootFsUsed+stats.LogsUsed+stats.LocalVolumesUsed, resource.BinarySI)
	if used.Cmp(limit) > 0 {
		return PodEphemeralStorageMessage(limit), true
	}
	return "", false
}

// ContainerEphemeralStorageLimitExceeded checks each regular container (init containers
// are not checked) with a non-zero ephemeral-storage limit, in spec order: its usage is its
// logs, plus its writable layer unless images and writable layers live on a dedicated
// image filesystem; strictly above the limit evicts.
func ContainerEphemeralStorageLimitExceeded(pod *corev1.Pod, stats *PodStats, dedicatedImageFs bool) (string, bool) {
	if pod == nil || stats == nil {
		return "", false
	}
	for _, c := range pod.Spec.Containers {
		limit, ok := c.Resources.Limits[corev1.ResourceEphemeralStorage]
		if !ok || limit.Value() == 0 {
			continue
		}
		cs, ok := stats.Container(c.Name)
		if !ok {
			continue
		}
		used := cs.LogsUsed
		if !dedicatedImageFs {
			used += cs.RootFsUsed
		}
		if resource.NewQuantity(used, resource.BinarySI).Cmp(limit) > 0 {
			return ContainerEphemeralStorageMessage(c.Name, limit), true
		}
	}
	return "", false
}

package upstream

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
	v1resource "k8s.io/kubernetes/pkg/api/v1/resource"
	v1qos "k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
)

// Pod-level resources (spec.resources) are read by upstream's helpers only when the
// process-wide PodLevelResources gate is on, and that global gate must not change per run.
// These wrappers take the run's gate as an argument instead: with it off they hand upstream
// a copy of the pod without spec.resources, which is exactly what the gate-off branches of
// those helpers compute.

// withoutPodLevel returns pod itself when the gate is on or the pod has no pod-level
// resources, else a shallow copy whose spec.resources is nil.
func withoutPodLevel(pod *corev1.Pod, podLevelResources bool) *corev1.Pod {
	if podLevelResources || pod.Spec.Resources == nil {
		return pod
	}
	cp := *pod
	cp.Spec.Resources = nil
	return &cp
}

// ComputePodQOS is upstream's QoS class (pkg/apis/core/v1/helper/qos.ComputePodQOS): from
// the pod-level cpu/memory requests and limits when they are set and the gate is on, else
// from the containers'. It ignores status.qosClass, which nodesim never sets.
func ComputePodQOS(pod *corev1.Pod, podLevelResources bool) corev1.PodQOSClass {
	return v1qos.ComputePodQOS(withoutPodLevel(pod, podLevelResources))
}

// IsPodLevelRequestsSet reports whether the pod declares a pod-level cpu or memory request
// that the run honours.
func IsPodLevelRequestsSet(pod *corev1.Pod, podLevelResources bool) bool {
	return resourcehelper.IsPodLevelRequestsSet(withoutPodLevel(pod, podLevelResources))
}

// IsPodLevelLimitsSet reports whether the pod declares a pod-level cpu or memory limit that
// the run honours.
func IsPodLevelLimitsSet(pod *corev1.Pod, podLevelResources bool) bool {
	return resourcehelper.IsPodLevelLimitsSet(withoutPodLevel(pod, podLevelResources))
}

// IsPodLevelResourcesSet reports whether the pod declares a pod-level request or limit of a
// resource pod-level resources support, and the run honours them.
func IsPodLevelResourcesSet(pod *corev1.Pod, podLevelResources bool) bool {
	return resourcehelper.IsPodLevelResourcesSet(withoutPodLevel(pod, podLevelResources))
}

// PodRequests is upstream's effective pod request (component-helpers resource.PodRequests):
// the sidecar-aware aggregate of the containers' requests, replaced by the pod-level request
// for cpu and memory when set, plus pod overhead.
func PodRequests(pod *corev1.Pod, podLevelResources bool) corev1.ResourceList {
	return resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{SkipPodLevelResources: !podLevelResources})
}

// PodLimits is upstream's effective pod limit (component-helpers resource.PodLimits), with
// the pod-level cpu and memory limits taking the place of the containers' when set.
func PodLimits(pod *corev1.Pod, podLevelResources bool) corev1.ResourceList {
	return resourcehelper.PodLimits(pod, resourcehelper.PodResourcesOptions{SkipPodLevelResources: !podLevelResources})
}

// AggregateContainerRequests is the sidecar-aware sum/max of the containers' requests alone
// (component-helpers resource.AggregateContainerRequests).
func AggregateContainerRequests(pod *corev1.Pod) corev1.ResourceList {
	return resourcehelper.AggregateContainerRequests(pod, resourcehelper.PodResourcesOptions{})
}

// GetResourceRequestQuantity is the request the kubelet's eviction manager compares usage
// with (pkg/api/v1/resource.GetResourceRequestQuantity): with pod-level cpu or memory set
// and the gate on, only the pod-level requests; else the containers' aggregate; plus
// overhead when non-zero.
func GetResourceRequestQuantity(pod *corev1.Pod, name corev1.ResourceName, podLevelResources bool) resource.Quantity {
	return v1resource.GetResourceRequestQuantity(withoutPodLevel(pod, podLevelResources), name)
}

// Package qos computes a pod's QoS class as upstream does (pkg/apis/core/v1/helper/qos,
// imported through internal/upstream): with pod-level cpu or memory resources set and the
// PodLevelResources gate on, the class comes from spec.resources alone; otherwise
// BestEffort when no container requests or limits CPU or memory, Guaranteed when every
// container has CPU and memory limits equal to its requests, Burstable otherwise.
package qos

import (
	corev1 "k8s.io/api/core/v1"

	"nodesim/internal/upstream"
)

// GetPodQOS returns the pod's QoS class with the v1.37 default of the PodLevelResources
// gate (on).
func GetPodQOS(pod *corev1.Pod) corev1.PodQOSClass {
	return ComputePodQOS(pod, true)
}

// ComputePodQOS returns the pod's QoS class; podLevelResources is the run's
// PodLevelResources gate.
func ComputePodQOS(pod *corev1.Pod, podLevelResources bool) corev1.PodQOSClass {
	return upstream.ComputePodQOS(pod, podLevelResources)
}

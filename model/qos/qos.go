// Package qos computes a pod's QoS class as upstream does
// (pkg/apis/core/v1/helper/qos): BestEffort when no container requests or limits CPU or
// memory, Guaranteed when every container has CPU and memory limits equal to its requests,
// Burstable otherwise.
package qos

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func supported(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory
}

// GetPodQOS returns the pod's QoS class (pod-level resources are not modelled).
func GetPodQOS(pod *corev1.Pod) corev1.PodQOSClass {
	requests := corev1.ResourceList{}
	limits := corev1.ResourceList{}
	zero := resource.Quantity{}
	isGuaranteed := true
	var all []corev1.Container
	all = append(all, pod.Spec.InitContainers...)
	all = append(all, pod.Spec.Containers...)
	for _, c := range all {
		for name, q := range c.Resources.Requests {
			if !supported(name) || q.Cmp(zero) == 0 {
				continue
			}
			if cur, ok := requests[name]; ok {
				cur.Add(q)
				requests[name] = cur
			} else {
				requests[name] = q.DeepCopy()
			}
		}
		found := map[corev1.ResourceName]bool{}
		for name, q := range c.Resources.Limits {
			if !supported(name) || q.Cmp(zero) == 0 {
				continue
			}
			found[name] = true
			if cur, ok := limits[name]; ok {
				cur.Add(q)
				limits[name] = cur
			} else {
				limits[name] = q.DeepCopy()
			}
		}
		if !found[corev1.ResourceCPU] || !found[corev1.ResourceMemory] {
			isGuaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if isGuaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				isGuaranteed = false
				break
			}
		}
	}
	if isGuaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

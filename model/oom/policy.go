// Package oom is the kernel's OOM killer and the kubelet's oom_score_adj policy (upstream
// pkg/kubelet/qos/policy.go and mm/oom_kill.c): every container's cgroup limit, the
// kubepods cgroup limit and the node's memory are watched; when one is exceeded the kernel
// kills the process with the highest badness (usage plus oom_score_adj × capacity / 1000).
package oom

import (
	corev1 "k8s.io/api/core/v1"

	"nodesim/internal/upstream"
	"nodesim/model/qos"
)

// Scores the kubelet gives.
const (
	GuaranteedOOMScoreAdj = -997
	BestEffortOOMScoreAdj = 1000
	KubeletOOMScoreAdj    = -999
	systemCriticalPrio    = 2000000000
)

func isNodeCritical(pod *corev1.Pod) bool {
	critical := pod.Annotations["kubernetes.io/config.source"] != "" && pod.Annotations["kubernetes.io/config.source"] != "api" ||
		pod.Annotations["kubernetes.io/config.mirror"] != "" ||
		pod.Spec.Priority != nil && *pod.Spec.Priority >= systemCriticalPrio
	return critical && pod.Spec.PriorityClassName == "system-node-critical"
}

func memoryRequest(c *corev1.Container) int64 {
	if q, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
		return q.Value()
	}
	return 0
}

func burstableAdj(req, capacity int64) int {
	adj := 1000 - int((1000*req)/capacity)
	if adj < 1000+GuaranteedOOMScoreAdj {
		return 1000 + GuaranteedOOMScoreAdj // 3
	}
	if adj == BestEffortOOMScoreAdj {
		return 999
	}
	return adj
}

// GetContainerOOMScoreAdjust is the oom_score_adj the kubelet sets on a container: node
// critical and Guaranteed pods -997, BestEffort 1000, Burstable 1000 - 1000·request/capacity
// clamped to 3..999; a sidecar is never more killable than the least protected regular
// container. podLevelResources is the run's PodLevelResources gate: with it on and a
// pod-level memory request set, the part of that request no container claims is shared
// equally among all containers (init containers included) and added to each container's
// request, as upstream's policy does.
func GetContainerOOMScoreAdjust(pod *corev1.Pod, c *corev1.Container, memoryCapacity int64, podLevelResources bool) int {
	if isNodeCritical(pod) {
		return GuaranteedOOMScoreAdj
	}
	switch qos.ComputePodQOS(pod, podLevelResources) {
	case corev1.PodQOSGuaranteed:
		return GuaranteedOOMScoreAdj
	case corev1.PodQOSBestEffort:
		return BestEffortOOMScoreAdj
	}
	if memoryCapacity <= 0 {
		return 999
	}
	var share int64
	if upstream.IsPodLevelRequestsSet(pod, podLevelResources) {
		share = unclaimedPodMemoryPerContainer(pod)
	}
	adj := burstableAdj(memoryRequest(c)+share, memoryCapacity)
	if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways && isInitContainer(pod, c.Name) {
		smallest := int64(-1)
		for i := range pod.Spec.Containers {
			if r := memoryRequest(&pod.Spec.Containers[i]); smallest < 0 || r < smallest {
				smallest = r
			}
		}
		if smallest >= 0 {
			if other := burstableAdj(smallest+share, memoryCapacity); other < adj {
				adj = other
			}
		}
	}
	return adj
}

func isInitContainer(pod *corev1.Pod, name string) bool {
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return true
		}
	}
	return false
}

// unclaimedPodMemoryPerContainer is the pod-level memory request minus the containers'
// aggregate request (never below zero), divided by the number of containers, init
// containers included; zero without a pod-level memory request.
func unclaimedPodMemoryPerContainer(pod *corev1.Pod) int64 {
	podReq, ok := pod.Spec.Resources.Requests[corev1.ResourceMemory]
	if !ok || podReq.IsZero() {
		return 0
	}
	n := int64(len(pod.Spec.Containers) + len(pod.Spec.InitContainers))
	if n == 0 {
		return 0
	}
	claimed := upstream.AggregateContainerRequests(pod)[corev1.ResourceMemory]
	return max(podReq.Value()-claimed.Value(), 0) / n
}

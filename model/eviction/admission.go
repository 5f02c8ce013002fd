package eviction

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"nodesim/model/qos"
)

// Pod annotations and priorities that make a pod critical (upstream pkg/kubelet/types and
// pkg/apis/scheduling).
const (
	configSourceAnnotationKey = "kubernetes.io/config.source"
	configMirrorAnnotationKey = "kubernetes.io/config.mirror"
	apiserverSource           = "api"
	// systemCriticalPriority is the priority at and above which a pod is critical
	// (system-cluster-critical is exactly this, system-node-critical 1000 above).
	systemCriticalPriority int32 = 2000000000
	systemNodeCritical           = "system-node-critical"
)

// IsCriticalPod reports whether the pod is never evicted and always admitted: a static pod
// (config-source annotation present and not "api"), a mirror pod (mirror annotation
// present, whatever its value), or a pod whose resolved priority is at least
// 2000000000. Such pods are still ranked; the manager skips them when evicting.
func IsCriticalPod(pod *corev1.Pod) bool {
	if src, ok := pod.Annotations[configSourceAnnotationKey]; ok && src != apiserverSource {
		return true
	}
	if _, ok := pod.Annotations[configMirrorAnnotationKey]; ok {
		return true
	}
	return pod.Spec.Priority != nil && *pod.Spec.Priority >= systemCriticalPriority
}

// IsNodeCriticalPod reports whether the pod is critical and uses the
// system-node-critical priority class (this is what the OOM score policy looks at).
func IsNodeCriticalPod(pod *corev1.Pod) bool {
	return IsCriticalPod(pod) && pod.Spec.PriorityClassName == systemNodeCritical
}

// toleratesTaint is upstream's Toleration.ToleratesTaint for a taint with an empty value:
// the effect must match unless the toleration's is empty, the key must match unless the
// toleration's is empty, and the operator Exists matches any value while Equal (or empty)
// needs equal values. Lt/Gt compare numbers and never match an empty taint value.
func toleratesTaint(t *corev1.Toleration, taint *corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", corev1.TolerationOpEqual:
		return t.Value == taint.Value
	case corev1.TolerationOpExists:
		return true
	}
	return false
}

// Admit is the eviction manager's admission check, evaluated against the manager's
// stored node conditions (so including the pressure transition period):
//
//   - no pressure, or a critical pod: admit;
//   - MemoryPressure alone: admit unless the pod is BestEffort, and admit a BestEffort pod
//     that tolerates node.kubernetes.io/memory-pressure:NoSchedule (a key-less Exists
//     toleration does);
//   - anything else (DiskPressure or PIDPressure, alone or with MemoryPressure): reject,
//     with reason "Evicted" and "The node had condition: [<conditions>]. ".
//
// The conditions are printed in the order given; the manager keeps them in the fixed order
// NodeConditions uses, where upstream's order is random.
func Admit(pod *corev1.Pod, conditions []corev1.NodeConditionType) (admit bool, reason, message string) {
	if len(conditions) == 0 || IsCriticalPod(pod) {
		return true, "", ""
	}
	if len(conditions) == 1 && conditions[0] == corev1.NodeMemoryPressure {
		if qos.GetPodQOS(pod) != corev1.PodQOSBestEffort {
			return true, "", ""
		}
		// The taint the node lifecycle controller puts on a node with MemoryPressure.
		taint := corev1.Taint{Key: corev1.TaintNodeMemoryPressure, Effect: corev1.TaintEffectNoSchedule}
		for i := range pod.Spec.Tolerations {
			if toleratesTaint(&pod.Spec.Tolerations[i], &taint) {
				return true, "", ""
			}
		}
	}
	return false, Reason, fmt.Sprintf("The node had condition: %v. ", conditions)
}

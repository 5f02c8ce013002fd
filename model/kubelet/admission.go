package kubelet

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"nodesim/internal/upstream"
	"nodesim/model/kuberuntime"
	"nodesim/trace"
)

func errorsIsBackoff(err error) bool {
	var be *kuberuntime.BackoffError
	return errors.As(err, &be) || errors.Is(err, kuberuntime.ErrCrashLoopBackOff)
}

// AdmitHandler may reject a pod at admission (the eviction manager is one).
type AdmitHandler interface {
	Admit(pod *corev1.Pod, others []*corev1.Pod) (admit bool, reason, message string)
}

// canAdmitPod runs the admission checks in upstream's order; the first rejection wins. The
// predicate check compares the pod's requests with node allocatable minus what the other
// active pods request, and the pod count with maxPods.
func (kl *Kubelet) canAdmitPod(others []*corev1.Pod, pod *corev1.Pod) (bool, string, string) {
	for _, h := range kl.admitHandlers {
		if ok, reason, msg := h.Admit(pod, others); !ok {
			return false, reason, msg
		}
	}
	alloc := kl.nodeAllocatable()
	maxPods := int64(kl.cfg.MaxPods)
	if q, ok := alloc[corev1.ResourcePods]; ok && q.Value() < maxPods {
		maxPods = q.Value()
	}
	if int64(len(others))+1 > maxPods {
		return false, "OutOfpods", fmt.Sprintf("Node didn't have enough resource: pods, requested: 1, used: %d, capacity: %d", len(others), maxPods)
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		capQ, ok := alloc[name]
		if !ok {
			continue
		}
		req := kl.podRequest(pod, name)
		if req.IsZero() {
			continue
		}
		used := resource.Quantity{}
		for _, o := range others {
			used.Add(kl.podRequest(o, name))
		}
		total := used.DeepCopy()
		total.Add(req)
		if total.Cmp(capQ) > 0 {
			r, u, c := req.Value(), used.Value(), capQ.Value()
			if name == corev1.ResourceCPU {
				r, u, c = req.MilliValue(), used.MilliValue(), capQ.MilliValue()
			}
			return false, "OutOf" + string(name), fmt.Sprintf("Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d", name, r, u, c)
		}
	}
	return true, "", ""
}

// podRequest is the pod's effective request as the scheduler's resource fit computes it
// (component-helpers resource.PodRequests, through internal/upstream): the larger of its
// regular containers plus sidecars and each regular init container plus the sidecars
// started before it, the pod-level cpu and memory requests in their place when set and the
// PodLevelResources gate is on, plus pod overhead.
func (kl *Kubelet) podRequest(pod *corev1.Pod, name corev1.ResourceName) resource.Quantity {
	return upstream.PodRequests(pod, kl.PodLevelResources)[name]
}

// rejectPod records the rejection in the pod's status; the pod never gets a worker.
func (kl *Kubelet) rejectPod(pod *corev1.Pod, reason, message string) {
	kl.clk.Record(&trace.Event{Kind: KindRejected, Pod: pod.Namespace + "/" + pod.Name,
		Attrs:  []trace.Attr{{Key: "reason", Value: reason}, {Key: "message", Value: message}},
		Reason: trace.Because("rejectPod", "rejectPod sets the pod Failed with the reason; it never gets a pod worker")})
	kl.statusManager.SetPodStatus(pod, corev1.PodStatus{
		Phase:   corev1.PodFailed,
		Reason:  reason,
		Message: "Pod was rejected: " + message,
	})
}

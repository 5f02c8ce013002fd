package kubelet

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/internal/upstream"
	"nodesim/model/kuberuntime"
	"nodesim/trace"
)

// errorsIsBackoff reports whether err is a crash-loop back-off. It is usually the
// BackoffError itself, which needs no unwrapping.
func errorsIsBackoff(err error) bool {
	if _, direct := err.(*kuberuntime.BackoffError); direct {
		return true
	}
	var be *kuberuntime.BackoffError
	return errors.As(err, &be) || errors.Is(err, kuberuntime.ErrCrashLoopBackOff)
}

// AdmitHandler may reject a pod at admission (the eviction manager is one).
type AdmitHandler interface {
	Admit(pod *corev1.Pod, others []*corev1.Pod) (admit bool, reason, message string)
}

// admittedResources are the resources admission weighs a pod's requests against.
var admittedResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage}

// activePods is the set of active pods admission weighs each new pod against, with their
// requests summed. Upstream filters every pod the kubelet knows and sums their requests
// again for each pod it admits, a cost that grows with the square of the pods reaching a
// node. The kubelet keeps this set instead: refreshActivePods brings it up to date at the
// start of a batch, and HandlePodAdditions as each pod of the batch is handled, so the
// verdicts are the same with each pod's requests summed only when it joins or leaves.
// Admit handlers see its pods as others: they read them and keep nothing.
type activePods struct {
	pods  []*corev1.Pod
	req   [][3]resource.Quantity // each pod's requests, by admittedResources
	index map[types.UID]int
	used  [3]resource.Quantity // the sum of req
	// workers and statuses are the pod workers' TerminationVersion and the status
	// manager's TerminalVersion at the last refresh.
	workers, statuses uint64
}

// refreshActivePods brings the kubelet's set of active pods up to date with
// filterOutInactivePods(GetPods()): pods that left or stopped being active go, pods that
// joined or became active come, and only those have their requests added or taken off.
// The set is kept between batches. When no pod's termination state (the pod workers'
// TerminationVersion) or terminal phase (the status manager's TerminalVersion) moved since
// the last refresh, only the pods whose objects the pod manager replaced, added or removed
// can have changed, and only they are rechecked: pods arriving one by one then cost a
// constant each instead of a pass over every pod.
func (kl *Kubelet) refreshActivePods() *activePods {
	a := kl.active
	touched := kl.podManager.takeTouched()
	workers, statuses := kl.podWorkers.TerminationVersion(), kl.statusManager.TerminalVersion()
	if a != nil && a.workers == workers && a.statuses == statuses {
		// No pod's termination state or terminal phase moved since the last refresh, so a
		// pod's activity can only have changed if its object did: recheck just those.
		kl.refreshTouched(a, touched)
		return a
	}
	if a == nil {
		a = &activePods{index: map[types.UID]int{}}
		kl.active = a
	}
	a.workers, a.statuses = workers, statuses
	kl.refreshAll(a)
	return a
}

// refreshAll rechecks every pod: those of the set in the order of their places, then the
// pods the manager knows outside it, in UID order.
func (kl *Kubelet) refreshAll(a *activePods) {
	for i := 0; i < len(a.pods); {
		cur, ok := kl.podManager.GetPodByUID(a.pods[i].UID)
		if !ok || !kl.isActive(cur) {
			a.remove(a.pods[i].UID) // the last pod takes place i: look at it next
			continue
		}
		kl.addActive(a, cur)
		i++
	}
	for _, p := range kl.podManager.GetPods() {
		if _, ok := a.index[p.UID]; !ok && kl.isActive(p) {
			kl.addActive(a, p)
		}
	}
}

// refreshTouched is the full pass of refreshActivePods restricted to the pods whose objects
// changed, in the same order, so that the set (its order included) comes out the same:
// the pods of the set in the order of their places, a pod moved into a vacated place being
// looked at next, then the pods outside the set in UID order. Every other pod's answer is
// the same as at the last refresh.
func (kl *Kubelet) refreshTouched(a *activePods, touched []types.UID) {
	var places []int
	for _, uid := range touched {
		if i, ok := a.index[uid]; ok {
			places = append(places, i)
		}
	}
	slices.Sort(places)
	for len(places) > 0 {
		i := places[0]
		places = places[1:]
		cur, ok := kl.podManager.GetPodByUID(a.pods[i].UID)
		if ok && kl.isActive(cur) {
			kl.addActive(a, cur)
			continue
		}
		last := len(a.pods) - 1
		a.remove(a.pods[i].UID)
		// The last pod took place i; when it is touched too, the full pass would look at
		// it now, at place i, and it was the largest place left.
		if n := len(places); i != last && n > 0 && places[n-1] == last {
			places = append([]int{i}, places[:n-1]...)
		}
	}
	for _, uid := range touched {
		if _, ok := a.index[uid]; ok {
			continue
		}
		if p, ok := kl.podManager.GetPodByUID(uid); ok && kl.isActive(p) {
			kl.addActive(a, p)
		}
	}
}

// addActive adds p to the set, or puts it in the place of the pod with its UID.
func (kl *Kubelet) addActive(a *activePods, p *corev1.Pod) {
	i, ok := a.index[p.UID]
	if ok && a.pods[i] == p {
		return
	}
	var req [3]resource.Quantity
	for r, name := range admittedResources {
		req[r] = kl.podRequest(p, name)
	}
	if !ok {
		i = len(a.pods)
		a.index[p.UID] = i
		a.pods = append(a.pods, p)
		a.req = append(a.req, [3]resource.Quantity{})
	}
	for r := range a.used {
		a.used[r].Sub(a.req[i][r])
		a.used[r].Add(req[r])
	}
	a.pods[i], a.req[i] = p, req
}

// remove takes the pod with this UID out of the set, if it is there; the last pod takes its
// place (the set's order means nothing: sums and counts are all admission reads).
func (a *activePods) remove(uid types.UID) {
	i, ok := a.index[uid]
	if !ok {
		return
	}
	for r := range a.used {
		a.used[r].Sub(a.req[i][r])
	}
	last := len(a.pods) - 1
	a.pods[i], a.req[i] = a.pods[last], a.req[last]
	a.index[a.pods[i].UID] = i
	a.pods, a.req = a.pods[:last], a.req[:last]
	delete(a.index, uid)
}

// canAdmitPod runs the admission checks in upstream's order; the first rejection wins. The
// predicate check compares the pod's requests with node allocatable minus what the other
// active pods request, and the pod count with maxPods.
//
// The others are the active set without the pod, when it is in the set (a pod is added to
// the pod manager, and so to the set, before it is admitted): they are listed in
// kl.admitOthers, reused from one admission to the next, since admit handlers read them
// and keep nothing. A fresh list at each admission made pods arriving one by one cost the
// square of their number in allocation.
func (kl *Kubelet) canAdmitPod(active *activePods, pod *corev1.Pod) (bool, string, string) {
	others := active.pods
	self, known := active.index[pod.UID]
	if known {
		others = append(append(kl.admitOthers[:0], active.pods[:self]...), active.pods[self+1:]...)
	}
	ok, reason, msg := kl.runAdmitHandlers(pod, others)
	nOthers := len(others)
	if known {
		clear(others) // the list keeps no pod once the admission is done
		kl.admitOthers = others[:0]
	}
	if !ok {
		return false, reason, msg
	}
	alloc := kl.nodeAllocatable()
	maxPods := int64(kl.cfg.MaxPods)
	if q, ok := alloc[corev1.ResourcePods]; ok && q.Value() < maxPods {
		maxPods = q.Value()
	}
	if int64(nOthers)+1 > maxPods {
		return false, "OutOfpods", fmt.Sprintf("Node didn't have enough resource: pods, requested: 1, used: %d, capacity: %d", nOthers, maxPods)
	}
	for r, name := range admittedResources {
		capQ, ok := alloc[name]
		if !ok {
			continue
		}
		req := kl.podRequest(pod, name)
		if req.IsZero() {
			continue
		}
		used := active.used[r].DeepCopy()
		if known {
			used.Sub(active.req[self][r])
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

// runAdmitHandlers asks each admit handler in turn; the first rejection wins.
func (kl *Kubelet) runAdmitHandlers(pod *corev1.Pod, others []*corev1.Pod) (bool, string, string) {
	for _, h := range kl.admitHandlers {
		if ok, reason, msg := h.Admit(pod, others); !ok {
			return false, reason, msg
		}
	}
	return true, "", ""
}

// podRequest is the pod's effective request as the scheduler's resource fit computes it
// (component-helpers resource.PodRequests, through internal/upstream): the larger of its
// regular containers plus sidecars and each regular init container plus the sidecars
// started before it, the pod-level cpu and memory requests in their place when set and the
// PodLevelResources gate is on, plus pod overhead. A pod object is never changed in place
// (an update delivers a new one), so the result is kept per pod object: admission asks
// for the same pods' requests again at every addition.
func (kl *Kubelet) podRequest(pod *corev1.Pod, name corev1.ResourceName) resource.Quantity {
	c, ok := kl.requests[pod.UID]
	if !ok || c.pod != pod {
		c = cachedRequests{pod: pod, list: upstream.PodRequests(pod, kl.PodLevelResources)}
		kl.requests[pod.UID] = c
	}
	return c.list[name]
}

// cachedRequests is one pod object's effective requests.
type cachedRequests struct {
	pod  *corev1.Pod
	list corev1.ResourceList
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

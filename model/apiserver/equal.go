package apiserver

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StatusSemanticEqual reports apiequality.Semantic.DeepEqual(*a, *b) for two pod statuses:
// the comparison the kubelet makes against API objects (its status manager before a write,
// the pod config on every watch event), so it runs several times per status change.
//
// It is that relation exactly: nil and empty slices and maps are equal, pointers are equal
// when both are nil or their targets are, timestamps are equal when their UTC values are
// (Semantic's metav1.Time rule). TestStatusSemanticEqualCoversEveryField fails when
// k8s.io/api adds a field.
func StatusSemanticEqual(a, b *corev1.PodStatus) bool { return semantic.podStatus(a, b) }

// StatusDeepEqual reports reflect.DeepEqual(*a, *b) for two pod statuses: the status
// manager's test of whether a generated status changed (its versions depend on it). Unlike
// StatusSemanticEqual, nil and empty slices differ and times must be deeply equal; every
// timestamp the kubelet generates is UTC and truncated to the second, so the two agree on
// generated statuses, and this one is cheaper.
func StatusDeepEqual(a, b *corev1.PodStatus) bool { return deep.podStatus(a, b) }

// statusRelation is one of the two equalities on pod statuses, walked over the fields by
// the same code so that both know the same fields. The fields the kubelet fills are compared
// with typed code, since both comparisons run on every status change and nearly always find
// the statuses equal. The fields this model never fills (resources, resource claims, volume
// health, mount and user status) are equal when both are empty, and otherwise go to the
// relation's reflective comparison, so each relation stays exact for any input.
type statusRelation struct {
	// nilIsEmpty is Semantic's rule: a nil slice or map equals an empty one.
	nilIsEmpty bool
	// time compares two timestamps.
	time func(a, b *metav1.Time) bool
	// reflective is the relation itself, for the fields the model never fills.
	reflective func(a, b any) bool
}

// semantic and deep are the two relations; they are never written.
var (
	semantic = &statusRelation{
		nilIsEmpty: true,
		time:       func(a, b *metav1.Time) bool { return a.UTC() == b.UTC() },
		reflective: apiequality.Semantic.DeepEqual,
	}
	deep = &statusRelation{
		// Equal time.Time values (same wall clock, monotonic reading and *Location) are
		// deeply equal; times that differ only in which *Location they point to may still
		// be, so those are left to reflect.
		time:       func(a, b *metav1.Time) bool { return a.Time == b.Time || reflect.DeepEqual(a.Time, b.Time) },
		reflective: reflect.DeepEqual,
	}
)

func (r *statusRelation) podStatus(a, b *corev1.PodStatus) bool {
	if a.Phase != b.Phase || a.Reason != b.Reason || len(a.ContainerStatuses) != len(b.ContainerStatuses) ||
		len(a.Conditions) != len(b.Conditions) {
		return false
	}
	return a.ObservedGeneration == b.ObservedGeneration &&
		a.Message == b.Message &&
		a.NominatedNodeName == b.NominatedNodeName &&
		a.HostIP == b.HostIP &&
		a.PodIP == b.PodIP &&
		a.QOSClass == b.QOSClass &&
		a.Resize == b.Resize &&
		// The container statuses come before the conditions: nearly every status change
		// changes a container's state (a start, an exit, a back-off), while only some
		// change a condition, and the conditions are compared in full before a change
		// elsewhere is found. The order changes nothing else: every test is pure.
		sliceEqual(r, a.ContainerStatuses, b.ContainerStatuses, (*statusRelation).containerStatus) &&
		sliceEqual(r, a.InitContainerStatuses, b.InitContainerStatuses, (*statusRelation).containerStatus) &&
		sliceEqual(r, a.Conditions, b.Conditions, (*statusRelation).condition) &&
		sliceEqual(r, a.HostIPs, b.HostIPs, valueEqual[corev1.HostIP]) &&
		sliceEqual(r, a.PodIPs, b.PodIPs, valueEqual[corev1.PodIP]) &&
		ptrEqual(r, a.StartTime, b.StartTime, (*statusRelation).timestamp) &&
		sliceEqual(r, a.EphemeralContainerStatuses, b.EphemeralContainerStatuses, (*statusRelation).containerStatus) &&
		rareSliceEqual(r, a.ResourceClaimStatuses, b.ResourceClaimStatuses) &&
		rarePtrEqual(r, a.ExtendedResourceClaimStatus, b.ExtendedResourceClaimStatus) &&
		rareMapEqual(r, a.AllocatedResources, b.AllocatedResources) &&
		rarePtrEqual(r, a.Resources, b.Resources) &&
		rareSliceEqual(r, a.NodeAllocatableResourceClaimStatuses, b.NodeAllocatableResourceClaimStatuses) &&
		rareSliceEqual(r, a.VolumeHealth, b.VolumeHealth)
}

func (r *statusRelation) containerStatus(a, b *corev1.ContainerStatus) bool {
	return a.Name == b.Name &&
		a.Ready == b.Ready &&
		a.RestartCount == b.RestartCount &&
		a.Image == b.Image &&
		a.ImageID == b.ImageID &&
		a.ContainerID == b.ContainerID &&
		r.containerState(&a.State, &b.State) &&
		r.containerState(&a.LastTerminationState, &b.LastTerminationState) &&
		ptrEqual(r, a.Started, b.Started, valueEqual[bool]) &&
		ptrEqual(r, a.StopSignal, b.StopSignal, valueEqual[corev1.Signal]) &&
		rareMapEqual(r, a.AllocatedResources, b.AllocatedResources) &&
		rarePtrEqual(r, a.Resources, b.Resources) &&
		rareSliceEqual(r, a.VolumeMounts, b.VolumeMounts) &&
		rarePtrEqual(r, a.User, b.User) &&
		rareSliceEqual(r, a.AllocatedResourcesStatus, b.AllocatedResourcesStatus)
}

func (r *statusRelation) containerState(a, b *corev1.ContainerState) bool {
	return ptrEqual(r, a.Waiting, b.Waiting, valueEqual[corev1.ContainerStateWaiting]) &&
		ptrEqual(r, a.Running, b.Running, (*statusRelation).running) &&
		ptrEqual(r, a.Terminated, b.Terminated, (*statusRelation).terminated)
}

func (r *statusRelation) running(a, b *corev1.ContainerStateRunning) bool {
	return r.time(&a.StartedAt, &b.StartedAt)
}

func (r *statusRelation) terminated(a, b *corev1.ContainerStateTerminated) bool {
	return a.ExitCode == b.ExitCode && a.Signal == b.Signal && a.Reason == b.Reason && a.Message == b.Message &&
		a.ContainerID == b.ContainerID && r.time(&a.StartedAt, &b.StartedAt) && r.time(&a.FinishedAt, &b.FinishedAt)
}

func (r *statusRelation) condition(a, b *corev1.PodCondition) bool {
	return a.Type == b.Type && a.ObservedGeneration == b.ObservedGeneration && a.Status == b.Status &&
		a.Reason == b.Reason && a.Message == b.Message &&
		r.time(&a.LastProbeTime, &b.LastProbeTime) && r.time(&a.LastTransitionTime, &b.LastTransitionTime)
}

func (r *statusRelation) timestamp(a, b *metav1.Time) bool { return r.time(a, b) }

// valueEqual is == for types made of strings, numbers and booleans only, where it is both
// relations.
func valueEqual[T comparable](_ *statusRelation, a, b *T) bool { return *a == *b }

// sliceEqual compares slices element by element with eq. Under reflect.DeepEqual a nil
// slice differs from an empty one; under Semantic they are equal.
func sliceEqual[T any](r *statusRelation, a, b []T, eq func(r *statusRelation, a, b *T) bool) bool {
	if len(a) != len(b) || !r.nilIsEmpty && (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if !eq(r, &a[i], &b[i]) {
			return false
		}
	}
	return true
}

// ptrEqual is both relations' rule for pointers, with eq for the targets: both nil, or
// both set with equal targets. A pointer equals itself without looking: every target
// compared here (times, booleans, strings) is equal to itself under both relations.
func ptrEqual[T any](r *statusRelation, a, b *T, eq func(r *statusRelation, a, b *T) bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || eq(r, a, b)
}

// rareSliceEqual, rarePtrEqual and rareMapEqual compare the fields the model leaves unset:
// two empty ones (two nils under reflect.DeepEqual) are equal at no cost, anything else is
// the relation's reflective comparison.
func rareSliceEqual[T any](r *statusRelation, a, b []T) bool {
	if r.nilIsEmpty && len(a) == 0 && len(b) == 0 || !r.nilIsEmpty && a == nil && b == nil {
		return true
	}
	return r.reflective(a, b)
}

func rarePtrEqual[T any](r *statusRelation, a, b *T) bool {
	return a == nil && b == nil || r.reflective(a, b)
}

func rareMapEqual(r *statusRelation, a, b corev1.ResourceList) bool {
	if r.nilIsEmpty && len(a) == 0 && len(b) == 0 || !r.nilIsEmpty && a == nil && b == nil {
		return true
	}
	return r.reflective(a, b)
}

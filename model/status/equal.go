package status

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statusEqual compares two statuses the kubelet generated, with exactly the relation of
// reflect.DeepEqual (it was that call, and the status manager's versions depend on it):
// nil and empty slices differ, pointers are equal when both are nil or their targets are.
// Every timestamp here is UTC and truncated to the second, so plain deep equality is
// semantic equality, and much cheaper than the semantic comparison used against API
// objects.
//
// The fields the kubelet fills are compared with typed code, since this runs on every pod
// sync and nearly always finds the statuses equal. The fields this model never fills
// (resources, resource claims, volume health, mount and user status) are equal when both
// are nil, and otherwise still go to reflect.DeepEqual, so the relation stays exact for
// any input. TestStatusEqualCoversEveryField fails when k8s.io/api adds a field.
func statusEqual(a, b *corev1.PodStatus) bool {
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
		sliceEqual(a.Conditions, b.Conditions, conditionEqual) &&
		sliceEqual(a.HostIPs, b.HostIPs, valueEqual[corev1.HostIP]) &&
		sliceEqual(a.PodIPs, b.PodIPs, valueEqual[corev1.PodIP]) &&
		ptrEqual(a.StartTime, b.StartTime, timeEqual) &&
		sliceEqual(a.InitContainerStatuses, b.InitContainerStatuses, containerStatusEqual) &&
		sliceEqual(a.ContainerStatuses, b.ContainerStatuses, containerStatusEqual) &&
		sliceEqual(a.EphemeralContainerStatuses, b.EphemeralContainerStatuses, containerStatusEqual) &&
		rareSliceEqual(a.ResourceClaimStatuses, b.ResourceClaimStatuses) &&
		rarePtrEqual(a.ExtendedResourceClaimStatus, b.ExtendedResourceClaimStatus) &&
		rareMapEqual(a.AllocatedResources, b.AllocatedResources) &&
		rarePtrEqual(a.Resources, b.Resources) &&
		rareSliceEqual(a.NodeAllocatableResourceClaimStatuses, b.NodeAllocatableResourceClaimStatuses) &&
		rareSliceEqual(a.VolumeHealth, b.VolumeHealth)
}

func containerStatusEqual(a, b *corev1.ContainerStatus) bool {
	return a.Name == b.Name &&
		a.Ready == b.Ready &&
		a.RestartCount == b.RestartCount &&
		a.Image == b.Image &&
		a.ImageID == b.ImageID &&
		a.ContainerID == b.ContainerID &&
		containerStateEqual(&a.State, &b.State) &&
		containerStateEqual(&a.LastTerminationState, &b.LastTerminationState) &&
		ptrEqual(a.Started, b.Started, valueEqual[bool]) &&
		ptrEqual(a.StopSignal, b.StopSignal, valueEqual[corev1.Signal]) &&
		rareMapEqual(a.AllocatedResources, b.AllocatedResources) &&
		rarePtrEqual(a.Resources, b.Resources) &&
		rareSliceEqual(a.VolumeMounts, b.VolumeMounts) &&
		rarePtrEqual(a.User, b.User) &&
		rareSliceEqual(a.AllocatedResourcesStatus, b.AllocatedResourcesStatus)
}

func containerStateEqual(a, b *corev1.ContainerState) bool {
	return ptrEqual(a.Waiting, b.Waiting, valueEqual[corev1.ContainerStateWaiting]) &&
		ptrEqual(a.Running, b.Running, func(x, y *corev1.ContainerStateRunning) bool { return timeEqual(&x.StartedAt, &y.StartedAt) }) &&
		ptrEqual(a.Terminated, b.Terminated, terminatedEqual)
}

func terminatedEqual(a, b *corev1.ContainerStateTerminated) bool {
	return a.ExitCode == b.ExitCode && a.Signal == b.Signal && a.Reason == b.Reason && a.Message == b.Message &&
		a.ContainerID == b.ContainerID && timeEqual(&a.StartedAt, &b.StartedAt) && timeEqual(&a.FinishedAt, &b.FinishedAt)
}

func conditionEqual(a, b *corev1.PodCondition) bool {
	return a.Type == b.Type && a.ObservedGeneration == b.ObservedGeneration && a.Status == b.Status &&
		a.Reason == b.Reason && a.Message == b.Message &&
		timeEqual(&a.LastProbeTime, &b.LastProbeTime) && timeEqual(&a.LastTransitionTime, &b.LastTransitionTime)
}

// timeEqual is reflect.DeepEqual on a timestamp. Equal time.Time values (same wall clock,
// monotonic reading and *Location) are deeply equal; times that differ only in which
// *Location they point to may still be, so those are left to reflect.
func timeEqual(a, b *metav1.Time) bool {
	return a.Time == b.Time || reflect.DeepEqual(a.Time, b.Time)
}

// valueEqual is == for types whose fields are all strings, numbers or booleans, where it
// is the same relation as reflect.DeepEqual.
func valueEqual[T comparable](a, b *T) bool { return *a == *b }

// sliceEqual is reflect.DeepEqual's rule for slices with eq for the elements: both nil, or
// both non-nil with equal lengths and equal elements.
func sliceEqual[T any](a, b []T, eq func(a, b *T) bool) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !eq(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// ptrEqual is reflect.DeepEqual's rule for pointers with eq for the targets.
func ptrEqual[T any](a, b *T, eq func(a, b *T) bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || eq(a, b)
}

// rareSliceEqual, rarePtrEqual and rareMapEqual compare fields the kubelet model leaves
// unset: two nils are equal at no cost, anything else is reflect.DeepEqual's business.
func rareSliceEqual[T any](a, b []T) bool {
	return (a == nil && b == nil) || reflect.DeepEqual(a, b)
}

func rarePtrEqual[T any](a, b *T) bool {
	return (a == nil && b == nil) || reflect.DeepEqual(a, b)
}

func rareMapEqual(a, b corev1.ResourceList) bool {
	return (a == nil && b == nil) || reflect.DeepEqual(a, b)
}

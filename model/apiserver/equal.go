package apiserver

import (
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
// (Semantic's metav1.Time rule). The fields the kubelet fills are compared with typed code;
// the ones this model never fills (resources, resource claims, volume health, mount and
// user status) are equal when both are empty, and otherwise still go to
// apiequality.Semantic. TestStatusSemanticEqualCoversEveryField fails when k8s.io/api adds
// a field.
func StatusSemanticEqual(a, b *corev1.PodStatus) bool {
	return a.Phase == b.Phase &&
		a.Reason == b.Reason &&
		a.ObservedGeneration == b.ObservedGeneration &&
		a.Message == b.Message &&
		a.NominatedNodeName == b.NominatedNodeName &&
		a.HostIP == b.HostIP &&
		a.PodIP == b.PodIP &&
		a.QOSClass == b.QOSClass &&
		a.Resize == b.Resize &&
		semSliceEqual(a.Conditions, b.Conditions, semConditionEqual) &&
		semSliceEqual(a.HostIPs, b.HostIPs, semValueEqual[corev1.HostIP]) &&
		semSliceEqual(a.PodIPs, b.PodIPs, semValueEqual[corev1.PodIP]) &&
		semPtrEqual(a.StartTime, b.StartTime, semTimeEqual) &&
		semSliceEqual(a.ContainerStatuses, b.ContainerStatuses, semContainerStatusEqual) &&
		semSliceEqual(a.InitContainerStatuses, b.InitContainerStatuses, semContainerStatusEqual) &&
		semSliceEqual(a.EphemeralContainerStatuses, b.EphemeralContainerStatuses, semContainerStatusEqual) &&
		(len(a.ResourceClaimStatuses) == 0 && len(b.ResourceClaimStatuses) == 0 ||
			apiequality.Semantic.DeepEqual(a.ResourceClaimStatuses, b.ResourceClaimStatuses)) &&
		semRarePtrEqual(a.ExtendedResourceClaimStatus, b.ExtendedResourceClaimStatus) &&
		semRareMapEqual(a.AllocatedResources, b.AllocatedResources) &&
		semRarePtrEqual(a.Resources, b.Resources) &&
		(len(a.NodeAllocatableResourceClaimStatuses) == 0 && len(b.NodeAllocatableResourceClaimStatuses) == 0 ||
			apiequality.Semantic.DeepEqual(a.NodeAllocatableResourceClaimStatuses, b.NodeAllocatableResourceClaimStatuses)) &&
		(len(a.VolumeHealth) == 0 && len(b.VolumeHealth) == 0 || apiequality.Semantic.DeepEqual(a.VolumeHealth, b.VolumeHealth))
}

func semContainerStatusEqual(a, b *corev1.ContainerStatus) bool {
	return a.Name == b.Name &&
		a.Ready == b.Ready &&
		a.RestartCount == b.RestartCount &&
		a.Image == b.Image &&
		a.ImageID == b.ImageID &&
		a.ContainerID == b.ContainerID &&
		semContainerStateEqual(&a.State, &b.State) &&
		semContainerStateEqual(&a.LastTerminationState, &b.LastTerminationState) &&
		semPtrEqual(a.Started, b.Started, semValueEqual[bool]) &&
		semPtrEqual(a.StopSignal, b.StopSignal, semValueEqual[corev1.Signal]) &&
		semRareMapEqual(a.AllocatedResources, b.AllocatedResources) &&
		semRarePtrEqual(a.Resources, b.Resources) &&
		(len(a.VolumeMounts) == 0 && len(b.VolumeMounts) == 0 || apiequality.Semantic.DeepEqual(a.VolumeMounts, b.VolumeMounts)) &&
		semRarePtrEqual(a.User, b.User) &&
		(len(a.AllocatedResourcesStatus) == 0 && len(b.AllocatedResourcesStatus) == 0 ||
			apiequality.Semantic.DeepEqual(a.AllocatedResourcesStatus, b.AllocatedResourcesStatus))
}

func semContainerStateEqual(a, b *corev1.ContainerState) bool {
	return semPtrEqual(a.Waiting, b.Waiting, semValueEqual[corev1.ContainerStateWaiting]) &&
		semPtrEqual(a.Running, b.Running, func(x, y *corev1.ContainerStateRunning) bool { return semTimeEqual(&x.StartedAt, &y.StartedAt) }) &&
		semPtrEqual(a.Terminated, b.Terminated, func(x, y *corev1.ContainerStateTerminated) bool {
			return x.ExitCode == y.ExitCode && x.Signal == y.Signal && x.Reason == y.Reason && x.Message == y.Message &&
				x.ContainerID == y.ContainerID && semTimeEqual(&x.StartedAt, &y.StartedAt) && semTimeEqual(&x.FinishedAt, &y.FinishedAt)
		})
}

func semConditionEqual(a, b *corev1.PodCondition) bool {
	return a.Type == b.Type && a.ObservedGeneration == b.ObservedGeneration && a.Status == b.Status &&
		a.Reason == b.Reason && a.Message == b.Message &&
		semTimeEqual(&a.LastProbeTime, &b.LastProbeTime) && semTimeEqual(&a.LastTransitionTime, &b.LastTransitionTime)
}

// semTimeEqual is Semantic's rule for metav1.Time.
func semTimeEqual(a, b *metav1.Time) bool { return a.UTC() == b.UTC() }

// semValueEqual is == for types made of strings, numbers and booleans only.
func semValueEqual[T comparable](a, b *T) bool { return *a == *b }

// semSliceEqual is Semantic's rule for slices with eq for the elements: two empty (or nil)
// slices are equal, else the lengths and the elements must be.
func semSliceEqual[T any](a, b []T, eq func(a, b *T) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !eq(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// semPtrEqual is Semantic's rule for pointers with eq for the targets.
func semPtrEqual[T any](a, b *T, eq func(a, b *T) bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return eq(a, b)
}

// semRarePtrEqual and semRareMapEqual compare fields the model leaves unset: empty on both
// sides is equal at no cost, anything else is Semantic's business.
func semRarePtrEqual[T any](a, b *T) bool {
	return a == nil && b == nil || apiequality.Semantic.DeepEqual(a, b)
}

func semRareMapEqual(a, b corev1.ResourceList) bool {
	return len(a) == 0 && len(b) == 0 || apiequality.Semantic.DeepEqual(a, b)
}

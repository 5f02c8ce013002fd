package upstream

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/core"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/features"
)

// DefaultPod applies the v1 defaults the API server applies when it decodes a pod
// (SetObjectDefaults_Pod): restart policy, DNS policy, scheduler name, grace period,
// security context, service links, pull policy, termination message, probe and port
// defaults, requests copied from limits, volume defaults, and so on.
//
// Upstream's defaulting reads the process-wide feature gate, never a run's copy: it sees the
// v1.37 API server's default gates, which is what an API server started without
// --feature-gates runs with. A scenario's featureGates are the kubelet's.
func DefaultPod(pod *corev1.Pod) {
	corev1defaults.SetObjectDefaults_Pod(pod)
}

// ValidatePodCreate validates a defaulted v1 pod as the API server does on create: it
// converts it to the internal type and runs upstream's ValidatePodCreate with the options
// the pod registry derives on create (ResourceIsPod set). A static pod read by the
// kubelet's file source is validated the same way, without ResourceIsPod.
//
// Each error's Field is upstream's path ("spec.containers[0].resources.requests"), and its
// ErrorBody upstream's words.
func (g *KubeletGates) ValidatePodCreate(pod *corev1.Pod, static bool) (field.ErrorList, error) {
	internal := &core.Pod{}
	if err := corev1defaults.Convert_v1_Pod_To_core_Pod(pod, internal, nil); err != nil {
		return nil, fmt.Errorf("converting pod %s/%s to the internal type: %w", pod.Namespace, pod.Name, err)
	}
	opts := g.PodValidationOptions()
	opts.ResourceIsPod = !static
	return validation.ValidatePodCreate(internal, opts), nil
}

// PodValidationOptions are the options upstream's GetValidationOptionsFromPodSpecAndMeta
// gives for a pod being created (no old pod), read from this run's gates rather than the
// process-wide ones. On create every option is either fixed or decided by a gate alone;
// the options that only an old pod can turn on stay off.
func (g *KubeletGates) PodValidationOptions() validation.PodValidationOptions {
	on := func(f string) bool { return g.Enabled(f) }
	return validation.PodValidationOptions{
		AllowInvalidPodDeletionCost:                         !on(string(features.PodDeletionCost)),
		PodLevelResourcesEnabled:                            on(string(features.PodLevelResources)),
		AllowSidecarResizePolicy:                            on(string(features.InPlacePodVerticalScaling)),
		AllowMatchLabelKeysInPodTopologySpread:              on(string(features.MatchLabelKeysInPodTopologySpread)),
		AllowMatchLabelKeysInPodTopologySpreadSelectorMerge: on(string(features.MatchLabelKeysInPodTopologySpreadSelectorMerge)),
		InPlacePodLevelResourcesVerticalScalingEnabled:      on(string(features.InPlacePodLevelResourcesVerticalScaling)),
		InPlacePodVerticalScalingMemoryBackedVolumesEnabled: on(string(features.InPlacePodVerticalScalingMemoryBackedVolumes)),
		AllowContainerRestartPolicyRules:                    on(string(features.ContainerRestartRules)),
		AllowRestartAllContainers:                           on(string(features.RestartAllContainersOnContainerExits)),
		AllowImageVolumeWithDigest:                          on(string(features.ImageVolumeWithDigest)),
		AllowRelaxedEnvironmentVariableValidation:           on(string(features.RelaxedEnvironmentVariableValidation)),
		AllowEnvFilesValidation:                             on(string(features.EnvFiles)),
		AllowUserNamespacesHostNetworkSupport:               on(string(features.UserNamespacesHostNetworkSupport)),
		// Without SELinuxMount only the Recursive change policy is allowed.
		AllowOnlyRecursiveSELinuxChangePolicy:   !on(string(features.SELinuxMount)),
		AllowTaintTolerationComparisonOperators: on(string(features.TaintTolerationComparisonOperators)),
	}
}

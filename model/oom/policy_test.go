package oom

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

const gi = int64(1) << 30

func container(name string, req, lim string) corev1.Container {
	c := corev1.Container{Name: name}
	if req != "" {
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(req)}
	}
	if lim != "" {
		c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(lim), corev1.ResourceCPU: resource.MustParse("1")}
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1")
	}
	return c
}

// Cases after upstream's policy_test.go (TestGetContainerOOMScoreAdjust), restated for a
// 4Gi machine.
func TestGetContainerOOMScoreAdjust(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := container("sidecar", "2Gi", "")
	sidecar.RestartPolicy = &always
	prio := int32(2000001000)
	cases := []struct {
		name string
		pod  corev1.Pod
		c    int // index into containers (-1: the first init container)
		want int
	}{
		{"best effort", corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "", "")}}}, 0, 1000},
		{"guaranteed", corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "1Gi", "1Gi")}}}, 0, -997},
		{"burstable, a quarter of the machine", corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "1Gi", "")}}}, 0, 750},
		{"burstable, tiny request rounds to 999", corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "1", "")}}}, 0, 999},
		{"burstable, request above capacity clamps to 3", corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "8Gi", "")}}}, 0, 3},
		{"burstable container without a request in a burstable pod", corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("a", "1Gi", ""), container("b", "", "")}}}, 1, 999},
		{"node-critical", corev1.Pod{Spec: corev1.PodSpec{Priority: &prio, PriorityClassName: "system-node-critical", Containers: []corev1.Container{container("a", "", "")}}}, 0, -997},
		{"sidecar takes the lower of its own and the smallest main container's", corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{sidecar}, Containers: []corev1.Container{container("a", "3Gi", ""), container("b", "1Gi", "")}}}, -1, 500},
	}
	for _, c := range cases {
		var ctr *corev1.Container
		if c.c < 0 {
			ctr = &c.pod.Spec.InitContainers[0]
		} else {
			ctr = &c.pod.Spec.Containers[c.c]
		}
		if got := GetContainerOOMScoreAdjust(&c.pod, ctr, 4*gi, true); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// Upstream's pod-level cases of TestGetContainerOOMScoreAdjust (policy_test.go), same pods,
// on its 4e9-byte machine. Container requests are 1e9 (8e9/8), the pod-level memory request
// is 2e9 (8e9/4), its limit 2e9+1000; cpu 5m at pod level.
//
//   - pod-level requests, no container resources: 2e9 unclaimed / 2 containers = 1e9 each,
//     1000 - 1000·1e9/4e9 = 750 for both.
//   - pod-level requests, containers of 1e9 each: nothing unclaimed, 750 each.
//   - unequal: one container 1e9, one none: 1e9 unclaimed / 2 = 5e8; 1000 - 1000·1.5e9/4e9
//     = 625 and 1000 - 1000·5e8/4e9 = 875 (where the gate off gives 750 and 999).
//   - unequal with sidecar: containers 1e9 and 5e8, sidecar 2e8, aggregate 1.7e9, 3e8
//     unclaimed / 3 = 1e8 each: 1000 - 1000·1.1e9/4e9 = 725, 1000 - 1000·6e8/4e9 = 850,
//     sidecar min(1000 - 1000·3e8/4e9 = 925, smallest main 850) = 850.
//   - pod-level requests equal to limits (cpu and memory): Guaranteed, -997 for every
//     container whatever their own resources.
func TestGetContainerOOMScoreAdjustPodLevel(t *testing.T) {
	const capacity = 4000000000
	always := corev1.ContainerRestartPolicyAlways
	mem := func(v string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("5m"), corev1.ResourceMemory: resource.MustParse(v)}
	}
	burstablePod := &corev1.ResourceRequirements{Requests: mem("2000000000"), Limits: mem("2000001000")}
	guaranteedPod := &corev1.ResourceRequirements{Requests: mem("2000000000"), Limits: mem("2000000000")}
	ctr := func(name, req string) corev1.Container {
		c := corev1.Container{Name: name}
		if req != "" {
			c.Resources = corev1.ResourceRequirements{Requests: mem(req), Limits: mem(req)}
		}
		return c
	}
	sidecar := ctr("s", "200000000")
	sidecar.RestartPolicy = &always
	cases := []struct {
		name       string
		res        *corev1.ResourceRequirements
		init, main []corev1.Container
		want       map[string]int
		gateOff    map[string]int
	}{
		{"burstable pod resources, no container resources", burstablePod, nil,
			[]corev1.Container{ctr("a", ""), ctr("b", "")}, map[string]int{"a": 750, "b": 750},
			// Gate off: no resources anywhere, BestEffort.
			map[string]int{"a": 1000, "b": 1000}},
		{"burstable pod resources, equal container requests", burstablePod, nil,
			[]corev1.Container{ctr("a", "1000000000"), ctr("b", "1000000000")}, map[string]int{"a": 750, "b": 750},
			// Gate off: containers with limits equal to requests, Guaranteed.
			map[string]int{"a": -997, "b": -997}},
		{"burstable pod resources, unequal container requests", burstablePod, nil,
			[]corev1.Container{ctr("a", "1000000000"), ctr("b", "")}, map[string]int{"a": 625, "b": 875},
			// Gate off: Burstable from the containers, 1000 - 250 = 750 and 1000 -> 999.
			map[string]int{"a": 750, "b": 999}},
		{"burstable pod resources, unequal container requests with sidecar", burstablePod, []corev1.Container{sidecar},
			[]corev1.Container{ctr("a", "1000000000"), ctr("b", "500000000")}, map[string]int{"a": 725, "b": 850, "s": 850},
			nil},
		{"guaranteed pod resources, unequal container requests", guaranteedPod, nil,
			[]corev1.Container{ctr("a", "500000000"), ctr("b", "")}, map[string]int{"a": -997, "b": -997},
			nil},
	}
	for _, c := range cases {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Resources: c.res, InitContainers: c.init, Containers: c.main}}
		for gate, want := range map[bool]map[string]int{true: c.want, false: c.gateOff} {
			for name, w := range want {
				var target *corev1.Container
				for i := range pod.Spec.InitContainers {
					if pod.Spec.InitContainers[i].Name == name {
						target = &pod.Spec.InitContainers[i]
					}
				}
				for i := range pod.Spec.Containers {
					if pod.Spec.Containers[i].Name == name {
						target = &pod.Spec.Containers[i]
					}
				}
				if got := GetContainerOOMScoreAdjust(pod, target, capacity, gate); got != w {
					t.Errorf("%s, gate %v, %s: %d, want %d", c.name, gate, name, got, w)
				}
			}
		}
	}
}

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
		if got := GetContainerOOMScoreAdjust(&c.pod, ctr, 4*gi); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

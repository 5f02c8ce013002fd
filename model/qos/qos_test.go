package qos

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func ctr(req, lim map[string]string) corev1.Container {
	c := corev1.Container{Name: "c"}
	conv := func(m map[string]string) corev1.ResourceList {
		if m == nil {
			return nil
		}
		out := corev1.ResourceList{}
		for k, v := range m {
			out[corev1.ResourceName(k)] = resource.MustParse(v)
		}
		return out
	}
	c.Resources.Requests, c.Resources.Limits = conv(req), conv(lim)
	return c
}

// Cases after upstream's qos_test.go (TestComputePodQOS), restated.
func TestGetPodQOS(t *testing.T) {
	both := map[string]string{"cpu": "100m", "memory": "100Mi"}
	cases := []struct {
		name string
		cs   []corev1.Container
		want corev1.PodQOSClass
	}{
		{"no resources", []corev1.Container{ctr(nil, nil)}, corev1.PodQOSBestEffort},
		{"only ephemeral-storage", []corev1.Container{ctr(map[string]string{"ephemeral-storage": "1Gi"}, nil)}, corev1.PodQOSBestEffort},
		{"limits equal requests", []corev1.Container{ctr(both, both)}, corev1.PodQOSGuaranteed},
		{"two guaranteed containers", []corev1.Container{ctr(both, both), ctr(both, both)}, corev1.PodQOSGuaranteed},
		{"limits only memory", []corev1.Container{ctr(map[string]string{"memory": "100Mi"}, map[string]string{"memory": "100Mi"})}, corev1.PodQOSBurstable},
		{"requests below limits", []corev1.Container{ctr(map[string]string{"cpu": "50m", "memory": "100Mi"}, both)}, corev1.PodQOSBurstable},
		{"one best effort one guaranteed", []corev1.Container{ctr(both, both), ctr(nil, nil)}, corev1.PodQOSBurstable},
		{"requests only", []corev1.Container{ctr(both, nil)}, corev1.PodQOSBurstable},
	}
	for _, c := range cases {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: c.cs}}
		if got := GetPodQOS(pod); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// Pod-level resources (upstream qos_test.go's pod-level cases, restated): with cpu or
// memory set in spec.resources the class comes from those alone; the gate off falls back to
// the containers.
func TestComputePodQOSPodLevel(t *testing.T) {
	both := map[string]string{"cpu": "100m", "memory": "100Mi"}
	podRes := func(req, lim map[string]string) *corev1.ResourceRequirements {
		c := ctr(req, lim)
		return &c.Resources
	}
	cases := []struct {
		name            string
		res             *corev1.ResourceRequirements
		cs              []corev1.Container
		gateOn, gateOff corev1.PodQOSClass
	}{
		{"pod-level limits equal requests, best-effort containers", podRes(both, both), []corev1.Container{ctr(nil, nil)}, corev1.PodQOSGuaranteed, corev1.PodQOSBestEffort},
		{"pod-level requests only, guaranteed containers", podRes(both, nil), []corev1.Container{ctr(both, both)}, corev1.PodQOSBurstable, corev1.PodQOSGuaranteed},
		{"pod-level memory limit only", podRes(nil, map[string]string{"memory": "1Gi"}), []corev1.Container{ctr(nil, nil)}, corev1.PodQOSBurstable, corev1.PodQOSBestEffort},
		// Only ephemeral-storage at pod level: not pod-level cpu/memory, the containers decide.
		{"pod-level ephemeral-storage only", podRes(map[string]string{"ephemeral-storage": "1Gi"}, nil), []corev1.Container{ctr(both, both)}, corev1.PodQOSGuaranteed, corev1.PodQOSGuaranteed},
	}
	for _, c := range cases {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Resources: c.res, Containers: c.cs}}
		if got := ComputePodQOS(pod, true); got != c.gateOn {
			t.Errorf("%s, gate on: %s, want %s", c.name, got, c.gateOn)
		}
		if got := ComputePodQOS(pod, false); got != c.gateOff {
			t.Errorf("%s, gate off: %s, want %s", c.name, got, c.gateOff)
		}
	}
}

package eviction

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// evQOSPod is upstream's makeContainersByQOS: one container with 100m/1Gi requests, limits
// equal (Guaranteed), absent (Burstable), or nothing at all (BestEffort).
func evQOSPod(name string, class corev1.PodQOSClass) *corev1.Pod {
	res := evRL("cpu", "100m", "memory", "1Gi")
	switch class {
	case corev1.PodQOSGuaranteed:
		return evPod(name, 0, evCtr("guaranteed-container", res, res))
	case corev1.PodQOSBurstable:
		return evPod(name, 0, evCtr("burstable-container", res, nil))
	}
	return evPod(name, 0, evCtr("best-effort-container", nil, nil))
}

func TestAdmit(t *testing.T) {
	mem := []corev1.NodeConditionType{corev1.NodeMemoryPressure}
	memDisk := []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure}
	disk := []corev1.NodeConditionType{corev1.NodeDiskPressure}
	pid := []corev1.NodeConditionType{corev1.NodePIDPressure}

	guaranteed := evQOSPod("guaranteed-pod", corev1.PodQOSGuaranteed)
	burstable := evQOSPod("burstable-pod", corev1.PodQOSBurstable)
	bestEffort := evQOSPod("best-effort-pod", corev1.PodQOSBestEffort)

	tolerating := func(tol corev1.Toleration) *corev1.Pod {
		p := evQOSPod("tolerating", corev1.PodQOSBestEffort)
		p.Spec.Tolerations = []corev1.Toleration{tol}
		return p
	}
	withAnnotation := func(k, v string) *corev1.Pod {
		p := evQOSPod("annotated", corev1.PodQOSBestEffort)
		p.Annotations = map[string]string{k: v}
		return p
	}
	withPriority := func(prio int32) *corev1.Pod {
		p := evQOSPod("prioritized", corev1.PodQOSBestEffort)
		p.Spec.Priority = &prio
		return p
	}

	cases := []struct {
		name  string
		pod   *corev1.Pod
		conds []corev1.NodeConditionType
		admit bool
	}{
		// upstream TestAdmitUnderNodeConditions
		{"no pressure: guaranteed", guaranteed, nil, true},
		{"no pressure: burstable", burstable, nil, true},
		{"no pressure: best-effort", bestEffort, nil, true},
		{"memory: guaranteed", guaranteed, mem, true},
		{"memory: burstable", burstable, mem, true},
		{"memory: best-effort", bestEffort, mem, false},
		{"memory+disk: guaranteed", guaranteed, memDisk, false},
		{"memory+disk: burstable", burstable, memDisk, false},
		{"memory+disk: best-effort", bestEffort, memDisk, false},
		// upstream TestDiskPressureNodeFs / TestPIDPressure admission steps
		{"disk: best-effort", bestEffort, disk, false},
		{"pid: guaranteed", guaranteed, pid, false},
		// tolerations (Admit's TolerationsTolerateTaint check)
		{"memory: best-effort tolerating memory-pressure", tolerating(corev1.Toleration{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}), mem, true},
		{"memory: best-effort with a key-less Exists", tolerating(corev1.Toleration{Operator: corev1.TolerationOpExists}), mem, true},
		{"memory: best-effort tolerating with Equal and no value", tolerating(corev1.Toleration{Key: corev1.TaintNodeMemoryPressure}), mem, true},
		{"memory: best-effort tolerating another value", tolerating(corev1.Toleration{Key: corev1.TaintNodeMemoryPressure, Value: "true"}), mem, false},
		{"memory: best-effort tolerating NoExecute only", tolerating(corev1.Toleration{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}), mem, false},
		{"memory: best-effort tolerating disk-pressure", tolerating(corev1.Toleration{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists}), mem, false},
		{"memory: best-effort with a Gt toleration", tolerating(corev1.Toleration{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpGt, Value: "1"}), mem, false},
		{"memory+disk: tolerations do not help", tolerating(corev1.Toleration{Operator: corev1.TolerationOpExists}), memDisk, false},
		// critical pods are always admitted
		{"disk: static pod", withAnnotation("kubernetes.io/config.source", "file"), disk, true},
		{"disk: mirror pod", withAnnotation("kubernetes.io/config.mirror", ""), disk, true},
		{"disk: api-sourced pod is not static", withAnnotation("kubernetes.io/config.source", "api"), disk, false},
		{"pid: system-cluster-critical priority", withPriority(2000000000), pid, true},
		{"pid: just below critical priority", withPriority(1999999999), pid, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			admit, reason, message := Admit(tc.pod, tc.conds)
			if admit != tc.admit {
				t.Fatalf("admit = %v, want %v", admit, tc.admit)
			}
			if admit && (reason != "" || message != "") {
				t.Fatalf("admitted with reason %q message %q", reason, message)
			}
			if !admit && (reason != "Evicted" || message == "") {
				t.Fatalf("rejected with reason %q message %q", reason, message)
			}
		})
	}
}

func TestAdmitMessage(t *testing.T) {
	cases := []struct {
		conds []corev1.NodeConditionType
		want  string
	}{
		{[]corev1.NodeConditionType{corev1.NodeMemoryPressure}, "The node had condition: [MemoryPressure]. "},
		{[]corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure}, "The node had condition: [MemoryPressure DiskPressure]. "},
		{[]corev1.NodeConditionType{corev1.NodeDiskPressure, corev1.NodePIDPressure}, "The node had condition: [DiskPressure PIDPressure]. "},
	}
	for _, tc := range cases {
		_, reason, msg := Admit(evQOSPod("be", corev1.PodQOSBestEffort), tc.conds)
		if reason != Reason || msg != tc.want {
			t.Errorf("Admit under %v = %q, %q; want %q, %q", tc.conds, reason, msg, Reason, tc.want)
		}
	}
}

func TestIsCriticalPod(t *testing.T) {
	pod := func(ann map[string]string, prio *int32, class string) *corev1.Pod {
		p := evPod("p", 0)
		p.Annotations = ann
		p.Spec.Priority = prio
		p.Spec.PriorityClassName = class
		return p
	}
	i32 := func(v int32) *int32 { return &v }
	cases := []struct {
		name               string
		pod                *corev1.Pod
		critical, nodeCrit bool
	}{
		{"plain pod", pod(nil, nil, ""), false, false},
		{"static from file", pod(map[string]string{"kubernetes.io/config.source": "file"}, nil, ""), true, false},
		{"static from http", pod(map[string]string{"kubernetes.io/config.source": "http"}, nil, ""), true, false},
		{"api source", pod(map[string]string{"kubernetes.io/config.source": "api"}, nil, ""), false, false},
		{"mirror pod", pod(map[string]string{"kubernetes.io/config.mirror": "abc"}, nil, ""), true, false},
		{"system-cluster-critical", pod(nil, i32(2000000000), "system-cluster-critical"), true, false},
		{"system-node-critical", pod(nil, i32(2000001000), "system-node-critical"), true, true},
		{"class name without the priority", pod(nil, i32(0), "system-node-critical"), false, false},
		{"static pod in the node-critical class", pod(map[string]string{"kubernetes.io/config.source": "file"}, nil, "system-node-critical"), true, true},
	}
	for _, tc := range cases {
		if got := IsCriticalPod(tc.pod); got != tc.critical {
			t.Errorf("%s: IsCriticalPod = %v", tc.name, got)
		}
		if got := IsNodeCriticalPod(tc.pod); got != tc.nodeCrit {
			t.Errorf("%s: IsNodeCriticalPod = %v", tc.name, got)
		}
	}
}

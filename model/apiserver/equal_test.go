package apiserver

import (
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStatusSemanticEqualCoversEveryField lists the fields StatusSemanticEqual compares; a
// field added to one of these types by a new k8s.io/api must be added there (and here).
func TestStatusSemanticEqualCoversEveryField(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeFor[corev1.PodStatus](): {"ObservedGeneration", "Phase", "Conditions", "Message", "Reason",
			"NominatedNodeName", "HostIP", "HostIPs", "PodIP", "PodIPs", "StartTime", "InitContainerStatuses",
			"ContainerStatuses", "QOSClass", "EphemeralContainerStatuses", "Resize", "ResourceClaimStatuses",
			"ExtendedResourceClaimStatus", "AllocatedResources", "Resources", "NodeAllocatableResourceClaimStatuses",
			"VolumeHealth"},
		reflect.TypeFor[corev1.ContainerStatus](): {"Name", "State", "LastTerminationState", "Ready", "RestartCount",
			"Image", "ImageID", "ContainerID", "Started", "AllocatedResources", "Resources", "VolumeMounts", "User",
			"AllocatedResourcesStatus", "StopSignal"},
		reflect.TypeFor[corev1.ContainerState]():           {"Waiting", "Running", "Terminated"},
		reflect.TypeFor[corev1.ContainerStateWaiting]():    {"Reason", "Message"},
		reflect.TypeFor[corev1.ContainerStateRunning]():    {"StartedAt"},
		reflect.TypeFor[corev1.ContainerStateTerminated](): {"ExitCode", "Signal", "Reason", "Message", "StartedAt", "FinishedAt", "ContainerID"},
		reflect.TypeFor[corev1.PodCondition]():             {"Type", "ObservedGeneration", "Status", "LastProbeTime", "LastTransitionTime", "Reason", "Message"},
		reflect.TypeFor[corev1.PodIP]():                    {"IP"},
		reflect.TypeFor[corev1.HostIP]():                   {"IP"},
	}
	for typ, want := range known {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s has fields %v; StatusSemanticEqual knows %v", typ, got, want)
		}
	}
}

// TestStatusSemanticEqualIsSemantic checks StatusSemanticEqual against
// apiequality.Semantic.DeepEqual on a status and many one-field changes of it, including
// the cases where Semantic differs from plain deep equality: nil against empty, the same
// instant in another zone, quantities written differently.
func TestStatusSemanticEqualIsSemantic(t *testing.T) {
	at := func(sec int) metav1.Time { return metav1.NewTime(time.Unix(int64(sec), 0).UTC()) }
	zone := func(sec int) metav1.Time {
		return metav1.NewTime(time.Unix(int64(sec), 0).In(time.FixedZone("Z", 3600)))
	}
	yes := true
	base := func() *corev1.PodStatus {
		return &corev1.PodStatus{
			ObservedGeneration: 2, Phase: corev1.PodRunning, Reason: "r", Message: "m", PodIP: "10.0.0.1",
			PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}}, QOSClass: corev1.PodQOSBurstable,
			StartTime: &metav1.Time{Time: at(5).Time},
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: at(6), ObservedGeneration: 2},
				{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "x", Message: "y", LastTransitionTime: at(7)},
			},
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "init", Ready: true, State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: at(1), FinishedAt: at(2), ContainerID: "c://1"}}}},
			ContainerStatuses: []corev1.ContainerStatus{
				{Name: "a", Image: "img", ContainerID: "c://2", RestartCount: 3, Started: &yes, Ready: true,
					State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at(9)}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: at(8)}}},
				{Name: "b", Image: "img", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}},
			},
		}
	}
	cpu := func(q string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(q)}
	}
	changes := map[string]func(*corev1.PodStatus){
		"none":                      func(*corev1.PodStatus) {},
		"phase":                     func(s *corev1.PodStatus) { s.Phase = corev1.PodFailed },
		"reason":                    func(s *corev1.PodStatus) { s.Reason = "q" },
		"observedGeneration":        func(s *corev1.PodStatus) { s.ObservedGeneration++ },
		"message":                   func(s *corev1.PodStatus) { s.Message = "n" },
		"nominatedNodeName":         func(s *corev1.PodStatus) { s.NominatedNodeName = "n" },
		"hostIP":                    func(s *corev1.PodStatus) { s.HostIP = "h" },
		"hostIPs":                   func(s *corev1.PodStatus) { s.HostIPs = []corev1.HostIP{{IP: "h"}} },
		"hostIPs empty":             func(s *corev1.PodStatus) { s.HostIPs = []corev1.HostIP{} },
		"podIP":                     func(s *corev1.PodStatus) { s.PodIP = "p" },
		"podIPs nil":                func(s *corev1.PodStatus) { s.PodIPs = nil },
		"podIPs value":              func(s *corev1.PodStatus) { s.PodIPs[0].IP = "10.0.0.2" },
		"qos":                       func(s *corev1.PodStatus) { s.QOSClass = corev1.PodQOSGuaranteed },
		"resize":                    func(s *corev1.PodStatus) { s.Resize = corev1.PodResizeStatusInfeasible },
		"startTime nil":             func(s *corev1.PodStatus) { s.StartTime = nil },
		"startTime later":           func(s *corev1.PodStatus) { s.StartTime = &metav1.Time{Time: at(6).Time} },
		"startTime other zone":      func(s *corev1.PodStatus) { z := zone(5); s.StartTime = &z },
		"condition time other zone": func(s *corev1.PodStatus) { s.Conditions[0].LastTransitionTime = zone(6) },
		"condition time later":      func(s *corev1.PodStatus) { s.Conditions[0].LastTransitionTime = zone(7) },
		"condition probe time":      func(s *corev1.PodStatus) { s.Conditions[1].LastProbeTime = at(1) },
		"condition type":            func(s *corev1.PodStatus) { s.Conditions[1].Type = corev1.PodScheduled },
		"condition status":          func(s *corev1.PodStatus) { s.Conditions[0].Status = corev1.ConditionFalse },
		"condition generation":      func(s *corev1.PodStatus) { s.Conditions[1].ObservedGeneration = 9 },
		"condition reason":          func(s *corev1.PodStatus) { s.Conditions[1].Reason = "z" },
		"conditions nil":            func(s *corev1.PodStatus) { s.Conditions = nil },
		"init statuses nil":         func(s *corev1.PodStatus) { s.InitContainerStatuses = nil },
		"init statuses empty":       func(s *corev1.PodStatus) { s.InitContainerStatuses = []corev1.ContainerStatus{} },
		"ephemeral empty":           func(s *corev1.PodStatus) { s.EphemeralContainerStatuses = []corev1.ContainerStatus{} },
		"ephemeral one":             func(s *corev1.PodStatus) { s.EphemeralContainerStatuses = []corev1.ContainerStatus{{Name: "e"}} },
		"init finished other zone":  func(s *corev1.PodStatus) { s.InitContainerStatuses[0].State.Terminated.FinishedAt = zone(2) },
		"init exit code":            func(s *corev1.PodStatus) { s.InitContainerStatuses[0].State.Terminated.ExitCode = 2 },
		"init signal":               func(s *corev1.PodStatus) { s.InitContainerStatuses[0].State.Terminated.Signal = 9 },
		"init message":              func(s *corev1.PodStatus) { s.InitContainerStatuses[0].State.Terminated.Message = "x" },
		"init container id":         func(s *corev1.PodStatus) { s.InitContainerStatuses[0].State.Terminated.ContainerID = "c://9" },
		"name":                      func(s *corev1.PodStatus) { s.ContainerStatuses[0].Name = "z" },
		"ready":                     func(s *corev1.PodStatus) { s.ContainerStatuses[0].Ready = false },
		"restarts":                  func(s *corev1.PodStatus) { s.ContainerStatuses[0].RestartCount++ },
		"image":                     func(s *corev1.PodStatus) { s.ContainerStatuses[0].Image = "i2" },
		"imageID":                   func(s *corev1.PodStatus) { s.ContainerStatuses[0].ImageID = "id" },
		"container id":              func(s *corev1.PodStatus) { s.ContainerStatuses[1].ContainerID = "c://3" },
		"started nil":               func(s *corev1.PodStatus) { s.ContainerStatuses[0].Started = nil },
		"started copy":              func(s *corev1.PodStatus) { v := true; s.ContainerStatuses[0].Started = &v },
		"started false":             func(s *corev1.PodStatus) { v := false; s.ContainerStatuses[0].Started = &v },
		"running started":           func(s *corev1.PodStatus) { s.ContainerStatuses[0].State.Running.StartedAt = at(10) },
		"running to waiting": func(s *corev1.PodStatus) {
			s.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}
		},
		"last termination reason": func(s *corev1.PodStatus) { s.ContainerStatuses[0].LastTerminationState.Terminated.Reason = "OOMKilled" },
		"last termination none":   func(s *corev1.PodStatus) { s.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{} },
		"waiting message":         func(s *corev1.PodStatus) { s.ContainerStatuses[1].State.Waiting.Message = "other" },
		"stop signal": func(s *corev1.PodStatus) {
			sig := corev1.SIGTERM
			s.ContainerStatuses[1].StopSignal = &sig
		},
		"container resources":       func(s *corev1.PodStatus) { s.ContainerStatuses[1].Resources = &corev1.ResourceRequirements{} },
		"container allocated":       func(s *corev1.PodStatus) { s.ContainerStatuses[1].AllocatedResources = cpu("1") },
		"container allocated milli": func(s *corev1.PodStatus) { s.ContainerStatuses[1].AllocatedResources = cpu("1000m") },
		"container allocated empty": func(s *corev1.PodStatus) { s.ContainerStatuses[1].AllocatedResources = corev1.ResourceList{} },
		"volume mounts": func(s *corev1.PodStatus) {
			s.ContainerStatuses[1].VolumeMounts = []corev1.VolumeMountStatus{{Name: "v"}}
		},
		"volume mounts empty": func(s *corev1.PodStatus) { s.ContainerStatuses[1].VolumeMounts = []corev1.VolumeMountStatus{} },
		"user":                func(s *corev1.PodStatus) { s.ContainerStatuses[1].User = &corev1.ContainerUser{} },
		"resources status": func(s *corev1.PodStatus) {
			s.ContainerStatuses[1].AllocatedResourcesStatus = []corev1.ResourceStatus{{Name: "x"}}
		},
		"claim statuses":       func(s *corev1.PodStatus) { s.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "c"}} },
		"claim statuses empty": func(s *corev1.PodStatus) { s.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{} },
		"extended claim":       func(s *corev1.PodStatus) { s.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{} },
		"pod allocated":        func(s *corev1.PodStatus) { s.AllocatedResources = cpu("2") },
		"pod allocated empty":  func(s *corev1.PodStatus) { s.AllocatedResources = corev1.ResourceList{} },
		"pod resources":        func(s *corev1.PodStatus) { s.Resources = &corev1.ResourceRequirements{Limits: cpu("1")} },
		"node claims": func(s *corev1.PodStatus) {
			s.NodeAllocatableResourceClaimStatuses = []corev1.NodeAllocatableResourceClaimStatus{{}}
		},
		"volume health": func(s *corev1.PodStatus) { s.VolumeHealth = []corev1.PodVolumeHealth{{}} },
	}
	for name, change := range changes {
		for _, both := range []bool{false, true} {
			a, b := base(), base()
			change(b)
			if both {
				change(a)
			}
			want := apiequality.Semantic.DeepEqual(*a, *b)
			if both && !want {
				t.Fatalf("%s: the test expects equal statuses", name)
			}
			if got := StatusSemanticEqual(a, b); got != want {
				t.Errorf("%s (both=%v): StatusSemanticEqual = %v, Semantic.DeepEqual = %v", name, both, got, want)
			}
			if got := StatusSemanticEqual(b, a); got != want {
				t.Errorf("%s (both=%v, swapped): StatusSemanticEqual = %v, Semantic.DeepEqual = %v", name, both, got, want)
			}
		}
	}
	// A quantity written differently is the same quantity.
	a, b := base(), base()
	a.ContainerStatuses[1].AllocatedResources, b.ContainerStatuses[1].AllocatedResources = cpu("1"), cpu("1000m")
	if !StatusSemanticEqual(a, b) || !apiequality.Semantic.DeepEqual(*a, *b) {
		t.Error("1 and 1000m CPUs compare unequal")
	}
}

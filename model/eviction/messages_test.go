package eviction

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestEvictionMessage checks the threshold-path message and annotations built as upstream's
// evictionMessage (helpers.go) and its message formats.
func TestEvictionMessage(t *testing.T) {
	app := evCtr("app", evRL("memory", "100Mi", "ephemeral-storage", "1Gi"), nil)
	side := evCtr("side", nil, nil)
	pod := evPod("web", 0, app, side)
	pod.Spec.InitContainers = []corev1.Container{evCtr("init", evRL("memory", "10Mi"), nil)}
	stats := evStats(map[*corev1.Pod]*PodStats{pod: {Containers: evContainers(map[string]ContainerStats{
		"app":  {MemoryWorkingSet: evMiB(150), RootFsUsed: evMiB(1000), LogsUsed: evMiB(100)},
		"side": {MemoryWorkingSet: 123456789, RootFsUsed: 0, LogsUsed: 0},
		"init": {MemoryWorkingSet: evMiB(10)},
		"gone": {MemoryWorkingSet: evMiB(999)}, // not in the spec (e.g. ephemeral): ignored
	})}})
	memHard := Threshold{Signal: SignalMemoryAvailable, Value: evQty("1Gi")}
	allocHard := Threshold{Signal: SignalAllocatableMemoryAvailable, Value: evQty("51200Ki")}
	nodefs := Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0.1)}
	inodes := Threshold{Signal: SignalNodeFsInodesFree, Value: evQty("1000")}
	obs := SignalObservations{
		SignalMemoryAvailable:            {Available: evQ("500Mi"), Capacity: evQ("16Gi")},
		SignalAllocatableMemoryAvailable: {Available: evQ("40Mi"), Capacity: evQ("14Gi")},
		SignalNodeFsAvailable:            {Available: evQ("1Gi"), Capacity: evQ("10Gi")},
		SignalNodeFsInodesFree:           {Available: resource.NewQuantity(900, resource.DecimalSI), Capacity: resource.NewQuantity(1000000, resource.DecimalSI)},
	}
	cases := []struct {
		name       string
		resource   corev1.ResourceName
		pod        *corev1.Pod
		stats      StatsFunc
		thresholds []Threshold
		obs        SignalObservations
		want       string
		wantAnn    map[string]string
	}{
		{
			name: "memory: threshold line and the containers above request", resource: corev1.ResourceMemory, pod: pod, stats: stats,
			thresholds: []Threshold{memHard}, obs: obs,
			want: "The node was low on resource: memory. Threshold quantity: 1Gi, available: 500Mi. " +
				"Container app was using 150Mi, request is 100Mi, has larger consumption of memory. " +
				"Container side was using 123456789, request is 0, has larger consumption of memory. ",
			wantAnn: map[string]string{"offending_containers": "app,side", "offending_containers_usage": "150Mi,123456789", "starved_resource": "memory"},
		},
		{
			name: "memory: first matching threshold with an observation wins; canonical form", resource: corev1.ResourceMemory, pod: pod, stats: stats,
			thresholds: []Threshold{nodefs, allocHard, memHard}, obs: obs,
			want: "The node was low on resource: memory. Threshold quantity: 50Mi, available: 40Mi. " +
				"Container app was using 150Mi, request is 100Mi, has larger consumption of memory. " +
				"Container side was using 123456789, request is 0, has larger consumption of memory. ",
			wantAnn: map[string]string{"offending_containers": "app,side", "offending_containers_usage": "150Mi,123456789", "starved_resource": "memory"},
		},
		{
			name: "memory: threshold without observation skipped", resource: corev1.ResourceMemory, pod: pod, stats: stats,
			thresholds: []Threshold{allocHard, memHard}, obs: SignalObservations{SignalMemoryAvailable: obs[SignalMemoryAvailable]},
			want: "The node was low on resource: memory. Threshold quantity: 1Gi, available: 500Mi. " +
				"Container app was using 150Mi, request is 100Mi, has larger consumption of memory. " +
				"Container side was using 123456789, request is 0, has larger consumption of memory. ",
			wantAnn: map[string]string{"offending_containers": "app,side", "offending_containers_usage": "150Mi,123456789", "starved_resource": "memory"},
		},
		{
			name: "ephemeral-storage: writable layer plus logs, percentage threshold in float32", resource: corev1.ResourceEphemeralStorage, pod: pod, stats: stats,
			thresholds: []Threshold{memHard, nodefs}, obs: obs,
			want: "The node was low on resource: ephemeral-storage. Threshold quantity: 1073741840, available: 1Gi. " +
				"Container app was using 1100Mi, request is 1Gi, has larger consumption of ephemeral-storage. ",
			wantAnn: map[string]string{"offending_containers": "app", "offending_containers_usage": "1100Mi", "starved_resource": "ephemeral-storage"},
		},
		{
			name: "inodes: no container lines, decimal quantities", resource: ResourceInodes, pod: pod, stats: stats,
			thresholds: []Threshold{inodes}, obs: obs,
			want:    "The node was low on resource: inodes. Threshold quantity: 1k, available: 900. ",
			wantAnn: map[string]string{"offending_containers": "", "offending_containers_usage": "", "starved_resource": "inodes"},
		},
		{
			name: "no stats: no container lines and no annotations", resource: corev1.ResourceMemory, pod: pod, stats: evStats(nil),
			thresholds: []Threshold{memHard}, obs: obs,
			want:    "The node was low on resource: memory. Threshold quantity: 1Gi, available: 500Mi. ",
			wantAnn: map[string]string{},
		},
		{
			name: "no threshold for the resource", resource: ResourcePIDs, pod: pod, stats: stats,
			thresholds: []Threshold{memHard}, obs: obs,
			want:    "The node was low on resource: pids. ",
			wantAnn: map[string]string{"offending_containers": "", "offending_containers_usage": "", "starved_resource": "pids"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, ann := EvictionMessage(tc.resource, tc.pod, tc.stats, tc.thresholds, tc.obs, true)
			if msg != tc.want {
				t.Errorf("message\n got %q\nwant %q", msg, tc.want)
			}
			if !reflect.DeepEqual(ann, tc.wantAnn) {
				t.Errorf("annotations = %v, want %v", ann, tc.wantAnn)
			}
		})
	}
	// An init container over its request is listed after the regular containers.
	over := evStats(map[*corev1.Pod]*PodStats{pod: {Containers: evContainers(map[string]ContainerStats{
		"init": {MemoryWorkingSet: evMiB(20)}, "app": {MemoryWorkingSet: evMiB(150)},
	})}})
	if msg, ann := EvictionMessage(corev1.ResourceMemory, pod, over, nil, nil, true); msg != "The node was low on resource: memory. "+
		"Container app was using 150Mi, request is 100Mi, has larger consumption of memory. "+
		"Container init was using 20Mi, request is 10Mi, has larger consumption of memory. " || ann["offending_containers"] != "app,init" {
		t.Errorf("init container: %q %v", msg, ann)
	}
	// Usage equal to the request is not "larger consumption".
	equal := evStats(map[*corev1.Pod]*PodStats{pod: {Containers: evContainers(map[string]ContainerStats{"app": {MemoryWorkingSet: evMiB(100)}})}})
	if msg, _ := EvictionMessage(corev1.ResourceMemory, pod, equal, nil, nil, true); msg != "The node was low on resource: memory. " {
		t.Errorf("equal usage: %q", msg)
	}
}

// A pod with pod-level resources: upstream prints its working set against its pod-level
// memory request before the container lines, compared with nothing (here 300Mi against
// 512Mi, below it, still printed), and names it in offending_pod / offending_pod_usage. The
// line needs a pod-level memory request (a cpu-only one sets pod-level resources but prints
// nothing), the memory resource, and the gate.
func TestEvictionMessagePodLevelResources(t *testing.T) {
	app := evCtr("app", evRL("memory", "100Mi"), nil)
	pod := evPod("db", 0, app)
	pod.Spec.Resources = &corev1.ResourceRequirements{Requests: evRL("memory", "512Mi", "cpu", "1")}
	stats := evStats(map[*corev1.Pod]*PodStats{pod: {MemoryWorkingSet: evMiB(300), Containers: evContainers(map[string]ContainerStats{
		"app": {MemoryWorkingSet: evMiB(150)}})}})
	th := []Threshold{{Signal: SignalMemoryAvailable, Value: evQty("1Gi")}}
	obs := SignalObservations{SignalMemoryAvailable: {Available: evQ("500Mi"), Capacity: evQ("16Gi")}}
	msg, ann := EvictionMessage(corev1.ResourceMemory, pod, stats, th, obs, true)
	want := "The node was low on resource: memory. Threshold quantity: 1Gi, available: 500Mi. " +
		"Pod db was using 300Mi, request is 512Mi, has larger consumption of memory. " +
		"Container app was using 150Mi, request is 100Mi, has larger consumption of memory. "
	if msg != want {
		t.Errorf("message\n%q\nwant\n%q", msg, want)
	}
	wantAnn := map[string]string{"offending_pod": "db", "offending_pod_usage": "300Mi", "offending_containers": "app",
		"offending_containers_usage": "150Mi", "starved_resource": "memory"}
	if !reflect.DeepEqual(ann, wantAnn) {
		t.Errorf("annotations %v, want %v", ann, wantAnn)
	}
	wantOff := "The node was low on resource: memory. Threshold quantity: 1Gi, available: 500Mi. " +
		"Container app was using 150Mi, request is 100Mi, has larger consumption of memory. "
	if msg, ann := EvictionMessage(corev1.ResourceMemory, pod, stats, th, obs, false); ann["offending_pod"] != "" || msg != wantOff {
		t.Errorf("gate off: %q %v; want no pod line", msg, ann)
	}
	pod.Spec.Resources = &corev1.ResourceRequirements{Requests: evRL("cpu", "1")}
	if _, ann := EvictionMessage(corev1.ResourceMemory, pod, stats, th, obs, true); ann["offending_pod"] != "" {
		t.Errorf("cpu-only pod-level request: %v; want no offending_pod", ann)
	}
}

func TestLocalStorageMessages(t *testing.T) {
	cases := []struct{ got, want string }{
		{EmptyDirMessage("cache", resource.MustParse("1Gi")), `Usage of EmptyDir volume "cache" exceeds the limit "1Gi". `},
		{EmptyDirMessage("cache", resource.MustParse("1024Mi")), `Usage of EmptyDir volume "cache" exceeds the limit "1Gi". `},
		{PodEphemeralStorageMessage(resource.MustParse("2Gi")), "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. "},
		{ContainerEphemeralStorageMessage("app", resource.MustParse("500Mi")), `Container app exceeded its local ephemeral storage limit "500Mi". `},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestEmptyDirLimitExceeded(t *testing.T) {
	vol := func(name string, medium corev1.StorageMedium, limit string) corev1.Volume {
		ed := &corev1.EmptyDirVolumeSource{Medium: medium}
		if limit != "" {
			ed.SizeLimit = evQ(limit)
		}
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: ed}}
	}
	pod := evPod("p", 0, evCtr("app", nil, nil))
	pod.Spec.Volumes = []corev1.Volume{
		vol("unlimited", "", ""),
		vol("zero", "", "0"),
		vol("cache", "", "1Gi"),
		vol("shm", corev1.StorageMediumMemory, "64Mi"),
		vol("unreported", "", "1Mi"),
		{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}},
	}
	cases := []struct {
		name    string
		volumes map[string]int64
		want    string
	}{
		{"under every limit", map[string]int64{"unlimited": 1 << 40, "zero": 1 << 40, "cache": 1 << 30, "shm": 64 << 20, "host": 1 << 40}, ""},
		{"one byte over", map[string]int64{"cache": 1<<30 + 1}, `Usage of EmptyDir volume "cache" exceeds the limit "1Gi". `},
		{"memory-backed emptyDir counts", map[string]int64{"shm": 65 << 20}, `Usage of EmptyDir volume "shm" exceeds the limit "64Mi". `},
		{"first in spec order", map[string]int64{"shm": 65 << 20, "cache": 2 << 30}, `Usage of EmptyDir volume "cache" exceeds the limit "1Gi". `},
		{"no usage reported", map[string]int64{}, ""},
	}
	for _, tc := range cases {
		msg, ok := EmptyDirLimitExceeded(pod, &PodStats{Volumes: tc.volumes})
		if msg != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: got %q, %v; want %q", tc.name, msg, ok, tc.want)
		}
	}
	if _, ok := EmptyDirLimitExceeded(pod, nil); ok {
		t.Error("nil stats evicted")
	}
}

func TestPodEphemeralStorageLimitExceeded(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	twoLimits := evPod("p", 0, evCtr("a", nil, evRL("ephemeral-storage", "1Gi")), evCtr("b", nil, evRL("ephemeral-storage", "1Gi")))
	oneLimit := evPod("p", 0, evCtr("a", nil, evRL("ephemeral-storage", "1Gi")), evCtr("b", nil, nil))
	noLimit := evPod("p", 0, evCtr("a", nil, nil))
	bigInit := evPod("p", 0, evCtr("a", nil, evRL("ephemeral-storage", "1Gi")))
	bigInit.Spec.InitContainers = []corev1.Container{evCtr("init", nil, evRL("ephemeral-storage", "3Gi"))}
	withSidecar := evPod("p", 0, evCtr("a", nil, evRL("ephemeral-storage", "1Gi")))
	sc := evCtr("log", nil, evRL("ephemeral-storage", "512Mi"))
	sc.RestartPolicy = &always
	withSidecar.Spec.InitContainers = []corev1.Container{sc}
	cases := []struct {
		name  string
		pod   *corev1.Pod
		stats PodStats
		want  string
	}{
		{"at the summed limit", twoLimits, PodStats{RootFsUsed: 1 << 30, LogsUsed: 1 << 29, LocalVolumesUsed: 1 << 29}, ""},
		{"over the summed limit", twoLimits, PodStats{RootFsUsed: 1 << 30, LogsUsed: 1 << 29, LocalVolumesUsed: 1<<29 + 1}, "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. "},
		{"a container without a limit adds usage only", oneLimit, PodStats{RootFsUsed: 1<<30 + 1}, "Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. "},
		{"no container declares a limit", noLimit, PodStats{RootFsUsed: 1 << 50}, ""},
		{"an init container's larger limit wins", bigInit, PodStats{RootFsUsed: 2 << 30}, ""},
		{"sidecar limits add", withSidecar, PodStats{RootFsUsed: 1536<<20 + 1}, "Pod ephemeral local storage usage exceeds the total limit of containers 1536Mi. "},
	}
	for _, tc := range cases {
		st := tc.stats
		msg, ok := PodEphemeralStorageLimitExceeded(tc.pod, &st)
		if msg != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: got %q, %v; want %q", tc.name, msg, ok, tc.want)
		}
	}
}

func TestContainerEphemeralStorageLimitExceeded(t *testing.T) {
	pod := evPod("p", 0,
		evCtr("nolimit", nil, nil),
		evCtr("app", nil, evRL("ephemeral-storage", "500Mi")),
		evCtr("zero", nil, evRL("ephemeral-storage", "0")),
	)
	pod.Spec.InitContainers = []corev1.Container{evCtr("init", nil, evRL("ephemeral-storage", "1Mi"))}
	cases := []struct {
		name      string
		dedicated bool
		stats     map[string]ContainerStats
		want      string
	}{
		{"layer plus logs over", false, map[string]ContainerStats{"app": {RootFsUsed: 400 << 20, LogsUsed: 100<<20 + 1}}, `Container app exceeded its local ephemeral storage limit "500Mi". `},
		{"layer plus logs at the limit", false, map[string]ContainerStats{"app": {RootFsUsed: 400 << 20, LogsUsed: 100 << 20}}, ""},
		{"dedicated imagefs: logs only", true, map[string]ContainerStats{"app": {RootFsUsed: 1 << 40, LogsUsed: 100 << 20}}, ""},
		{"dedicated imagefs: logs over", true, map[string]ContainerStats{"app": {LogsUsed: 501 << 20}}, `Container app exceeded its local ephemeral storage limit "500Mi". `},
		{"init containers are not checked; zero limits ignored", false, map[string]ContainerStats{"init": {RootFsUsed: 1 << 30}, "zero": {RootFsUsed: 1 << 30}, "nolimit": {RootFsUsed: 1 << 40}}, ""},
		{"no stats for the container", false, map[string]ContainerStats{}, ""},
	}
	for _, tc := range cases {
		msg, ok := ContainerEphemeralStorageLimitExceeded(pod, &PodStats{Containers: evContainers(tc.stats)}, tc.dedicated)
		if msg != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: got %q, %v; want %q", tc.name, msg, ok, tc.want)
		}
	}
}

// evContainers is a pod's per-container figures, from a map by container name.
func evContainers(byName map[string]ContainerStats) []ContainerStats {
	var out []ContainerStats
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		cs := byName[name]
		cs.Name = name
		out = append(out, cs)
	}
	return out
}

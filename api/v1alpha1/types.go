// Package v1alpha1 holds the Go form of a nodesim scenario (apiVersion nodesim/v1alpha1),
// the contract described in the README's scenario reference. The loader in package
// scenarios decodes files into these types and validates them; the simulated node reads
// them. Field names and JSON tags are the file's field names.
package v1alpha1

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// APIVersion and Kind identify a scenario document.
const (
	APIVersion = "nodesim/v1alpha1"
	Kind       = "Scenario"
)

// Scenario is one scenario document.
type Scenario struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Spec       Spec     `json:"spec"`
}

// Metadata names the scenario.
type Metadata struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// StopWhen values.
const (
	StopNever            = "never"
	StopAllPodsTerminal  = "allPodsTerminal"
	SourceAPI            = "api"
	SourceFile           = "file"
	CgroupV1             = "v1"
	CgroupV2             = "v2"
	ImageFsShared        = "shared"
	ImageFsSeparate      = "separate"
	DefaultNodeName      = "node-1"
	DefaultImageSizeMiB  = 100
	DefaultPullBandwidth = "50Mi"
)

// Spec is what the scenario simulates.
type Spec struct {
	Seed              *int64                                     `json:"seed,omitempty"`
	Duration          Duration                                   `json:"duration"`
	StopWhen          string                                     `json:"stopWhen,omitempty"`
	Node              Node                                       `json:"node"`
	Kubelet           *kubeletconfigv1beta1.KubeletConfiguration `json:"kubelet,omitempty"`
	KubeletConfigFile string                                     `json:"kubeletConfigFile,omitempty"`
	Runtime           Runtime                                    `json:"runtime"`
	Pods              []PodEntry                                 `json:"pods,omitempty"`
	PodFiles          []string                                   `json:"podFiles,omitempty"`
	// PriorityClasses are scheduling.k8s.io/v1 PriorityClass objects that pods' priorityClassName
	// resolves against, beside the built-in system-node-critical and system-cluster-critical.
	PriorityClasses []schedulingv1.PriorityClass `json:"priorityClasses,omitempty"`
	Events          []Event                      `json:"events,omitempty"`
	Expect          []Expectation                `json:"expect,omitempty"`
}

// Node describes the machine.
type Node struct {
	Name            string              `json:"name,omitempty"`
	Capacity        corev1.ResourceList `json:"capacity,omitempty"`
	Inodes          *int64              `json:"inodes,omitempty"`
	Pids            *int64              `json:"pids,omitempty"`
	CgroupVersion   string              `json:"cgroupVersion,omitempty"`
	ImageFs         string              `json:"imageFs,omitempty"`
	ImageFsCapacity *resource.Quantity  `json:"imageFsCapacity,omitempty"`
	SystemUsage     *SystemUsage        `json:"systemUsage,omitempty"`
}

// SystemUsage is usage outside pods: the kernel, system daemons, the runtime.
type SystemUsage struct {
	Memory Program `json:"memory,omitempty"`
	Disk   Program `json:"disk,omitempty"`
}

// Runtime configures the fake CRI.
type Runtime struct {
	Latency       Latency            `json:"latency"`
	PullBandwidth *resource.Quantity `json:"pullBandwidth,omitempty"`
	Images        []Image            `json:"images,omitempty"`
	Failures      []Failure          `json:"failures,omitempty"`
}

// Latency is how long each CRI call takes.
type Latency struct {
	RunPodSandbox              *Duration `json:"runPodSandbox,omitempty"`
	StopPodSandbox             *Duration `json:"stopPodSandbox,omitempty"`
	CreateContainer            *Duration `json:"createContainer,omitempty"`
	StartContainer             *Duration `json:"startContainer,omitempty"`
	StopContainer              *Duration `json:"stopContainer,omitempty"`
	RemoveContainer            *Duration `json:"removeContainer,omitempty"`
	ListPodSandbox             *Duration `json:"listPodSandbox,omitempty"`
	ListContainersPerContainer *Duration `json:"listContainersPerContainer,omitempty"`
	ContainerStatus            *Duration `json:"containerStatus,omitempty"`
}

// Image is an image the runtime knows.
type Image struct {
	Name    string             `json:"name"`
	Size    *resource.Quantity `json:"size,omitempty"`
	Present bool               `json:"present,omitempty"`
}

// Failure injects CRI errors for one call, optionally for one image and a time window.
type Failure struct {
	Call  string    `json:"call"`
	Image string    `json:"image,omitempty"`
	From  *Duration `json:"from,omitempty"`
	To    *Duration `json:"to,omitempty"`
	Error string    `json:"error"`
}

// PodEntry brings one pod (or Replicas copies) to the kubelet, or the pods a workload's
// controller would create on this node: exactly one of Pod and the workload fields is set.
type PodEntry struct {
	At       Duration   `json:"at,omitempty"`
	Source   string     `json:"source,omitempty"`
	Replicas *int32     `json:"replicas,omitempty"`
	Pod      corev1.Pod `json:"pod"`
	// The workloads, each a manifest of its kind, expanded into pods named and labelled as
	// their controllers name and label them.
	Deployment  *appsv1.Deployment  `json:"deployment,omitempty"`
	ReplicaSet  *appsv1.ReplicaSet  `json:"replicaSet,omitempty"`
	StatefulSet *appsv1.StatefulSet `json:"statefulSet,omitempty"`
	DaemonSet   *appsv1.DaemonSet   `json:"daemonSet,omitempty"`
	Job         *batchv1.Job        `json:"job,omitempty"`
	CronJob     *batchv1.CronJob    `json:"cronJob,omitempty"`
	// Behavior is by container name of the pod, or of the workload's pod template.
	Behavior map[string]Behavior `json:"behavior,omitempty"`
}

// Hook is what a lifecycle hook does when the kubelet runs it: how long it takes, and
// whether it fails.
type Hook struct {
	Duration *Duration `json:"duration,omitempty"`
	Fail     bool      `json:"fail,omitempty"`
}

// Behavior is what a container's process does. Runs overrides fields per run: run 1, run 2,
// ...; the last entry repeats.
type Behavior struct {
	Startup  *Duration `json:"startup,omitempty"`
	Shutdown *Duration `json:"shutdown,omitempty"`
	PreStop  *Duration `json:"preStop,omitempty"`
	// PostStart is what the container's postStart hook does, if the spec has one.
	PostStart *Hook              `json:"postStart,omitempty"`
	Memory    Program            `json:"memory,omitempty"`
	Disk      Program            `json:"disk,omitempty"`
	Volumes   map[string]Program `json:"volumes,omitempty"`
	Pids      Program            `json:"pids,omitempty"`
	Exit      *Exit              `json:"exit,omitempty"`
	Runs      []Behavior         `json:"runs,omitempty"`
	Probes    *ProbeScripts      `json:"probes,omitempty"`
}

// Exit ends a run of the process After its start with Code.
type Exit struct {
	After Duration `json:"after"`
	Code  int32    `json:"code"`
}

// ProbeScripts say what each probe sees, by time since the container started.
type ProbeScripts struct {
	Liveness  []ProbeStep `json:"liveness,omitempty"`
	Readiness []ProbeStep `json:"readiness,omitempty"`
	Startup   []ProbeStep `json:"startup,omitempty"`
}

// ProbeStep is the probe result over [From, To) since the container started. A probe that
// takes Latency longer than its timeoutSeconds fails whatever Result says.
type ProbeStep struct {
	From    *Duration `json:"from,omitempty"`
	To      *Duration `json:"to,omitempty"`
	Result  string    `json:"result,omitempty"`
	Latency *Duration `json:"latency,omitempty"`
}

// Probe results a script may give.
const (
	ProbeSuccess = "success"
	ProbeFailure = "failure"
)

// Event is an outside action at a time. Exactly one action is set.
type Event struct {
	At                 Duration     `json:"at"`
	DeletePod          string       `json:"deletePod,omitempty"`
	GracePeriodSeconds *int64       `json:"gracePeriodSeconds,omitempty"`
	UpdatePod          string       `json:"updatePod,omitempty"`
	Pod                *corev1.Pod  `json:"pod,omitempty"`
	SetUsage           *SetUsage    `json:"setUsage,omitempty"`
	SetSystemUsage     *SystemUsage `json:"setSystemUsage,omitempty"`
	RestartKubelet     *bool        `json:"restartKubelet,omitempty"`
	RuntimeDown        *Duration    `json:"runtimeDown,omitempty"`
}

// SetUsage replaces a container's usage programs from the event's time on.
type SetUsage struct {
	Pod       string             `json:"pod"`
	Container string             `json:"container"`
	Memory    Program            `json:"memory,omitempty"`
	Disk      Program            `json:"disk,omitempty"`
	Volumes   map[string]Program `json:"volumes,omitempty"`
	Pids      Program            `json:"pids,omitempty"`
}

// Expectation is one assertion checked at the end of the run; exactly one field is set.
type Expectation struct {
	Evicted           *ExpectEvicted           `json:"evicted,omitempty"`
	NotEvicted        []string                 `json:"notEvicted,omitempty"`
	OOMKilled         *ExpectContainerCount    `json:"oomKilled,omitempty"`
	Restarts          *ExpectContainerCount    `json:"restarts,omitempty"`
	Phase             *ExpectPhase             `json:"phase,omitempty"`
	AdmissionRejected *ExpectAdmissionRejected `json:"admissionRejected,omitempty"`
	NodeCondition     *ExpectNodeCondition     `json:"nodeCondition,omitempty"`
	Latency           *ExpectLatency           `json:"latency,omitempty"`
	Count             *ExpectCount             `json:"count,omitempty"`
}

// ExpectEvicted: these pods were evicted (in this order when Order is strict), within the window.
type ExpectEvicted struct {
	Pods   []string `json:"pods"`
	Order  string   `json:"order,omitempty"`
	Within Window   `json:"within,omitempty"`
}

// ExpectContainerCount bounds a per-container count (restarts, OOM kills).
type ExpectContainerCount struct {
	Pod       string `json:"pod"`
	Container string `json:"container,omitempty"`
	Min       *int32 `json:"min,omitempty"`
	Max       *int32 `json:"max,omitempty"`
}

// ExpectPhase: the pod's phase at a time (end of run when At is unset).
type ExpectPhase struct {
	Pod string          `json:"pod"`
	Is  corev1.PodPhase `json:"is"`
	At  *Duration       `json:"at,omitempty"`
}

// ExpectAdmissionRejected: these pods were rejected at admission, with this reason if given.
type ExpectAdmissionRejected struct {
	Pods   []string `json:"pods"`
	Reason string   `json:"reason,omitempty"`
}

// ExpectNodeCondition: a node condition first took a status within a window.
type ExpectNodeCondition struct {
	Type        corev1.NodeConditionType `json:"type"`
	Status      corev1.ConditionStatus   `json:"status"`
	FirstWithin Window                   `json:"firstWithin,omitempty"`
	Never       bool                     `json:"never,omitempty"`
}

// ExpectLatency bounds a latency percentile.
type ExpectLatency struct {
	Metric     string   `json:"metric"`
	Percentile float64  `json:"percentile"`
	Max        Duration `json:"max"`
}

// ExpectCount bounds a run-wide counter.
type ExpectCount struct {
	Metric string `json:"metric"`
	Min    *int64 `json:"min,omitempty"`
	Max    *int64 `json:"max,omitempty"`
}

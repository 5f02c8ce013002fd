// Package eviction models the kubelet's node-pressure eviction manager (upstream
// pkg/kubelet/eviction): eviction signals and thresholds, the bookkeeping that turns a
// stats sample into node conditions and actionable thresholds, the ranking of pods for
// eviction, the admission check under pressure, and the messages the kubelet writes into
// events and pod status.
//
// Upstream leaves several orders to Go map iteration or to an unstable sort; nodesim
// replaces every one of them with a fixed order, documented where it is chosen, so that a
// scenario replays identically. The package holds no mutable package-level state.
package eviction

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"nodesim/trace"
)

// Signal names a measurement the eviction manager compares against thresholds. Every
// signal is an "available" figure: a threshold is met when the figure drops below it.
type Signal string

// The nine signals upstream's validSignal accepts.
const (
	// SignalMemoryAvailable is node memory capacity minus the root cgroup's working set.
	SignalMemoryAvailable Signal = "memory.available"
	// SignalAllocatableMemoryAvailable is the kubepods cgroup's limit minus its working set.
	SignalAllocatableMemoryAvailable Signal = "allocatableMemory.available"
	// SignalNodeFsAvailable is free bytes on the filesystem holding the kubelet's root dir.
	SignalNodeFsAvailable Signal = "nodefs.available"
	// SignalNodeFsInodesFree is free inodes on that filesystem.
	SignalNodeFsInodesFree Signal = "nodefs.inodesFree"
	// SignalImageFsAvailable is free bytes on the runtime's image filesystem.
	SignalImageFsAvailable Signal = "imagefs.available"
	// SignalImageFsInodesFree is free inodes on the runtime's image filesystem.
	SignalImageFsInodesFree Signal = "imagefs.inodesFree"
	// SignalContainerFsAvailable is free bytes on the writable-layer filesystem, when the
	// runtime reports one separately.
	SignalContainerFsAvailable Signal = "containerfs.available"
	// SignalContainerFsInodesFree is free inodes on the writable-layer filesystem.
	SignalContainerFsInodesFree Signal = "containerfs.inodesFree"
	// SignalPIDAvailable is the PID limit minus the number of tasks on the node.
	SignalPIDAvailable Signal = "pid.available"
)

// Signals lists every valid signal in the fixed order nodesim uses wherever upstream's
// order is random (map iteration). A fresh slice is returned each call, so callers may
// keep or modify it.
func Signals() []Signal { return append([]Signal(nil), signalOrder[:]...) }

// signalOrder is Signals(), in an array that per-signal memos can be sized by.
var signalOrder = [...]Signal{SignalMemoryAvailable, SignalAllocatableMemoryAvailable, SignalNodeFsAvailable,
	SignalNodeFsInodesFree, SignalImageFsAvailable, SignalImageFsInodesFree, SignalContainerFsAvailable,
	SignalContainerFsInodesFree, SignalPIDAvailable}

// signalIndex is the signal's position in Signals(), or -1 for an unknown signal. A switch
// keeps the lookup free of package-level maps.
func signalIndex(s Signal) int {
	switch s {
	case SignalMemoryAvailable:
		return 0
	case SignalAllocatableMemoryAvailable:
		return 1
	case SignalNodeFsAvailable:
		return 2
	case SignalNodeFsInodesFree:
		return 3
	case SignalImageFsAvailable:
		return 4
	case SignalImageFsInodesFree:
		return 5
	case SignalContainerFsAvailable:
		return 6
	case SignalContainerFsInodesFree:
		return 7
	case SignalPIDAvailable:
		return 8
	}
	return -1
}

// validSignal reports whether the signal is one of the nine upstream accepts.
func validSignal(s Signal) bool { return signalIndex(s) >= 0 }

// Resource names used for reclaim, events and messages. ephemeral-storage and memory are
// the API's names; "inodes" and "pids" are internal to upstream's eviction package and
// appear only in its events and messages ("Attempting to reclaim inodes").
const (
	ResourceInodes corev1.ResourceName = "inodes"
	ResourcePIDs   corev1.ResourceName = "pids"
)

// Reason is the pod status reason (and event reason) for an eviction or an admission
// rejection under pressure.
const Reason = "Evicted"

// Annotation keys upstream attaches to the eviction event on the threshold path.
const (
	OffendingContainersKey      = "offending_containers"
	OffendingContainersUsageKey = "offending_containers_usage"
	StarvedResourceKey          = "starved_resource"
	// OffendingPodKey and OffendingPodUsageKey name a pod with pod-level resources and its
	// memory working set, on a memory eviction.
	OffendingPodKey      = "offending_pod"
	OffendingPodUsageKey = "offending_pod_usage"
)

// SignalToNodeCondition is the node condition a met threshold on the signal raises, or ""
// for an unknown signal.
func SignalToNodeCondition(s Signal) corev1.NodeConditionType {
	switch s {
	case SignalMemoryAvailable, SignalAllocatableMemoryAvailable:
		return corev1.NodeMemoryPressure
	case SignalNodeFsAvailable, SignalNodeFsInodesFree, SignalImageFsAvailable,
		SignalImageFsInodesFree, SignalContainerFsAvailable, SignalContainerFsInodesFree:
		return corev1.NodeDiskPressure
	case SignalPIDAvailable:
		return corev1.NodePIDPressure
	}
	return ""
}

// SignalToResource is the resource the manager reclaims when the signal is under pressure:
// memory, ephemeral-storage, inodes or pids; "" for an unknown signal.
func SignalToResource(s Signal) corev1.ResourceName {
	switch s {
	case SignalMemoryAvailable, SignalAllocatableMemoryAvailable:
		return corev1.ResourceMemory
	case SignalNodeFsAvailable, SignalImageFsAvailable, SignalContainerFsAvailable:
		return corev1.ResourceEphemeralStorage
	case SignalNodeFsInodesFree, SignalImageFsInodesFree, SignalContainerFsInodesFree:
		return ResourceInodes
	case SignalPIDAvailable:
		return ResourcePIDs
	}
	return ""
}

// ThresholdValue is either a literal quantity or a fraction of the observed capacity.
// When Quantity is set it wins; Percentage is a float32 fraction (0.1 for "10%") because
// upstream parses it at 32-bit precision, and the rounding that introduces is observable
// in the threshold quantity (see GetThresholdQuantity).
type ThresholdValue struct {
	Quantity   *resource.Quantity
	Percentage float32
}

// Threshold is one configured eviction threshold. All signals use upstream's only
// operator, "less than", so there is no operator field.
type Threshold struct {
	Signal Signal
	Value  ThresholdValue
	// GracePeriod is how long the threshold must stay met before it is acted on; 0 makes
	// the threshold hard (a soft threshold configured with "0s" is therefore hard too, as
	// upstream).
	GracePeriod time.Duration
	// MinReclaim, when set, keeps an acted-on threshold met until available exceeds the
	// threshold by this much.
	MinReclaim *ThresholdValue
}

// IsHard reports whether the threshold acts without a grace period.
func (t Threshold) IsHard() bool { return t.GracePeriod == 0 }

// String renders the threshold in the flag syntax, for logs and reports:
// "memory.available<100Mi", "nodefs.available<10%", "memory.available<300Mi grace 1m30s".
func (t Threshold) String() string {
	s := string(t.Signal) + "<" + t.Value.String()
	if !t.IsHard() {
		s += " grace " + t.GracePeriod.String()
	}
	return s
}

// String renders the value as configured: a canonical quantity or a percentage.
func (v ThresholdValue) String() string {
	if v.Quantity != nil {
		q := v.Quantity.DeepCopy() // String caches into the receiver; leave shared values alone
		return q.String()
	}
	return strconv.FormatFloat(float64(v.Percentage*100), 'f', -1, 32) + "%"
}

// key identifies the value exactly: quantities by decimal value (so "1Gi" and "1024Mi"
// agree) and percentages by their float32 bits.
func (v ThresholdValue) key() string {
	if v.Quantity != nil {
		q := v.Quantity.DeepCopy()
		return q.AsDec().String()
	}
	return strconv.FormatFloat(float64(v.Percentage), 'g', -1, 32) + "%"
}

// Key is a stable identity for the threshold, used to key ThresholdsObservedAt. Upstream
// keys its map by the Threshold struct itself (pointer identity of the quantity); nodesim
// keys by value so that the key survives copying: signal, value, grace period and
// min-reclaim all take part.
func (t Threshold) Key() string {
	k := string(t.Signal) + "<" + t.Value.key() + " grace=" + t.GracePeriod.String()
	if t.MinReclaim != nil {
		k += " minReclaim=" + t.MinReclaim.key()
	}
	return k
}

// SignalObservation is one signal's figures from one stats sample. Percentages are taken
// of Capacity, which is the observation's own capacity (for allocatableMemory.available
// the kubepods limit), not the node's advertised capacity.
type SignalObservation struct {
	// Available may be negative: upstream converts an unsigned wrap-around back to int64.
	Available *resource.Quantity
	Capacity  *resource.Quantity
	// Time is the stats sample's timestamp; zero means unknown, which the fresh-stats
	// filter treats as always fresh.
	Time time.Time
}

// SignalObservations holds the observations of one pass; a signal without stats has no
// entry and thresholds on it are not met.
type SignalObservations map[Signal]SignalObservation

// ThresholdsObservedAt records when each currently met threshold was first met, keyed by
// Threshold.Key().
type ThresholdsObservedAt map[string]time.Time

// NodeConditionsObservedAt records when each pressure condition was last observed.
type NodeConditionsObservedAt map[corev1.NodeConditionType]time.Time

// PodStats is what the stats provider knows of a pod. A StatsFunc returning false (or a
// nil *PodStats) means the pod has no stats yet; ranking puts such pods first.
type PodStats struct {
	MemoryWorkingSet int64 // bytes, the pod cgroup's working set
	RootFsUsed       int64 // containers' writable layers, bytes
	LogsUsed         int64 // containers' logs, bytes
	// LocalVolumesUsed is the disk used by the pod's local volumes, which upstream ranks on:
	// hostPath volumes plus local ephemeral ones (emptyDir on the default medium,
	// configMap, gitRepo; see LocalVolumeNames).
	LocalVolumesUsed                             int64
	RootFsInodes, LogsInodes, LocalVolumesInodes int64
	Processes                                    int64
	// Volumes is each volume's reported usage by volume name, for emptyDir sizeLimit checks.
	Volumes map[string]int64
	// Containers holds per-container figures, one entry per container name (a name's
	// containers, dead ones included, added up), in no particular order: Container finds
	// one by name.
	Containers []ContainerStats
	// pod is the pod's namespace/name, kept with its record for housekeeping's trace
	// (checked against the pod at each sample, so a reused UID gets its own).
	pod string
	// keyOf is the pod object pod was last found to be the key of: an object's namespace
	// and name never change, so the same object needs no comparison of the strings.
	keyOf *corev1.Pod
	// attrs are the attributes of the last stats event recorded for the pod, for the
	// figures in traced; a sample with the same figures records the same slice again
	// (recorded attributes are never written, so events may share them).
	attrs  []trace.Attr
	traced [3]int64
	// mark is the runtime's usage mark of the pod when it was sampled, and volumesRead is
	// set when the sample took in the latest volume figures (volumeStats clears it when
	// it refreshes them): with both, a new sample would give the same record.
	mark        uint64
	volumesRead bool
}

// ContainerStats is one container's usage, for eviction messages and container
// ephemeral-storage limits.
type ContainerStats struct {
	Name                                   string
	MemoryWorkingSet, RootFsUsed, LogsUsed int64
}

// Container is the figures of the pod's container named name, false when there are none.
// A pod has a handful of containers, so a walk finds it as fast as a map lookup would.
func (st *PodStats) Container(name string) (ContainerStats, bool) {
	for i := range st.Containers {
		if st.Containers[i].Name == name {
			return st.Containers[i], true
		}
	}
	return ContainerStats{}, false
}

// StatsFunc looks up a pod's stats from the current sample.
type StatsFunc func(pod *corev1.Pod) (*PodStats, bool)

// FsMeasure says which usages count toward a disk signal's ranking (upstream's
// fsStatsType lists). Upstream's "images" entry contributes nothing per pod and has no
// field here.
type FsMeasure struct {
	Root, Logs, LocalVolumes bool
}

// Candidate is a pod's position in a ranking, for reports: the figures that decided it.
type Candidate struct {
	Pod             string // namespace/name
	ExceedsRequests bool
	Priority        int32
	// UsageAboveRequests is usage minus request for memory and disk signals (for inode
	// signals: inodes minus the ephemeral-storage byte request, as upstream), and the
	// process count for pid.available. A pod without stats counts as using nothing.
	UsageAboveRequests resource.Quantity
}

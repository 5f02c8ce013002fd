// Package podworkers is the kubelet's per-pod state machine (upstream
// pkg/kubelet/pod_workers.go): each pod has a worker that moves one way through syncing,
// terminating and terminated, takes at most one pending update at a time (newer updates
// replace older ones, but termination, deletion, eviction and grace shortening are latched
// and never lost), waits for a pod cache entry newer than its last sync before each round,
// and requeues itself after a resync interval, a back-off or a phase transition.
//
// Upstream runs one goroutine per pod (podWorkerLoop). Here each worker is a process on its
// own track ("podWorker ns/name"); its blocking waits (the pod cache, the sync functions'
// CRI calls) are continuations.
package podworkers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"nodesim/model/container"
	"nodesim/trace"
)

// UpdateType is why UpdatePod was called.
type UpdateType int

// Update types, as upstream's kubetypes.SyncPodType.
const (
	SyncPodSync UpdateType = iota
	SyncPodUpdate
	SyncPodCreate
	SyncPodKill
)

func (t UpdateType) String() string {
	switch t {
	case SyncPodCreate:
		return "create"
	case SyncPodUpdate:
		return "update"
	case SyncPodKill:
		return "kill"
	default:
		return "sync"
	}
}

// WorkType is the worker's state: which sync function it runs.
type WorkType int

// Work types.
const (
	SyncPodWork WorkType = iota
	TerminatingPod
	TerminatedPod
)

func (w WorkType) String() string {
	switch w {
	case TerminatingPod:
		return "terminating"
	case TerminatedPod:
		return "terminated"
	default:
		return "syncing"
	}
}

// KillPodOptions carries a kill request (eviction, preemption, orphan cleanup).
type KillPodOptions struct {
	// Completed is called when the pod has finished terminating (upstream closes a channel).
	Completed func()
	// Evict marks the kill as an eviction.
	Evict bool
	// PodStatusFunc lets the caller stamp the final status (e.g. reason Evicted).
	PodStatusFunc func(*corev1.PodStatus)
	// PodTerminationGracePeriodSecondsOverride replaces the pod's grace period.
	PodTerminationGracePeriodSecondsOverride *int64
}

// UpdatePodOptions is one request to a pod worker.
type UpdatePodOptions struct {
	UpdateType     UpdateType
	StartTime      time.Time
	Pod            *corev1.Pod
	MirrorPod      *corev1.Pod
	RunningPod     *container.Pod
	KillPodOptions *KillPodOptions
}

// SyncHandler runs the sync functions (the kubelet). Each reports through its done
// continuation, since the work inside takes simulated time. SyncPod is also given the
// worker's HandlerState, where the handler keeps what it carries from one sync of the pod
// to the next.
type SyncHandler interface {
	SyncPod(updateType UpdateType, pod, mirrorPod *corev1.Pod, podStatus *container.PodStatus, state *HandlerState, done func(isTerminal bool, err error))
	SyncTerminatingPod(pod *corev1.Pod, podStatus *container.PodStatus, gracePeriod *int64, podStatusFn func(*corev1.PodStatus), done func(err error))
	SyncTerminatingRuntimePod(runningPod *container.Pod, done func(err error))
	SyncTerminatedPod(pod *corev1.Pod, podStatus *container.PodStatus, done func(err error))
}

// HandlerState is a pod worker's place for its SyncHandler's own state of the pod: the
// worker hands the same one to every SyncPod it runs, and it goes with the worker, so the
// handler finds its state without looking the pod up. A worker runs SyncPod only until the
// pod starts terminating, and a pod that is started again after it terminated gets a new
// worker: the handler's state never outlives the pod's syncing life.
type HandlerState struct {
	Value any
}

// WorkQueue is where a worker schedules its next periodic sync (shared with the syncLoop).
type WorkQueue interface {
	Enqueue(uid types.UID, delay time.Duration)
}

// BackoffError is an error that says when a back-off ends (crash-loop back-off). Since
// v1.35 the worker requeues the pod for that time instead of the fixed error back-off.
type BackoffError interface {
	error
	BackoffExpiry() time.Time
}

// Trace kinds recorded by pod workers.
const (
	KindUpdatePod   trace.Kind = "UpdatePod"
	KindWorkerState trace.Kind = "workerState"
	KindWaitCache   trace.Kind = "waitCache"
	KindCacheReady  trace.Kind = "cacheReady"
	KindSyncStart   trace.Kind = "syncStart"
	KindSyncEnd     trace.Kind = "syncEnd"
	KindRequeue     trace.Kind = "requeue"
	KindForget      trace.Kind = "workerForgotten"
	KindCancelSync  trace.Kind = "cancelSync"
	// KindGracePeriod is the kill's grace period UpdatePod settled on when the pod started
	// terminating or its grace period shrank. Attrs: grace (seconds), from (where it came
	// from), and floor=1 when it was raised to the 1s floor.
	KindGracePeriod trace.Kind = "gracePeriod"
)

// Upstream's periods (pkg/kubelet/kubelet.go and pod_workers.go).
const (
	BackOffPeriod                    = 10 * time.Second
	BackOffOnTransientErrorPeriod    = time.Second
	WorkerResyncIntervalJitterFactor = 0.5
	WorkerBackOffPeriodJitterFactor  = 0.5
)

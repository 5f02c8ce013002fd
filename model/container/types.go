// Package container holds the runtime-level view of pods that the kubelet's components
// share, as upstream's pkg/kubelet/container does: what the runtime reports (PodStatus,
// Status, SandboxStatus), the runtime pod list PLEG relists, and the pod cache.
package container

import (
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// State is a container's runtime state.
type State string

// Container states, as the CRI reports them.
const (
	StateCreated State = "created"
	StateRunning State = "running"
	StateExited  State = "exited"
	StateUnknown State = "unknown"
)

// SandboxState is a sandbox's runtime state.
type SandboxState string

// Sandbox states.
const (
	SandboxReady    SandboxState = "ready"
	SandboxNotReady SandboxState = "notready"
)

// Status is one container instance as the runtime reports it.
type Status struct {
	ID           string
	Name         string
	State        State
	CreatedAt    time.Time
	StartedAt    time.Time
	FinishedAt   time.Time
	ExitCode     int
	Image        string
	Hash         uint64
	RestartCount int
	Reason       string
	Message      string
}

// SandboxStatus is one pod sandbox as the runtime reports it.
type SandboxStatus struct {
	ID        string
	State     SandboxState
	Attempt   uint32
	CreatedAt time.Time
	IP        string
}

// PodStatus is everything the runtime knows about one pod: every container instance and
// sandbox, newest first.
type PodStatus struct {
	ID                types.UID
	Name, Namespace   string
	IPs               []string
	ContainerStatuses []*Status
	SandboxStatuses   []*SandboxStatus
	TimeStamp         time.Time
}

// FindContainerStatusByName returns the newest instance of the named container, or nil.
func (s *PodStatus) FindContainerStatusByName(name string) *Status {
	if s == nil {
		return nil
	}
	for _, c := range s.ContainerStatuses {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// RunningContainerStatuses returns the instances in the running state.
func (s *PodStatus) RunningContainerStatuses() []*Status {
	var out []*Status
	if s == nil {
		return nil
	}
	for _, c := range s.ContainerStatuses {
		if c.State == StateRunning {
			out = append(out, c)
		}
	}
	return out
}

// Pod is a pod as the runtime lists it (GetPods): its containers and sandboxes.
type Pod struct {
	ID              types.UID
	Name, Namespace string
	Containers      []*Container
	Sandboxes       []*Container
}

// NextChanged is the first place from i on at which listings a and b, of the same length,
// hold different pod objects, len(a) if there is none. The runtime gives an unchanged pod
// as the same object from listing to listing, so the walkers of two listings of the same
// pods (PLEG's relist, housekeeping's orphan check) find the few changed ones this way,
// comparing pointers only.
func NextChanged(a, b []*Pod, i int) int {
	b = b[:len(a)]
	for ; i < len(a); i++ {
		if a[i] != b[i] {
			break
		}
	}
	return i
}

// Container is one listed container or sandbox.
type Container struct {
	ID    string
	Name  string
	Image string
	Hash  uint64
	State State
}

// HashContainer is the spec hash the kubelet stores on a container to notice spec changes.
// Since v1.31 upstream hashes only the fields that may change on a running pod (the name and
// the image), so a kubelet upgrade does not restart containers.
func HashContainer(c *corev1.Container) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(c.Name))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(c.Image))
	return h.Sum64()
}

// PodFullName is name_namespace, the key upstream uses for static pods.
func PodFullName(pod *corev1.Pod) string { return pod.Name + "_" + pod.Namespace }

// Key is namespace/name, how reports name a pod.
func Key(pod *corev1.Pod) string { return pod.Namespace + "/" + pod.Name }

// ConvertPodStatusToRunningPod is the runtime pod a kill works on: the running containers
// and every sandbox of the pod (upstream kubecontainer.ConvertPodStatusToRunningPod).
func ConvertPodStatusToRunningPod(st *PodStatus) *Pod {
	p := &Pod{ID: st.ID, Name: st.Name, Namespace: st.Namespace}
	for _, c := range st.ContainerStatuses {
		if c.State == StateRunning {
			p.Containers = append(p.Containers, &Container{ID: c.ID, Name: c.Name, Image: c.Image, Hash: c.Hash, State: c.State})
		}
	}
	for _, sb := range st.SandboxStatuses {
		p.Sandboxes = append(p.Sandboxes, &Container{ID: sb.ID})
	}
	return p
}

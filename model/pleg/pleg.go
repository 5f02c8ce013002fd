// Package pleg is the kubelet's pod lifecycle event generator (upstream pkg/kubelet/pleg,
// generic.go): it relists the runtime every second, compares each container's state with
// the previous relist, writes fresh pod statuses into the pod cache and sends lifecycle
// events to the syncLoop's plegCh, dropping them when the channel is full.
package pleg

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// PodLifeCycleEventType is what happened to a container (or sandbox).
type PodLifeCycleEventType string

// Event types, as upstream names them.
const (
	ContainerStarted PodLifeCycleEventType = "ContainerStarted"
	ContainerDied    PodLifeCycleEventType = "ContainerDied"
	ContainerRemoved PodLifeCycleEventType = "ContainerRemoved"
	PodSync          PodLifeCycleEventType = "PodSync"
	ContainerChanged PodLifeCycleEventType = "ContainerChanged"
)

// PodLifecycleEvent is one event on plegCh. Data is the container or sandbox ID.
type PodLifecycleEvent struct {
	ID   types.UID
	Type PodLifeCycleEventType
	Data string
}

// Upstream's constants (pkg/kubelet/kubelet.go).
const (
	RelistPeriod        = time.Second
	RelistThreshold     = 3 * time.Minute
	ChannelCapacity     = 1000
	OnDemandQueueLength = 200
)

package kubelet

import (
	"k8s.io/apimachinery/pkg/types"

	"nodesim/sim"
)

// resourceUpdatesCapacity is the capacity of the container manager's update channel
// (upstream cm.resourceUpdates, made with room for 10).
const resourceUpdatesCapacity = 10

// ResourceUpdate is one message of the container manager's update channel (upstream
// resourceupdates.Update): the pods whose devices or dynamically allocated resources changed
// health, to be synced again so that their status shows it.
type ResourceUpdate struct {
	PodUIDs []types.UID
}

// containerManager is the part of the kubelet's container manager the syncLoop selects on.
// Upstream it fans the device manager's and the DRA manager's updates into one channel,
// kl.containerManager.Updates(). nodesim models no device plugins and no DRA drivers, so
// nothing sends on it: the case is in the select, as upstream has it, and never becomes
// ready. Tests send on it to check the syncLoop's handling.
type containerManager struct {
	updates *sim.Chan[ResourceUpdate]
}

// containerManagerCh is the channel's name in the trace, explain and the Perfetto trace.
const containerManagerCh = "containerManagerCh"

func newContainerManager(s *sim.Sim) *containerManager {
	return &containerManager{updates: sim.NewChan[ResourceUpdate](s, containerManagerCh, resourceUpdatesCapacity)}
}

// Updates is the channel the syncLoop selects on.
func (cm *containerManager) Updates() *sim.Chan[ResourceUpdate] { return cm.updates }

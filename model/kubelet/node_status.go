package kubelet

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"nodesim/sim"
)

// fastStatusUpdatePeriod is how often the kubelet updates the node's status at start-up
// until the node is first Ready (upstream fastStatusUpdateOnce).
const fastStatusUpdatePeriod = 100 * time.Millisecond

// PressureSource reports the node's pressure conditions (the eviction manager).
type PressureSource interface {
	IsUnderMemoryPressure() bool
	IsUnderDiskPressure() bool
	IsUnderPIDPressure() bool
}

// nodeStatus keeps the node's conditions, updated every nodeStatusUpdateFrequency
// (upstream kubelet_node_status.go).
type nodeStatus struct {
	kl       *Kubelet
	clk      *sim.Clock
	timer    *sim.Timer
	everUp   bool
	pressure PressureSource
}

func newNodeStatus(kl *Kubelet) *nodeStatus {
	return &nodeStatus{kl: kl, clk: kl.s.Clock("nodeStatus", sim.PriorityEviction)}
}

func (n *nodeStatus) start() { n.timer = n.clk.Schedule(0, n.update) }

func (n *nodeStatus) stop() {
	if n.timer != nil {
		n.timer.Stop()
	}
}

func (n *nodeStatus) update() {
	ready := corev1.ConditionTrue
	reason, message := "KubeletReady", "kubelet is posting ready status"
	if err := n.kl.runtimeErrors(); err != nil {
		ready, reason, message = corev1.ConditionFalse, "KubeletNotReady", err.Error()
	}
	n.set(corev1.NodeReady, ready, reason, message)
	mem, disk, pid := false, false, false
	if n.pressure != nil {
		mem, disk, pid = n.pressure.IsUnderMemoryPressure(), n.pressure.IsUnderDiskPressure(), n.pressure.IsUnderPIDPressure()
	}
	n.set(corev1.NodeMemoryPressure, boolStatus(mem), "", "")
	n.set(corev1.NodeDiskPressure, boolStatus(disk), "", "")
	n.set(corev1.NodePIDPressure, boolStatus(pid), "", "")
	period := n.kl.cfg.NodeStatusUpdateFrequency.Duration
	if ready == corev1.ConditionTrue {
		n.everUp = true
	}
	if !n.everUp {
		period = fastStatusUpdatePeriod
	}
	// update runs only from n.timer (see start), which has just fired: resetting it queues
	// what a fresh timer of the same process would, without allocating one and its callback.
	n.timer.Reset(period)
}

func boolStatus(b bool) corev1.ConditionStatus {
	if b {
		return corev1.ConditionTrue
	}
	return corev1.ConditionFalse
}

// set posts a condition to the Node object; the API server records changes.
func (n *nodeStatus) set(t corev1.NodeConditionType, st corev1.ConditionStatus, reason, message string) {
	n.kl.deps.API.SetNodeCondition(corev1.NodeCondition{Type: t, Status: st, Reason: reason, Message: message})
}

package eviction

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestSignalMaps pins upstream's signalToNodeCondition and signalToResource tables
// (helpers.go init) and the fixed Signals() order.
func TestSignalMaps(t *testing.T) {
	cases := []struct {
		signal Signal
		cond   corev1.NodeConditionType
		res    corev1.ResourceName
	}{
		{SignalMemoryAvailable, corev1.NodeMemoryPressure, corev1.ResourceMemory},
		{SignalAllocatableMemoryAvailable, corev1.NodeMemoryPressure, corev1.ResourceMemory},
		{SignalNodeFsAvailable, corev1.NodeDiskPressure, corev1.ResourceEphemeralStorage},
		{SignalNodeFsInodesFree, corev1.NodeDiskPressure, "inodes"},
		{SignalImageFsAvailable, corev1.NodeDiskPressure, corev1.ResourceEphemeralStorage},
		{SignalImageFsInodesFree, corev1.NodeDiskPressure, "inodes"},
		{SignalContainerFsAvailable, corev1.NodeDiskPressure, corev1.ResourceEphemeralStorage},
		{SignalContainerFsInodesFree, corev1.NodeDiskPressure, "inodes"},
		{SignalPIDAvailable, corev1.NodePIDPressure, "pids"},
		{"swap.available", "", ""},
	}
	signals := Signals()
	if len(signals) != 9 {
		t.Fatalf("Signals() has %d entries", len(signals))
	}
	for i, tc := range cases {
		if got := SignalToNodeCondition(tc.signal); got != tc.cond {
			t.Errorf("SignalToNodeCondition(%s) = %q, want %q", tc.signal, got, tc.cond)
		}
		if got := SignalToResource(tc.signal); got != tc.res {
			t.Errorf("SignalToResource(%s) = %q, want %q", tc.signal, got, tc.res)
		}
		if i < len(signals) && signals[i] != tc.signal {
			t.Errorf("Signals()[%d] = %s, want %s", i, signals[i], tc.signal)
		}
	}
	signals[0] = "changed"
	if Signals()[0] != SignalMemoryAvailable {
		t.Fatal("Signals() shares its backing array")
	}
}

func TestThresholdStringAndKey(t *testing.T) {
	cases := []struct {
		th       Threshold
		str      string
		hard     bool
		sameKey  *Threshold
		otherKey *Threshold
	}{
		{th: Threshold{Signal: SignalMemoryAvailable, Value: evQty("100Mi")}, str: "memory.available<100Mi", hard: true,
			sameKey: &Threshold{Signal: SignalMemoryAvailable, Value: evQty("102400Ki")}},
		{th: Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0.1)}, str: "nodefs.available<10%", hard: true,
			otherKey: &Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0.1), MinReclaim: evMR(evQty("1Gi"))}},
		{th: Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0.105)}, str: "nodefs.available<10.5%", hard: true},
		{th: Threshold{Signal: SignalMemoryAvailable, Value: evQty("300Mi"), GracePeriod: 90 * time.Second}, str: "memory.available<300Mi grace 1m30s",
			otherKey: &Threshold{Signal: SignalMemoryAvailable, Value: evQty("300Mi")}},
		{th: Threshold{Signal: SignalPIDAvailable, Value: evQty("1000")}, str: "pid.available<1k", hard: true,
			otherKey: &Threshold{Signal: SignalPIDAvailable, Value: evPct(0.001)}},
	}
	for _, tc := range cases {
		if got := tc.th.String(); got != tc.str {
			t.Errorf("String() = %q, want %q", got, tc.str)
		}
		if tc.th.IsHard() != tc.hard {
			t.Errorf("%s: IsHard() = %v", tc.str, !tc.hard)
		}
		if tc.sameKey != nil && tc.sameKey.Key() != tc.th.Key() {
			t.Errorf("%s: keys differ: %q vs %q", tc.str, tc.th.Key(), tc.sameKey.Key())
		}
		if tc.otherKey != nil && tc.otherKey.Key() == tc.th.Key() {
			t.Errorf("%s: keys collide with %s", tc.str, tc.otherKey)
		}
	}
}

package explain

import (
	"testing"
	"time"
)

func TestSpan(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                     "0s",
		50 * time.Microsecond:                 "50µs",
		4100 * time.Microsecond:               "4.1ms",
		450 * time.Millisecond:                "450ms",
		19888152958:                           "19.888s",
		time.Minute + 7941360774:              "1m7.9s",
		-2 * time.Second:                      "-2s",
		30*time.Minute + 400*time.Millisecond: "30m0.4s",
	} {
		if got := span(d); got != want {
			t.Errorf("span(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestQuantity(t *testing.T) {
	for _, c := range []struct{ signal, in, want string }{
		{"memory.available", "202908Ki", "198.2Mi"},
		{"memory.available", "94371840", "90Mi"},
		{"memory.available", "-24Mi", "-24Mi"},
		{"memory.available", "4Gi", "4Gi"},
		{"memory.available", "100M", "95.4Mi"},
		{"nodefs.inodesFree", "6552960", "6552960"},
		{"pid.available", "32565", "32565"},
		{"memory.available", "lots", "lots"},
		{"memory.available", "512", "512"},
	} {
		if got := quantity(c.signal, c.in); got != c.want {
			t.Errorf("quantity(%s, %s) = %q, want %q", c.signal, c.in, got, c.want)
		}
	}
}

func TestSyncError(t *testing.T) {
	for in, want := range map[string]string{
		`failed to "StartContainer" for "app" with CrashLoopBackOff: "back-off 20s restarting failed container=app pod=crashy_default(6ff6)"`: "StartContainer app: CrashLoopBackOff",
		`[failed to "StartContainer" for "a" with ErrImagePull: "x", failed to "StartContainer" for "b" with CrashLoopBackOff: "y"]`:          "StartContainer a: ErrImagePull; StartContainer b: CrashLoopBackOff",
		"network is not ready: cni config uninitialized": "network is not ready: cni config uninitialized",
	} {
		if got := syncError(in); got != want {
			t.Errorf("syncError(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestContainerStatusText(t *testing.T) {
	for in, want := range map[string]string{
		"state=waiting:ContainerCreating restarts=0 ready=false":         "waiting (ContainerCreating)",
		"state=running restarts=1 ready=true last=Error:1":               "running, ready, 1 restart",
		"state=running restarts=0 ready=false":                           "running",
		"state=terminated:Error:143 restarts=2 ready=false last=Error:1": "terminated (Error, exit 143), 2 restarts",
		"something else": "something else",
	} {
		if got := containerStatusText(in); got != want {
			t.Errorf("containerStatusText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSkipReason(t *testing.T) {
	a := skipReason("container runtime is down, PLEG is not healthy: pleg was last seen active 3m1.1763s ago; threshold is 3m0s")
	b := skipReason("container runtime is down, PLEG is not healthy: pleg was last seen active 3m6.1763s ago; threshold is 3m0s")
	if a != b || a != "container runtime is down, PLEG is not healthy" {
		t.Errorf("%q vs %q", a, b)
	}
}

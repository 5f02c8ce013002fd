package flowcontrol

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// The crash-loop sequence the kubelet produces: 10s doubling to the 300s cap.
func TestBackoffDoublesToMax(t *testing.T) {
	b := NewBackOff(10*time.Second, 300*time.Second).WithResetAfter(600 * time.Second)
	want := []time.Duration{10, 20, 40, 80, 160, 300, 300}
	now := t0
	for i, w := range want {
		b.Next("k", now, now)
		if got := b.Get("k"); got != w*time.Second {
			t.Fatalf("step %d: back-off %s, want %ds", i, got, w)
		}
		now = now.Add(time.Second)
	}
}

func TestBackoffResetsAfterQuietWindow(t *testing.T) {
	b := NewBackOff(10*time.Second, 300*time.Second).WithResetAfter(600 * time.Second)
	b.Next("k", t0, t0)
	b.Next("k", t0.Add(time.Second), t0.Add(time.Second))
	if b.Get("k") != 20*time.Second {
		t.Fatal("no doubling")
	}
	// An event 600s after the last update is not yet expired (strictly more is needed).
	b.Next("k", t0.Add(601*time.Second), t0.Add(601*time.Second))
	if b.Get("k") != 40*time.Second {
		t.Fatalf("back-off %s after exactly 600s, want 40s", b.Get("k"))
	}
	// The last update is when Next ran, not the event: an exit 601s after that restart
	// starts over even if Next is called later still.
	b.Next("k", t0.Add(1202*time.Second), t0.Add(1300*time.Second))
	if b.Get("k") != 10*time.Second {
		t.Fatalf("back-off %s after 601s quiet, want the initial 10s", b.Get("k"))
	}
}

func TestIsInBackOffSince(t *testing.T) {
	b := NewBackOff(10*time.Second, 300*time.Second)
	if b.IsInBackOffSince("k", t0, t0) {
		t.Fatal("in back-off without an entry")
	}
	b.Next("k", t0, t0)
	for _, c := range []struct {
		after time.Duration
		in    bool
	}{{0, true}, {9 * time.Second, true}, {10 * time.Second, false}, {11 * time.Second, false}} {
		if got := b.IsInBackOffSince("k", t0, t0.Add(c.after)); got != c.in {
			t.Errorf("%s after the exit: in back-off = %v, want %v", c.after, got, c.in)
		}
	}
	b.GC(t0.Add(601 * time.Second))
	if b.Get("k") != 0 {
		t.Fatal("GC kept an expired entry")
	}
}

package flowcontrol

import (
	"fmt"
	"math/rand/v2"
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

// GC skips its walk while every entry was updated within the reset window; over random
// histories of updates, resets and collections it keeps exactly the entries a walk keeps.
func TestGCMatchesTheFullWalk(t *testing.T) {
	b := NewBackOff(10*time.Second, 300*time.Second).WithResetAfter(600 * time.Second)
	ref := NewBackOff(10*time.Second, 300*time.Second).WithResetAfter(600 * time.Second)
	rng := rand.New(rand.NewPCG(13, 14))
	now := t0
	skipped := 0
	for step := 0; step < 20000; step++ {
		now = now.Add(time.Duration(rng.IntN(40)) * time.Second)
		key := fmt.Sprintf("k%d", rng.IntN(12))
		switch rng.IntN(10) {
		case 0, 1, 2:
			at := now.Add(-time.Duration(rng.IntN(900)) * time.Second)
			b.Next(key, at, now)
			ref.Next(key, at, now)
		case 3:
			b.Reset(key)
			ref.Reset(key)
		default:
			if len(b.entries) > 0 && now.Sub(b.oldest) <= b.resetAfter {
				skipped++
			}
			b.GC(now)
			for k, e := range ref.entries {
				if ref.expired(e, now) {
					delete(ref.entries, k)
				}
			}
		}
		if len(b.entries) != len(ref.entries) {
			t.Fatalf("step %d: %d entries, the walk keeps %d", step, len(b.entries), len(ref.entries))
		}
		for k, e := range ref.entries {
			if got, ok := b.entries[k]; !ok || *got != *e {
				t.Fatalf("step %d: entry %s is %v (present %v), the walk keeps %v", step, k, got, ok, *e)
			}
		}
	}
	if skipped < 2000 {
		t.Fatalf("only %d collections skipped the walk", skipped)
	}
	t.Logf("%d collections skipped the walk", skipped)
}

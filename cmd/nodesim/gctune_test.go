package main

import "testing"

func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 1600},       // before the first collection: the 4 MiB minimum heap
		{1 << 20, 1600}, // below the minimum heap
		{8 << 20, 800},  // grows by 64 MiB
		{32 << 20, 200}, // grows by 64 MiB
		{48 << 20, 133}, // grows by 64 MiB, rounded down
		{64 << 20, 100}, // the default from here on: the heap doubles
		{1 << 30, 100},
	} {
		if got := gcPercent(c.live); got != c.want {
			t.Errorf("gcPercent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

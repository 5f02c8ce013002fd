package cri

import (
	"fmt"
	"hash/fnv"
	"testing"

	"nodesim/sim"
)

// The noise keys are FNV-1a of the joined strings, and object IDs are %06d-padded: the
// hand-written forms must give exactly what the library functions give.
func TestNoiseKeysAndIDs(t *testing.T) {
	r := New(sim.New(1, nil), Config{Seed: 42})
	want := func(s string) uint64 {
		h := fnv.New64a()
		_, _ = h.Write([]byte(s))
		return h.Sum64() ^ 42
	}
	for _, id := range []string{"", "c-000001", "c-1234567"} {
		c := &ctr{id: id}
		for _, what := range []string{"memory", "disk", "pids", ""} {
			if got := r.noiseKey(c, what); got != want(id+"/"+what) {
				t.Errorf("noiseKey(%q, %q) = %x, want %x", id, what, got, want(id+"/"+what))
			}
		}
		if got := r.volumeNoiseKey(c, "cache"); got != want(id+"/volume/cache") {
			t.Errorf("volumeNoiseKey(%q) = %x, want %x", id, got, want(id+"/volume/cache"))
		}
	}
	for _, seq := range []int{0, 8, 99999, 100000, 999999, 1000000, 12345678} {
		r.seq = seq
		if got, want := r.newID("sb-"), fmt.Sprintf("sb-%06d", seq+1); got != want {
			t.Errorf("newID after %d = %q, want %q", seq, got, want)
		}
	}
}

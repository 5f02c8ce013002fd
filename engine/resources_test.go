package engine

import (
	"testing"
	"time"

	"nodesim/trace"
)

// scenarios/pod-level-resources.yaml. Container b of "shared" starts at s0 holding 100M and,
// from s0+30s, grows 1900M over 100s (19M/s); a holds 900M. The pod-level limit of 2500M
// is crossed when 900M + 100M + 19M/s·t > 2500M, t = 1500/19 s ≈ 78.947s, so the kernel
// kills b at s0 + 30s + 78.947s inside the pod cgroup ("pod" kind), b's oom_score_adj being
// upstream's 1000 - 1000·(0 + (2G - 1G)/2)/4G = 875 (999 without pod-level resources).
// "big" requests 1.5G at pod level while 2G + 0.5G are requested of an allocatable
// 4e9 - 100Mi = 3895142400 bytes: rejected OutOfmemory.
func TestPodLevelResources(t *testing.T) {
	res := runBuiltin(t, "pod-level-resources", nil)
	started := first(res.Trace.Events, func(e *trace.Event) bool {
		return e.Kind == "containerRunning" && e.Pod == "default/shared" && e.Container == "b"
	})
	kill := first(res.Trace.Events, func(e *trace.Event) bool { return e.Kind == trace.OOMKill })
	if started == nil || kill == nil {
		t.Fatalf("b started %v, OOM kill %v", started, kill)
	}
	if kill.Pod != "default/shared" || kill.Container != "b" || kill.Attr("kind") != "pod" || kill.Attr("oomScoreAdj") != "875" || kill.Attr("limit") != "2500000000" {
		t.Fatalf("OOM kill: %v", kill)
	}
	want := started.At + 30*time.Second + 1500*time.Second/19
	// Memory is charged in whole 4KiB pages: the crossing lands within a page's worth of
	// growth (4096 B at 19M/s is about 0.2ms) of the exact figure.
	if d := kill.At - want; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("b killed at %s, want %s", kill.At, want)
	}
	rej := first(res.Trace.Events, func(e *trace.Event) bool { return e.Pod == "default/big" && e.Attr("reason") != "" })
	if rej == nil || rej.Attr("reason") != "OutOfmemory" || rej.At != 10*time.Second {
		t.Errorf("big: %v, want rejected OutOfmemory at 10s", rej)
	}
	const wantMsg = "Node didn't have enough resource: memory, requested: 1500000000, used: 2500000000, capacity: 3895142400"
	if rej != nil && rej.Attr("message") != wantMsg {
		t.Errorf("rejection message %q, want %q", rej.Attr("message"), wantMsg)
	}
}

// scenarios/memory-emptydir.yaml: "uncapped" holds 100Mi and writes 10Mi/s to a tmpfs
// without sizeLimit from its start s0; its memory, tmpfs included, passes its 256Mi limit
// after 156Mi / 10Mi/s = 15.6s, where its cgroup kills it. "capped" tops out at 100Mi + 64Mi
// and is never killed. Neither volume appears in any pod's disk usage.
func TestMemoryBackedEmptyDir(t *testing.T) {
	res := runBuiltin(t, "memory-emptydir", nil)
	started := first(res.Trace.Events, func(e *trace.Event) bool {
		return e.Kind == "containerRunning" && e.Pod == "default/uncapped"
	})
	kill := first(res.Trace.Events, func(e *trace.Event) bool { return e.Kind == trace.OOMKill })
	if started == nil || kill == nil || kill.Pod != "default/uncapped" || kill.Attr("kind") != "cgroup" {
		t.Fatalf("started %v, kill %v", started, kill)
	}
	want := started.At + 15600*time.Millisecond
	if d := kill.At - want; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("killed at %s, want %s", kill.At, want)
	}
	seen := 0
	for _, e := range res.Trace.Events {
		if e.Kind == trace.OOMKill && e.Pod == "default/capped" {
			t.Errorf("capped killed: %v", e)
		}
		if e.Kind == trace.Stats && e.Name == "pod" && e.Pod == "default/capped" && e.At > time.Minute {
			// 100Mi + the full 64Mi tmpfs, no disk at all.
			seen++
			if e.Attr("memory") != "171966464" || e.Attr("disk") != "0" {
				t.Errorf("capped stats at %s: memory %s, disk %s; want 171966464 (164Mi), 0", e.At, e.Attr("memory"), e.Attr("disk"))
			}
		}
	}
	if seen == 0 {
		t.Error("no stats for capped after 1m")
	}
}

// The pod IP stays across container exits (PLEG's tests assert the same upstream): in
// crashloop the container exits again and again in one sandbox, the first sandbox the
// runtime creates, so every status from the first one carrying an IP reports 10.244.0.3
// (the n-th sandbox gets 10.244.⌊n/250⌋.(n mod 250 + 2), n from 1).
func TestPodIPKeptAcrossContainerExits(t *testing.T) {
	res := runBuiltin(t, "crashloop", nil)
	withIP, exits := 0, 0
	for _, e := range res.Trace.Events {
		if e.Kind == "containerExited" {
			exits++
		}
		if e.Kind != "setPodStatus" || e.Pod != "default/crashy" {
			continue
		}
		if ip := e.Attr("podIP"); ip != "" {
			withIP++
			if ip != "10.244.0.3" {
				t.Fatalf("status at %s has pod IP %s, want 10.244.0.3", e.At, ip)
			}
		} else if withIP > 0 {
			t.Fatalf("status at %s lost the pod IP", e.At)
		}
	}
	if withIP < 2 || exits < 2 {
		t.Fatalf("%d statuses with an IP, %d exits; want several of each", withIP, exits)
	}
}

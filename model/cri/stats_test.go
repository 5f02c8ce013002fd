package cri

import (
	"testing"
	"time"

	api "nodesim/api/v1alpha1"
	"nodesim/model/container"
)

// freshTotals is PodTotals read from every program, without the kept readings.
func freshTotals(r *Runtime, c *ctr) (mem, disk, pids float64) {
	if c.state != container.StateRunning {
		return 0, c.frozenDisk, 0
	}
	t := r.s.Elapsed() - c.proc.use.origin
	mem = pages(c.proc.use.memory.Noisy(t, r.noiseKey(c, "memory")) - c.memOffset + r.noisyTmpfs(c, t))
	return mem, c.proc.use.disk.Noisy(t, r.noiseKey(c, "disk")), c.proc.use.pids.Noisy(t, r.noiseKey(c, "pids"))
}

// The kept stats readings and pod totals are what a fresh reading gives at every step: on
// a steady value (where the usage mark stays), in a ramp, on a noisy value, after
// setUsage, after a single-process OOM kill and after the process exits.
func TestStatsReadingsFollowChanges(t *testing.T) {
	noise := api.Percent(0.1)
	b := &api.Behavior{
		Memory: api.Program{{Set: rq("100Mi")}, {At: dur(time.Minute), RampTo: rq("200Mi"), Over: dur(time.Minute)},
			{At: dur(3 * time.Minute), Set: rq("150Mi"), Noise: &noise}},
		Disk: api.Program{{Set: rq("10Mi")}},
		Pids: api.Program{{Set: rq("4")}},
	}
	s, r, id := startOne(t, b)
	c := r.ctrs[id]
	uid := c.sandbox.uid
	check := func(what string) uint64 {
		t.Helper()
		var mem float64
		r.EachContainer(uid, func(_ string, _ bool, m, _, _ float64) { mem += m })
		disk, pids := r.PodTotals(uid)
		wm, wd, wp := freshTotals(r, c)
		if mem != wm || disk != wd || pids != wp {
			t.Errorf("%s at %s: read %g/%g/%g, fresh %g/%g/%g", what, r.s.Elapsed(), mem, disk, pids, wm, wd, wp)
		}
		return r.UsageMark(uid)
	}
	at := func(d time.Duration) { s.RunUntil(d) }

	at(10 * time.Second)
	m1 := check("steady")
	at(20 * time.Second)
	if m2 := check("steady"); m2 != m1 {
		t.Errorf("mark moved on a steady value: %d -> %d", m1, m2)
	}
	at(90 * time.Second)
	m3 := check("ramp")
	if m3 == m1 {
		t.Error("mark kept across a breakpoint")
	}
	at(91 * time.Second)
	if check("ramp") == m3 {
		t.Error("mark kept inside a ramp")
	}
	at(4 * time.Minute)
	check("noisy")
	at(4*time.Minute + time.Second)
	check("noisy")
	r.SetUsage("ns/p", "c", &UsageOverride{Memory: api.Program{{Set: rq("300Mi")}}})
	check("setUsage")
	at(5 * time.Minute)
	before := check("after setUsage")
	if r.OOMKill(id, true) {
		t.Fatal("a process of four died whole")
	}
	if check("single-process OOM kill") == before {
		t.Error("mark kept across a single-process OOM kill")
	}
	r.exit(c, ExitSIGKILL, "OOMKilled")
	check("exited")
}

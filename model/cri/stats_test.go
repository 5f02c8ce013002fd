package cri

import (
	"math/rand/v2"
	"strconv"
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

// randomProgram is a program of one to four steps, jumps or ramps, any of them noisy, the
// last one possibly repeating.
func randomProgram(rng *rand.Rand, unit string) api.Program {
	var p api.Program
	at := time.Duration(0)
	for i, n := 0, 1+rng.IntN(4); i < n; i++ {
		q := rq(strconv.Itoa(1+rng.IntN(400)) + unit)
		st := api.Step{At: dur(at)}
		if i > 0 && rng.IntN(2) == 0 {
			st.RampTo, st.Over = q, dur(time.Duration(1+rng.IntN(120))*time.Second)
		} else {
			st.Set = q
		}
		if rng.IntN(4) == 0 {
			noise := api.Percent(0.05 + 0.1*rng.Float64())
			st.Noise = &noise
		}
		p = append(p, st)
		at += time.Duration(rng.IntN(300)) * time.Second
		if st.Over != nil {
			at += st.Over.Duration
		}
	}
	if rng.IntN(3) == 0 {
		p[len(p)-1].Repeat = dur(at + time.Duration(1+rng.IntN(200))*time.Second)
	}
	return p
}

// PodTotals and UsageMark against fresh readings, on random programs (memory, disk and
// PIDs each steady, ramping or noisy) read at random instants, some a nanosecond or a
// fraction of a second apart, with random setUsage: the totals are always the fresh
// figures, and the mark moves whenever the fresh memory does.
func TestStatsReadingsRandomPrograms(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		b := &api.Behavior{Memory: randomProgram(rng, "Mi"), Disk: randomProgram(rng, "Mi"), Pids: randomProgram(rng, "")}
		s, r, id := startOne(t, b)
		c := r.ctrs[id]
		uid := c.sandbox.uid
		lastMark, lastMem := uint64(0), -1.0
		now := s.Elapsed()
		for step := 0; step < 300; step++ {
			switch rng.IntN(4) {
			case 0:
				now += time.Duration(1 + rng.IntN(3))
			case 1:
				now += time.Duration(rng.IntN(2000)) * time.Millisecond
			default:
				now += time.Duration(1+rng.IntN(90)) * time.Second
			}
			s.RunUntil(now)
			if rng.IntN(40) == 0 {
				o := &UsageOverride{}
				switch rng.IntN(3) {
				case 0:
					o.Memory = randomProgram(rng, "Mi")
				case 1:
					o.Disk = randomProgram(rng, "Mi")
				default:
					o.Pids = randomProgram(rng, "")
				}
				r.SetUsage("ns/p", "c", o)
			}
			// The totals are read alone a third of the time, as the eviction manager's
			// summary reads them between housekeeping rounds, after the mark a third, and
			// with the mark and the containers' figures together (UsageSinceOf, as
			// housekeeping reads them) the rest: those report the containers exactly when
			// the mark is not the last one.
			wm, wd, wp := freshTotals(r, c)
			var mark uint64
			var disk, pids float64
			switch rng.IntN(3) {
			case 0:
				disk, pids = r.PodTotals(uid)
				mark = r.UsageMark(uid)
			case 1:
				mark = r.UsageMark(uid)
				disk, pids = r.PodTotals(uid)
			default:
				reported := false
				var mem, cdisk, cpids float64
				mark, disk, pids = r.UsageSinceOf(uid, nil, lastMark, func(_ string, _ bool, m, d, p float64) {
					reported, mem, cdisk, cpids = true, m, d, p
				})
				if reported == (mark == lastMark) {
					t.Fatalf("seed %d step %d at %s: mark %d after %d, containers reported: %v", seed, step, now, mark, lastMark, reported)
				}
				if reported && (mem != wm || cdisk != wd || cpids != wp) {
					t.Fatalf("seed %d step %d at %s: reported %g/%g/%g, fresh %g/%g/%g", seed, step, now, mem, cdisk, cpids, wm, wd, wp)
				}
			}
			if disk != wd || pids != wp {
				t.Fatalf("seed %d step %d at %s: totals %g/%g, fresh %g/%g", seed, step, now, disk, pids, wd, wp)
			}
			var mem, cdisk, cpids float64
			r.EachContainer(uid, func(_ string, _ bool, m, d, p float64) { mem, cdisk, cpids = m, d, p })
			if mem != wm || cdisk != wd || cpids != wp {
				t.Fatalf("seed %d step %d at %s: read %g/%g/%g, fresh %g/%g/%g", seed, step, now, mem, cdisk, cpids, wm, wd, wp)
			}
			if mark == lastMark && wm != lastMem {
				t.Fatalf("seed %d step %d at %s: mark %d kept while memory moved %g -> %g", seed, step, now, mark, lastMem, wm)
			}
			lastMark, lastMem = mark, wm
		}
	}
}

// EachVolume after kept totals that saw no volumes reports none, and reports them again
// once setUsage gives the process a volume program, and after it exits with its writes kept.
func TestEachVolumeFollowsKeptTotals(t *testing.T) {
	s, r, id := startOne(t, &api.Behavior{Memory: api.Program{{Set: rq("100Mi")}}})
	c := r.ctrs[id]
	uid := c.sandbox.uid
	volumes := func() map[string]float64 {
		out := map[string]float64{}
		r.EachVolume(uid, func(name string, bytes float64) { out[name] += bytes })
		return out
	}
	r.UsageMark(uid)
	if v := volumes(); len(v) != 0 {
		t.Fatalf("volumes %v without volume programs", v)
	}
	s.RunUntil(10 * time.Second)
	r.SetUsage("ns/p", "c", &UsageOverride{Volumes: map[string]api.Program{"v": {{Set: rq("10Mi")}}}})
	r.UsageMark(uid)
	s.RunUntil(20 * time.Second)
	if v := volumes(); v["v"] != 10<<20 {
		t.Fatalf("volumes %v after setUsage, want v=10Mi", v)
	}
	r.exit(c, ExitSIGKILL, "OOMKilled")
	r.UsageMark(uid)
	if v := volumes(); v["v"] != 10<<20 {
		t.Fatalf("volumes %v after exit, want v=10Mi kept", v)
	}
}

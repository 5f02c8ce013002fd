package sweep

import (
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"nodesim/scenarios"
)

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSweepBusyNodeHour measures sweep throughput on the busy node
// (bench/busy-node.yaml) cut to one hour: each iteration is one sweep over 2×GOMAXPROCS
// seeds, run GOMAXPROCS at a time with a full report per run, as `nodesim sweep` does. It
// reports runs per wall second, the wall seconds a 1,000-run sweep would take, and the CPU
// time per run.
func BenchmarkSweepBusyNodeHour(b *testing.B) {
	src, err := scenarios.OpenFile(filepath.Join("..", "bench", "busy-node.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	axis, err := ParseAxis("spec.duration=1h")
	if err != nil {
		b.Fatal(err)
	}
	seeds := make([]uint64, 2*runtime.GOMAXPROCS(0))
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		res, err := Run(src, []Axis{axis}, seeds, 0, run)
		if err != nil {
			b.Fatal(err)
		}
		if res.Rows[0].Runs != len(seeds) {
			b.Fatalf("%d runs, want %d", res.Rows[0].Runs, len(seeds))
		}
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N*len(seeds)), "cpu-s/run")
	runsPerSec := float64(b.N*len(seeds)) / b.Elapsed().Seconds()
	b.ReportMetric(runsPerSec, "runs/s")
	b.ReportMetric(1000/runsPerSec, "s/1000runs")
}

package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"

	"nodesim/reports"
	"nodesim/scenarios"
)

// reportRun is how `nodesim run -o json` and every sweep run simulate: with the invariant
// checker, and without the decisions' reasons, which only a trace file or a transcript reads.
var reportRun = Options{SkipReasons: true}

// BenchmarkFullNodeDay is a full node's day without probes or pressure
// (bench/full-node.yaml): 100 steady pods and 10 crash-looping ones.
func BenchmarkFullNodeDay(b *testing.B) { benchWorkload(b, loadBench(b, "full-node", ""), reportRun) }

// BenchmarkFullNodeDayNoInvariants is BenchmarkFullNodeDay without the invariant checker,
// to measure its cost.
func BenchmarkFullNodeDayNoInvariants(b *testing.B) {
	benchWorkload(b, loadBench(b, "full-node", ""), Options{SkipInvariants: true, SkipReasons: true})
}

// BenchmarkCrashLoop is one shipped scenario end to end.
func BenchmarkCrashLoop(b *testing.B) {
	l, err := scenarios.LoadBuiltin("crashloop")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(l, 1, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFullNodeHour is the same node for one hour, for profiling.
func BenchmarkFullNodeHour(b *testing.B) { benchFullNodeHour(b, reportRun) }

// BenchmarkFullNodeHourNoInvariants is BenchmarkFullNodeHour without the invariant checker:
// short enough to count instructions under valgrind, which a loaded machine cannot skew.
func BenchmarkFullNodeHourNoInvariants(b *testing.B) {
	benchFullNodeHour(b, Options{SkipInvariants: true, SkipReasons: true})
}

func benchFullNodeHour(b *testing.B, opts Options) {
	l := loadBench(b, "full-node", "1h")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Run(l, 1, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// The workloads of the performance table (README, Performance): scenario files under
// bench/ so that `nodesim run bench/busy-node.yaml` measures the same run as a whole process.

// loadBench loads bench/NAME.yaml, with its duration replaced when duration is not empty.
func loadBench(b *testing.B, name, duration string) *scenarios.Loaded {
	b.Helper()
	path := filepath.Join("..", "bench", name+".yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if duration != "" {
		re := regexp.MustCompile(`(?m)^  duration: .*$`)
		if !re.Match(data) {
			b.Fatalf("%s has no spec.duration line", path)
		}
		data = re.ReplaceAll(data, []byte("  duration: "+duration))
	}
	l, err := scenarios.Parse(path, data, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// heapPeak samples the live heap every few milliseconds from another goroutine (the
// simulation itself stays single-threaded) and keeps the largest figure.
type heapPeak struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

func startHeapPeak() *heapPeak {
	runtime.GC()
	h := &heapPeak{stop: make(chan struct{}), done: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(h.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > h.peak {
				h.peak = v
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// Stop ends sampling and returns the peak in MiB.
func (h *heapPeak) Stop() float64 {
	close(h.stop)
	<-h.done
	return float64(h.peak) / (1 << 20)
}

// cpuTime is the CPU time the process has used, user and system: on a machine shared with
// other work it measures a run's cost better than the wall clock does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchWorkload runs l b.N times and reports simulated seconds per wall second, the CPU
// time per run (garbage collection included), kernel events per run and the peak live heap.
func benchWorkload(b *testing.B, l *scenarios.Loaded, opts Options) {
	b.ReportAllocs()
	h := startHeapPeak()
	b.ResetTimer()
	cpu0 := cpuTime()
	var events uint64
	for i := 0; i < b.N; i++ {
		run := opts
		var builder *reports.Builder
		if opts.Sink == nil {
			// As `nodesim run -o json` does: the trace streams into a report builder, which
			// names the kinds it reads nothing from (the components then build none of them),
			// and the report is finished at the end.
			builder = reports.NewBuilder(reports.Input{Scenario: l.Scenario, File: l.File, Hash: l.Hash, Seed: 1,
				QoS: map[string]string{}, NotModelled: l.NotModelled, Warnings: l.Warnings})
			run.Sink = builder
		}
		res, err := Run(l, 1, run)
		if err != nil {
			b.Fatal(err)
		}
		if builder != nil {
			builder.Finish(res.End)
		}
		events = res.Fired
	}
	b.StopTimer()
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(h.Stop(), "peak-heap-MiB")
	b.ReportMetric(float64(events), "events/run")
	b.ReportMetric(l.Scenario.Spec.Duration.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "simsec/s")
}

// BenchmarkBusyNodeDay is a busy node's day (bench/busy-node.yaml): 110 pods, 90 of them
// probed twice with noisy memory, 10 crash-looping, 10 leaking into soft and hard eviction.
func BenchmarkBusyNodeDay(b *testing.B) { benchWorkload(b, loadBench(b, "busy-node", ""), reportRun) }

// BenchmarkBusyNodeHour is the busy node's first hour, short enough to profile.
func BenchmarkBusyNodeHour(b *testing.B) {
	benchWorkload(b, loadBench(b, "busy-node", "1h"), reportRun)
}

// BenchmarkPods1000Hour is 1,000 pods (950 with a readiness probe) for an hour.
func BenchmarkPods1000Hour(b *testing.B) { benchWorkload(b, loadBench(b, "pods-1000", ""), reportRun) }

// BenchmarkPods10000TenMinutes is 10,000 pods for ten minutes: a cost that grows with the
// square of the pod count shows here first.
func BenchmarkPods10000TenMinutes(b *testing.B) {
	benchWorkload(b, loadBench(b, "pods-10000", ""), reportRun)
}

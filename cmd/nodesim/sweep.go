package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"nodesim/engine"
	"nodesim/reports"
	"nodesim/scenarios"
	"nodesim/sim"
	"nodesim/sweep"
)

type sweepOptions struct {
	files    scenarios.FileOptions
	sets     []string
	seeds    int
	first    int64
	parallel int
	output   string
	maxRuns  int
	signals  *signals
}

func newSweepCmd(stdout, stderr io.Writer, sig *signals) *cobra.Command {
	o := &sweepOptions{signals: sig}
	c := &cobra.Command{
		Use:   "sweep FILE|NAME --set PATH=V1,V2,... [--set ...]",
		Short: "Run a scenario over a grid of settings and seeds, and show how the outcomes move",
		Long: `Sweep runs the scenario once for every combination of the --set values and every seed,
and prints, for each combination, how many runs passed all expectations and the range of
evictions, OOM kills, restarts, admission rejections and start-up p99 over the seeds.

PATH names a field of the scenario: dots separate keys, brackets hold an index or a key
with dots in it, e.g. spec.kubelet.evictionHard[memory.available] or
spec.pods[0].behavior.app.memory. A missing key is added. Values are YAML (100Mi, 2m,
[{set: 1Gi}]); commas inside brackets do not split them. Each variant is validated as
strictly as a scenario file. Runs go in parallel; the output does not depend on it.

Each finished row is reported on stderr as soon as it and every row before it are done;
the table (or JSON) goes to stdout at the end. SIGINT or SIGTERM starts no new run, waits
for the runs under way, prints the rows finished so far (a row cut short shows the seeds
that ran) and exits 130 or 143. A grid of more than --max-runs runs (default 10000) is
refused before anything runs.`,
		Example: `  nodesim sweep besteffort-evicted-first --set 'spec.kubelet.evictionHard[memory.available]=100Mi,200Mi,500Mi'
  nodesim sweep my-node.yaml --set spec.kubelet.evictionPressureTransitionPeriod=1m,5m --seeds 10 -o json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = fileOptions(cmd)
			return o.run(args[0], stdout, stderr)
		},
	}
	c.Flags().StringArrayVar(&o.sets, "set", nil, "PATH=VALUE,VALUE,...: a setting to sweep (repeat for a grid)")
	c.Flags().IntVar(&o.seeds, "seeds", 1, "how many seeds per setting: the scenario's seed (or --seed) and the ones after it")
	c.Flags().Int64Var(&o.first, "seed", -1, "first seed (default: the scenario's spec.seed, else 1)")
	c.Flags().IntVar(&o.parallel, "parallel", 0, "simulations at once (default: GOMAXPROCS)")
	c.Flags().StringVarP(&o.output, "output", "o", "table", "output format: table or json")
	completeOutput(c, "table", "json")
	c.Flags().IntVar(&o.maxRuns, "max-runs", sweep.DefaultMaxRuns, "refuse a grid of more runs than this (variants × seeds)")
	return c
}

// openSource finds a scenario file, or a built-in scenario by name.
func openSource(ref string, opts scenarios.FileOptions) (*scenarios.Source, error) {
	if _, err := os.Stat(ref); err == nil || ref == "-" || strings.ContainsAny(ref, "/.") {
		return scenarios.OpenFileWith(ref, opts)
	}
	return scenarios.OpenBuiltin(ref)
}

func (o *sweepOptions) run(ref string, stdout, stderr io.Writer) error {
	if o.output != "table" && o.output != "json" {
		return invalid(fmt.Errorf("unknown output format %q (want table or json)", o.output))
	}
	if len(o.sets) == 0 {
		return invalid(fmt.Errorf("sweep needs at least one --set PATH=VALUE,VALUE,..."))
	}
	if o.seeds < 1 || o.seeds > 1000 {
		return invalid(fmt.Errorf("--seeds must be between 1 and 1000"))
	}
	var axes []sweep.Axis
	for _, s := range o.sets {
		a, err := sweep.ParseAxis(s)
		if err != nil {
			return invalid(err)
		}
		axes = append(axes, a)
	}
	src, err := openSource(ref, o.files)
	if err != nil {
		return invalid(err)
	}
	base, err := src.Parse(src.Data)
	if err != nil {
		return invalid(err)
	}
	first := base.Seed()
	if o.first >= 0 {
		first = uint64(o.first)
	}
	var seeds []uint64
	for i := 0; i < o.seeds; i++ {
		seeds = append(seeds, first+uint64(i))
	}
	total := sweep.GridRuns(axes, 1, o.maxRuns)
	if sweep.GridRuns(axes, len(seeds), o.maxRuns) < 0 {
		return invalid(fmt.Errorf("the grid has more than %d runs (values of every --set multiplied, times --seeds); raise the cap with --max-runs", o.maxRuns))
	}
	opts := sweep.Options{Parallel: o.parallel, MaxRuns: o.maxRuns, Stop: o.signals.caught,
		Row: func(i int, r *sweep.Row) {
			fmt.Fprintf(stderr, "sweep: row %d of %d done: %s: %d/%d runs passed\n", i+1, total, strings.Join(r.Values, ", "), r.AllPassed, r.Runs)
		}}
	res, err := sweep.RunWith(src, axes, seeds, opts, func(l *scenarios.Loaded, seed uint64) (rep *reports.Report, err error) {
		// Runs go on worker goroutines, beyond main's panic guard: a panic in one is caught
		// here and reported as the internal error it is.
		defer func() {
			if r := recover(); r != nil {
				rep, err = nil, &internalPanic{value: r, stack: debug.Stack()}
			}
		}()
		b := newReportBuilder(l, seed)
		r, err := engine.Run(l, seed, engine.Options{Sink: b})
		if err != nil {
			return nil, err
		}
		rep = finishReport(b, r, ref)
		reports.Evaluate(rep, l.Scenario.Spec.Expect)
		return rep, nil
	})
	interrupted := errors.Is(err, sweep.ErrInterrupted)
	if err != nil && !interrupted {
		var st *sim.Stalled
		var ip *internalPanic
		var iv *engine.InvariantViolation
		if errors.As(err, &st) || errors.As(err, &ip) || errors.As(err, &iv) {
			return internal(err) // a fault of the model, not of the grid: exit 3
		}
		return invalid(err)
	}
	if err := o.print(stdout, res); err != nil && !errors.Is(err, syscall.EPIPE) {
		return err
	}
	if interrupted {
		return o.signals.exit()
	}
	return nil
}

// print writes the sweep's result: the rows finished, all of them unless interrupted.
func (o *sweepOptions) print(stdout io.Writer, res *sweep.Result) error {
	if o.output == "json" {
		out, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", out)
		return err
	}
	return sweepTable(stdout, res)
}

func spreadText(s sweep.Spread, format string) string {
	if s.Min == s.Max {
		return fmt.Sprintf(format, s.Min)
	}
	return fmt.Sprintf(format+" (%s..%s)", s.Mean, fmt.Sprintf(format, s.Min), fmt.Sprintf(format, s.Max))
}

func sweepTable(w io.Writer, res *sweep.Result) error {
	fmt.Fprintf(w, "sweep of %s over %d seed(s) from %d\n\n", res.Scenario, len(res.Seeds), res.Seeds[0])
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	header := append([]any{}, toAny(res.Paths)...)
	header = append(header, "expectations", "evictions", "evicted", "OOM kills", "restarts", "rejections", "start-up p99 (s)")
	t.Header(header...)
	for _, r := range res.Rows {
		row := toAny(r.Values)
		var evicted []string
		for _, p := range slices.Sorted(maps.Keys(r.Evicted)) {
			evicted = append(evicted, fmt.Sprintf("%s×%d", p, r.Evicted[p]))
		}
		if len(evicted) == 0 {
			evicted = []string{"-"}
		}
		row = append(row, fmt.Sprintf("%d/%d runs passed", r.AllPassed, r.Runs),
			spreadText(r.Evictions, "%g"), strings.Join(evicted, " "), spreadText(r.OOMKills, "%g"),
			spreadText(r.Restarts, "%g"), spreadText(r.Rejections, "%g"), spreadText(r.StartupP99, "%.3f"))
		_ = t.Append(row...)
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range res.Rows {
		for _, e := range slices.Sorted(maps.Keys(r.FailedChecks)) {
			fmt.Fprintf(w, "%s: failed in %d of %d runs: %s\n", strings.Join(r.Values, ", "), r.FailedChecks[e], r.Runs, e)
		}
	}
	return nil
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

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
	verdict  verdictOptions
	quiet    bool
	shard    string
	shards   int
	shardOut string
	getenv   func(string) string
	// changed reports whether a flag was given on the command line.
	changed func(name string) bool
}

// verdictOptions decide a sweep's exit code and its JUnit file; merge shares them.
type verdictOptions struct {
	junit   string
	minPass float64
}

func (v *verdictOptions) flags(c *cobra.Command) {
	c.Flags().StringVar(&v.junit, "junit", "", "also write the runs as JUnit XML to this file: one test case per setting and seed, a failure per failed expectation")
	v.minPass = -1
	c.Flags().Var((*fraction)(&v.minPass), "min-pass", "exit 0 when at least this fraction (0 to 1) of the runs passed every expectation (default: all must)")
}

// fraction is the --min-pass flag: a number from 0 to 1, or -1 (unset, shown as nothing).
type fraction float64

func (f *fraction) String() string {
	if *f < 0 {
		return ""
	}
	return strconv.FormatFloat(float64(*f), 'g', -1, 64)
}

func (f *fraction) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
		return fmt.Errorf("want a fraction from 0 to 1, not %q", s)
	}
	*f = fraction(x)
	return nil
}

func (f *fraction) Type() string { return "fraction" }

func newSweepCmd(stdout, stderr io.Writer, sig *signals) *cobra.Command {
	o := &sweepOptions{signals: sig, getenv: os.Getenv}
	c := &cobra.Command{
		Use:   "sweep FILE|NAME --set PATH=V1,V2,... [--set ...]",
		Short: "Run a scenario over a grid of settings and seeds, and show how the outcomes move",
		Long: `Sweep runs the scenario once for every combination of the --set values and every seed,
and prints, for each combination, how many runs passed all expectations, when pressure and
the first eviction came, the lowest memory.available and nodefs.available above their hard
thresholds, and the range of evictions, OOM kills, restarts, admission rejections and
start-up p99 over the seeds.

PATH names a field of the scenario: dots separate keys, brackets hold an index or a key
with dots in it, e.g. spec.kubelet.evictionHard[memory.available] or
spec.pods[0].behavior.app.memory. A missing key is added. Values are YAML (100Mi, 2m,
[{set: 1Gi}]); commas inside brackets do not split them. Each variant is validated as
strictly as a scenario file. Runs go in parallel; the output does not depend on it.

Exit codes: 0 when every run passed its expectations (or at least --min-pass of them), 1
when not, 2 for invalid input, 3 for nodesim's own failure. --junit writes one test case
per setting and seed for CI systems.

Each finished row is reported on stderr as soon as it and every row before it are done,
under a progress bar on a terminal (not with --quiet); the result goes to stdout at the
end. SIGINT or SIGTERM starts no new run, waits for the runs under way, prints the rows
finished so far (a row cut short shows the seeds that ran) and exits 130 or 143. A grid of
more than --max-runs runs (default 10000) is refused before anything runs.

--shard I/N runs only slice I (from 0) of N of the grid: the runs, numbered setting by
setting and seed by seed, whose number modulo N is I. It writes the slice to --shard-out
(default stdout) for 'nodesim sweep merge', which prints what the whole sweep prints. In a
Kubernetes Indexed Job, --shard /N or --shards N (or NODESIM_SHARDS) take I from
JOB_COMPLETION_INDEX. A shard exits 0 once its slice is written, whatever its runs showed:
the verdict is merge's.`,
		Example: `  nodesim sweep besteffort-evicted-first --set 'spec.kubelet.evictionHard[memory.available]=100Mi,200Mi,500Mi'
  nodesim sweep my-node.yaml --set spec.kubelet.evictionPressureTransitionPeriod=1m,5m --seeds 10 -o json
  nodesim sweep my-node.yaml --set 'spec.kubelet.evictionHard[memory.available]=200Mi,500Mi' --junit sweep.xml --min-pass 0.9
  nodesim sweep my-node.yaml --set ... --seeds 100 --shard 2/7 --shard-out shard-2.json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = fileOptions(cmd)
			o.changed = func(name string) bool { return cmd.Flags().Changed(name) }
			return o.run(args[0], stdout, stderr)
		},
	}
	c.Flags().StringArrayVar(&o.sets, "set", nil, "PATH=VALUE,VALUE,...: a setting to sweep (repeat for a grid)")
	_ = c.RegisterFlagCompletionFunc("set", completeSetPath)
	c.Flags().IntVar(&o.seeds, "seeds", 1, "how many seeds per setting: the scenario's seed (or --seed) and the ones after it")
	c.Flags().Int64Var(&o.first, "seed", -1, "first seed (default: the scenario's spec.seed, else 1)")
	c.Flags().IntVar(&o.parallel, "parallel", 0, "simulations at once (default: GOMAXPROCS)")
	c.Flags().StringVarP(&o.output, "output", "o", "table", "output format: "+strings.Join(sweep.Formats, ", "))
	completeOutput(c, sweep.Formats...)
	c.Flags().IntVar(&o.maxRuns, "max-runs", sweep.DefaultMaxRuns, "refuse a grid of more runs than this (variants × seeds)")
	c.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print nothing on stderr but errors and the verdict: no progress bar, no row lines")
	c.Flags().StringVar(&o.shard, "shard", "", "run only slice I/N of the grid (I from 0); /N takes I from JOB_COMPLETION_INDEX")
	c.Flags().IntVar(&o.shards, "shards", 0, "run the slice JOB_COMPLETION_INDEX of this many (also NODESIM_SHARDS)")
	c.Flags().StringVar(&o.shardOut, "shard-out", "-", "where a shard writes its slice, for 'nodesim sweep merge' (- for stdout)")
	o.verdict.flags(c)
	c.AddCommand(newSweepMergeCmd(stdout, stderr))
	return c
}

// openSource finds a scenario file, or a built-in scenario by name.
// completeSetPath completes --set with the paths of the scenario named before it (its
// scalars and the common kubelet settings), each followed by "=" for the values.
func completeSetPath(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, "=") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var doc []byte
	if len(args) > 0 {
		if src, err := openSource(args[0], scenarios.FileOptions{}); err == nil {
			doc = src.Data
		}
	}
	var out []string
	for _, p := range sweep.Paths(doc) {
		if strings.HasPrefix(p, toComplete) {
			out = append(out, p+"=")
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

func openSource(ref string, opts scenarios.FileOptions) (*scenarios.Source, error) {
	if _, err := os.Stat(ref); err == nil || ref == "-" || strings.ContainsAny(ref, "/.") {
		return scenarios.OpenFileWith(ref, opts)
	}
	return scenarios.OpenBuiltin(ref)
}

func (o *sweepOptions) run(ref string, stdout, stderr io.Writer) error {
	if !sweep.ValidFormat(o.output) {
		return invalid(fmt.Errorf("unknown output format %q (want %s)", o.output, strings.Join(sweep.Formats, ", ")))
	}
	if len(o.sets) == 0 {
		return invalid(fmt.Errorf("sweep needs at least one --set PATH=VALUE,VALUE,..."))
	}
	if o.seeds < 1 || o.seeds > 1000 {
		return invalid(fmt.Errorf("--seeds must be between 1 and 1000"))
	}
	shard, sharded, err := sweep.ParseShard(o.shard, o.shards, o.getenv)
	if err != nil {
		return invalid(err)
	}
	if sharded {
		// A shard's output is its slice; the verdict, JUnit and formats are merge's, which
		// sees every shard's runs.
		for _, f := range []string{"junit", "min-pass", "output"} {
			if o.changed(f) {
				return invalid(fmt.Errorf("--%s belongs to 'nodesim sweep merge' (a shard writes only its slice, with --shard-out)", f))
			}
		}
	} else if o.changed("shard-out") {
		return invalid(fmt.Errorf("--shard-out needs --shard I/N (or --shards N)"))
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
	bar := newProgress(stderr, o.quiet)
	opts := sweep.Options{Parallel: o.parallel, MaxRuns: o.maxRuns, Stop: o.signals.caught,
		RunDone: func(done, _ int) { bar.Set(done) }}
	if !o.quiet {
		opts.Row = func(i int, r *sweep.Row) {
			bar.Println(fmt.Sprintf("sweep: row %d of %d done: %s: %d/%d runs passed", i+1, total, strings.Join(r.Values, ", "), r.AllPassed, r.Runs))
		}
	}
	runs := total * len(seeds)
	if sharded {
		opts.Shard = &shard
		runs = shard.Runs(runs)
	}
	bar.StartRuns("sweep", runs)
	res, err := sweep.RunWith(src, axes, seeds, opts, func(l *scenarios.Loaded, seed uint64) (rep *reports.Report, err error) {
		// Runs go on worker goroutines, beyond main's panic guard: a panic in one is caught
		// here and reported as the internal error it is.
		defer func() {
			if r := recover(); r != nil {
				rep, err = nil, &internalPanic{value: r, stack: debug.Stack()}
			}
		}()
		b := newReportBuilder(l, seed)
		r, err := engine.Run(l, seed, engine.Options{Sink: b, SkipReasons: true}) // a report reads no reason
		if err != nil {
			return nil, err
		}
		rep = finishReport(b, r, ref)
		reports.Evaluate(rep, l.Scenario.Spec.Expect)
		return rep, nil
	})
	bar.Done()
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
	if sharded {
		if interrupted {
			return o.signals.exit() // half a slice is no slice: nothing is written
		}
		f := sweep.NewShardFile(Version, sweep.GridID(Version, src.Name, base.Hash, axes, seeds), base.Hash, shard, axes, res)
		if err := writeShard(o.shardOut, stdout, f); err != nil {
			return err
		}
		if !o.quiet {
			where := o.shardOut
			if where == "-" {
				where = "stdout"
			}
			fmt.Fprintf(stderr, "sweep: shard %s: %d of the grid's %d runs written to %s\n", shard, len(res.Outcomes), total*len(seeds), where)
		}
		return nil
	}
	return finishSweep(res, o.output, o.verdict, sweepRepro(res, base.Hash), stdout, stderr, func() error {
		if interrupted {
			return o.signals.exit()
		}
		return nil
	})
}

// sweepRepro gives the command that reproduces one run of a sweep: the sweep of that
// setting and seed alone. A merged sweep's names the same command as the unsharded one's.
func sweepRepro(res *sweep.Result, hash string) func([]string, uint64) string {
	return func(values []string, seed uint64) string {
		words := []string{"nodesim", "sweep", res.Scenario}
		for i, v := range values {
			words = append(words, "--set", res.Paths[i]+"="+v)
		}
		return "reproduce: " + shellJoin(append(words, "--seed", strconv.FormatUint(seed, 10))) +
			fmt.Sprintf("  (nodesim %s, scenario sha256 %.12s)", Version, hash)
	}
}

// finishSweep prints a whole sweep's result (a sweep's, or merge's), writes its JUnit file
// and turns its runs into the exit code: 1 when fewer runs passed than asked for.
func finishSweep(res *sweep.Result, output string, v verdictOptions, repro func([]string, uint64) string, stdout, stderr io.Writer, interrupted func() error) error {
	if v.junit != "" {
		data, err := sweep.JUnit(res, repro)
		if err != nil {
			return err
		}
		if err := writeAtomic(v.junit, data); err != nil {
			return err
		}
	}
	if err := sweep.Write(stdout, res, output); err != nil && !errors.Is(err, syscall.EPIPE) {
		return err
	}
	if err := interrupted(); err != nil {
		return err
	}
	return verdict(res, v.minPass)
}

// verdict is nil when enough runs passed every expectation: all of them, or minPass of
// them when it is set; else the exit-1 error naming the runs that failed.
func verdict(res *sweep.Result, minPass float64) error {
	failed := res.FailedRuns()
	if len(failed) == 0 {
		return nil
	}
	frac := 0.0
	if res.Runs > 0 {
		frac = float64(res.Passed) / float64(res.Runs)
	}
	if minPass >= 0 && frac >= minPass {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sweep: %d of %d runs failed an expectation", len(failed), res.Runs)
	if minPass >= 0 {
		fmt.Fprintf(&b, " (passed %.4g%%, --min-pass asks for %.4g%%)", 100*frac, 100*minPass)
	}
	const shown = 10
	for i, f := range failed {
		if i == shown {
			fmt.Fprintf(&b, "\n  ... and %d more", len(failed)-shown)
			break
		}
		b.WriteString("\n  failed: " + f)
	}
	return &exitError{code: exitExpectation, err: errors.New(b.String())}
}

// writeAtomic writes a whole file under a temporary name and renames it into place, so
// that no reader sees half of it.
func writeAtomic(path string, data []byte) error {
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	defer f.abort()
	if _, err := f.f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.commit()
}

// writeShard writes a shard's slice to path, or to stdout for "-".
func writeShard(path string, stdout io.Writer, f *sweep.ShardFile) error {
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return writeAtomic(path, data)
}

func newSweepMergeCmd(stdout, stderr io.Writer) *cobra.Command {
	var v verdictOptions
	var output string
	c := &cobra.Command{
		Use:   "merge SHARD.json...",
		Short: "Merge the slices of a sharded sweep into the whole sweep's output",
		Long: `Merge reads the files of every shard of one sweep (written by 'nodesim sweep ... --shard I/N')
and prints exactly what the unsharded sweep prints, in any format, with the same --junit
file and exit code (0, or 1 when runs failed their expectations, see --min-pass). A shard
that is missing, given twice, from another sweep or cut short is an error naming it (exit 2).`,
		Example: `  nodesim sweep merge shard-*.json
  nodesim sweep merge results/*.json -o markdown --junit sweep.xml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !sweep.ValidFormat(output) {
				return invalid(fmt.Errorf("unknown output format %q (want %s)", output, strings.Join(sweep.Formats, ", ")))
			}
			var files []sweep.NamedShard
			for _, name := range args {
				f, err := readShard(name)
				if err != nil {
					return invalid(err)
				}
				files = append(files, sweep.NamedShard{Name: name, File: f})
			}
			res, err := sweep.Merge(files)
			if err != nil {
				return invalid(err)
			}
			return finishSweep(res, output, v, sweepRepro(res, files[0].File.ScenarioHash), stdout, stderr, func() error { return nil })
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "table", "output format: "+strings.Join(sweep.Formats, ", "))
	completeOutput(c, sweep.Formats...)
	v.flags(c)
	return c
}

// maxShardFile bounds a shard file: a slice of the largest grid --max-runs allows fits
// many times over.
const maxShardFile = 256 << 20

// readShard reads one shard file strictly: a bounded regular file holding one JSON object
// with no unknown field.
func readShard(name string) (*sweep.ShardFile, error) {
	st, err := os.Stat(name) // before opening: opening a FIFO would wait for a writer
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxShardFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxShardFile {
		return nil, fmt.Errorf("%s: larger than the %d MiB limit of a shard file", name, maxShardFile>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sf sweep.ShardFile
	if err := dec.Decode(&sf); err != nil {
		return nil, fmt.Errorf("%s: not a nodesim sweep shard: %w", name, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: not a nodesim sweep shard: more than one JSON value", name)
	}
	return &sf, nil
}

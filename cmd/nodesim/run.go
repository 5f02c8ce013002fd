package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"nodesim/engine"
	"nodesim/model/qos"
	"nodesim/reports"
	"nodesim/scenarios"
	"nodesim/trace"
)

type runOptions struct {
	files     scenarios.FileOptions
	seed      int64
	output    string
	outDir    string
	artifacts []string
	junitFile string
	htmlFile  string
	// traceMaxEvents caps trace.jsonl and trace.perfetto.json at this many events each
	// (0: no cap).
	traceMaxEvents int
	profile        string
	quiet          bool
	signals        *signals
}

func newRunCmd(stdout, stderr io.Writer, sig *signals) *cobra.Command {
	o := &runOptions{seed: -1, signals: sig}
	c := &cobra.Command{
		Use:   "run FILE|NAME",
		Short: "Simulate a scenario and report what happened",
		Long: `Run simulates the scenario in FILE (or the built-in scenario NAME, see 'nodesim scenarios')
and prints a report. Its expectations decide the exit code: 0 when all hold, 1 when any fails,
2 when the scenario or the command is invalid.`,
		Example: `  nodesim run scenarios/crashloop.yaml
  nodesim run crashloop --seed 7 -o json
  nodesim run my-node.yaml --out results/
  nodesim run my-node.yaml --junit junit.xml
  nodesim run my-node.yaml --out results/ --artifacts report,junit --trace-max-events 100000`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = fileOptions(cmd)
			if err := o.checkArtifacts(cmd.Flags().Changed("artifacts")); err != nil {
				return invalid(err)
			}
			return o.run(args[0], stdout, stderr)
		},
	}
	c.Flags().Int64Var(&o.seed, "seed", -1, "seed for the run's randomness (default: the scenario's spec.seed, else 1)")
	c.Flags().StringVarP(&o.output, "output", "o", "table", "output format: table, json or yaml")
	completeOutput(c, "table", "json", "yaml")
	c.Flags().StringVar(&o.profile, "profile", "", "write a CPU profile of the simulation to this file (read it with go tool pprof)")
	c.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar on a terminal's stderr")
	c.Flags().StringVar(&o.outDir, "out", "", "also write report.json, report.html, junit.xml, timeline.csv, trace.jsonl and trace.perfetto.json into this directory (--artifacts picks some)")
	c.Flags().StringSliceVar(&o.artifacts, "artifacts", allArtifacts(), "the files --out writes: any of "+strings.Join(allArtifacts(), ","))
	_ = c.RegisterFlagCompletionFunc("artifacts", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return allArtifacts(), cobra.ShellCompDirectiveNoFileComp
	})
	c.Flags().StringVar(&o.junitFile, "junit", "", "write the expectations' JUnit XML to this file (with or without --out)")
	c.Flags().StringVar(&o.htmlFile, "html", "", "write the HTML report to this file (with or without --out)")
	c.Flags().IntVar(&o.traceMaxEvents, "trace-max-events", 0, fmt.Sprintf("keep at most this many events in trace.jsonl and in trace.perfetto.json, then note the truncation in the file (0: no cap; at most %d)", maxTraceEvents))
	return c
}

// load reads a scenario file, or a built-in scenario by name.
func load(ref string, opts scenarios.FileOptions) (*scenarios.Loaded, error) {
	src, err := openSource(ref, opts)
	if err != nil {
		return nil, err
	}
	return src.Parse(src.Data)
}

func (o *runOptions) run(ref string, stdout, stderr io.Writer) error {
	switch o.output {
	case "table", "json", "yaml":
	default:
		return invalid(fmt.Errorf("unknown output format %q (want table, json or yaml)", o.output))
	}
	l, err := load(ref, o.files)
	if err != nil {
		return invalid(err)
	}
	seed := l.Seed()
	if o.seed >= 0 {
		seed = uint64(o.seed)
	}
	builder := newReportBuilder(l, seed)
	var out *outDir
	var files *streamedFiles
	if o.outDir != "" {
		if out, err = openOutDir(o.outDir); err != nil {
			return err
		}
		defer out.abort()
	}
	alone, err := openStandalone(o)
	if err != nil {
		return err
	}
	defer alone.abort()
	if files, err = openStreamedFiles(out, o, l, seed); err != nil {
		return err
	}
	var sink trace.Sink = builder
	if more := files.sinks(); len(more) > 0 {
		sink = append(teeSink{builder}, more...)
	}
	stopProfile, err := startProfile(o.profile)
	if err != nil {
		return err
	}
	bar := newProgress(stderr, o.quiet)
	bar.StartSimulated("run "+l.Scenario.Metadata.Name, l.Scenario.Spec.Duration.Duration)
	res, err := runEngine(l, seed, engine.Options{Sink: newProgressSink(sink, bar, l.Scenario.Spec.Duration.Duration),
		SkipReasons: !files.reasons, Interrupt: o.signals.flag()})
	bar.Done()
	if perr := stopProfile(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		if errors.Is(err, engine.ErrInterrupted) {
			return o.signals.exit()
		}
		return internal(fmt.Errorf("simulating %s: %w", ref, err))
	}
	r := finishReport(builder, res, ref)
	ok := reports.Evaluate(r, l.Scenario.Spec.Expect)

	// Every file is rendered and committed before anything goes to stdout, so that a reader
	// that stops reading (| head) or a signal during the printing cannot cost the files.
	if err := files.finish(res.End); err != nil {
		return err
	}
	if out != nil {
		if err := writeFiles(out, o, r, files.charts); err != nil {
			return err
		}
	}
	if err := alone.write(r, files.charts); err != nil {
		return err
	}
	if o.signals.caught() {
		return o.signals.exit()
	}
	if out != nil {
		if err := out.commit(Manifest{Scenario: l.Scenario.Metadata.Name, ScenarioSHA256: l.Hash, Seed: seed, Nodesim: Version}); err != nil {
			return err
		}
	}
	if err := alone.commit(); err != nil {
		return err
	}

	var text []byte
	switch o.output {
	case "json":
		text, err = reports.JSON(r)
	case "yaml":
		text, err = reports.YAML(r)
	}
	if err != nil {
		return err
	}
	if o.output == "table" {
		err = reports.Table(stdout, r)
	} else {
		_, err = stdout.Write(text)
	}
	if err != nil && !errors.Is(err, syscall.EPIPE) {
		return err
	}
	if !ok {
		var lines []string
		for _, e := range r.Expectations {
			if !e.Pass {
				lines = append(lines, fmt.Sprintf("expectation failed: %s: %s", e.Expect, e.Detail))
			}
		}
		return &exitError{code: exitExpectation, err: fmt.Errorf("%s", strings.Join(lines, "\n"))}
	}
	return nil
}

// runEngine is engine.Run; a test replaces it to reach the paths a sound model never takes.
var runEngine = engine.Run

// newReportBuilder starts the report that the run's trace streams into.
func newReportBuilder(l *scenarios.Loaded, seed uint64) *reports.Builder {
	in := reports.Input{
		Scenario: l.Scenario, File: l.File, Hash: l.Hash, Seed: seed,
		QoS: map[string]string{}, NotModelled: l.NotModelled, Warnings: l.Warnings, Version: Version,
	}
	for _, p := range l.Pods {
		in.QoS[p.Key()] = string(qos.ComputePodQOS(p.Pod, l.Gates == nil || l.Gates.Enabled("PodLevelResources")))
		in.PodOrder = append(in.PodOrder, p.Key())
	}
	return reports.NewBuilder(in)
}

// finishReport completes the report once the run is over.
func finishReport(b *reports.Builder, res *engine.Result, ref string) *reports.Report {
	l := res.Scenario
	r := b.Finish(res.End)
	hash := l.Hash
	if len(hash) > 12 {
		hash = hash[:12]
	}
	r.Reproduce = fmt.Sprintf("reproduce: nodesim run %s --seed %d  (nodesim %s, scenario sha256 %s)", shellQuote(ref), res.Seed, Version, hash)
	return r
}

// writeFiles renders the --out files made from the finished report into the run's staging
// directory, those of report.json, report.html (drawn with the series charts recorded during
// the run) and junit.xml that --artifacts chose.
func writeFiles(o *outDir, opts *runOptions, r *reports.Report, charts *reports.ChartRecorder) error {
	for _, f := range []struct {
		artifact, name string
		render         func() ([]byte, error)
	}{
		{"report", "report.json", func() ([]byte, error) { return reports.JSON(r) }},
		{"html", "report.html", func() ([]byte, error) { return reports.HTML(r, charts) }},
		{"junit", "junit.xml", func() ([]byte, error) { return reports.JUnit(r) }},
	} {
		if !opts.wants(f.artifact) {
			continue
		}
		data, err := f.render()
		if err != nil {
			return err
		}
		if err := o.write(f.name, data); err != nil {
			return err
		}
	}
	return nil
}

// streamedFiles are the files written as the run goes, so that a long run never holds its
// trace: trace.jsonl, trace.perfetto.json and timeline.csv, those --artifacts chose, in the
// staging directory until the run is committed. charts keeps the bounded series an HTML
// report draws, when one is asked for (in --out or by --html).
type streamedFiles struct {
	streams []stream
	charts  *reports.ChartRecorder
	// reasons is set when a file records decisions' reasons (trace.jsonl); the report and
	// the other files never read them.
	reasons bool
}

// stream is one streamed file: its writer, and how to complete it once the run has ended.
type stream struct {
	file   *stagedFile
	sink   trace.Sink
	finish func(end time.Duration) error
}

func openStreamedFiles(o *outDir, opts *runOptions, l *scenarios.Loaded, seed uint64) (*streamedFiles, error) {
	s := &streamedFiles{}
	var pods []string
	for _, p := range l.Pods {
		pods = append(pods, p.Key())
	}
	create := func(artifact, name string) (*stagedFile, error) {
		if !opts.wants(artifact) {
			return nil, nil
		}
		return o.create(name)
	}
	if f, err := create("trace", "trace.jsonl"); err != nil {
		return nil, err
	} else if f != nil {
		w := reports.NewTraceWriter(f)
		w.SetMaxEvents(opts.traceMaxEvents)
		s.reasons = true
		s.streams = append(s.streams, stream{f, w, func(time.Duration) error { return w.Flush() }})
	}
	if f, err := create("perfetto", "trace.perfetto.json"); err != nil {
		return nil, err
	} else if f != nil {
		w := reports.NewPerfettoWriter(f, fmt.Sprintf("nodesim %s (seed %d)", l.Scenario.Metadata.Name, seed))
		w.SetMaxEvents(opts.traceMaxEvents)
		s.streams = append(s.streams, stream{f, w, func(time.Duration) error { return w.Finish() }})
	}
	if f, err := create("csv", "timeline.csv"); err != nil {
		return nil, err
	} else if f != nil {
		w := reports.NewTimelineWriter(f, pods)
		s.streams = append(s.streams, stream{f, w, w.Finish})
	}
	if opts.wants("html") || opts.htmlFile != "" {
		c := reports.ChartOptions{Duration: l.Scenario.Spec.Duration.Duration, Pods: pods}
		if q, ok := l.Scenario.Spec.Node.Capacity[corev1.ResourceMemory]; ok {
			c.NodeMemory = q.AsApproximateFloat64()
		}
		if l.Kubelet != nil {
			c.EvictionHard, c.EvictionSoft = l.Kubelet.EvictionHard, l.Kubelet.EvictionSoft
		}
		s.charts = reports.NewChartRecorder(c)
	}
	return s, nil
}

func (s *streamedFiles) sinks() []trace.Sink {
	var out []trace.Sink
	for _, f := range s.streams {
		out = append(out, f.sink)
	}
	if s.charts != nil {
		out = append(out, s.charts)
	}
	return out
}

// finish completes the streamed files of a run that ended at end.
func (s *streamedFiles) finish(end time.Duration) error {
	if s.charts != nil {
		s.charts.Finish(end)
	}
	for _, f := range s.streams {
		if err := f.finish(end); err != nil {
			return fmt.Errorf("writing %s: %w", f.file.name, err)
		}
		if err := f.file.close(); err != nil {
			return err
		}
	}
	return nil
}

// standalone are the files --junit and --html write on their own, each under a temporary
// name beside its target until the run has ended, then synced and renamed into place whole:
// an interrupted run leaves neither the file nor its temporary.
type standalone []standaloneFile

type standaloneFile struct {
	file   *atomicFile
	render func(*reports.Report, *reports.ChartRecorder) ([]byte, error)
}

func openStandalone(o *runOptions) (standalone, error) {
	var s standalone
	for _, f := range []struct {
		path   string
		render func(*reports.Report, *reports.ChartRecorder) ([]byte, error)
	}{
		{o.junitFile, func(r *reports.Report, _ *reports.ChartRecorder) ([]byte, error) { return reports.JUnit(r) }},
		{o.htmlFile, reports.HTML},
	} {
		if f.path == "" {
			continue
		}
		a, err := createAtomic(f.path)
		if err != nil {
			s.abort()
			return nil, err
		}
		s = append(s, standaloneFile{a, f.render})
	}
	return s, nil
}

// write renders each file from the finished report.
func (s standalone) write(r *reports.Report, charts *reports.ChartRecorder) error {
	for _, f := range s {
		data, err := f.render(r, charts)
		if err != nil {
			return err
		}
		if _, err := f.file.f.Write(data); err != nil {
			return fmt.Errorf("writing %s: %w", f.file.path, err)
		}
	}
	return nil
}

// commit puts each file in place.
func (s standalone) commit() error {
	for _, f := range s {
		if err := f.file.commit(); err != nil {
			return err
		}
	}
	return nil
}

// abort removes the temporary files of those not committed.
func (s standalone) abort() {
	for _, f := range s {
		f.file.abort()
	}
}

// teeSink hands each event to every sink in turn.
type teeSink []trace.Sink

func (t teeSink) Record(e *trace.Event) {
	for _, s := range t {
		s.Record(e)
	}
}

// startProfile starts a CPU profile into path (nothing when path is empty); the returned
// func stops it and puts the file in place whole.
func startProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := createAtomic(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f.f); err != nil {
		f.abort()
		return nil, fmt.Errorf("profiling into %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.commit()
	}, nil
}

// atomicFile is a file written under a temporary name and renamed into place once whole.
type atomicFile struct {
	path string
	f    *os.File
	done bool
}

func createAtomic(path string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return &atomicFile{path: path, f: f}, nil
}

func (a *atomicFile) commit() error {
	if err := a.f.Chmod(0o644); err != nil {
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	if err := a.f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	if err := a.f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	if err := os.Rename(a.f.Name(), a.path); err != nil {
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	a.done = true
	syncDir(filepath.Dir(a.path))
	return nil
}

// abort removes the temporary file unless it was committed.
func (a *atomicFile) abort() {
	if !a.done {
		a.f.Close()
		os.Remove(a.f.Name())
	}
}

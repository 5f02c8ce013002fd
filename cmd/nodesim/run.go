package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"nodesim/engine"
	"nodesim/model/qos"
	"nodesim/reports"
	"nodesim/scenarios"
)

type runOptions struct {
	seed   int64
	output string
	outDir string
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &runOptions{seed: -1}
	c := &cobra.Command{
		Use:   "run FILE|NAME",
		Short: "Simulate a scenario and report what happened",
		Long: `Run simulates the scenario in FILE (or the built-in scenario NAME, see 'nodesim scenarios')
and prints a report. Its expectations decide the exit code: 0 when all hold, 1 when any fails,
2 when the scenario or the command is invalid.`,
		Example: `  nodesim run scenarios/crashloop.yaml
  nodesim run crashloop --seed 7 -o json
  nodesim run my-node.yaml --out results/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(args[0], stdout, stderr)
		},
	}
	c.Flags().Int64Var(&o.seed, "seed", -1, "seed for the run's randomness (default: the scenario's spec.seed, else 1)")
	c.Flags().StringVarP(&o.output, "output", "o", "table", "output format: table, json or yaml")
	c.Flags().StringVar(&o.outDir, "out", "", "also write report.json and other files into this directory")
	return c
}

// load reads a scenario file, or a built-in scenario by name.
func load(ref string) (*scenarios.Loaded, error) {
	if _, err := os.Stat(ref); err == nil || strings.ContainsAny(ref, "/.") {
		return scenarios.LoadFile(ref)
	}
	return scenarios.LoadBuiltin(ref)
}

func (o *runOptions) run(ref string, stdout, stderr io.Writer) error {
	switch o.output {
	case "table", "json", "yaml":
	default:
		return invalid(fmt.Errorf("unknown output format %q (want table, json or yaml)", o.output))
	}
	l, err := load(ref)
	if err != nil {
		return invalid(err)
	}
	seed := l.Seed()
	if o.seed >= 0 {
		seed = uint64(o.seed)
	}
	builder := newReportBuilder(l, seed)
	res, err := engine.Run(l, seed, engine.Options{Sink: builder})
	if err != nil {
		return fmt.Errorf("simulating %s: %w", ref, err)
	}
	r := finishReport(builder, res, ref)
	ok := reports.Evaluate(r, l.Scenario.Spec.Expect)

	var out []byte
	switch o.output {
	case "json":
		out, err = reports.JSON(r)
	case "yaml":
		out, err = reports.YAML(r)
	}
	if err != nil {
		return err
	}
	if o.output == "table" {
		if err := reports.Table(stdout, r); err != nil {
			return err
		}
	} else if _, err := stdout.Write(out); err != nil {
		return err
	}
	if o.outDir != "" {
		if err := writeFiles(o.outDir, r); err != nil {
			return err
		}
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

// newReportBuilder starts the report that the run's trace streams into.
func newReportBuilder(l *scenarios.Loaded, seed uint64) *reports.Builder {
	in := reports.Input{
		Scenario: l.Scenario, File: l.File, Hash: l.Hash, Seed: seed,
		QoS: map[string]string{}, NotModelled: l.NotModelled, Version: Version,
	}
	for _, p := range l.Pods {
		in.QoS[p.Key()] = string(qos.GetPodQOS(p.Pod))
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
	r.Reproduce = fmt.Sprintf("reproduce: nodesim run %s --seed %d  (nodesim %s, scenario sha256 %s)", ref, res.Seed, Version, hash)
	return r
}

// writeFiles writes the run's files into dir, each written whole (a temporary file, then a
// rename), so that a reader never sees half a file.
func writeFiles(dir string, r *reports.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	j, err := reports.JSON(r)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "report.json"), j)
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

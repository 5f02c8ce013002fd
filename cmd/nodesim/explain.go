package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	api "nodesim/api/v1alpha1"
	"nodesim/engine"
	"nodesim/explain"
	"nodesim/reports"
	"nodesim/scenarios"
)

type explainOptions struct {
	files    scenarios.FileOptions
	seed     int64
	pod      string
	from, to string
	only     string
	boot     bool
	noColor  bool
	glossary bool
	// html, when set, writes the steppable page there instead of printing the transcript.
	html     string
	maxSteps int
}

func newExplainCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &explainOptions{seed: -1}
	c := &cobra.Command{
		Use:   "explain FILE|NAME",
		Short: "Print the kubelet's steps during a run, one line each, in upstream's names",
		Long: `Explain simulates the scenario in FILE (or the built-in scenario NAME) and prints a transcript
of what the kubelet did, in simulated time order: each syncLoopIteration with the channels that
were ready and the one it chose, the handler it called and the pods it dispatched, each pod
worker's rounds and waits, PLEG relists and their events, CRI calls with their durations, status
writes, evictions and OOM kills. A line marked "why:" is the reason the model recorded when it
made that decision (the rule and its values); explain adds no reasons of its own.
--glossary maps names from older kubelet articles to today's.
--html OUT.html writes, instead, one self-contained page that plays the run: lanes for the
goroutines, the channels with the messages waiting in each, every pod's phase and container
state at each step, the step's transcript lines, why: and upstream function, with stepping,
play, a time jump, keyboard shortcuts and the --pod/--only filters. --from/--to window it;
past --max-steps steps, periodic steps that changed nothing are folded, with a note.

The transcript is built from the run's trace alone (the same events as trace.jsonl). Steps that
change nothing (syncCh ticks with no pod due, idle housekeeping, relists that saw no change) are
summarised in one faint line. The kubelet's start before the scenario's time zero is left out
unless --boot is given, except the syncLoop's select (every channel it waits on, its capacity
and what feeds it), which comes first.

--only keeps these categories (comma-separated):
  config        the API server's pods and the podConfig merge into configCh
  pleg          relists, lifecycle events, PLEG health
  sync          the syncLoop: select, handlers, getPodsToSync, admission, the health gate
  housekeeping  HandlePodCleanups, container GC, podContainerDeletor
  probes        probe results
  workers       pod workers, SyncPod's steps (computePodActions, back-off, kills), statuses
  eviction      eviction passes, evictions, pressure conditions, OOM kills, stats
  cri           runtime calls and the runtime's containers

Colour is used on a terminal, unless --no-color is given or NO_COLOR is set.
Exit codes as for run: 0 ok, 1 an expectation of the scenario failed (the transcript is still
complete), 2 invalid input or usage.`,
		Example: `  nodesim explain crashloop --to 3m
  nodesim explain graceful-deletion --pod default/web
  nodesim explain runtime-outage --from 55s --to 5m30s --only sync,pleg
  nodesim explain my-node.yaml --seed 7 --no-color | less
  nodesim explain graceful-deletion --html graceful-deletion.html
  nodesim explain --glossary`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.glossary {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		ValidArgsFunction: completeScenario,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = fileOptions(cmd)
			if cmd.Flags().Changed("max-steps") && o.html == "" {
				return invalid(fmt.Errorf("--max-steps bounds the page --html writes; give --html OUT.html too"))
			}
			if o.glossary {
				return explain.WriteGlossary(stdout)
			}
			return o.run(args[0], stdout, stderr)
		},
	}
	f := c.Flags()
	f.Int64Var(&o.seed, "seed", -1, "seed for the run's randomness (default: the scenario's spec.seed, else 1)")
	f.StringVar(&o.pod, "pod", "", "show only the steps of this pod (NAMESPACE/NAME; NAME alone means default/NAME)")
	f.StringVar(&o.from, "from", "", "start of the time window (a duration such as 90s or 2m, or seconds)")
	f.StringVar(&o.to, "to", "", "end of the time window (a duration such as 3m, or seconds)")
	f.StringVar(&o.only, "only", "", "keep only these categories: config,pleg,sync,housekeeping,probes,workers,eviction,cri")
	f.BoolVar(&o.boot, "boot", false, "also show the kubelet's start before the scenario's time zero")
	f.BoolVar(&o.noColor, "no-color", false, "never colour the output (NO_COLOR in the environment does the same)")
	f.StringVar(&o.html, "html", "", "write a self-contained page that steps through the run (lanes, channels, pods) to this file instead of printing")
	f.IntVar(&o.maxSteps, "max-steps", explain.DefaultMaxSteps, "with --html: the most steps the page holds (periodic steps that change nothing are folded first)")
	f.BoolVar(&o.glossary, "glossary", false, "print the names older kubelet articles use (managePodLoop, dispatchWork, podKiller, ...) with today's names, and exit")
	return c
}

// parseInstant reads a --from/--to value: a Go duration ("90s", "1m30s") or plain seconds.
func parseInstant(flag, s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("--%s %s: must not be negative", flag, s)
		}
		return d, nil
	}
	secs, err := strconv.ParseFloat(s, 64)
	if err != nil || secs < 0 {
		return 0, fmt.Errorf("--%s %q: want a duration such as 90s or 2m, or seconds", flag, s)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// options checks the flags against the loaded scenario and turns them into explain options.
func (o *explainOptions) options(l *scenarios.Loaded, stdout io.Writer) (explain.Options, error) {
	var eo explain.Options
	var err error
	if o.from != "" {
		if eo.From, err = parseInstant("from", o.from); err != nil {
			return eo, err
		}
	}
	if o.to != "" {
		if eo.To, err = parseInstant("to", o.to); err != nil {
			return eo, err
		}
		if eo.To <= eo.From {
			return eo, fmt.Errorf("--to %s must be after --from %s", o.to, eo.From)
		}
	}
	if o.only != "" {
		if eo.Only, err = explain.ParseCategories(o.only); err != nil {
			return eo, fmt.Errorf("--only: %w", err)
		}
	}
	if o.pod != "" {
		eo.Pod = o.pod
		if !strings.Contains(eo.Pod, "/") {
			eo.Pod = "default/" + eo.Pod
		}
		if err := knownPod(l, eo.Pod); err != nil {
			return eo, err
		}
	}
	eo.Boot = o.boot
	eo.Color = useColor(stdout, o.noColor, os.LookupEnv, isTerminal)
	return eo, nil
}

// knownPod checks that the scenario brings the pod --pod names, so that a typo is an error
// rather than an empty transcript. A static pod is named after its node (NAME-NODE), so a
// file-sourced pod matches by prefix.
func knownPod(l *scenarios.Loaded, pod string) error {
	var names []string
	for _, p := range l.Pods {
		key := p.Key()
		if key == pod || (p.Source == api.SourceFile && strings.HasPrefix(pod, key+"-")) {
			return nil
		}
		names = append(names, key)
	}
	return fmt.Errorf("--pod %s: the scenario has no such pod (its pods: %s)", pod, strings.Join(names, ", "))
}

// useColor decides on ANSI colour: only on a terminal, and never when --no-color is given
// or NO_COLOR is set to anything but the empty string (no-color.org).
func useColor(w io.Writer, noColor bool, env func(string) (string, bool), terminal func(io.Writer) bool) bool {
	if noColor {
		return false
	}
	if v, ok := env("NO_COLOR"); ok && v != "" {
		return false
	}
	return terminal(w)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// title is the transcript's first line: the command that reproduces it.
func (o *explainOptions) title(ref string, l *scenarios.Loaded, seed uint64, eo explain.Options) string {
	args := []string{"nodesim explain", shellQuote(ref), "--seed", strconv.FormatUint(seed, 10)}
	if eo.Pod != "" {
		args = append(args, "--pod", shellQuote(eo.Pod))
	}
	if o.from != "" {
		args = append(args, "--from", shellQuote(o.from))
	}
	if o.to != "" {
		args = append(args, "--to", shellQuote(o.to))
	}
	if len(eo.Only) > 0 {
		args = append(args, "--only", eo.OnlyString())
	}
	if eo.Boot {
		args = append(args, "--boot")
	}
	if o.html != "" {
		args = append(args, "--html", shellQuote(o.html))
		if o.maxSteps != explain.DefaultMaxSteps {
			args = append(args, "--max-steps", strconv.Itoa(o.maxSteps))
		}
	}
	hash := l.Hash
	if len(hash) > 12 {
		hash = hash[:12]
	}
	return fmt.Sprintf("%s  (nodesim %s, kubelet v1.37 model, scenario sha256 %s)", strings.Join(args, " "), Version, hash)
}

func (o *explainOptions) run(ref string, stdout, stderr io.Writer) error {
	l, err := load(ref, o.files)
	if err != nil {
		return invalid(err)
	}
	eo, err := o.options(l, stdout)
	if err != nil {
		return invalid(err)
	}
	seed := l.Seed()
	if o.seed >= 0 {
		seed = uint64(o.seed)
	}
	eo.Title = o.title(ref, l, seed, eo)
	if o.html != "" {
		return o.writePage(ref, l, seed, eo, stdout)
	}

	out := bufio.NewWriterSize(stdout, 1<<16)
	tr := explain.New(out, eo)
	builder := newReportBuilder(l, seed)
	res, err := engine.Run(l, seed, engine.Options{Sink: teeSink{tr, builder}})
	if err != nil {
		return internal(fmt.Errorf("simulating %s: %w", ref, err))
	}
	if err := tr.Close(); err != nil {
		return fmt.Errorf("writing the transcript: %w", err)
	}
	r := finishReport(builder, res, ref)
	// The transcript ends with the run's headroom, over the whole run whatever --from and
	// --to showed.
	for _, l := range reports.HeadroomLines(r) {
		fmt.Fprintf(out, "headroom: %s\n", l)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing the transcript: %w", err)
	}
	if !reports.Evaluate(r, l.Scenario.Spec.Expect) {
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

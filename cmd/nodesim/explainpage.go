package main

import (
	"fmt"
	"io"
	"strings"

	"nodesim/engine"
	"nodesim/explain"
	"nodesim/internal/safetext"
	"nodesim/reports"
	"nodesim/scenarios"
)

// maxPageSteps bounds --max-steps: a page of more steps than this would no longer open at once.
const maxPageSteps = 200000

// writePage runs the scenario into an explain page and writes it to --html, whole or not at
// all. The page's filters start as --pod and --only set them; --from and --to bound its steps.
func (o *explainOptions) writePage(ref string, l *scenarios.Loaded, seed uint64, eo explain.Options, stdout io.Writer) error {
	if o.maxSteps < 1 || o.maxSteps > maxPageSteps {
		return invalid(fmt.Errorf("--max-steps %d: want 1 to %d", o.maxSteps, maxPageSteps))
	}
	// The file is opened first, so that a path that cannot be written fails before the run.
	f, err := createAtomic(o.html)
	if err != nil {
		return invalid(fmt.Errorf("--html: %w", err))
	}
	defer f.abort()
	page := explain.NewPage(explain.PageOptions{Title: eo.Title, From: eo.From, To: eo.To, Boot: eo.Boot,
		Pod: eo.Pod, Only: eo.Only, MaxSteps: o.maxSteps})
	builder := newReportBuilder(l, seed)
	res, err := engine.Run(l, seed, engine.Options{Sink: teeSink{page, builder}})
	if err != nil {
		return internal(fmt.Errorf("simulating %s: %w", ref, err))
	}
	if err := page.Close(); err != nil {
		return internal(fmt.Errorf("building the page: %w", err))
	}
	if err := page.WriteHTML(f.f); err != nil {
		return fmt.Errorf("writing %s: %w", o.html, err)
	}
	if err := f.commit(); err != nil {
		return err
	}
	note := ""
	if page.Thinned() {
		note = " (thinned: see the note at its top)"
	}
	fmt.Fprintf(stdout, "wrote %s: %d steps of %d events%s\n", safetext.Escape(o.html), len(page.Steps), page.Events, note)
	r := finishReport(builder, res, ref)
	if !reports.Evaluate(r, l.Scenario.Spec.Expect) {
		return &exitError{code: exitExpectation, err: fmt.Errorf("%s", failedExpectations(r))}
	}
	return nil
}

// failedExpectations lists the expectations a run missed, one per line.
func failedExpectations(r *reports.Report) string {
	var lines []string
	for _, e := range r.Expectations {
		if !e.Pass {
			lines = append(lines, fmt.Sprintf("expectation failed: %s: %s", e.Expect, e.Detail))
		}
	}
	return strings.Join(lines, "\n")
}

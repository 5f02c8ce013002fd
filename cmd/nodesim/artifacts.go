package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// An artifact is one file of a run that --out can write; --artifacts names the ones wanted
// and manifest.json, which vouches for them (see outdir.go), is always written with them.
type artifact struct {
	name, file string
}

// artifacts are in the order --out writes them, which is the order of the manifest.
var artifacts = [...]artifact{
	{"report", "report.json"},
	{"html", "report.html"},
	{"junit", "junit.xml"},
	{"csv", "timeline.csv"},
	{"trace", "trace.jsonl"},
	{"perfetto", "trace.perfetto.json"},
}

func allArtifacts() []string {
	names := make([]string, len(artifacts))
	for i, a := range artifacts {
		names[i] = a.name
	}
	return names
}

// maxTraceEvents bounds --trace-max-events (2^31-1, several hundred gigabytes of trace):
// a larger cap would be no cap, and the bound keeps the count in an int on every platform.
const maxTraceEvents = 1<<31 - 1

// checkArtifacts refuses a selection that names no artifact or is given without --out, one
// file named by both --junit and --html, and a --trace-max-events out of range or with no
// trace file to cap.
func (o *runOptions) checkArtifacts(chosen bool) error {
	if chosen && o.outDir == "" {
		return fmt.Errorf("--artifacts chooses the files of --out; give --out DIR (or use --junit FILE or --html FILE alone)")
	}
	for _, a := range o.artifacts {
		if !slices.Contains(allArtifacts(), a) {
			return fmt.Errorf("--artifacts: unknown artifact %q (want any of %s)", a, strings.Join(allArtifacts(), ","))
		}
	}
	if chosen && len(o.artifacts) == 0 {
		return fmt.Errorf("--artifacts: name at least one of %s", strings.Join(allArtifacts(), ","))
	}
	if o.junitFile != "" && filepath.Clean(o.junitFile) == filepath.Clean(o.htmlFile) {
		return fmt.Errorf("--junit and --html both name %s: give each its own file", o.junitFile)
	}
	if o.traceMaxEvents < 0 || o.traceMaxEvents > maxTraceEvents {
		return fmt.Errorf("--trace-max-events: %d is out of range [0, %d] (0: no cap)", o.traceMaxEvents, maxTraceEvents)
	}
	if o.traceMaxEvents > 0 && !o.wants("trace") && !o.wants("perfetto") {
		return fmt.Errorf("--trace-max-events caps trace.jsonl and trace.perfetto.json, which this run does not write (give --out DIR with trace or perfetto among its --artifacts)")
	}
	return nil
}

// wants reports whether --out writes the artifact name.
func (o *runOptions) wants(name string) bool {
	return o.outDir != "" && slices.Contains(o.artifacts, name)
}

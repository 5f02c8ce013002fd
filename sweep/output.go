package sweep

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"sigs.k8s.io/yaml"

	"nodesim/internal/safetext"
)

// Formats are the output formats of a sweep, the first the default.
var Formats = []string{"table", "json", "yaml", "csv", "markdown"}

// ValidFormat reports whether f is one of Formats.
func ValidFormat(f string) bool {
	for _, x := range Formats {
		if x == f {
			return true
		}
	}
	return false
}

// Write prints a sweep's result in a format: a table for people, JSON or YAML for
// programs, CSV for a spreadsheet, markdown for a pull request comment. The bytes depend
// only on the result, so a merged sweep prints exactly what the unsharded one does.
func Write(w io.Writer, res *Result, format string) error {
	switch format {
	case "table":
		return writeTable(w, res)
	case "json":
		out, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", out)
		return err
	case "yaml":
		out, err := yaml.Marshal(res)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	case "csv":
		return writeCSV(w, res)
	case "markdown":
		return writeMarkdown(w, res)
	}
	return fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats, ", "))
}

// header is the column names of the table and markdown outputs.
func header(res *Result) []string {
	h := append([]string{}, res.Paths...)
	h = append(h, "expectations", "first pressure", "first eviction")
	for _, s := range HeadroomSignals {
		h = append(h, "lowest "+s)
	}
	return append(h, "evictions", "evicted", "OOM kills", "restarts", "rejections", "start-up p99")
}

// cells is one row of the table and markdown outputs.
func cells(res *Result, r *Row) []string {
	c := append([]string{}, r.Values...)
	pressure := timingText(r.FirstPressure, r.Runs)
	if conds := sortedKeys(r.PressureConditions); len(conds) > 0 {
		pressure = strings.Join(conds, "/") + " " + pressure
	}
	c = append(c, fmt.Sprintf("%d/%d runs passed", r.AllPassed, r.Runs), pressure, timingText(r.FirstEviction, r.Runs))
	for _, s := range HeadroomSignals {
		c = append(c, headroomText(r, s, len(res.Seeds) > 1))
	}
	var evicted []string
	for _, p := range sortedKeys(r.Evicted) {
		evicted = append(evicted, fmt.Sprintf("%s×%d", p, r.Evicted[p]))
	}
	if len(evicted) == 0 {
		evicted = []string{"-"}
	}
	c = append(c, spreadText(r.Evictions, "%g"), strings.Join(evicted, " "), spreadText(r.OOMKills, "%g"),
		spreadText(r.Restarts, "%g"), spreadText(r.Rejections, "%g"), durationSpread(r.StartupP99))
	for i := range c {
		c[i] = safetext.Escape(c[i])
	}
	return c
}

func spreadText(s Spread, format string) string {
	if s.Min == s.Max {
		return fmt.Sprintf(format, s.Min)
	}
	return fmt.Sprintf(format+" (%s..%s)", s.Mean, fmt.Sprintf(format, s.Min), fmt.Sprintf(format, s.Max))
}

// durationText renders seconds as a Go duration (2m9s, 450ms), to the millisecond.
func durationText(sec float64) string {
	return (time.Duration(math.Round(sec*1000)) * time.Millisecond).String()
}

func durationSpread(s Spread) string {
	if s.Min == s.Max {
		return durationText(s.Min)
	}
	return fmt.Sprintf("%s (%s..%s)", durationText(s.Mean), durationText(s.Min), durationText(s.Max))
}

// timingText renders when something first happened: the mean time and range over the runs
// where it happened, and in how many of the row's runs when not in all; "-" for never.
func timingText(t Timing, runs int) string {
	if t.Runs == 0 {
		return "-"
	}
	s := durationSpread(t.Spread)
	if t.Runs < runs {
		s += fmt.Sprintf(" in %d/%d runs", t.Runs, runs)
	}
	return s
}

// headroomText renders a row's lowest headroom of a signal: the lowest value, when, its
// margin over the hard threshold (negative below it), and which seed when there are several.
func headroomText(r *Row, signal string, seeds bool) string {
	for _, h := range r.Headroom {
		if h.Signal != signal {
			continue
		}
		margin := "+" + bytesText(h.Above)
		if h.Above < 0 {
			margin = bytesText(h.Above)
		}
		s := fmt.Sprintf("%s at %s (threshold %s", bytesText(h.Lowest), durationText(h.At), margin)
		if seeds {
			s += fmt.Sprintf(", seed %d", h.Seed)
		}
		s += ")"
		return s
	}
	return "-"
}

// bytesText renders bytes in the largest binary unit the value reaches, exact where it is
// a whole number of that unit and to four significant digits otherwise (412Mi, 99.98Gi).
func bytesText(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	units := []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	unit, div := "", int64(1)
	for i, u := range units {
		d := int64(1) << (10 * (i + 1))
		if n < d {
			break
		}
		unit, div = u, d
	}
	if n%div == 0 {
		return sign + strconv.FormatInt(n/div, 10) + unit
	}
	return sign + strconv.FormatFloat(float64(n)/float64(div), 'g', 4, 64) + unit
}

func writeTable(w io.Writer, res *Result) error {
	fmt.Fprintf(w, "sweep of %s over %d seed(s) from %d\n\n", safetext.Escape(res.Scenario), len(res.Seeds), firstSeed(res))
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header(toAny(header(res))...)
	for i := range res.Rows {
		if err := t.Append(toAny(cells(res, &res.Rows[i]))...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, r := range res.Rows {
		for _, e := range sortedKeys(r.FailedChecks) {
			fmt.Fprintf(w, "%s: failed in %d of %d runs: %s\n", safetext.Escape(strings.Join(r.Values, ", ")), r.FailedChecks[e], r.Runs, safetext.Escape(e))
		}
	}
	_, err := fmt.Fprintf(w, "%s\n", verdictLine(res))
	return err
}

func verdictLine(res *Result) string {
	return fmt.Sprintf("%d of %d runs passed every expectation", res.Passed, res.Runs)
}

func firstSeed(res *Result) uint64 {
	if len(res.Seeds) == 0 {
		return 0
	}
	return res.Seeds[0]
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// writeMarkdown renders the table as GitHub-flavoured markdown, for a pull request comment.
func writeMarkdown(w io.Writer, res *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### nodesim sweep of `%s`\n\n", mdCode(res.Scenario))
	fmt.Fprintf(&b, "%s, over %d seed(s) from %d.\n\n", verdictLine(res), len(res.Seeds), firstSeed(res))
	row := func(cs []string) {
		b.WriteString("|")
		for _, c := range cs {
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
	h := header(res)
	row(h)
	b.WriteString("|")
	for range h {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for i := range res.Rows {
		row(cells(res, &res.Rows[i]))
	}
	first := true
	for _, r := range res.Rows {
		for _, e := range sortedKeys(r.FailedChecks) {
			if first {
				b.WriteString("\nFailed expectations:\n\n")
				first = false
			}
			fmt.Fprintf(&b, "- %s: failed in %d of %d runs: %s\n", mdCell(strings.Join(r.Values, ", ")), r.FailedChecks[e], r.Runs, mdCell(e))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell makes text safe inside a markdown table cell: no pipe ends the cell, no tag or
// line break reaches the page.
func mdCell(s string) string {
	s = safetext.Escape(s)
	r := strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ", "`", "\\`")
	return r.Replace(s)
}

func mdCode(s string) string { return strings.ReplaceAll(safetext.Escape(s), "`", "'") }

// writeCSV renders one line per row with every figure as a plain number (seconds, bytes),
// for a spreadsheet or a script.
func writeCSV(w io.Writer, res *Result) error {
	cw := csv.NewWriter(w)
	h := append([]string{}, res.Paths...)
	h = append(h, "runs", "runs_passed")
	for _, f := range []string{"first_pressure_s", "first_eviction_s"} {
		h = append(h, f+"_runs", f+"_min", f+"_mean", f+"_max")
	}
	for _, s := range HeadroomSignals {
		p := strings.ReplaceAll(s, ".", "_")
		h = append(h, p+"_lowest_bytes", p+"_lowest_at_s", p+"_threshold_bytes", p+"_above_threshold_bytes", p+"_seed")
	}
	for _, f := range []string{"evictions", "oom_kills", "restarts", "admission_rejections", "startup_p99_s"} {
		h = append(h, f+"_min", f+"_mean", f+"_max")
	}
	h = append(h, "first_pressure_conditions", "evicted_pods", "failed_expectations")
	if err := cw.Write(h); err != nil {
		return err
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	for _, r := range res.Rows {
		line := append([]string{}, r.Values...)
		line = append(line, strconv.Itoa(r.Runs), strconv.Itoa(r.AllPassed))
		for _, t := range []Timing{r.FirstPressure, r.FirstEviction} {
			if t.Runs == 0 {
				line = append(line, "0", "", "", "")
				continue
			}
			line = append(line, strconv.Itoa(t.Runs), num(t.Min), num(t.Mean), num(t.Max))
		}
		for _, s := range HeadroomSignals {
			var cols []string
			for _, hr := range r.Headroom {
				if hr.Signal == s {
					cols = []string{strconv.FormatInt(hr.Lowest, 10), num(hr.At), strconv.FormatInt(hr.Threshold, 10),
						strconv.FormatInt(hr.Above, 10), strconv.FormatUint(hr.Seed, 10)}
				}
			}
			if cols == nil {
				cols = []string{"", "", "", "", ""}
			}
			line = append(line, cols...)
		}
		for _, s := range []Spread{r.Evictions, r.OOMKills, r.Restarts, r.Rejections, r.StartupP99} {
			line = append(line, num(s.Min), num(s.Mean), num(s.Max))
		}
		var conds, evicted, failed []string
		for _, c := range sortedKeys(r.PressureConditions) {
			conds = append(conds, fmt.Sprintf("%s=%d", c, r.PressureConditions[c]))
		}
		for _, p := range sortedKeys(r.Evicted) {
			evicted = append(evicted, fmt.Sprintf("%s=%d", p, r.Evicted[p]))
		}
		for _, e := range sortedKeys(r.FailedChecks) {
			failed = append(failed, fmt.Sprintf("%s=%d", e, r.FailedChecks[e]))
		}
		line = append(line, strings.Join(conds, ";"), strings.Join(evicted, ";"), strings.Join(failed, ";"))
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

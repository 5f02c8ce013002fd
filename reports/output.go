package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"nodesim/internal/safetext"
	"sigs.k8s.io/yaml"
)

// JSON renders the report with stable key order and indentation.
func JSON(r *Report) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encoding report: %w", err)
	}
	return b.Bytes(), nil
}

// YAML renders the report as YAML (the same keys as JSON).
func YAML(r *Report) ([]byte, error) {
	j, err := JSON(r)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(j)
}

// optSecs renders an optional time or span of the report (seconds) as a duration, "-" when
// absent.
func optSecs(v *float64) string {
	if v == nil {
		return "-"
	}
	return FormatSeconds(*v)
}

func newTable(w io.Writer, title string, header ...any) *tablewriter.Table {
	fmt.Fprintf(w, "\n%s\n", title)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header(header...)
	return t
}

// Table writes the human-readable report. Scenario strings (the description, pod and image
// names, messages) reach it, so it is rendered whole and its control characters escaped
// before anything reaches w: a terminal shows them, never obeys them.
func Table(w io.Writer, r *Report) error {
	var buf bytes.Buffer
	if err := table(&buf, r); err != nil {
		return err
	}
	_, err := io.WriteString(w, safetext.EscapeText(buf.String()))
	return err
}

func table(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "scenario %s (seed %d), %s simulated\n", r.Scenario, r.Seed, FormatSeconds(r.Duration))
	if r.Description != "" {
		fmt.Fprintf(w, "%s\n", r.Description)
	}
	if err := summaryTable(w, r); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nHeadroom\n")
	for _, l := range HeadroomLines(r) {
		fmt.Fprintf(w, "%s\n", l)
	}

	t := newTable(w, "Pods", "POD", "QOS", "PHASE", "REASON", "CONTAINER", "STATE", "RESTARTS", "OOM", "STARTUP", "WITH PULLS", "DELETED", "TERMINATED")
	for _, p := range r.Pods {
		if len(p.Containers) == 0 {
			_ = t.Append(p.Pod, p.QoS, p.Phase, p.Reason, "-", "-", "-", "-", optSecs(p.StartupLatency), optSecs(p.StartupLatencyWithPulls), optSecs(p.DeletedAt), optSecs(p.TerminatedAt))
			continue
		}
		for i, c := range p.Containers {
			state := c.State
			if c.WaitingReason != "" {
				state += " (" + c.WaitingReason + ")"
			}
			if c.State == "terminated" && c.LastTermination != nil {
				state += fmt.Sprintf(" (%s, %d)", c.LastTermination.Reason, c.LastTermination.ExitCode)
			}
			if i == 0 {
				_ = t.Append(p.Pod, p.QoS, p.Phase, p.Reason, c.Name, state, fmt.Sprint(c.Restarts), fmt.Sprint(c.OOMKills),
					optSecs(p.StartupLatency), optSecs(p.StartupLatencyWithPulls), optSecs(p.DeletedAt), optSecs(p.TerminatedAt))
			} else {
				_ = t.Append("", "", "", "", c.Name, state, fmt.Sprint(c.Restarts), fmt.Sprint(c.OOMKills), "", "", "", "")
			}
		}
	}
	if err := t.Render(); err != nil {
		return err
	}

	if len(r.Evictions) > 0 {
		t = newTable(w, "Evictions", "TIME", "POD", "SIGNAL", "OBSERVED", "THRESHOLD", "MET FOR", "POD GRACE", "WHY THIS POD")
		for _, row := range evictionRows(r.Evictions) {
			cells := make([]any, len(row))
			for i, c := range row {
				cells[i] = c
			}
			_ = t.Append(cells...)
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if len(r.OOMKills) > 0 {
		t = newTable(w, "OOM kills", "TIME", "POD", "CONTAINER", "KIND", "OOM_SCORE_ADJ")
		for _, o := range r.OOMKills {
			_ = t.Append(FormatSeconds(o.Time), o.Pod, o.Container, o.Kind, fmt.Sprint(o.OOMScoreAdj))
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if len(r.AdmissionRejections) > 0 {
		t = newTable(w, "Admission rejections", "TIME", "POD", "REASON", "MESSAGE")
		for _, a := range r.AdmissionRejections {
			_ = t.Append(FormatSeconds(a.Time), a.Pod, a.Reason, a.Message)
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	t = newTable(w, "Node conditions", "TIME", "CONDITION", "STATUS", "REASON")
	for _, c := range r.NodeConditions {
		_ = t.Append(FormatSeconds(c.Time), c.Type, c.Status, c.Reason)
	}
	if err := t.Render(); err != nil {
		return err
	}

	t = newTable(w, "Latencies", "METRIC", "COUNT", "MEAN", "P50", "P90", "P99", "MAX")
	metrics := make([]string, 0, len(r.Latency))
	for m := range r.Latency {
		metrics = append(metrics, m)
	}
	sort.Strings(metrics)
	for _, m := range metrics {
		s := r.Latency[m]
		_ = t.Append(m, fmt.Sprint(s.Count), FormatSeconds(s.Mean), FormatSeconds(s.P50), FormatSeconds(s.P90), FormatSeconds(s.P99), FormatSeconds(s.Max))
	}
	if err := t.Render(); err != nil {
		return err
	}

	sl := r.SyncLoop
	t = newTable(w, "syncLoop iterations by channel", "configCh", "plegCh", "syncCh", "housekeepingCh", "livenessCh", "readinessCh", "startupCh")
	_ = t.Append(fmt.Sprint(sl.ConfigCh), fmt.Sprint(sl.PlegCh), fmt.Sprint(sl.SyncCh), fmt.Sprint(sl.HousekeepingCh), fmt.Sprint(sl.LivenessCh), fmt.Sprint(sl.ReadinessCh), fmt.Sprint(sl.StartupCh))
	if err := t.Render(); err != nil {
		return err
	}

	if len(r.Expectations) > 0 {
		t = newTable(w, "Expectations", "RESULT", "EXPECTATION", "DETAIL")
		for _, e := range r.Expectations {
			res := "PASS"
			if !e.Pass {
				res = "FAIL"
			}
			_ = t.Append(res, e.Expect, e.Detail)
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	for _, h := range r.SystemMemoryHeld {
		fmt.Fprintf(w, "\n%s\n", h.Sentence())
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "\nwarning: %s\n", warning)
	}
	if len(r.NotModelled) > 0 {
		fmt.Fprintf(w, "\nKubelet settings given but not modelled (no effect on this run): %s\n", strings.Join(r.NotModelled, ", "))
	}
	fmt.Fprintf(w, "\n%s\n", r.Reproduce)
	return nil
}

// summaryTable writes the run-wide counts, the most telling first, then any others by name,
// and the expectations' tally.
func summaryTable(w io.Writer, r *Report) error {
	t := newTable(w, "Summary", "WHAT", "COUNT")
	_ = t.Append("pods", fmt.Sprint(len(r.Pods)))
	first := []string{"podsStarted", "podsTerminated", "containersStarted", "restarts", "evictions", "oomKills", "cgroupOOMKills", "nodeOOMKills", "admissionRejections"}
	for _, k := range first {
		_ = t.Append(k, fmt.Sprint(r.Counts[k]))
	}
	var rest []string
	for k := range r.Counts {
		if !slices.Contains(first, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		_ = t.Append(k, fmt.Sprint(r.Counts[k]))
	}
	if n := len(r.Expectations); n > 0 {
		failed := 0
		for _, e := range r.Expectations {
			if !e.Pass {
				failed++
			}
		}
		_ = t.Append("expectations", fmt.Sprintf("%d passed, %d failed", n-failed, failed))
	}
	return t.Render()
}

// evictionRows renders the Evictions table's rows (TIME, POD, SIGNAL, OBSERVED, THRESHOLD,
// MET FOR, POD GRACE, WHY THIS POD), the same for the table and the HTML page. Observed and
// threshold values of byte signals share one binary unit, and the usages in the rankings one
// of their own, chosen for the magnitudes at hand.
func evictionRows(evictions []Eviction) [][]string {
	var values, above ByteColumn
	for _, e := range evictions {
		if byteSignal(e.Signal) {
			values.Observe(e.Observed)
			values.Observe(e.Threshold)
			for _, c := range e.Ranking {
				above.Observe(c.UsageAboveRequests)
			}
		}
	}
	var rows [][]string
	for _, e := range evictions {
		observed, threshold, usage := e.Observed, e.Threshold, func(s string) string { return s }
		if byteSignal(e.Signal) {
			observed, threshold, usage = values.Format(e.Observed), values.Format(e.Threshold), above.Format
		}
		switch {
		case e.Threshold == "":
			threshold = "-" // a limit eviction: the pod's own limit, in the why
		case e.ThresholdGracePeriod > 0:
			threshold += " (soft, grace " + FormatSeconds(e.ThresholdGracePeriod) + ")"
		default:
			threshold += " (hard)"
		}
		why := ""
		if len(e.Ranking) > 0 {
			c := e.Ranking[0]
			why = fmt.Sprintf("ranked first of %d (exceeds requests: %v, priority %d, above requests %s)", len(e.Ranking), c.ExceedsRequests, c.Priority, usage(c.UsageAboveRequests))
		}
		rows = append(rows, []string{FormatSeconds(e.Time), e.Pod, e.Signal, orDash(observed), threshold, optSecs(e.ThresholdMetFor), podGrace(e), why})
	}
	return rows
}

// podGrace is the grace period the evicted pod was given, and what the eviction manager
// asked for when the pod worker gave another ("1s (asked 0s)": it never gives less than 1s).
func podGrace(e Eviction) string {
	asked := FormatDuration(time.Duration(e.GracePeriod) * time.Second)
	if e.PodGracePeriod == nil {
		return asked + " (asked)"
	}
	given := FormatDuration(time.Duration(*e.PodGracePeriod) * time.Second)
	if *e.PodGracePeriod != e.GracePeriod {
		return given + " (asked " + asked + ")"
	}
	return given
}

// byteSignal reports whether a signal's values are bytes (every *.available but pid's).
func byteSignal(signal string) bool {
	return strings.HasSuffix(signal, ".available") && signal != "pid.available"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

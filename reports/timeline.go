package reports

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"nodesim/trace"
)

// TimelineWriter streams timeline.csv as the trace is recorded (a trace.Sink): one row per
// simulated second from 0 to the end of the run, with the node's memory, disk and PIDs, its
// conditions as 0/1, and memory, disk and PIDs of each scenario pod. A row shows the values
// as of that second, each carried forward from the last stats sample that gave it; a cell
// is empty before the first sample and after its pod has terminated. Rows are written as
// soon as time has passed them, so a run of any length needs only the current values.
//
// Only the header goes through encoding/csv (a pod's name might need quoting); a row's
// cells are numbers, 0/1 or empty, which csv writes as they are, so rows are written
// directly: the cells once per change, as text, and each row as its time and that text.
type TimelineWriter struct {
	w      *bufio.Writer
	csv    *csv.Writer // the header's writer
	pods   []string
	u      usage
	next   time.Duration // the time of the next row to write
	cells  []byte        // the current values as the text after a row's time (",v,...,v\n"), while clean
	row    []byte        // the time of the row being written, as text
	dirty  bool          // a value changed since cells was built
	header bool
	err    error
}

// NewTimelineWriter writes to w a column set for pods (the scenario's pods, in the order the
// columns should have); call Finish at the end.
func NewTimelineWriter(w io.Writer, pods []string) *TimelineWriter {
	bw := bufio.NewWriterSize(w, 1<<16)
	return &TimelineWriter{w: bw, csv: csv.NewWriter(bw), pods: append([]string(nil), pods...), u: newUsage(), dirty: true}
}

// TimelineHeader is timeline.csv's header for pods.
func TimelineHeader(pods []string) []string {
	h := []string{"time", "node_memory_working_set_bytes", "node_memory_available_bytes", "nodefs_used_bytes", "pids_used",
		"ready", "memory_pressure", "disk_pressure", "pid_pressure"}
	for _, p := range pods {
		h = append(h, p+" memory_bytes", p+" disk_bytes", p+" pids")
	}
	return h
}

// Record takes one event. Events before time zero (the kubelet's boot) only set the values
// the first row starts from.
func (t *TimelineWriter) Record(e *trace.Event) {
	if t.err != nil {
		return
	}
	// Every row strictly before this event's time is final: later events cannot change it.
	for t.next < e.At {
		t.writeRow()
	}
	if t.u.apply(e) {
		t.dirty = true
	}
}

// Finish writes the rows up to end (the run's last whole second included), flushes, and
// returns the first error met.
func (t *TimelineWriter) Finish(end time.Duration) error {
	for t.err == nil && t.next <= end {
		t.writeRow()
	}
	if !t.header && t.err == nil {
		t.writeHeader()
	}
	if t.err != nil {
		return t.err
	}
	t.csv.Flush()
	if err := t.csv.Error(); err != nil {
		return fmt.Errorf("writing timeline: %w", err)
	}
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("writing timeline: %w", err)
	}
	return nil
}

func (t *TimelineWriter) writeHeader() {
	t.header = true
	if err := t.csv.Write(TimelineHeader(t.pods)); err != nil {
		t.err = fmt.Errorf("writing timeline: %w", err)
		return
	}
	// The rows go to t.w directly, after the header.
	t.csv.Flush()
	if err := t.csv.Error(); err != nil {
		t.err = fmt.Errorf("writing timeline: %w", err)
	}
}

func (t *TimelineWriter) writeRow() {
	if !t.header {
		t.writeHeader()
	}
	if t.dirty {
		c := t.cells[:0]
		for _, g := range t.u.node {
			c = g.appendText(append(c, ','))
		}
		for _, v := range t.u.conditions {
			if v {
				c = append(c, ',', '1')
			} else {
				c = append(c, ',', '0')
			}
		}
		for _, pod := range t.pods {
			p := t.u.pods[pod]
			for i := 0; i < podGauges; i++ {
				c = append(c, ',')
				if p != nil {
					c = p.gauges[i].appendText(c)
				}
			}
		}
		t.cells = append(c, '\n')
		t.dirty = false
	}
	t.row = strconv.AppendInt(t.row[:0], int64(t.next/time.Second), 10)
	_, err := t.w.Write(t.row)
	if err == nil {
		_, err = t.w.Write(t.cells)
	}
	if err != nil && t.err == nil {
		t.err = fmt.Errorf("writing timeline: %w", err)
	}
	t.next += time.Second
}

// Package progress shows how far a long command has got, on a terminal's stderr: simulated
// time over the run's duration for `run`, runs done over the sweep's runs for `sweep`, each
// with the time left. It draws only on a terminal and never with --quiet, so pipes, files
// and CI logs get nothing from it; and it never writes to stdout, so a report's bytes are
// the same with or without it. The wall clock is read only here, for the estimate.
//
// It draws with github.com/schollz/progressbar/v3: a maintained single-bar library that
// renders synchronously in the caller's goroutine when the total is known (no render
// goroutine beside the simulation), throttles its redraws, estimates the time left, and
// can erase its line for a log line printed above it.
package progress

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Reporter draws one progress bar, or nothing at all when it is off. Its methods are called
// from one goroutine at a time; a nil Reporter ignores them, an off one draws nothing
// (Println still prints).
// The bar appears only once the work has gone on for Delay, so that a command that ends
// at once leaves nothing to flicker on the terminal.
type Reporter struct {
	w  io.Writer
	on bool
	// Delay is how long the work must go on before the bar appears.
	Delay time.Duration

	started time.Time
	desc    string
	total   int64 // the bar's end, which SetSimulated never passes
	opts    []progressbar.Option
	bar     *progressbar.ProgressBar
}

// DefaultDelay is a Reporter's Delay unless changed.
const DefaultDelay = 500 * time.Millisecond

// New returns a reporter writing to w (stderr). It draws only when isTTY and not quiet.
func New(w io.Writer, isTTY, quiet bool) *Reporter {
	return &Reporter{w: w, on: isTTY && !quiet, Delay: DefaultDelay}
}

// On reports whether the reporter draws.
func (r *Reporter) On() bool { return r != nil && r.on }

// redraw is the shortest time between two redraws: a terminal need not be told more often.
const redraw = 100 * time.Millisecond

func (r *Reporter) start(description string, total int64, opts ...progressbar.Option) {
	if !r.On() || total <= 0 {
		return
	}
	r.started, r.desc, r.total, r.opts = time.Now(), description, total, opts
}

// set moves the bar to n, drawing it first once the work has gone on for Delay.
func (r *Reporter) set(n int64) {
	if !r.On() || r.total <= 0 {
		return
	}
	if r.bar == nil {
		if time.Since(r.started) < r.Delay {
			return
		}
		opts := append([]progressbar.Option{
			progressbar.OptionSetWriter(r.w),
			progressbar.OptionSetDescription(r.desc),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(redraw),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
		}, r.opts...)
		r.bar = progressbar.NewOptions64(r.total, opts...)
	}
	_ = r.bar.Set64(min(n, r.total))
}

// StartRuns begins a bar of runs done over total runs (a sweep).
func (r *Reporter) StartRuns(description string, total int) {
	r.start(description, int64(total), progressbar.OptionShowCount(), progressbar.OptionSetItsString("runs"))
}

// StartSimulated begins a bar of simulated time over the run's duration (a run), shown in
// whole simulated seconds.
func (r *Reporter) StartSimulated(description string, duration time.Duration) {
	r.start(description+" "+duration.String()+" simulated", int64(duration/time.Second)+1)
}

// Set moves the bar to n runs done.
func (r *Reporter) Set(n int) { r.set(int64(n)) }

// SetSimulated moves the bar to a simulated time.
func (r *Reporter) SetSimulated(at time.Duration) {
	if at >= 0 {
		r.set(int64(at / time.Second))
	}
}

// Println prints a line on w, above the bar when one is drawn: the bar is erased, the
// line written, and the bar drawn again at its next move.
func (r *Reporter) Println(line string) {
	if r == nil {
		return
	}
	if r.On() && r.bar != nil {
		_ = r.bar.Clear()
	}
	fmt.Fprintln(r.w, line)
}

// Done clears the bar (the lines printed above it stay).
func (r *Reporter) Done() {
	if r.On() && r.bar != nil {
		_ = r.bar.Finish()
		_ = r.bar.Clear()
		r.bar = nil
	}
	if r != nil {
		r.total = 0
	}
}

package explain

import (
	"fmt"
	"io"
	"time"

	"nodesim/internal/safetext"
	"nodesim/trace"
)

// Transcript writes a run's steps as they are recorded. Create it with New, pass it to
// engine.Run as the sink (or call Record with each event of a saved trace, in order), then
// call Close.
type Transcript struct {
	w   io.Writer
	err error
	pal palette
	f   filter
	o   Options

	started bool
	// stopped is set once a step after --to arrives: nothing later is shown.
	stopped bool
	quiet   quietStretch
	// held is a step waiting for the event after it (see step).
	held step

	// What earlier events told us, for the lines of later ones.
	workers    map[string]*workerView
	containers map[string]*containerView
	// names maps runtime IDs to what they name ("app", "sandbox").
	names map[string]string
	// flows says what each message sent on a channel carries, until it is received.
	flows map[uint64]flowNote
	// dispatcher is the step whose calls to UpdatePod and admission follow it.
	dispatcher *dispatcher
	// skipKey identifies the current streak of skippingPodSynchronization.
	skipKey string
	// evictionHeld is why the last eviction pass held back, without its countdown.
	evictionHeld string
	// relistFailures counts failed relists since the last good one.
	relistFailures int
	// housekeepingShown is set when a housekeeping select was printed, so that its
	// HandlePodCleanups prints too even if it cleaned nothing.
	housekeepingShown bool
	// told holds the "why" lines already printed: a mechanism is explained once per run.
	told map[string]bool
	// shown says, per depth, whether the last line at that depth was printed.
	shown [3]bool
	// cases is the syncLoop's select, recorded as it started during the boot, kept to be
	// shown first.
	cases *trace.Event
	// replaying is set while held events are played back one by one (see resyncStep):
	// they must not be folded again.
	replaying bool
}

// step is a step held back until the next event shows whether that event belongs to it
// (a select and what it dispatched, a relist and its events, an API change and the config
// update it caused).
type step interface {
	// absorb takes e into the step when it belongs to it; complete says the step has
	// everything it waits for.
	absorb(t *Transcript, e *trace.Event) (taken, complete bool)
	// flush renders the step; next is the event that ended it (nil at a step's natural
	// end or at the end of the run).
	flush(t *Transcript, next *trace.Event)
}

// flowNote is what a channel message carries: the words for it and the pods it names.
type flowNote struct {
	text string
	pods []string
	// kind is the PLEG event type or the config op.
	kind string
}

// dispatcher is a step that calls into the pod workers: a handler, housekeeping, an
// eviction. The UpdatePod calls recorded at the same instant print under it, on its
// goroutine, as upstream's UpdatePod runs on its caller's goroutine.
type dispatcher struct {
	at    time.Duration
	track string
	depth int
}

// New returns a transcript that writes to w.
func New(w io.Writer, o Options) *Transcript {
	return &Transcript{
		w: w, o: o, pal: palette{on: o.Color}, f: newFilter(o),
		workers: map[string]*workerView{}, containers: map[string]*containerView{},
		names: map[string]string{}, flows: map[uint64]flowNote{}, told: map[string]bool{},
	}
}

// Record renders one event (trace.Sink). Events must come in the order they were recorded.
func (t *Transcript) Record(e *trace.Event) {
	if t.stopped {
		return
	}
	// A sink's event is lent for the call only (trace.Sink), and held steps keep theirs.
	kept := *e
	e = &kept
	for t.held != nil {
		h := t.held
		taken, complete := h.absorb(t, e)
		if taken {
			// absorb may have handed over to another step (a select that turns out to
			// be a periodic resync); only a step still in place completes here.
			if complete && t.held == h {
				t.held = nil
				h.flush(t, nil)
			}
			return
		}
		t.held = nil
		// flush may replay held events, which can leave a new step held: e is offered
		// to it in the next turn of the loop.
		h.flush(t, e)
	}
	if t.f.past(e.At) {
		t.stopped = true
		t.flushQuiet()
		return
	}
	if t.dispatcher != nil && t.dispatcher.at != e.At {
		t.dispatcher = nil
	}
	t.render(e)
}

// Close prints what is still held or counted and returns the first write error.
func (t *Transcript) Close() error {
	for t.held != nil {
		h := t.held
		t.held = nil
		h.flush(t, nil)
	}
	t.flushQuiet()
	t.begin()
	if t.stopped {
		t.printRaw(t.pal.faint(fmt.Sprintf("(--to %s: the transcript stops here; the run went on)", at(t.o.To))))
	}
	return t.err
}

// emit prints l if the filters keep it, after the quiet stretch before it. A line whose
// parent the filters hid moves up under the nearest shown ancestor (or to the margin), so
// that "↳" always points at the line it belongs to.
func (t *Transcript) emit(l line) {
	d := min(l.depth, len(t.shown)-1)
	kept := t.f.keep(&l)
	for l.depth > 0 && !t.shown[l.depth-1] {
		l.depth--
	}
	t.shown[d] = kept
	for i := d + 1; i < len(t.shown); i++ {
		t.shown[i] = false
	}
	if !kept {
		return
	}
	t.flushQuiet()
	t.print(&l)
}

// because gives l the reason e's component recorded when it decided, if it recorded one
// and the filters keep l. It (with stated, for the few lines printed past the filters) is
// the only way a "why:" line gets into a transcript: explain states what the model decided
// and never infers a reason of its own. A rule whose text carries no values of
// its own is stated once per run; one the model marked Each (a back-off's end, a
// requeue's cap and jitter) at every decision.
func (t *Transcript) because(l *line, e *trace.Event) {
	if !t.f.keep(l) {
		l.why = nil
		return
	}
	t.stated(l, e)
}

// stated is because without the filters: l is printed whatever they say.
func (t *Transcript) stated(l *line, e *trace.Event) {
	l.why = nil
	r := e.Reason
	if r == nil {
		return
	}
	if !r.Each {
		if t.told[r.Rule] {
			return
		}
		t.told[r.Rule] = true
	}
	l.why = r
}

// idle counts a step that changed nothing in the current quiet stretch.
func (t *Transcript) idle(k quietKind, d time.Duration, c Category) {
	if t.f.keepQuiet(d, c) {
		t.quiet.add(k, d)
	}
}

func (t *Transcript) flushQuiet() {
	if l, ok := t.quiet.summary(); ok {
		t.print(&l)
	}
}

func (t *Transcript) print(l *line) {
	t.begin()
	if t.err == nil {
		t.err = write(t.w, t.pal, l)
	}
}

func (t *Transcript) printRaw(s string) {
	if t.err == nil {
		_, t.err = fmt.Fprintln(t.w, s)
	}
}

// begin prints the title and the column heads once, before the first line.
func (t *Transcript) begin() {
	if t.started {
		return
	}
	t.started = true
	if t.o.Title != "" {
		t.printRaw(safetext.Escape(t.o.Title))
	}
	t.printRaw(t.pal.faint(fmt.Sprintf("%*s  %-*s %s", timeWidth, "time", trackWidth, "goroutine", "step")))
	t.showBootCases()
}

package explain

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"nodesim/trace"
)

// A Page is the data of `explain --html`: every step of a run in a time window, the
// transcript lines each step printed, the reason the model recorded with it, a link to the
// upstream function that does it, and what changed in the picture of the node at that step
// (lanes, channels, pods and containers). The page's script only replays these changes; it
// infers nothing.
//
// Like a Transcript, a Page is a trace.Sink: hand it to engine.Run (or Record each event of
// a saved trace, in order), then call Close and WriteHTML. The picture's state is built from
// the events alone, as they arrive (see pagestate.go).

// DefaultMaxSteps bounds a page's steps when PageOptions.MaxSteps is zero: a shipped
// scenario's page stays a few MB and opens at once.
const DefaultMaxSteps = 5000

// PageOptions choose what a page holds.
type PageOptions struct {
	// Title heads the page (the command that made it).
	Title string
	// From and To bound the simulated time of the steps (To <= 0: the end of the run).
	// Steps before From still shape the picture the page starts from.
	From, To time.Duration
	// Boot keeps the kubelet's start before time zero.
	Boot bool
	// Pod and Only preselect the page's filters (the page can change them).
	Pod  string
	Only map[Category]bool
	// MaxSteps bounds the steps kept (0: DefaultMaxSteps). Past it, periodic steps that
	// change nothing are folded into the next step that does, and past it again the page
	// stops; either way the page says so.
	MaxSteps int
}

// PageStep is one step of the page: one trace event, or several when quiet ones were
// folded into it.
type PageStep struct {
	// T is the simulated time in seconds, Seq the event's sequence number.
	T   float64 `json:"t"`
	Seq uint64  `json:"q"`
	// Lane indexes Page.Lanes: the goroutine that did the step.
	Lane int `json:"l"`
	// Kind and Text are the event as recorded (Text: one line of its fields).
	Kind string `json:"k"`
	Text string `json:"x"`
	// Pods index Page.Pods: the pods the step concerns (for the pod filter).
	Pods []int `json:"p,omitempty"`
	// Cat indexes Categories(), or -1 for a step every filter keeps (run start and end,
	// scripted events), or -2 for a kind explain has no category for.
	Cat int `json:"c"`
	// Lines are the transcript lines this step printed, each with its time and goroutine
	// as printed ("why: ..." lines under the line they explain).
	Lines []string `json:"tl,omitempty"`
	// Why and Rule are the reason the model recorded with the event, if any.
	Why  string `json:"w,omitempty"`
	Rule string `json:"r,omitempty"`
	// Up indexes Page.Upstream: the upstream v1.37 function that does this step, or -1.
	Up int `json:"u"`
	// Iter marks a syncLoopIteration (the select of the syncLoop).
	Iter bool `json:"i,omitempty"`
	// Chan indexes Page.Channels for a send, receive, drop or select; -1 otherwise.
	Chan int `json:"ch"`
	// Set lists what changed in the picture: key, new value ("" removes the key).
	Set [][2]string `json:"d,omitempty"`
	// Folded counts the quiet events folded into this step when the page was thinned.
	Folded int `json:"z,omitempty"`

	quiet bool
	at    time.Duration
	track string
}

// UpstreamRef is a link to the upstream function that does a step.
type UpstreamRef struct {
	File string `json:"file"`
	Func string `json:"func"`
	Line int    `json:"line"`
	URL  string `json:"url"`
}

// Page collects a run's steps for the page.
type Page struct {
	o   PageOptions
	f   filter
	max int

	st    pageState
	tr    *Transcript
	out   bytes.Buffer
	read  int
	lines int

	// Steps, and the picture before the first of them.
	Steps []PageStep
	Init  [][2]string
	// pending holds the changes of events that are not steps (before the window, or
	// folded away) until the next step takes them.
	pending []([2]string)
	folded  int
	// compacted is pending's length after it was last compacted.
	compacted int

	Lanes    []string
	laneIdx  map[string]int
	Pods     []string
	podIdx   map[string]int
	Channels []string
	chanIdx  map[string]int
	Upstream []UpstreamRef
	upIdx    map[string]int
	// senders lists, per channel, the goroutines that sent on it in the run, in the order
	// they first did.
	senders map[string][]string

	// Events counts the events in the window; Notes say how the page was cut or thinned.
	Events int
	Notes  []string
	// thinning is set once the steps outgrew twice the bound: quiet events fold at once.
	thinning bool
	cut      bool
	stopAt   time.Duration
	cutFed   bool
	closed   bool
	// attached is the step the last transcript line went to (its why: follows it).
	attached uint64
	// quiet holds summaries of quiet steps until the line of the step that ended them.
	quiet []string
	// foldedLines are the lines of quiet steps folded before the step that takes them.
	foldedLines []string
	// started is set once the window's first step (or the end of the run) fixed Init.
	started bool
}

// NewPage returns an empty page.
func NewPage(o PageOptions) *Page {
	max := o.MaxSteps
	if max <= 0 {
		max = DefaultMaxSteps
	}
	p := &Page{
		o: o, max: max,
		f:       newFilter(Options{From: o.From, To: o.To, Boot: o.Boot}),
		st:      newPageState(),
		laneIdx: map[string]int{}, podIdx: map[string]int{}, chanIdx: map[string]int{}, upIdx: map[string]int{}, senders: map[string][]string{},
	}
	p.tr = New(&p.out, Options{From: o.From, To: o.To, Boot: o.Boot})
	for _, c := range []string{chanConfig, chanPLEG, chanSync, chanHousekeeping, chanLiveness, "readinessCh", "startupCh", chanContainerManager} {
		p.channel(c)
	}
	return p
}

// Record takes one event (trace.Sink).
func (p *Page) Record(e *trace.Event) {
	if p.closed {
		return
	}
	set := p.st.apply(e)
	// Every goroutine that did anything has a lane, even one whose steps all lie before
	// the window or were folded away: its state is part of the picture.
	p.lane(e.Track)
	if e.Kind == trace.Send || e.Kind == trace.Drop {
		p.sender(e)
	}
	inWindow := p.f.inWindow(e.At) && !p.cut
	if !inWindow || (p.thinning && quietEvent(e)) {
		p.pending = append(p.pending, set...)
		if len(p.pending) > 2*p.compacted+1<<12 {
			// Before a late --from the changes pile up: keep only the last value of each
			// key, so memory follows the picture's size, not the run's length (and the
			// work stays linear however large the picture is).
			p.pending = compact(p.pending)
			p.compacted = len(p.pending)
		}
		if inWindow {
			p.folded++
			p.Events++
		}
		// Past the cut the transcript needs one more event to print the last step's held
		// line, and nothing after it. Past --to it stops by itself, with a note.
		if !p.cutFed {
			p.cutFed = p.cut
			p.tr.Record(e)
			p.takeLines()
		}
		return
	}
	p.Events++
	if !p.started {
		// The picture the page opens on: what the events before the window built.
		p.started = true
		p.Init = compact(p.pending)
		p.pending = nil
	}
	s := p.step(e)
	s.Set = compact(append(p.pending, set...))
	s.Folded = p.folded
	s.Lines = p.foldedLines
	p.pending, p.folded, p.foldedLines, p.compacted = nil, 0, nil, 0
	p.Steps = append(p.Steps, s)
	p.tr.Record(e)
	p.takeLines()
	if !p.thinning && len(p.Steps) > 2*p.max {
		p.thin()
	}
	if p.thinning && len(p.Steps) >= p.max {
		p.cut = true
		p.stopAt = e.At
	}
}

// Close finishes the transcript and thins the page if it holds too many steps.
func (p *Page) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	err := p.tr.Close()
	p.takeLines()
	if len(p.Steps) > 0 && !p.cut {
		p.flushQuietLines(&p.Steps[len(p.Steps)-1])
	}
	if !p.started {
		p.started = true
		p.Init = compact(p.pending)
		p.pending = nil
	}
	if len(p.Steps) > p.max && !p.thinning {
		p.thin()
	}
	if len(p.Steps) > p.max {
		p.Steps = p.Steps[:p.max]
		p.cut, p.stopAt = true, p.Steps[p.max-1].at
	}
	if p.thinning {
		folded := 0
		for _, s := range p.Steps {
			folded += s.Folded
		}
		p.Notes = append(p.Notes, fmt.Sprintf("Thinned: %d periodic steps that changed nothing (syncCh ticks, housekeeping passes, empty relists, stats refreshes, eviction passes that met no threshold, probe results that changed nothing) are folded into the next step that did; the page would have held more than %d steps (--max-steps). A step says how many it holds.", folded, p.max))
	}
	if p.cut {
		p.Notes = append(p.Notes, fmt.Sprintf("The page stops at %s: it holds at most %d steps (--max-steps). Use --from and --to to see a later stretch.", at(p.stopAt), p.max))
	}
	if p.folded > 0 || len(p.pending) > 0 {
		// Quiet events after the last step change the picture the run ends with, but no
		// step is left to show them: they are counted in the note.
		p.pending, p.folded = nil, 0
	}
	return err
}

// thin folds the quiet steps kept so far into the step after each (their changes and
// transcript lines move there), and folds later quiet events as they come.
func (p *Page) thin() {
	p.thinning = true
	var kept []PageStep
	var set [][2]string
	var lines []string
	folded := 0
	for _, s := range p.Steps {
		if s.quiet {
			set = append(set, s.Set...)
			lines = append(lines, s.Lines...)
			folded += 1 + s.Folded
			continue
		}
		if folded > 0 {
			s.Set = compact(append(set, s.Set...))
			s.Lines = append(lines, s.Lines...)
			s.Folded += folded
			set, lines, folded = nil, nil, 0
		}
		kept = append(kept, s)
	}
	// Trailing quiet steps wait for the next step (at Close there is none: their
	// lines go on the last step, their changes are dropped with the run's end).
	p.pending = append(set, p.pending...)
	p.folded += folded
	p.foldedLines = append(lines, p.foldedLines...)
	if p.closed && len(kept) > 0 {
		last := &kept[len(kept)-1]
		last.Lines = append(last.Lines, p.foldedLines...)
		p.foldedLines = nil
	}
	p.Steps = kept
}

// Thinned reports whether quiet steps were folded.
func (p *Page) Thinned() bool { return p.thinning }

// step builds the step of e (without its changes).
func (p *Page) step(e *trace.Event) PageStep {
	s := PageStep{
		T: micro(e.At.Seconds()), Seq: e.Seq, Lane: p.lane(e.Track), Kind: string(e.Kind), Text: eventText(e),
		Cat: -2, Up: p.upstream(e), Chan: -1, quiet: quietEvent(e), at: e.At, track: e.Track,
	}
	if c := categoryOf(e); c == always {
		s.Cat = -1
	} else if i := categoryIndex(c); i < len(Categories()) {
		s.Cat = i
	}
	for _, pod := range stepPods(e) {
		s.Pods = append(s.Pods, p.pod(pod))
	}
	if e.Reason != nil {
		s.Why, s.Rule = e.Reason.Text, e.Reason.Rule
	}
	switch e.Kind {
	case trace.Send, trace.Recv, trace.Drop, trace.Block, trace.Select:
		s.Chan = p.channel(e.Name)
	}
	s.Iter = e.Kind == trace.Select && e.Attr("select") == selectSyncLoop
	return s
}

// takeLines attaches the transcript lines printed so far to the steps they describe. A line
// names its time and goroutine; it belongs to the latest step with both (the transcript holds
// a step back until the event after it, so a line can print one or more events late).
func (p *Page) takeLines() {
	buf := p.out.Bytes()
	for {
		i := bytes.IndexByte(buf[p.read:], '\n')
		if i < 0 {
			return
		}
		text := strings.TrimRight(string(buf[p.read:p.read+i]), " ")
		p.read += i + 1
		p.lines++
		if p.lines == 1 && strings.Contains(text, "goroutine") {
			continue
		}
		p.attach(text)
	}
}

func (p *Page) attach(text string) {
	if len(p.Steps) == 0 {
		return
	}
	trimmed := strings.TrimSpace(text)
	last := &p.Steps[len(p.Steps)-1]
	if strings.HasPrefix(trimmed, "why: ") {
		p.lastLine(last).Lines = append(p.lastLine(last).Lines, trimmed)
		return
	}
	if len(text) < timeWidth+2 || !isTimeColumn(strings.TrimSpace(text[:timeWidth])) {
		// A note of the transcript's own at its end ("(--to 30.000s: ...)").
		p.flushQuietLines(last)
		last.Lines = append(last.Lines, trimmed)
		return
	}
	when := strings.TrimSpace(text[:timeWidth])
	rest := text[timeWidth+2:]
	line := when + "  " + strings.TrimRight(rest, " ")
	if strings.HasPrefix(rest, "…") {
		// A summary of quiet steps is printed when a step ends the stretch: it goes with
		// that step's first line, before it, keeping its own (earlier) time.
		p.quiet = append(p.quiet, line)
		return
	}
	best := -1
	for i := len(p.Steps) - 1; i >= 0 && i >= len(p.Steps)-400; i-- {
		s := &p.Steps[i]
		if at(s.at) != when {
			if s.at < last.at && best >= 0 {
				break
			}
			continue
		}
		if best < 0 {
			best = i
		}
		if tr := s.track; tr != "" && strings.HasPrefix(rest, tr) && (len(rest) == len(tr) || rest[len(tr)] == ' ') {
			best = i
			break
		}
	}
	target := last
	if best >= 0 {
		target = &p.Steps[best]
	} else if p.cut {
		// A line of a step past the cut.
		p.quiet = nil
		return
	}
	p.flushQuietLines(target)
	target.Lines = append(target.Lines, line)
	p.attached = target.Seq
}

// isTimeColumn reports whether s is the time column of a transcript line: a duration as
// the transcript prints times ("12.034s", "1m8.149s", "454ms", "0s", "-1s").
func isTimeColumn(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t") {
		return false
	}
	_, err := time.ParseDuration(s)
	return err == nil
}

// flushQuietLines puts the quiet summaries waiting for a step on s.
func (p *Page) flushQuietLines(s *PageStep) {
	s.Lines = append(s.Lines, p.quiet...)
	p.quiet = nil
}

// lastLine is the step the last transcript line went to, so that its why: follows it.
func (p *Page) lastLine(fallback *PageStep) *PageStep {
	for i := len(p.Steps) - 1; i >= 0; i-- {
		if p.Steps[i].Seq == p.attached {
			return &p.Steps[i]
		}
	}
	return fallback
}

func (p *Page) lane(track string) int {
	if track == "" {
		track = "kubelet"
	}
	if i, ok := p.laneIdx[track]; ok {
		return i
	}
	p.laneIdx[track] = len(p.Lanes)
	p.Lanes = append(p.Lanes, track)
	return len(p.Lanes) - 1
}

func (p *Page) sender(e *trace.Event) {
	track := e.Track
	if track == "" {
		track = "kubelet"
	}
	p.channel(e.Name)
	for _, s := range p.senders[e.Name] {
		if s == track {
			return
		}
	}
	p.senders[e.Name] = append(p.senders[e.Name], track)
}

// Senders returns the goroutines that sent on channel ch during the run.
func (p *Page) Senders(ch string) []string { return append([]string(nil), p.senders[ch]...) }

func (p *Page) pod(name string) int {
	if i, ok := p.podIdx[name]; ok {
		return i
	}
	p.podIdx[name] = len(p.Pods)
	p.Pods = append(p.Pods, name)
	return len(p.Pods) - 1
}

func (p *Page) channel(name string) int {
	if i, ok := p.chanIdx[name]; ok {
		return i
	}
	p.chanIdx[name] = len(p.Channels)
	p.Channels = append(p.Channels, name)
	return len(p.Channels) - 1
}

func (p *Page) upstream(e *trace.Event) int {
	file, fn := upstreamFunc(e)
	if file == "" {
		return -1
	}
	key := file + "#" + fn
	if i, ok := p.upIdx[key]; ok {
		return i
	}
	line := upstreamLine(file, fn)
	url := upstreamBase + file
	if line > 0 {
		url += "#L" + strconv.Itoa(line)
	}
	p.upIdx[key] = len(p.Upstream)
	p.Upstream = append(p.Upstream, UpstreamRef{File: file, Func: fn, Line: line, URL: url})
	return len(p.Upstream) - 1
}

// StateAt returns the picture after step k (k = -1: before the first step), replaying the
// changes the page recorded, as the page's script does.
func (p *Page) StateAt(k int) map[string]string {
	out := map[string]string{}
	apply := func(set [][2]string) {
		for _, kv := range set {
			if kv[1] == "" {
				delete(out, kv[0])
			} else {
				out[kv[0]] = kv[1]
			}
		}
	}
	apply(p.Init)
	for i := 0; i <= k && i < len(p.Steps); i++ {
		apply(p.Steps[i].Set)
	}
	return out
}

// Current returns the picture after the last event recorded, as the events built it.
func (p *Page) Current() map[string]string { return p.st.snapshot() }

// quietEvent reports whether e is a periodic step that changed nothing, the kind thinning
// folds away. It looks only at the event.
func quietEvent(e *trace.Event) bool {
	switch e.Kind {
	case kindIterationWait, kindPodSeen, trace.Stats:
		return true
	case kindHousekeeping:
		// A pass that killed, restarted or skipped nothing.
		return idleCleanup(e)
	case trace.Select:
		return e.Name == chanSync || e.Name == chanHousekeeping
	case kindRelist:
		return e.Attr("events") == "0"
	case trace.EvictionPass:
		return e.Attr("met") == "" && e.Attr("held") == ""
	case trace.ProbeResult:
		return e.Attr("changed") != "true" && e.Attr("held") == ""
	}
	return false
}

// stepPods is the pods a step concerns: its pod, or the pods a handler was called with.
func stepPods(e *trace.Event) []string {
	var out []string
	if e.Pod != "" {
		out = append(out, e.Pod)
	}
	if e.Kind == kindHandler {
		for _, pod := range split(e.Attr("pods"), ",") {
			if pod != e.Pod {
				out = append(out, pod)
			}
		}
	}
	return out
}

// eventText is the event as recorded, on one line, without its time and goroutine (the
// page shows those apart).
func eventText(e *trace.Event) string {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	for _, s := range []string{e.Name, e.Pod, e.Container} {
		if s != "" {
			b.WriteString(" " + s)
		}
	}
	if len(e.Ready) > 0 {
		fmt.Fprintf(&b, " ready=[%s]", strings.Join(e.Ready, ","))
	}
	if e.Flow != 0 {
		fmt.Fprintf(&b, " flow=%d", e.Flow)
	}
	if e.Dur > 0 {
		fmt.Fprintf(&b, " dur=%s", span(e.Dur))
	}
	for _, a := range e.Attrs {
		if a.Value != "" {
			fmt.Fprintf(&b, " %s=%s", a.Key, clip(a.Value, 80))
		}
	}
	return b.String()
}

// compact keeps the last value of each key, in key order (the page's bytes must not depend
// on the order changes came in).
func compact(set [][2]string) [][2]string {
	if len(set) == 0 {
		return nil
	}
	last := map[string]string{}
	for _, kv := range set {
		last[kv[0]] = kv[1]
	}
	keys := make([]string, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([][2]string, len(keys))
	for i, k := range keys {
		out[i] = [2]string{k, last[k]}
	}
	return out
}

// micro rounds seconds to the microsecond, so the page's numbers stay short.
func micro(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 6, 64), 64)
	return f
}

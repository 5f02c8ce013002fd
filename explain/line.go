package explain

import (
	"fmt"
	"io"
	"strings"
	"time"

	"nodesim/internal/safetext"
	"nodesim/trace"
)

// Column widths. The time column fits runs of up to a day and a half (" 99999.999s");
// the track column fits "podWorker default/<12 chars>"; longer values push the text right
// rather than being cut, since a cut name would no longer match the trace.
const (
	timeWidth  = 11
	trackWidth = 24
)

// tone is how a line's text is painted.
type tone int

const (
	normal tone = iota
	// bad: something failed or was taken away (a failed start, an eviction, a rejection).
	bad
	// faint: a summary of steps that changed nothing.
	faint
)

// line is one rendered step: what the transcript prints and what the filters look at.
type line struct {
	at    time.Duration
	track string
	// depth 1 and 2 print under the line that caused them (a handler under its select,
	// UpdatePod under its handler), marked "↳".
	depth int
	text  string
	tone  tone
	// why, when set, is printed on its own line beneath: the reason the model recorded
	// when it made the decision this line shows. It is only ever set from an event's recorded
	// Reason (because, stated).
	why *trace.Reason

	cat  Category
	pods []string
}

// write prints l. The time and track columns are padded on the plain text so that the
// columns line up whether or not colour codes surround them.
func write(w io.Writer, p palette, l *line) error {
	indent := ""
	if l.depth > 0 {
		indent = strings.Repeat("  ", l.depth-1) + "↳ "
	}
	// Scenario strings (pod names, images, messages) reach these fields: escape control
	// characters before colour is added, so only the palette's own sequences reach a terminal.
	lt := safetext.Escape(l.track)
	track := fmt.Sprintf("%-*s", trackWidth, lt)
	if len(lt) >= trackWidth {
		track = lt
	}
	text := safetext.Escape(l.text)
	switch l.tone {
	case bad:
		text = p.bad(text)
	case faint:
		text = p.faint(text)
	}
	if _, err := fmt.Fprintf(w, "%s  %s %s%s\n", p.faint(fmt.Sprintf("%*s", timeWidth, at(l.at))), p.track(track), indent, text); err != nil {
		return err
	}
	if l.why == nil {
		return nil
	}
	pad := strings.Repeat(" ", timeWidth+2+trackWidth+1+len([]rune(indent)))
	_, err := fmt.Fprintf(w, "%s%s\n", pad, p.why("why: "+safetext.Escape(l.why.Text)))
	return err
}

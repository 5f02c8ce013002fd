package explain

import (
	"math"
	"time"
)

// filter decides which lines the options keep. It looks only at what a line says about
// itself (time, category, pods), so that every renderer is filtered the same way.
type filter struct {
	o     Options
	lower time.Duration
}

func newFilter(o Options) filter {
	f := filter{o: o, lower: o.From}
	if o.Boot && o.From <= 0 {
		f.lower = math.MinInt64
	}
	return f
}

// inWindow reports whether a step at d lies inside --from/--to (and after time zero unless
// the boot is shown).
func (f filter) inWindow(d time.Duration) bool {
	if d < f.lower {
		return false
	}
	return f.o.To <= 0 || d <= f.o.To
}

// past reports whether d lies after --to: nothing later can be shown.
func (f filter) past(d time.Duration) bool { return f.o.To > 0 && d > f.o.To }

func (f filter) category(c Category) bool {
	if c == always || len(f.o.Only) == 0 {
		return true
	}
	return f.o.Only[c]
}

// keep reports whether l is shown. With --pod, a line must name the pod; the lines that
// frame the run (no pod, category always) stay as landmarks.
func (f filter) keep(l *line) bool {
	if !f.inWindow(l.at) || !f.category(l.cat) {
		return false
	}
	if f.o.Pod == "" {
		return true
	}
	if len(l.pods) == 0 {
		return l.cat == always
	}
	for _, p := range l.pods {
		if p == f.o.Pod {
			return true
		}
	}
	return false
}

// keepQuiet reports whether a step that changed nothing counts in a quiet summary. Such
// steps concern no pod, so a --pod transcript leaves them out altogether.
func (f filter) keepQuiet(d time.Duration, c Category) bool {
	return f.o.Pod == "" && f.inWindow(d) && f.category(c)
}

package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Off (not a terminal, or quiet), a reporter draws nothing and passes log lines through.
func TestOffDrawsNothing(t *testing.T) {
	for _, c := range []struct{ tty, quiet bool }{{false, false}, {true, true}, {false, true}} {
		var b bytes.Buffer
		r := New(&b, c.tty, c.quiet)
		r.Delay = 0
		r.StartRuns("sweep", 4)
		r.Set(2)
		r.Println("sweep: row 1 of 2 done")
		r.Done()
		if r.On() || b.String() != "sweep: row 1 of 2 done\n" {
			t.Errorf("tty %v quiet %v: wrote %q", c.tty, c.quiet, b.String())
		}
	}
	var nilReporter *Reporter
	nilReporter.Set(1) // a nil reporter is off, not a crash
	nilReporter.Done()
}

// On, the bar appears once Delay has passed, shows the count and percentage, keeps log
// lines whole above it, never passes its total, and is erased at the end.
func TestOnDrawsAfterDelay(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, true, false)
	r.Delay = time.Hour
	r.StartRuns("sweep", 4)
	r.Set(1)
	if b.Len() != 0 {
		t.Fatalf("drawn before its delay: %q", b.String())
	}
	r.Delay = 0
	r.Set(2)
	r.Println("sweep: row 1 of 2 done")
	r.Set(4)
	r.Done()
	out := b.String()
	for _, want := range []string{"sweep", "50%", "(2/4)", "\rsweep: row 1 of 2 done\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q: %q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\r") {
		t.Errorf("the bar is not erased at the end: %q", out)
	}

	b.Reset()
	r = New(&b, true, false)
	r.Delay = 0
	r.StartSimulated("run x", 90*time.Second)
	r.SetSimulated(45 * time.Second)
	r.SetSimulated(10 * time.Hour) // past the end: held at the total
	r.Done()
	// 45s of a 91-step bar (whole seconds 0..90) is 49%.
	if out := b.String(); !strings.Contains(out, "run x 1m30s simulated") || !strings.Contains(out, "49%") || strings.Contains(out, "101%") {
		t.Errorf("simulated bar: %q", out)
	}
}

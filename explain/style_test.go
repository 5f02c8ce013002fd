package explain

import (
	"regexp"
	"strings"
	"testing"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestColour(t *testing.T) {
	plain := transcript(t, Options{}, twoPods())
	if strings.Contains(plain, "\x1b[") {
		t.Fatalf("colour off, yet escape codes:\n%q", plain)
	}
	coloured := transcript(t, Options{Color: true}, twoPods())
	for _, code := range []string{"\x1b[36m", "\x1b[35m", "\x1b[32m", "\x1b[2m", "\x1b[0m"} {
		if !strings.Contains(coloured, code) {
			t.Errorf("colour on: no %q in\n%q", code, coloured)
		}
	}
	// Colour changes nothing else: without the codes it is the plain transcript, columns
	// included.
	if stripped := ansi.ReplaceAllString(coloured, ""); stripped != plain {
		t.Errorf("colour changed the text:\n%s\nvs\n%s", stripped, plain)
	}
}

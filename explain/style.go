package explain

import "strings"

// palette paints text with ANSI SGR codes when on, and leaves it untouched when off, so
// that a transcript piped to a file or read by a test is plain text.
type palette struct{ on bool }

func (p palette) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// The roles.
func (p palette) faint(s string) string { return p.paint("2", s) }
func (p palette) bad(s string) string   { return p.paint("31", s) }
func (p palette) why(s string) string   { return p.paint("33", s) }

// track paints a goroutine's name (padded) in that goroutine's colour, so that a reader's
// eye can follow one goroutine down the page.
func (p palette) track(padded string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(padded), " ")
	code := ""
	switch name {
	case "syncLoop":
		code = "36" // cyan
	case "podWorker", "statusManager":
		code = "32" // green
	case "pleg":
		code = "35" // magenta
	case "runtime", "containerDeletor", "gc":
		code = "34" // blue
	case "apiserver", "config", "nodeStatus":
		code = "94" // bright blue
	case "evictionManager", "kernel", "cadvisor":
		code = "91" // bright red
	case "prober":
		code = "95" // bright magenta
	case "scenario":
		code = "1" // bold
	case "…":
		code = "2" // faint
	default:
		return padded
	}
	return p.paint(code, padded)
}

// Package safetext makes text from scenario files safe to print on a terminal. A
// description, an image name or a pod name can carry control characters (an ESC that
// clears the screen, an OSC sequence that retitles the window); printed raw they act on the
// reader's terminal instead of being read. Every text output escapes them at the point of
// output, so no component has to trust its input.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every control character, and every byte that is not valid UTF-8,
// written as a Go escape (\x1b, \u009b, \u202e). Tabs and newlines are kept when keepLines
// is set by EscapeText; Escape itself escapes them too, for one-line fields.
func Escape(s string) string { return escape(s, false) }

// EscapeText is Escape for multi-line text: newlines and tabs stay as they are.
func EscapeText(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	if isSafe(s, keepLines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune: C1 controls (0x80-0x9f, where 0x9b is a one-byte CSI) and the format
// characters that reorder or hide text (bidi overrides, zero-width marks).
func unsafeRune(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r)
}

func isSafe(s string, keepLines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false // decide rune by rune
		}
		if c < 0x20 || c == 0x7f {
			if keepLines && (c == '\n' || c == '\t') {
				continue
			}
			return false
		}
	}
	return true
}

package reports

import (
	"math"
	"strconv"
	"unicode/utf8"

	"nodesim/trace"
)

// The streamed trace files (trace.jsonl, trace.perfetto.json) carry one JSON object per
// event, millions in a long run. encoding/json reflects over each object and wants maps for
// the attributes; these appenders write the same bytes directly into a reused buffer.
// Every rule below is encoding/json's, as json.Encoder applies it (HTML escaping on): the
// files must not change by a byte, and jsonenc_test.go compares both encoders.

const jsonHex = "0123456789abcdef"

// jsonSafe marks the ASCII bytes a JSON string carries as they are: printable, and neither
// a quote, a backslash nor one of the HTML-sensitive <, > and &.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		safe[b] = true
	}
	for _, b := range `"\<>&` {
		safe[b] = false
	}
	return safe
}()

// appendJSONString appends s as a JSON string: quotes, backslashes and control characters
// escaped, <, > and & as \u003c, \u003e and \u0026, invalid UTF-8 as \ufffd, and U+2028
// and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	return append(appendJSONStringBody(append(dst, '"'), s), '"')
}

// appendJSONStringBody appends s escaped as appendJSONString does, without the quotes.
func appendJSONStringBody(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', jsonHex[b>>4], jsonHex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonHex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// appendJSONFloat appends f as encoding/json writes a float64: the shortest decimal that
// reads back as f, in exponent form only below 1e-6 or from 1e21 on (its exponent not
// padded). f must be finite.
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendJSONStrings appends list as a JSON array of strings.
func appendJSONStrings(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
	}
	return append(dst, ']')
}

// sortedAttrs returns attrs as a map[string]string of them would be encoded: one entry per
// key, the last value given for it, in byte order of the keys. It reuses buf's storage. An
// event carries a handful of attributes, so an insertion sort (stable, so that the last of
// equal keys stays last) is the cheapest.
func sortedAttrs(buf []trace.Attr, attrs []trace.Attr) []trace.Attr {
	buf = append(buf[:0], attrs...)
	for i := 1; i < len(buf); i++ {
		for j := i; j > 0 && buf[j].Key < buf[j-1].Key; j-- {
			buf[j], buf[j-1] = buf[j-1], buf[j]
		}
	}
	// Of each run of equal keys keep the last, as a map assignment would.
	out := buf[:0]
	for i := range buf {
		if i+1 < len(buf) && buf[i+1].Key == buf[i].Key {
			continue
		}
		out = append(out, buf[i])
	}
	return out
}

// appendJSONAttrs appends sorted (see sortedAttrs) as a JSON object of strings.
func appendJSONAttrs(dst []byte, sorted []trace.Attr) []byte {
	dst = append(dst, '{')
	for i, a := range sorted {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, a.Key)
		dst = append(dst, ':')
		dst = appendJSONString(dst, a.Value)
	}
	return append(dst, '}')
}

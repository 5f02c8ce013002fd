package strictyaml

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// unmarshalJSON feeds n, converted to JSON, to a type that parses itself from
// JSON (resource.Quantity, metav1.Duration, intstr.IntOrString, ...).
// Scalars are converted by their resolved YAML tag, so `cpu: 4` arrives as
// the JSON number 4 and `port: "80"` as the JSON string "80", exactly what
// the type would see from the equivalent JSON manifest.
func (d *Decoder) unmarshalJSON(n *yaml.Node, path string, u json.Unmarshaler) {
	data, ok := d.appendJSON(nil, n, path)
	if !ok {
		return
	}
	if err := callSafely(func() error { return u.UnmarshalJSON(data) }); err != nil {
		d.Errorf(n, path, "%s", invalidValue(n, err))
	}
}

// unmarshalText feeds the text of a scalar to an encoding.TextUnmarshaler.
func (d *Decoder) unmarshalText(n *yaml.Node, path string, u encoding.TextUnmarshaler) {
	if n.Kind != yaml.ScalarNode {
		d.typeError(n, path, "a scalar")
		return
	}
	switch n.ShortTag() {
	case strTag, intTag, floatTag, boolTag, timestampTag, mergeTag:
	default:
		d.typeError(n, path, "a scalar")
		return
	}
	if err := callSafely(func() error { return u.UnmarshalText([]byte(n.Value)) }); err != nil {
		d.Errorf(n, path, "%s", invalidValue(n, err))
	}
}

// callSafely runs a third-party parser, turning a panic into an error: a
// validator fed arbitrary user input must report problems, not crash.
func callSafely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return f()
}

// invalidValue renders a parser's complaint about n, leading with the value
// the user wrote: `invalid value "8Gx": quantities must match ...`.
func invalidValue(n *yaml.Node, err error) string {
	msg := err.Error()
	for _, prefix := range []string{"json: ", "time: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	// Parsers may echo the input; keep the report to one line per error.
	msg = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(msg)
	if n.Kind == yaml.ScalarNode {
		return "invalid value " + quoteShort(n.Value) + ": " + msg
	}
	return "invalid value (" + describe(n) + "): " + msg
}

// appendJSON appends the JSON form of n to buf. It records errors (and
// returns false) for what JSON cannot express: non-string keys, duplicate
// keys, infinities, unknown tags. Positions of nested values are recorded
// as for any other decode.
func (d *Decoder) appendJSON(buf []byte, n *yaml.Node, path string) ([]byte, bool) {
	if n == nil {
		return append(buf, "null"...), true
	}
	if !d.enter(n, path) {
		return buf, false
	}
	defer d.leave()

	switch n.Kind {
	case yaml.AliasNode:
		ok := false
		d.expandAlias(n, path, func(target *yaml.Node) {
			buf, ok = d.appendJSON(buf, target, path)
		})
		return buf, ok
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return append(buf, "null"...), true
		}
		return d.appendJSON(buf, n.Content[0], path)
	}
	if n.Anchor != "" {
		defer d.markAnchor(n)()
	}
	switch n.Kind {
	case yaml.MappingNode:
		return d.appendJSONObject(buf, n, path)
	case yaml.SequenceNode:
		ok := true
		buf = append(buf, '[')
		for i, item := range n.Content {
			if i > 0 {
				buf = append(buf, ',')
			}
			itemPath := Index(path, i)
			d.record(itemPath, item)
			var itemOK bool
			buf, itemOK = d.appendJSON(buf, item, itemPath)
			ok = ok && itemOK
		}
		return append(buf, ']'), ok
	case yaml.ScalarNode, 0:
		return d.appendJSONScalar(buf, n, path)
	}
	d.Errorf(n, path, "internal error: unknown node kind %d", n.Kind)
	return buf, false
}

func (d *Decoder) appendJSONObject(buf []byte, n *yaml.Node, path string) ([]byte, bool) {
	ok := true
	seen := make(map[string]bool, len(n.Content)/2)
	buf = append(buf, '{')
	first := true
	for _, p := range d.mappingPairs(n, path) {
		key, keyOK := d.mapKey(p.key, path)
		if !keyOK {
			ok = false
			continue
		}
		if seen[key] {
			d.Errorf(p.key, path, "duplicate key %s", quoteShort(key))
			ok = false
			continue
		}
		seen[key] = true
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = appendJSONString(buf, key)
		buf = append(buf, ':')

		valuePath := Join(path, key)
		d.record(valuePath, p.value)
		if p.merged {
			d.aliasDepth++
		}
		var valueOK bool
		buf, valueOK = d.appendJSON(buf, p.value, valuePath)
		if p.merged {
			d.aliasDepth--
		}
		ok = ok && valueOK
	}
	return append(buf, '}'), ok
}

func (d *Decoder) appendJSONScalar(buf []byte, n *yaml.Node, path string) ([]byte, bool) {
	switch tag := n.ShortTag(); tag {
	case nullTag:
		return append(buf, "null"...), true
	case strTag, timestampTag, binaryTag, mergeTag:
		return appendJSONString(buf, n.Value), true
	case boolTag:
		b, ok := parseBool(n.Value)
		if !ok {
			d.Errorf(n, path, "invalid boolean %s", quoteShort(n.Value))
			return buf, false
		}
		return strconv.AppendBool(buf, b), true
	case intTag:
		if i, err := parseInt(n.Value); err == nil {
			return strconv.AppendInt(buf, i, 10), true
		}
		if u, err := parseUint(n.Value); err == nil {
			return strconv.AppendUint(buf, u, 10), true
		}
		if b, ok := parseBigInt(n.Value); ok {
			return b.Append(buf, 10), true
		}
		d.Errorf(n, path, "invalid integer %s", quoteShort(n.Value))
		return buf, false
	case floatTag:
		// Keep the digits as written (a Quantity like 0.1 must not become
		// 0.1000000000000000055511151231257827), only fixing up the YAML
		// spellings JSON lacks, such as ".5", "+1" and "1.".
		if text := jsonNumberText(n.Value); isJSONNumber(text) {
			return append(buf, text...), true
		}
		f, err := parseFloat(n.Value)
		switch {
		case err != nil:
			d.Errorf(n, path, "invalid float %s", quoteShort(n.Value))
		case math.IsInf(f, 0) || math.IsNaN(f):
			d.Errorf(n, path, "invalid value %s: infinity and NaN are not allowed here", quoteShort(n.Value))
		default:
			return strconv.AppendFloat(buf, f, 'g', -1, 64), true
		}
		return buf, false
	default:
		d.Errorf(n, path, "unsupported tag %s", showValue(tag))
		return buf, false
	}
}

// jsonNumberText rewrites YAML float spellings into JSON ones where that is
// a purely textual change.
func jsonNumberText(s string) string {
	s = plainNumber(s)
	neg := false
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	}
	if strings.HasPrefix(s, ".") {
		s = "0" + s
	}
	if i := strings.IndexByte(s, '.'); i >= 0 && (i+1 == len(s) || s[i+1] == 'e' || s[i+1] == 'E') {
		s = s[:i+1] + "0" + s[i+1:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// isJSONNumber reports whether s matches the JSON number grammar.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// appendJSONString appends s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD, as with encoding/json.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c < 0x20:
				switch c {
				case '\n':
					buf = append(buf, '\\', 'n')
				case '\r':
					buf = append(buf, '\\', 'r')
				case '\t':
					buf = append(buf, '\\', 't')
				default:
					buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
				}
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, `\ufffd`...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	yamlv4 "go.yaml.in/yaml/v4"
)

// ParseDocument parses data as exactly one YAML document and returns its root
// content node (the mapping, sequence or scalar; not the DocumentNode).
//
// Every failure is returned as an *Error positioned as precisely as yaml.v3
// allows: syntax errors carry a line (yaml.v3 gives no column), problems that
// yaml.v3 reports without a line (invalid UTF-8, control characters, unknown
// anchors) are located by scanning the input. An empty document, an explicit
// null document and a stream of more than one document are errors too; a
// trailing empty document ("a: 1\n---\n") is tolerated.
func ParseDocument(file string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := safeDecode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{Pos: Pos{File: file, Line: 1, Column: 1}, Msg: "empty document"}
		}
		return nil, syntaxError(file, data, err)
	}
	root := documentRoot(&doc)
	if root == nil || isImplicitNull(root) {
		return nil, &Error{Pos: nodePos(file, &doc), Msg: "empty document"}
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == nullTag {
		return nil, &Error{Pos: nodePos(file, root), Msg: "document is null"}
	}

	for {
		var next yaml.Node
		err := safeDecode(dec, &next)
		if errors.Is(err, io.EOF) {
			return root, nil
		}
		if err != nil {
			return nil, syntaxError(file, data, err)
		}
		if r := documentRoot(&next); r != nil && !isImplicitNull(r) {
			return nil, &Error{
				Pos: nodePos(file, &next),
				Msg: "expected a single YAML document, found more than one",
			}
		}
	}
}

// safeDecode runs yaml.v3 and turns a panic inside it into an error: the
// parser is third-party code fed with untrusted input, and a CLI validating
// a user's file must report, not crash.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: internal parser error: %v", r)
		}
	}()
	return dec.Decode(n)
}

// documentRoot returns the content of a DocumentNode, or nil.
func documentRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// isImplicitNull reports whether n is the null yaml.v3 produces for a
// document or value with no content at all (as opposed to an explicit "~").
func isImplicitNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == "" && n.ShortTag() == nullTag && n.Style&yaml.TaggedStyle == 0
}

func nodePos(file string, n *yaml.Node) Pos {
	return Pos{File: file, Line: max(n.Line, 1), Column: n.Column}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserErrors are the yaml.v3 messages produced by its parser (as
// opposed to its scanner). For those yaml.v3 prints the 0-based line of the
// problem or of its context, so one must be added.
var yamlParserErrors = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found undefined tag handle",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

// syntaxError converts a yaml.v3 parse error into a positioned *Error.
func syntaxError(file string, data []byte, err error) *Error {
	msg := strings.TrimSpace(err.Error())
	pos := Pos{File: file}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, convErr := strconv.Atoi(m[1])
		if convErr != nil {
			line = 1
		}
		msg = m[2]
		for _, p := range yamlParserErrors {
			if msg == p {
				line++
				break
			}
		}
		pos.Line = min(max(line, 1), bytes.Count(data, []byte("\n"))+1)
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
		pos = locateProblem(file, data, msg)
	}
	if line, col := problemMark(data); line > 0 && col > 0 && (line == pos.Line || line == pos.Line+1) {
		// yaml.v3 reports a line only (for some errors the line before the problem's); its
		// successor's parser marks the problem with its column. The mark is used only when it
		// lies on the line v3 names or the next, so that it belongs to the problem the message
		// describes; otherwise the error keeps v3's line alone.
		pos.Line, pos.Column = line, col
	}
	msg = strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(msg)
	return &Error{Pos: pos, Msg: "invalid YAML: " + msg}
}

// problemMark parses data with go.yaml.in/yaml/v4 and returns the line and column its
// parser marks a syntax problem at (1-based), or 0, 0 when it finds none.
func problemMark(data []byte) (int, int) {
	dec := yamlv4.NewDecoder(bytes.NewReader(data))
	for {
		var n yamlv4.Node
		err := dec.Decode(&n)
		if err == nil {
			continue
		}
		var le *yamlv4.LoadError
		if errors.As(err, &le) {
			return le.Mark.Line, le.Mark.Column
		}
		return 0, 0
	}
}

var unknownAnchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// locateProblem finds a position for a yaml.v3 error that came without a
// line number: a reference to an undefined anchor, or a character yaml.v3's
// reader refuses. Without a better idea it points at the first line, which is
// where yaml.v3's line-less errors most often are.
func locateProblem(file string, data []byte, msg string) Pos {
	if m := unknownAnchorRE.FindStringSubmatch(msg); m != nil {
		if off := findAlias(data, m[1]); off >= 0 {
			return offsetPos(file, data, off)
		}
	}
	if off := firstBadChar(data); off >= 0 {
		return offsetPos(file, data, off)
	}
	return Pos{File: file, Line: 1}
}

// findAlias returns the offset of the first "*name" alias in data, or -1.
func findAlias(data []byte, name string) int {
	needle := []byte("*" + name)
	for from := 0; from < len(data); {
		i := bytes.Index(data[from:], needle)
		if i < 0 {
			return -1
		}
		off := from + i
		end := off + len(needle)
		if end == len(data) || bytes.IndexByte([]byte(" \t\r\n,]}"), data[end]) >= 0 {
			return off
		}
		from = off + 1
	}
	return -1
}

// firstBadChar returns the offset of the first byte sequence YAML does not
// allow in a stream (invalid UTF-8 or a control character), or -1.
func firstBadChar(data []byte) int {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return -1 // UTF-16; offsets would not be meaningful
	}
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			return off
		}
		if !isPrintable(r) {
			return off
		}
		off += size
	}
	return -1
}

// isPrintable mirrors the YAML 1.2 c-printable production.
func isPrintable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r >= 0x20 && r <= 0x7E:
		return true
	case r == 0x85 || (r >= 0xA0 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD):
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// offsetPos converts a byte offset into a 1-based line and column (columns
// count runes, as yaml.v3 does).
func offsetPos(file string, data []byte, off int) Pos {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	col := utf8.RuneCount(before[lineStart:]) + 1
	return Pos{File: file, Line: line, Column: col}
}

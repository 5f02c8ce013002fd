package strictyaml

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// Limits that keep hostile or broken input from exhausting the stack, memory
// or the user's patience. They are far above anything a hand-written
// scenario needs.
const (
	// maxDepth bounds the nesting of values being decoded (and of
	// NodeUnmarshaler hooks calling back into the Decoder).
	maxDepth = 200
	// maxExpandedNodes bounds the number of nodes decoded through aliases
	// and merge keys, defeating "billion laughs" documents whose text is
	// tiny but whose expansion is exponential.
	maxExpandedNodes = 1_000_000
	// maxErrors bounds the error list; past it the decoder gives up.
	maxErrors = 1000
)

// Decoder decodes yaml.v3 node trees into Go values, collecting every
// problem instead of stopping at the first.
//
// A Decoder is meant for one file: decode any number of values from it, then
// call Err. It is not safe for concurrent use.
type Decoder struct {
	File      string
	Errors    ErrorList
	Positions map[string]Pos // every visited path -> position of its value node (root "" included)
	// Check, when set, sees every value a type decoded for itself (durations, quantities,
	// ...) with the text as written, and returns a message when the value is out of range,
	// reported at its position. It is how a caller bounds every such value in a document with
	// one rule.
	Check func(v any, written string) string

	depth      int                          // current nesting of value decoding
	aliasDepth int                          // > 0 while decoding content reached through an alias or merge key
	expanded   int                          // nodes decoded while aliasDepth > 0
	aborted    bool                         // a global limit was hit; decoding stops
	active     map[*yaml.Node]bool          // alias targets being expanded, to detect cycles
	structs    map[reflect.Type]*structInfo // field tables, built once per type
}

// NewDecoder returns a Decoder whose errors and positions refer to file.
func NewDecoder(file string) *Decoder {
	return &Decoder{File: file, Positions: make(map[string]Pos)}
}

// NodeUnmarshaler lets a type decode itself with access to positions, e.g.
// a field that accepts "a number, or a list of steps". It is looked up on a
// pointer to the value and takes precedence over json.Unmarshaler and
// encoding.TextUnmarshaler. Aliases are resolved before the hook is called,
// and it is not called for null values (the field is left alone, or set to
// nil for pointers). Implementations report problems with d.Errorf and may
// call d.Decode for parts of n.
type NodeUnmarshaler interface {
	UnmarshalYAMLNode(d *Decoder, n *yaml.Node, path string)
}

// Decode decodes n into out, which must be a non-nil pointer, recording
// errors under path and carrying on past them so that all problems are found.
// The result is best effort when errors were recorded. A nil n is treated as
// null.
func (d *Decoder) Decode(n *yaml.Node, path string, out any) {
	d.init()
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		d.Errorf(n, path, "internal error: Decode needs a non-nil pointer, got %T", out)
		return
	}
	if n == nil {
		setNull(rv.Elem())
		return
	}
	// A NodeUnmarshaler typically calls Decode again for the same path with
	// the alias already resolved; keep the position first recorded, which is
	// where the value was written.
	if _, seen := d.Positions[path]; !seen {
		d.record(path, n)
	}
	d.value(n, path, rv.Elem())
}

// Errorf records an error positioned at n (or, when n is nil or has no
// position, at the best known position for path).
func (d *Decoder) Errorf(n *yaml.Node, path, format string, args ...any) {
	d.init()
	var pos Pos
	if n != nil && n.Line > 0 {
		pos = Pos{File: d.File, Line: n.Line, Column: n.Column}
	} else {
		pos = d.lookup(path)
	}
	d.add(&Error{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// ErrorAt records an error for a path decoded earlier, positioned at
// Positions[path]. If that path was never recorded (say, a required field
// that is missing), the longest recorded prefix is used instead, so the
// error points at the enclosing mapping.
func (d *Decoder) ErrorAt(path, format string, args ...any) {
	d.init()
	d.add(&Error{Pos: d.lookup(path), Path: path, Msg: fmt.Sprintf(format, args...)})
}

// Err returns nil when no errors were recorded, else the sorted ErrorList.
func (d *Decoder) Err() error {
	if len(d.Errors) == 0 {
		return nil
	}
	d.Errors.Sort()
	return d.Errors
}

// init makes the zero Decoder usable.
func (d *Decoder) init() {
	if d.Positions == nil {
		d.Positions = make(map[string]Pos)
	}
}

// lookup returns the position recorded for path or its longest recorded
// prefix; with nothing recorded it returns just the file.
func (d *Decoder) lookup(path string) Pos {
	if p, ok := d.Positions[path]; ok {
		return p
	}
	for _, prefix := range pathPrefixes(path) {
		if p, ok := d.Positions[prefix]; ok {
			return p
		}
	}
	return Pos{File: d.File}
}

// add appends e unless the error budget is exhausted.
func (d *Decoder) add(e *Error) {
	if len(d.Errors) >= maxErrors {
		if len(d.Errors) == maxErrors {
			d.Errors = append(d.Errors, &Error{Pos: e.Pos, Path: e.Path,
				Msg: fmt.Sprintf("too many errors (more than %d), giving up", maxErrors)})
		}
		d.aborted = true
		return
	}
	d.Errors = append(d.Errors, e)
}

// abort records a fatal problem and stops all further decoding.
func (d *Decoder) abort(n *yaml.Node, path, format string, args ...any) {
	if d.aborted {
		return
	}
	d.Errorf(n, path, format, args...)
	d.aborted = true
}

// record remembers where the value for path is.
func (d *Decoder) record(path string, n *yaml.Node) {
	if n != nil && n.Line > 0 {
		d.Positions[path] = Pos{File: d.File, Line: n.Line, Column: n.Column}
	}
}

// enter is called before decoding any node; it enforces the depth and
// expansion limits. When it returns true the caller must call leave.
func (d *Decoder) enter(n *yaml.Node, path string) bool {
	if d.aborted {
		return false
	}
	if d.aliasDepth > 0 && !d.charge(n, path, 1) {
		return false
	}
	if d.depth >= maxDepth {
		d.Errorf(n, path, "document nested too deeply (more than %d levels)", maxDepth)
		return false
	}
	d.depth++
	return true
}

func (d *Decoder) leave() { d.depth-- }

// charge counts nodes produced by alias or merge-key expansion against
// maxExpandedNodes, aborting the decode once the budget is exhausted.
func (d *Decoder) charge(n *yaml.Node, path string, nodes int) bool {
	d.expanded += nodes
	if d.expanded > maxExpandedNodes {
		d.abort(n, path, "document too large after alias expansion (more than %d nodes)", maxExpandedNodes)
		return false
	}
	return !d.aborted
}

// expandAlias calls fn with the node alias n refers to, guarding against
// cycles (an anchor whose value contains an alias to itself) and counting
// everything decoded below it against maxExpandedNodes.
func (d *Decoder) expandAlias(n *yaml.Node, path string, fn func(target *yaml.Node)) {
	target := n.Alias
	if target == nil {
		d.Errorf(n, path, "alias *%s refers to an unknown anchor", n.Value)
		return
	}
	if d.active[target] {
		d.Errorf(n, path, "alias *%s refers to a value that contains it (cyclic document)", n.Value)
		return
	}
	d.aliasDepth++
	defer func() { d.aliasDepth-- }()
	defer d.markAnchor(target)()
	fn(target)
}

// markAnchor marks a node that aliases may refer to as being decoded, until
// the returned function is called, so that an alias to it from inside is
// caught as a cycle on first use.
func (d *Decoder) markAnchor(n *yaml.Node) (release func()) {
	if d.active[n] {
		return func() {}
	}
	if d.active == nil {
		d.active = make(map[*yaml.Node]bool)
	}
	d.active[n] = true
	return func() { delete(d.active, n) }
}

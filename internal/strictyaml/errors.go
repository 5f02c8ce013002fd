package strictyaml

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Pos is a position in a YAML file. Line and Column are 1-based; zero means
// unknown (yaml.v3 reports no column for syntax errors, for instance).
type Pos struct {
	File         string
	Line, Column int
}

// String renders the position as "file:line:col". The file part is omitted
// when File is empty, and trailing unknown (zero) parts are omitted so that
// messages never show a misleading ":0".
func (p Pos) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(p.Line))
		if p.Column > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Column))
		}
	}
	return b.String()
}

// Error is one positioned problem.
type Error struct {
	Pos  Pos
	Path string // field path like spec.pods[3].pod.spec.containers[0].name; "" for the document root
	Msg  string // e.g. `unknown field "evictonHard" (did you mean "evictionHard"?)`
}

// Error renders the problem as "file:line:col: path: msg"; the position and
// path parts are omitted when empty.
func (e *Error) Error() string {
	var b strings.Builder
	if pos := e.Pos.String(); pos != "" {
		b.WriteString(pos)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found. It implements error so that a whole
// validation run can be returned as one value.
type ErrorList []*Error

// Error renders one problem per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap exposes the individual problems to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Sort orders the list by line, column, then message (and path, to make the
// order total), so that users read problems top to bottom.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			strings.Compare(a.Msg, b.Msg),
			strings.Compare(a.Path, b.Path),
		)
	})
}

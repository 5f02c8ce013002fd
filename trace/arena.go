package trace

import "strings"

// AttrArena hands out attribute lists many to an allocation, for components that record
// the same kinds of events tens of thousands of times a run. A recorded event may keep its
// attributes for the whole run, so no part of a chunk is ever handed out twice: each list
// is cut with its capacity equal to its length (an append copies), and a full chunk is
// left to the events that refer to it. The zero value is ready; an arena belongs to one
// component instance.
type AttrArena struct {
	free []Attr
}

// attrArenaChunk is how many attributes a new chunk holds: 255 of 32 bytes and the
// allocator's header fill an 8 KiB size class exactly.
const attrArenaChunk = 255

// Make returns n zero attributes that nothing else refers to, with capacity n.
func (a *AttrArena) Make(n int) []Attr {
	if len(a.free) < n {
		a.free = make([]Attr, max(attrArenaChunk, n))
	}
	out := a.free[:n:n]
	a.free = a.free[n:]
	return out
}

// TextArena makes strings many to an allocation: each is appended to a strings.Builder with
// room to spare and handed out as a substring of its text. Appending within the Builder's
// capacity never writes the bytes already there, so a string handed out stays as it was;
// when the room runs out a new Builder is started and the old buffer is left to the
// strings that still refer to it. The zero value is ready.
type TextArena struct {
	b strings.Builder
}

// textArenaSize is the room a new Builder starts with.
const textArenaSize = 8 << 10

// Copy returns string(text).
func (a *TextArena) Copy(text []byte) string {
	if a.b.Cap()-a.b.Len() < len(text) {
		a.b = strings.Builder{}
		a.b.Grow(max(textArenaSize, len(text)))
	}
	start := a.b.Len()
	a.b.Write(text)
	return a.b.String()[start:]
}

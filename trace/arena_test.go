package trace

import (
	"strconv"
	"testing"
)

// What an arena hands out is never handed out again, and an append to a list copies it
// rather than writing into the next list.
func TestArenasNeverShare(t *testing.T) {
	var attrs AttrArena
	var texts TextArena
	var lists [][]Attr
	var strs []string
	for i := 0; i < 1000; i++ {
		l := attrs.Make(1 + i%7)
		if len(l) != cap(l) {
			t.Fatalf("list %d: len %d, cap %d", i, len(l), cap(l))
		}
		for j := range l {
			l[j] = Attr{Key: strconv.Itoa(i), Value: strconv.Itoa(j)}
		}
		_ = append(l, Attr{Key: "x"})
		lists = append(lists, l)
		strs = append(strs, texts.Copy([]byte("text-"+strconv.Itoa(i))))
	}
	for i, l := range lists {
		for j, a := range l {
			if a.Key != strconv.Itoa(i) || a.Value != strconv.Itoa(j) {
				t.Fatalf("list %d attribute %d is %v", i, j, a)
			}
		}
		if strs[i] != "text-"+strconv.Itoa(i) {
			t.Fatalf("text %d is %q", i, strs[i])
		}
	}
}

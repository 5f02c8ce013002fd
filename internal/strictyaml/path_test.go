package strictyaml

import (
	"errors"
	"reflect"
	"testing"
)

func TestJoinIndex(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{Join("spec", "kubelet"), "spec.kubelet"},
		{Join("", "spec"), "spec"},
		{Join("a", "x/y"), `a["x/y"]`},
		{Join("a", "memory.available"), `a["memory.available"]`},
		{Join("", "memory.available"), `["memory.available"]`},
		{Join("a", ""), `a[""]`},
		{Join("a", `we"ird`), `a["we\"ird"]`},
		{Join("a", "kebab-case_1"), "a.kebab-case_1"},
		{Index("spec.pods", 3), "spec.pods[3]"},
		{Index("", 0), "[0]"},
		{Join(Index(Join("spec", "pods"), 3), "pod"), "spec.pods[3].pod"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestPathPrefixes(t *testing.T) {
	tests := []struct {
		path string
		want []string
	}{
		{"", []string{""}},
		{"spec", []string{""}},
		{"spec.kubelet", []string{"spec", ""}},
		{`a.b[2]["x.y"].c`, []string{`a.b[2]["x.y"]`, "a.b[2]", "a.b", "a", ""}},
		{`["x]y"][0]`, []string{`["x]y"]`, ""}},
		{`a["q\"]"].b`, []string{`a["q\"]"]`, "a", ""}},
		{`a[`, []string{"a", ""}},
		{`a["unterminated`, []string{"a", ""}},
	}
	for _, tt := range tests {
		if got := pathPrefixes(tt.path); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("pathPrefixes(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestErrorFormatting(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&Error{Pos: Pos{"f.yaml", 3, 7}, Path: "spec.kubelet", Msg: "boom"}, "f.yaml:3:7: spec.kubelet: boom"},
		{&Error{Pos: Pos{"f.yaml", 3, 7}, Msg: "boom"}, "f.yaml:3:7: boom"},
		{&Error{Pos: Pos{"", 3, 7}, Path: "a", Msg: "boom"}, "3:7: a: boom"},
		{&Error{Pos: Pos{"f.yaml", 3, 0}, Msg: "boom"}, "f.yaml:3: boom"},
		{&Error{Msg: "boom"}, "boom"},
		{ErrorList{{Pos: Pos{"f", 1, 1}, Msg: "a"}, {Pos: Pos{"f", 2, 1}, Msg: "b"}}, "f:1:1: a\nf:2:1: b"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestErrorListSortAndUnwrap(t *testing.T) {
	l := ErrorList{
		{Pos: Pos{"f", 2, 1}, Msg: "b"},
		{Pos: Pos{"f", 1, 5}, Msg: "z"},
		{Pos: Pos{"f", 1, 5}, Msg: "a"},
		{Pos: Pos{"f", 1, 2}, Msg: "y"},
	}
	l.Sort()
	want := "f:1:2: y\nf:1:5: a\nf:1:5: z\nf:2:1: b"
	if got := l.Error(); got != want {
		t.Errorf("sorted:\n%s\nwant:\n%s", got, want)
	}
	var e *Error
	if !errors.As(error(l), &e) || e.Msg != "y" {
		t.Errorf("errors.As found %v", e)
	}
}

package strictyaml

import (
	"errors"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestParseDocument(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		wantErr string // "" for success
		kind    yaml.Kind
	}{
		{name: "mapping", src: "a: 1\n", kind: yaml.MappingNode},
		{name: "sequence", src: "- a\n", kind: yaml.SequenceNode},
		{name: "scalar", src: "hello\n", kind: yaml.ScalarNode},
		{name: "leading separator", src: "---\na: 1\n", kind: yaml.MappingNode},
		{name: "trailing empty document", src: "a: 1\n---\n", kind: yaml.MappingNode},
		{name: "empty", src: "", wantErr: "test.yaml:1:1: empty document"},
		{name: "only comments", src: "# nothing\n\n", wantErr: "test.yaml:1:1: empty document"},
		{name: "only separator", src: "---\n", wantErr: "test.yaml:1:1: empty document"},
		{name: "explicit null", src: "~\n", wantErr: "test.yaml:1:1: document is null"},
		{
			name:    "two documents",
			src:     "a: 1\n---\nb: 2\n",
			wantErr: "test.yaml:2:1: expected a single YAML document, found more than one",
		},
		{
			name:    "syntax error in second document",
			src:     "a: 1\n---\nb: [\n",
			wantErr: "test.yaml:4:1: invalid YAML: did not find expected node content",
		},
		{
			name:    "bad indentation",
			src:     "a:\n  - b\n c: d\n",
			wantErr: "test.yaml:3:2: invalid YAML: did not find expected key",
		},
		{
			name:    "sequence item after mapping",
			src:     "- a\nb: c\n",
			wantErr: "test.yaml:2:1: invalid YAML: did not find expected '-' indicator",
		},
		{
			name:    "tab indentation",
			src:     "a: 1\n\tb: 2\n",
			wantErr: "test.yaml:2:1: invalid YAML: found a tab character that violates indentation",
		},
		{
			name:    "unterminated quote",
			src:     "a: 1\nb: 'x\n",
			wantErr: "test.yaml:3:1: invalid YAML: found unexpected end of stream",
		},
		{
			name:    "mapping value on first line",
			src:     "a: b: c\n",
			wantErr: "test.yaml:1:5: invalid YAML: mapping values are not allowed in this context",
		},
		{
			name:    "unknown anchor",
			src:     "a: 1\nb:\n  c: *nope\n",
			wantErr: "test.yaml:3:6: invalid YAML: unknown anchor 'nope' referenced",
		},
		{
			name:    "control character",
			src:     "a: 1\nb: \"x\x01\"\n",
			wantErr: "test.yaml:2:6: invalid YAML: control characters are not allowed",
		},
		{
			name:    "invalid UTF-8",
			src:     "a: 1\nbé: \xff\n",
			wantErr: "test.yaml:2:5: invalid YAML: invalid leading UTF-8 octet",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseDocument(testFile, []byte(tt.src))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if n.Kind != tt.kind {
					t.Errorf("kind = %v, want %v", n.Kind, tt.kind)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.wantErr)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error", err)
			}
			if e.Pos.Line < 1 {
				t.Errorf("line = %d, want >= 1", e.Pos.Line)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", err.Error(), tt.wantErr)
			}
		})
	}
}

func TestParseDocumentWithoutFile(t *testing.T) {
	_, err := ParseDocument("", []byte("a: [\n"))
	if err == nil || err.Error() != "2:1: invalid YAML: did not find expected node content" {
		t.Errorf("error = %v", err)
	}
}

// Syntax errors point at the character: line and column of the parser's problem mark,
// checked by hand against each input.
func TestSyntaxErrorColumns(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a: b\n  c: d\n", "f.yaml:2:4: invalid YAML: mapping values are not allowed in this context"},                         // the ':' after c
		{"spec:\n  duration: 1m\n\tevents: []\n", "f.yaml:3:1: invalid YAML: found a tab character that violates indentation"}, // the tab
		{"a:\n  - x\n  y: 1\n", "f.yaml:3:3: invalid YAML: did not find expected '-' indicator"},                               // y, where a '-' belongs
		{"key: \"unterminated\nother: 1\n", "f.yaml:3:1: invalid YAML: found unexpected end of stream"},                        // the end of the input
	} {
		_, err := ParseDocument("f.yaml", []byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
}

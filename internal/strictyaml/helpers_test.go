package strictyaml

import (
	"errors"
	"strings"
	"testing"
)

const testFile = "test.yaml"

// decodeYAML parses src and decodes it into out, failing the test on a
// syntax error. It returns the Decoder so tests can inspect errors and
// positions.
func decodeYAML(t testing.TB, src string, out any) *Decoder {
	t.Helper()
	root, err := ParseDocument(testFile, []byte(src))
	if err != nil {
		t.Fatalf("ParseDocument: %v", err)
	}
	d := NewDecoder(testFile)
	d.Decode(root, "", out)
	return d
}

// errorLines returns the rendered errors of d in sorted order.
func errorLines(d *Decoder) []string {
	err := d.Err()
	if err == nil {
		return nil
	}
	var list ErrorList
	if !errors.As(err, &list) {
		return []string{err.Error()}
	}
	lines := make([]string, len(list))
	for i, e := range list {
		lines[i] = e.Error()
	}
	return lines
}

// checkErrors compares the errors of d with want, line by line.
func checkErrors(t *testing.T, d *Decoder, want []string) {
	t.Helper()
	got := errorLines(d)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pageJSON reads the data a page carries.
func pageJSON(t *testing.T, html []byte) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindSubmatch(html)
	if m == nil {
		t.Fatal("the page has no data")
	}
	var d map[string]any
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// explain --html with a window and filters: the steps lie in the window, the filters are
// preset, the title reproduces the command, and the same command writes the same bytes.
func TestExplainHTMLWritesAPage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gd.html")
	args := []string{"graceful-deletion", "--html", path, "--from", "60s", "--to", "70s", "--pod", "web", "--only", "workers,cri"}
	out, errOut, code := explainCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !regexp.MustCompile(`^wrote .*gd\.html: \d+ steps of \d+ events\n$`).MatchString(out) {
		t.Errorf("stdout %q", out)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := pageJSON(t, first)
	title, _ := d["title"].(string)
	if !strings.HasPrefix(title, "nodesim explain graceful-deletion --seed 1 --pod default/web --from 60s --to 70s --only workers,cri --html ") {
		t.Errorf("title %q", title)
	}
	if d["pod"] != "default/web" {
		t.Errorf("preset pod %v", d["pod"])
	}
	if only, _ := json.Marshal(d["only"]); string(only) != `["workers","cri"]` {
		t.Errorf("preset categories %s", only)
	}
	steps, _ := d["steps"].([]any)
	if len(steps) == 0 {
		t.Fatal("no steps")
	}
	for _, s := range steps {
		if at := s.(map[string]any)["t"].(float64); at < 60 || at > 70 {
			t.Fatalf("a step at %gs, outside --from 60s --to 70s", at)
		}
	}
	if _, _, code := explainCLI(t, args...); code != 0 {
		t.Fatal("second run failed")
	}
	second, _ := os.ReadFile(path)
	if !bytes.Equal(first, second) {
		t.Error("the same command wrote a different page")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want only the page", len(entries))
	}
}

func TestExplainHTMLInvalidInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crashloop", "--html", filepath.Join(dir, "p.html"), "--max-steps", "0"}, "--max-steps 0: want 1 to 200000"},
		{[]string{"crashloop", "--html", filepath.Join(dir, "p.html"), "--max-steps", "200001"}, "--max-steps 200001: want 1 to 200000"},
		{[]string{"crashloop", "--html", filepath.Join(dir, "missing", "p.html")}, "--html: writing " + filepath.Join(dir, "missing", "p.html")},
		{[]string{"crashloop", "--html", filepath.Join(dir, "p.html"), "--pod", "nope"}, "--pod default/nope: the scenario has no such pod"},
		{[]string{"crashloop", "--max-steps", "100"}, "--max-steps bounds the page --html writes; give --html OUT.html too"},
	} {
		out, errOut, code := explainCLI(t, tc.args...)
		if code != 2 || !strings.HasPrefix(errOut, tc.want) || strings.Contains(errOut, "Run 'nodesim --help'") || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused command left %d files behind", len(entries))
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// captures are the fixture captures of a 30-pod node (built by importer's generator).
func captures() []string {
	dir := filepath.Join("..", "..", "importer", "testdata", "node30")
	return []string{"--pods", filepath.Join(dir, "pods.yaml"), "--configz", filepath.Join(dir, "configz.json"),
		"--summary", filepath.Join(dir, "summary.json"), "--node", filepath.Join(dir, "node.yaml")}
}

// nodesim import writes a scenario that validates and runs with exit 0: the 30 pods start
// and run for the 10 minutes with no eviction, OOM kill or rejection, as they did on the
// node.
func TestImportValidatesAndRuns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "node.yaml")
	_, errOut, code := nodesim(t, append([]string{"import", "-o", out}, captures()...)...)
	if code != 0 {
		t.Fatalf("import exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "wrote "+out+" (30 pods)") {
		t.Errorf("stderr does not say what was written:\n%s", errOut)
	}
	if _, errOut, code := nodesim(t, "validate", out); code != 0 {
		t.Fatalf("validate exit %d\n%s", code, errOut)
	}
	stdout, errOut, code := nodesim(t, "run", out, "-o", "json")
	if code != 0 {
		t.Fatalf("run exit %d\n%s", code, errOut)
	}
	var rep struct {
		Pods []struct {
			Phase string `json:"phase"`
		} `json:"pods"`
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Pods) != 30 {
		t.Errorf("%d pods in the report, want 30", len(rep.Pods))
	}
	for i, p := range rep.Pods {
		if p.Phase != "Running" {
			t.Errorf("pod %d is %s, want Running", i, p.Phase)
		}
	}
	for _, c := range []string{"evictions", "oomKills", "admissionRejections", "restarts"} {
		if rep.Counts[c] != 0 {
			t.Errorf("%s = %d, want 0", c, rep.Counts[c])
		}
	}
	// stdout by default gives the same bytes as -o.
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, code = nodesim(t, append([]string{"import"}, captures()...)...)
	if code != 0 || stdout != string(written) {
		t.Errorf("import to stdout (exit %d) differs from -o FILE", code)
	}
}

// Bad captures exit 2 with their position; -o leaves no file behind.
func TestImportInvalidInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := filepath.Join(dir, "out.yaml")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing", []string{"import"}, "nothing to import"},
		{"missing file", []string{"import", "--pods", filepath.Join(dir, "nope.yaml")}, "nope.yaml: no such file or directory"},
		{"directory", []string{"import", "--node", dir}, "is a directory"},
		{"binary", []string{"import", "--pods", write("b.yaml", "\x00\x01secret\xff")}, "b.yaml: not a YAML or JSON capture (binary content); its content is not shown"},
		{"device", []string{"import", "--summary", "/dev/zero"}, "/dev/zero: is a device, not a regular file"},
		{"syntax", []string{"import", "--summary", write("s.json", "{\"node\": {\n  \"nodeName\": \"a\",,\n}}\n")}, "s.json:2:"},
		{"wrong type", []string{"import", "--summary", write("t.json", "{\"node\": {\"nodeName\": \"a\", \"memory\": {\"workingSetBytes\": \"lots\"}}}\n")}, "t.json:1:"},
		{"not configz", []string{"import", "--configz", write("c.json", "{\"kubelet\": {}}\n")}, `c.json:1:1: expected the kubelet's /configz answer`},
		{"not a node", []string{"import", "--node", write("n.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n")}, "n.yaml:2:7: kind: expected a Node object"},
		{"deployment", []string{"import", "--pods", write("d.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n")}, `d.yaml:2:7: kind: expected Pod, PodList or List`},
		{"bad pod field", []string{"import", "--pods", write("p.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n  - name: a\n    image: b\n    imagePullPolcy: Always\n")},
			`p.yaml:8:5: spec.containers[0]: unknown field "imagePullPolcy"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := nodesim(t, append(tc.args, "-o", out)...)
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, errOut)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("an output file was written")
			}
			if strings.Contains(errOut, "secret") {
				t.Error("the error quotes the capture's content")
			}
		})
	}
}

// A status field from a newer API server is ignored with a warning, not refused.
func TestImportToleratesNewStatusFields(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.yaml")
	text := "apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: ns}\nspec:\n  containers:\n  - {name: a, image: b}\nstatus:\n  phase: Running\n  shinyNewField: 1\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, errOut, code := nodesim(t, "import", "--pods", p)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, `p.yaml:9:3: status: unknown field "shinyNewField"`) || !strings.Contains(stdout, "name: x") {
		t.Errorf("stderr:\n%s\nstdout:\n%s", errOut, stdout)
	}
}

// One capture may come from standard input, as from a pipe from kubectl; two may not. A
// capture over 16 MiB is refused before it is read.
func TestImportStdinAndSize(t *testing.T) {
	dir := t.TempDir()
	node := filepath.Join("..", "..", "importer", "testdata", "node30", "node.yaml")
	f, err := os.Open(node)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	stdout, errOut, code := nodesim(t, "import", "--node", "-")
	if code != 0 || !strings.Contains(stdout, "name: worker-7") || !strings.Contains(stdout, "node:    - (Node worker-7, kubelet v1.37.2)") {
		t.Errorf("exit %d\n%s\n%s", code, errOut, stdout)
	}
	if _, errOut, code := nodesim(t, "import", "--node", "-", "--pods", "-"); code != 2 || !strings.Contains(errOut, "only one capture can be read from standard input") {
		t.Errorf("two from stdin: exit %d\n%s", code, errOut)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 17<<20); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := nodesim(t, "import", "--summary", big); code != 2 || !strings.Contains(errOut, "big.json: larger than the 16 MiB limit") {
		t.Errorf("17 MiB capture: exit %d\n%s", code, errOut)
	}
}

// The README shows what import writes for the fixture node; its excerpts must be what
// nodesim writes today.
func TestREADMEImportExcerptsAreCurrent(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Skip("no README next to the module")
	}
	_, section, ok := strings.Cut(string(readme), "### What happens to my node?")
	if !ok {
		t.Fatal("README has no import walk-through")
	}
	section, _, _ = strings.Cut(section, "\n### ")
	out, _, code := nodesim(t, append([]string{"import"}, captures()...)...)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	blocks := strings.Split(section, "```yaml\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("no excerpt of an imported scenario in the walk-through")
	}
	for i, b := range blocks {
		excerpt, _, _ := strings.Cut(b, "```")
		if !strings.Contains(out, excerpt) {
			t.Errorf("README import excerpt %d is not what `nodesim import` writes for importer/testdata/node30 now; paste the new lines", i+1)
		}
	}
}

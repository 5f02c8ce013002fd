package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"nodesim/internal/strictyaml"
)

// library is the built-in scenario library: the YAML files beside this source.
//
//go:embed *.yaml kubectl-dump workloads
var library embed.FS

// Builtin is one shipped scenario.
type Builtin struct {
	Name        string
	File        string
	Description string
}

// Builtins lists the shipped scenarios by name.
func Builtins() ([]Builtin, error) {
	entries, err := fs.ReadDir(library, ".")
	if err != nil {
		return nil, err
	}
	var out []Builtin
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		l, err := LoadBuiltin(strings.TrimSuffix(e.Name(), ".yaml"))
		if err != nil {
			return nil, fmt.Errorf("built-in scenario %s: %w", e.Name(), err)
		}
		out = append(out, Builtin{Name: strings.TrimSuffix(e.Name(), ".yaml"), File: e.Name(), Description: strings.TrimSpace(l.Scenario.Metadata.Description)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// BuiltinNames lists the shipped scenarios' names, sorted, without loading them: cheap
// enough for shell completion and for suggesting a name.
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(library, ".")
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.Strings(names)
	return names
}

// unknownBuiltin is the error for a name that is not a shipped scenario, with the closest
// name when one is near enough to be a typo.
func unknownBuiltin(name string) error {
	if s := strictyaml.Suggest(name, BuiltinNames()); s != "" {
		return fmt.Errorf("no built-in scenario %q (did you mean %q?)", name, s)
	}
	return fmt.Errorf("no built-in scenario %q (nodesim scenarios lists them)", name)
}

// builtinFile reads a shipped scenario's YAML. Only the library's top-level names qualify:
// a name reaching into a subdirectory (kubectl-dump/pods) is no scenario.
func builtinFile(name string) ([]byte, error) {
	if strings.ContainsAny(name, "/\\") {
		return nil, unknownBuiltin(name)
	}
	data, err := library.ReadFile(name + ".yaml")
	if err != nil {
		return nil, unknownBuiltin(name)
	}
	return data, nil
}

// OpenBuiltin returns a shipped scenario's source by name (its file name without .yaml).
func OpenBuiltin(name string) (*Source, error) {
	file := name + ".yaml"
	data, err := builtinFile(name)
	if err != nil {
		return nil, err
	}
	read := func(n string) ([]byte, error) { return library.ReadFile(path.Clean(n)) }
	glob := func(p string) ([]string, error) { return fs.Glob(library, p) }
	return &Source{Name: name, Data: data, parse: func(d []byte) (*Loaded, error) {
		return Parse("scenarios/"+file, d, read, glob)
	}}, nil
}

// LoadBuiltin loads a shipped scenario by name (its file name without .yaml).
func LoadBuiltin(name string) (*Loaded, error) {
	src, err := OpenBuiltin(name)
	if err != nil {
		return nil, err
	}
	return src.Parse(src.Data)
}

// BuiltinSource returns a shipped scenario's YAML, byte for byte as shipped.
func BuiltinSource(name string) ([]byte, error) { return builtinFile(name) }

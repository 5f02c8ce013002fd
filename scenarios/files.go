package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// MaxFileSize is the most a scenario or a file it refers to may hold. Scenario files arrive
// in pull requests: a path to /dev/zero must fail at once, not fill memory.
const MaxFileSize = 16 << 20

// AllowOutsideFlag is the command-line flag that lets a scenario refer to files outside its
// own directory; errors that refuse such a path name it.
const AllowOutsideFlag = "--allow-outside-dir"

// FileOptions says where a scenario's referenced files may be.
type FileOptions struct {
	// AllowOutside lets kubeletConfigFile and podFiles name files outside the scenario's
	// directory (absolute paths, "..", symlinks that lead out).
	AllowOutside bool
}

// errNotShown marks errors about a referenced file's content: they never quote it.
var errNotShown = errors.New("not a Kubernetes manifest (no apiVersion and kind at its top level); its content is not shown")

// readRegular reads a regular file of at most MaxFileSize bytes. Devices, FIFOs, sockets and
// directories are refused before they are opened for reading, so nothing blocks or streams
// forever.
func readRegular(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if err := regular(st); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should the file have been swapped for a FIFO since the Stat, opening it
	// still returns at once, and the Fstat below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, unwrapPathError(err)
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, unwrapPathError(err)
	}
	if err := regular(st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, unwrapPathError(err)
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("larger than the %d MiB limit", MaxFileSize>>20)
	}
	return data, nil
}

func regular(st fs.FileInfo) error {
	switch m := st.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return errors.New("is a directory, not a file")
	case m&fs.ModeNamedPipe != 0:
		return errors.New("is a named pipe (FIFO), not a regular file")
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return errors.New("is a device, not a regular file")
	default:
		return errors.New("is not a regular file")
	}
}

// ReadLimited reads a scenario from r (standard input, say) with the same size limit.
func ReadLimited(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("larger than the %d MiB limit", MaxFileSize>>20)
	}
	return data, nil
}

// confined resolves name, a path a scenario in dir refers to, and refuses it unless it stays
// inside dir once symlinks are followed (or opts allow more).
func confined(dir, name string, opts FileOptions) (string, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, name)
	}
	if opts.AllowOutside {
		return path, nil
	}
	outside := fmt.Errorf("is outside the scenario's directory (%s allows it)", AllowOutsideFlag)
	if filepath.IsAbs(name) {
		return "", outside
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", unwrapPathError(err)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		// A missing file inside the directory is reported as missing; one outside it as
		// outside.
		if !inside(realDir, filepath.Join(realDir, name)) {
			return "", outside
		}
		return "", unwrapPathError(err)
	}
	if !inside(realDir, real) {
		return "", outside
	}
	return real, nil
}

func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// manifestShaped refuses a referenced file that is not a Kubernetes object: text whose every
// YAML document is a mapping with apiVersion and kind. A path that names a secret or a system
// file by mistake (or on purpose) gets an error that says what the file is not, never what
// it holds.
func manifestShaped(data []byte) error {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return errNotShown
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	docs := 0
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return errNotShown
		}
		if len(n.Content) == 0 {
			continue
		}
		root := n.Content[0]
		if root.Kind != yaml.MappingNode || !hasKey(root, "apiVersion") || !hasKey(root, "kind") {
			return errNotShown
		}
		docs++
	}
	if docs == 0 {
		return errNotShown
	}
	return nil
}

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

// fileReader returns the ReadFile and glob a scenario in dir uses for its referenced files.
func fileReader(dir string, opts FileOptions) (ReadFile, func(string) ([]string, error)) {
	read := func(name string) ([]byte, error) {
		path, err := confined(dir, name, opts)
		if err != nil {
			return nil, err
		}
		data, err := readRegular(path)
		if err != nil {
			return nil, err
		}
		if err := manifestShaped(data); err != nil {
			return nil, err
		}
		return data, nil
	}
	glob := func(pattern string) ([]string, error) {
		if !opts.AllowOutside && (filepath.IsAbs(pattern) || !inside(dir, filepath.Join(dir, pattern))) {
			return nil, fmt.Errorf("is outside the scenario's directory (%s allows it)", AllowOutsideFlag)
		}
		full := pattern
		if !filepath.IsAbs(full) {
			full = filepath.Join(dir, pattern)
		}
		m, err := filepath.Glob(full)
		if err != nil {
			return nil, err
		}
		for i := range m {
			if r, err := filepath.Rel(dir, m[i]); err == nil && !filepath.IsAbs(pattern) {
				m[i] = r
			}
		}
		return m, nil
	}
	return read, glob
}

// errNotScenario refuses a scenario argument that is no scenario at all (a secret, a binary),
// without quoting a byte of it.
var errNotScenario = errors.New("not a nodesim scenario (its top level is not a YAML mapping); its content is not shown")

// scenarioShaped checks that data can be a scenario before any error could quote it: UTF-8
// text without NUL whose first YAML document, if it parses, is a mapping. A syntax error is
// left to the parser, whose messages name positions, not content.
func scenarioShaped(data []byte) error {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return errNotScenario
	}
	var n yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&n); err != nil {
		return nil
	}
	if len(n.Content) > 0 && n.Content[0].Kind != yaml.MappingNode {
		return errNotScenario
	}
	return nil
}

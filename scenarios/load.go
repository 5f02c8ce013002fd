// Package scenarios loads and validates nodesim scenario files and holds the library of
// built-in scenarios.
//
// Loading is strict: every unknown field, wrong type, bad quantity or duration, missing
// required field, duplicate pod, dangling reference and out-of-range value is reported with
// its file, line and column, and all of a file's problems are reported at once.
package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/strictyaml"
	"nodesim/internal/upstream"
)

// Loaded is a validated scenario, ready to run.
type Loaded struct {
	// File is the path the scenario was read from (or its built-in name).
	File string
	// Hash identifies the run's inputs (sha256, hex), for reproduce lines: the scenario's
	// bytes alone, or with every file it refers to.
	Hash     string
	Scenario *api.Scenario
	// Kubelet is the kubelet configuration with upstream's defaults filled in.
	Kubelet *kubeletconfigv1beta1.KubeletConfiguration
	// NotModelled lists the KubeletConfiguration fields the scenario sets that the simulation
	// does not read.
	NotModelled []string
	// Gates are the run's feature gates: the v1.37 kubelet's registry with the config's
	// featureGates applied as the kubelet applies them.
	Gates *upstream.KubeletGates
	// Warnings are what the v1.37 kubelet would warn about in this configuration (a
	// deprecated or GA feature gate set, a field it does not know), as it starts anyway.
	Warnings []string
	// Pods are the pods the scenario brings, replicas expanded and defaults applied, in the
	// order they are delivered.
	Pods []Pod
}

// Pod is one pod the scenario brings to the node.
type Pod struct {
	At       time.Duration
	Source   string
	Pod      *corev1.Pod
	Behavior map[string]api.Behavior
}

// Key is the pod's namespace/name.
func (p Pod) Key() string { return p.Pod.Namespace + "/" + p.Pod.Name }

// ReadFile reads a file a scenario refers to (a kubelet config file, pod manifests),
// relative to the scenario's own directory.
type ReadFile func(name string) ([]byte, error)

// Source is a scenario's text and where the files it refers to are found, so that variants
// of it (a sweep's) can be parsed as the original would be.
type Source struct {
	// Name is the file's path, or the built-in scenario's name.
	Name  string
	Data  []byte
	parse func(data []byte) (*Loaded, error)
}

// Parse validates data as a scenario from this source.
func (s *Source) Parse(data []byte) (*Loaded, error) { return s.parse(data) }

// OpenFile reads the scenario at path; its referenced files must stay in its directory.
func OpenFile(path string) (*Source, error) { return OpenFileWith(path, FileOptions{}) }

// OpenFileWith reads the scenario at path, its referenced files resolved as opts allow. The
// path must name a regular file of at most MaxFileSize bytes; "-" reads standard input, whose
// referenced files are resolved from the current directory.
func OpenFileWith(path string, opts FileOptions) (*Source, error) {
	var data []byte
	var err error
	dir := filepath.Dir(path)
	if path == "-" {
		data, err = ReadLimited(os.Stdin)
		dir = "."
	} else {
		data, err = readRegular(path)
	}
	if err == nil {
		err = scenarioShaped(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Source{Name: path, Data: data, parse: func(d []byte) (*Loaded, error) {
		read, glob := fileReader(dir, opts)
		return Parse(path, d, read, glob)
	}}, nil
}

// LoadFile reads and validates the scenario at path.
func LoadFile(path string) (*Loaded, error) {
	src, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	return src.Parse(src.Data)
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Parse validates a scenario given as bytes. read and glob resolve the files it refers to;
// either may be nil when the scenario refers to none.
func Parse(file string, data []byte, read ReadFile, glob func(string) ([]string, error)) (*Loaded, error) {
	root, err := strictyaml.ParseDocument(file, data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	// The reproduce line's hash covers every input: the scenario's bytes and then each file
	// it read, in the order read (the same for every run of the same scenario).
	inputs := sha256.New()
	inputs.Write(sum[:])
	referenced := 0
	if read != nil {
		inner := read
		read = func(name string) ([]byte, error) {
			b, err := inner(name)
			if err == nil {
				h := sha256.Sum256(b)
				fmt.Fprintf(inputs, "%s\x00%x\n", name, h)
				referenced++
			}
			return b, err
		}
	}
	l := &loader{
		d:    newDecoder(file),
		root: root,
		read: read,
		glob: glob,
		out:  &Loaded{File: file, Hash: hex.EncodeToString(sum[:])},
	}
	l.load()
	if referenced > 0 {
		l.out.Hash = hex.EncodeToString(inputs.Sum(nil))
	}
	var all strictyaml.ErrorList
	all = append(all, l.d.Errors...)
	all = append(all, l.extra...)
	if len(all) > 0 {
		all.Sort()
		return nil, all
	}
	return l.out, nil
}

type loader struct {
	d     *strictyaml.Decoder
	root  *yaml.Node
	read  ReadFile
	glob  func(string) ([]string, error)
	out   *Loaded
	extra strictyaml.ErrorList // errors found in other files
	sc    api.Scenario

	// kubeletFile is the decoder of spec.kubeletConfigFile (nil without one): it knows where
	// each of the file's values is written, for errors found after decoding.
	kubeletFile     *strictyaml.Decoder
	kubeletFileRoot *yaml.Node

	pods    map[string]*Pod           // by namespace/name
	classes *upstream.PriorityClasses // built on first use by priorityClasses
	// defaultGates are the v1.37 default gates, for validating pods when the config's own
	// could not be set.
	defaultGates *upstream.KubeletGates
	// workloadPods are the pods made from inline workloads, by namespace/name.
	workloadPods map[string]bool
}

func (l *loader) load() {
	l.d.Decode(l.root, "", &l.sc)
	l.out.Scenario = &l.sc
	l.checkTop()
	l.loadKubelet()
	l.checkNode()
	l.checkRuntime()
	l.loadPods()
	l.checkEvents()
	l.checkExpectations()
	l.checkBounds()
}

// node returns the value node at a path of mapping keys from the root, or nil.
func (l *loader) node(keys ...string) *yaml.Node {
	return lookup(l.root, keys...)
}

func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1] // the first, as the decoder takes it
				break
			}
		}
		n = next
	}
	return n
}

// item returns the i-th element of the sequence at keys, or nil.
func (l *loader) item(i int, keys ...string) *yaml.Node {
	n := l.node(keys...)
	if n == nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
		return nil
	}
	return n.Content[i]
}

func indexPath(parent string, i int) string { return strictyaml.Index(parent, i) }

// failed reports whether decoding already found a problem at path.
func (l *loader) failed(path string) bool {
	for _, e := range l.d.Errors {
		if e.Path == path {
			return true
		}
	}
	return false
}

// required reports a missing field at its parent's position.
func (l *loader) required(parentPath, field, hint string) {
	l.d.ErrorAt(parentPath, "missing required field %q%s", field, hint)
}

func (l *loader) checkTop() {
	sc := &l.sc
	switch {
	case l.node("apiVersion") == nil:
		l.required("", "apiVersion", " (apiVersion: "+api.APIVersion+")")
	case sc.APIVersion != api.APIVersion:
		l.d.ErrorAt("apiVersion", "apiVersion %q is not supported (want %q)", sc.APIVersion, api.APIVersion)
	}
	switch {
	case l.node("kind") == nil:
		l.required("", "kind", " (kind: "+api.Kind+")")
	case sc.Kind != api.Kind:
		l.d.ErrorAt("kind", "kind %q is not supported (want %q)", sc.Kind, api.Kind)
	}
	switch {
	case l.node("metadata") == nil:
		l.required("", "metadata", " (metadata: {name: ...})")
	case l.node("metadata", "name") == nil:
		l.required("metadata", "name", "")
	default:
		if msgs := isDNSLabel(sc.Metadata.Name); msgs != "" {
			l.d.ErrorAt("metadata.name", "invalid name %q: %s", sc.Metadata.Name, msgs)
		}
	}
	if l.node("spec") == nil {
		l.required("", "spec", "")
		return
	}
	if l.node("spec", "duration") == nil {
		l.required("spec", "duration", " (how much simulated time to run, e.g. 20m)")
	} else if l.failed("spec.duration") {
		// already reported
	} else if sc.Spec.Duration.Duration <= 0 {
		l.d.ErrorAt("spec.duration", "duration must be positive")
	} else if sc.Spec.Duration.Duration > 30*24*time.Hour {
		l.d.ErrorAt("spec.duration", "duration %s is longer than the 30-day limit", sc.Spec.Duration.Duration)
	}
	if sc.Spec.Seed != nil && *sc.Spec.Seed < 0 {
		l.d.ErrorAt("spec.seed", "seed must not be negative")
	}
	switch sc.Spec.StopWhen {
	case "", api.StopNever, api.StopAllPodsTerminal:
	default:
		l.oneOf("spec.stopWhen", sc.Spec.StopWhen, api.StopNever, api.StopAllPodsTerminal)
	}
}

// oneOf reports a value that is not among the allowed ones, with a suggestion.
func (l *loader) oneOf(path, got string, allowed ...string) {
	msg := fmt.Sprintf("%q is not one of %v", got, allowed)
	if s := strictyaml.Suggest(got, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	l.d.ErrorAt(path, "%s", msg)
}

// Seed is the scenario's seed (1 when unset).
func (l *Loaded) Seed() uint64 {
	if s := l.Scenario.Spec.Seed; s != nil {
		return uint64(*s)
	}
	return 1
}

// sortedKeys returns a map's keys in order.
func sortedKeys[K ~string, V any](m map[K]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	return keys
}

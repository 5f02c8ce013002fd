// Package importer turns what a user can capture from a live node into a scenario that
// simulates that node as it was when captured: the pods bound to it as the API server
// returns them (`kubectl get pods -A --field-selector spec.nodeName=N -o yaml`), the
// kubelet's running configuration (`/configz`), the kubelet's stats summary
// (`/stats/summary`) and the Node object (`kubectl get node N -o yaml`).
//
// Each capture is optional: what is missing takes the scenario format's defaults. Every
// number the scenario gets from a capture says so in a comment beside it, with the time the
// kubelet measured it, so that a reader can tell observed values from defaults. The result
// is checked by the scenario loader before it is returned: an import never hands back a
// scenario that `nodesim run` would refuse.
package importer

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"

	"nodesim/internal/strictyaml"
	"nodesim/scenarios"
)

// Input is one captured file: the name errors refer to, and its bytes.
type Input struct {
	Name string
	Data []byte
}

// Inputs are the captures of one node. Any of them may be nil.
type Inputs struct {
	Pods    *Input // a PodList, List, or Pod documents (YAML or JSON)
	Configz *Input // the kubelet's /configz: {"kubeletconfig": {...}}
	Summary *Input // the kubelet's /stats/summary (stats/v1alpha1 Summary)
	Node    *Input // the Node object
}

// Result is an imported scenario.
type Result struct {
	// Scenario is the scenario's YAML text, comments included.
	Scenario []byte
	// Warnings are what the import left out or could not match, one sentence each.
	Warnings []string
	// Pods is how many pods the scenario brings.
	Pods int
}

// DefaultDuration is how long the imported scenario runs: long enough for several eviction
// passes, stats rounds and a full crash-loop back-off, short enough to run in a moment.
// `--set spec.duration=...` changes it per run.
const DefaultDuration = "10m"

// ErrNoInput is returned when no capture was given at all.
var ErrNoInput = errors.New("nothing to import: give at least one of --pods, --configz, --summary and --node")

// importer holds one import's captures as decoded, what it found wrong, and what it
// warns about.
type importer struct {
	errs     strictyaml.ErrorList
	warnings []string

	node      *corev1.Node
	nodeFile  string
	pods      []capturedPod
	podsFile  string
	summary   *statsv1alpha1.Summary
	statsFile string
	kubelet   *configz
	imported  int // pods in the scenario
}

// capturedPod is one pod of the pods capture, with where it was written.
type capturedPod struct {
	pod *corev1.Pod
	at  string // file:line of the pod, for comments and warnings
}

// configz is the decoded kubelet configuration and its fields in capture order.
type configz struct {
	file   string
	cfg    *kubeletconfigv1beta1.KubeletConfiguration
	fields []configField
}

// configField is one top-level field of the captured configuration, as written.
type configField struct {
	name  string
	value *yaml.Node
}

func (im *importer) warn(format string, args ...any) {
	im.warnings = append(im.warnings, fmt.Sprintf(format, args...))
}

// Import builds a scenario from the captures in. Errors in a capture are positioned
// (strictyaml.ErrorList: file:line:column: field.path: message); an error in the built
// scenario (a captured value out of the loader's range, say) is returned the same way,
// positioned in the scenario text.
func Import(in Inputs) (*Result, error) {
	if in.Pods == nil && in.Configz == nil && in.Summary == nil && in.Node == nil {
		return nil, ErrNoInput
	}
	im := &importer{}
	if in.Node != nil {
		im.readNode(in.Node)
	}
	if in.Configz != nil {
		im.readConfigz(in.Configz)
	}
	if in.Summary != nil {
		im.readSummary(in.Summary)
	}
	if in.Pods != nil {
		im.readPods(in.Pods)
	}
	if len(im.errs) > 0 {
		im.errs.Sort()
		return nil, im.errs
	}
	doc := im.build()
	out, l, err := render(doc)
	if err != nil {
		return nil, err
	}
	// The allocatable the simulation derives needs the kubelet configuration with its
	// defaults, which the loader fills: say it beside the capacity, then write again.
	if note := im.compareAllocatable(l.Kubelet); note != "" {
		if k := keyNode(lookup(lookup(doc.Content[0], "spec"), "node"), "capacity"); k != nil {
			k.HeadComment += "\n" + comment(note)
			if out, _, err = render(doc); err != nil {
				return nil, err
			}
		}
	}
	sort.Strings(im.warnings)
	return &Result{Scenario: out, Warnings: im.warnings, Pods: im.imported}, nil
}

// render writes the scenario and loads it as `nodesim run` would.
func render(doc *yaml.Node) ([]byte, *scenarios.Loaded, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, nil, fmt.Errorf("writing the scenario: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, nil, fmt.Errorf("writing the scenario: %w", err)
	}
	l, err := scenarios.Parse(ScenarioName, buf.Bytes(), nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("the imported scenario does not validate (a captured value out of nodesim's range?):\n%w", err)
	}
	return buf.Bytes(), l, nil
}

// ScenarioName is what errors about the built scenario call it.
const ScenarioName = "imported scenario"

// decode decodes root into out, positioned in file. An unknown field under a path that
// lenient accepts is a warning (a capture from a newer kubelet or API server carries fields
// v1.37 does not know; the import drops them); every other problem is an error.
func (im *importer) decode(file string, root *yaml.Node, path string, out any, lenient func(path string) bool) *strictyaml.Decoder {
	d := strictyaml.NewDecoder(file)
	d.Decode(root, path, out)
	for _, e := range d.Errors {
		if strings.HasPrefix(e.Msg, "unknown field ") && lenient != nil && lenient(e.Path) {
			im.warn("%s: ignored (v1.37 has no such field)", e.Error())
			continue
		}
		im.errs = append(im.errs, e)
	}
	return d
}

// textual refuses a capture that is not text (a binary, a file named by mistake) before
// any error could quote it.
func (im *importer) textual(in *Input) bool {
	if !utf8.Valid(in.Data) || bytes.IndexByte(in.Data, 0) >= 0 {
		im.errs = append(im.errs, &strictyaml.Error{Pos: strictyaml.Pos{File: in.Name}, Msg: "not a YAML or JSON capture (binary content); its content is not shown"})
		return false
	}
	return true
}

// parse parses in as one YAML or JSON document, recording a syntax error.
func (im *importer) parse(in *Input) *yaml.Node {
	if !im.textual(in) {
		return nil
	}
	root, err := strictyaml.ParseDocument(in.Name, in.Data)
	if err != nil {
		im.fail(err)
		return nil
	}
	return root
}

func (im *importer) fail(err error) {
	var list strictyaml.ErrorList
	var one *strictyaml.Error
	switch {
	case errors.As(err, &list):
		im.errs = append(im.errs, list...)
	case errors.As(err, &one):
		im.errs = append(im.errs, one)
	default:
		im.errs = append(im.errs, &strictyaml.Error{Msg: err.Error()})
	}
}

// errorAt records an error at a node of file.
func (im *importer) errorAt(file string, n *yaml.Node, path, format string, args ...any) {
	pos := strictyaml.Pos{File: file}
	if n != nil {
		pos.Line, pos.Column = n.Line, n.Column
	}
	im.errs = append(im.errs, &strictyaml.Error{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// lookup finds key in mapping n.
func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// underStatus says whether a field path lies in an object's status (or in the status of a
// list's item): the part the import drops, where fields of a newer API server are harmless.
func underStatus(path string) bool {
	if strings.HasPrefix(path, "status") {
		return true
	}
	if strings.HasPrefix(path, "items[") {
		if i := strings.Index(path, "]."); i >= 0 {
			return strings.HasPrefix(path[i+2:], "status")
		}
	}
	return false
}

// Package schema makes the JSON Schema of scenario files (scenario.schema.json, beside this
// file) from the Go types the loader decodes them into, so that an editor with
// yaml-language-server completes and checks a scenario as it is typed. The schema is
// generated, never edited: `go generate ./schema` rewrites it, and a test fails when the
// committed file is not what the types give.
//
// The whole document is reflected, the embedded v1.Pod, PriorityClass and
// KubeletConfiguration included, field by field from their JSON names. What reflection cannot
// see is added from the loader's own lists (required fields, the values an enumerated field
// takes); the loader stays the judge: the schema helps an editor, `nodesim validate` decides.
package schema

//go:generate go run ./gen ../api/v1alpha1 scenario.schema.json

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	api "nodesim/api/v1alpha1"
	"nodesim/scenarios"
)

// Scenario returns scenario.schema.json: indented JSON with sorted keys, so the same types
// always give the same bytes. apiDir is the source of package v1alpha1, whose doc comments
// become the descriptions an editor shows on hover.
func Scenario(apiDir string) ([]byte, error) {
	docs, err := readDocs(apiDir)
	if err != nil {
		return nil, err
	}
	g := &generator{defs: map[string]any{}, names: map[reflect.Type]string{}, docs: docs}
	root := g.schemaOf(reflect.TypeOf(api.Scenario{}))
	doc := map[string]any{
		"$schema":     "http://json-schema.org/draft-07/schema#",
		"title":       "nodesim scenario (" + api.APIVersion + ")",
		"description": "A nodesim scenario: a node, its kubelet configuration, the pods that reach it, what their processes do, outside events and the expectations. `nodesim validate` is the judge; this schema helps editors.",
		// Draft 7 ignores what sits beside a $ref, so the root refers through allOf.
		"allOf":       []any{root},
		"definitions": g.defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the scenario schema: %w", err)
	}
	return b.Bytes(), nil
}

// generator reflects types into schemas, each named struct type once, in definitions.
type generator struct {
	defs  map[string]any
	names map[reflect.Type]string
	// docs are the doc comments of package v1alpha1: by type name, and by type name, a dot
	// and a field's JSON name.
	docs map[string]string
}

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	intOrString  = reflect.TypeOf(intstr.IntOrString{})
	timeType     = reflect.TypeOf(metav1.Time{})
	microTime    = reflect.TypeOf(metav1.MicroTime{})
	metaDuration = reflect.TypeOf(metav1.Duration{})
	apiDuration  = reflect.TypeOf(api.Duration{})
	windowType   = reflect.TypeOf(api.Window{})
	programType  = reflect.TypeOf(api.Program{})
	percentType  = reflect.TypeOf(api.Percent(0))
)

// durationPattern is a Go duration as time.ParseDuration reads it, not negative: "0", "500ms",
// "1h30m", "1.5s".
const durationPattern = `^\s*(0|([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*)\s*$`

// quantityPattern is a resource.Quantity as Kubernetes manifests write it: "100Mi", "0.5",
// "250m", "1e3".
const quantityPattern = `^\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?\s*$`

// special are the types whose YAML form is not their Go structure.
func (g *generator) special(t reflect.Type) (map[string]any, bool) {
	switch t {
	case quantityType:
		return map[string]any{"anyOf": []any{
			map[string]any{"type": "string", "pattern": quantityPattern},
			map[string]any{"type": "number"},
		}, "description": "a quantity as in manifests: 100Mi, 2Gi, 500m, 4"}, true
	case intOrString:
		return map[string]any{"type": []any{"integer", "string"}}, true
	case timeType, microTime:
		return map[string]any{"type": []any{"string", "null"}}, true
	case metaDuration:
		return map[string]any{"type": "string", "pattern": durationPattern, "description": "a Go duration: 500ms, 90s, 5m, 1h30m"}, true
	case apiDuration:
		return map[string]any{"anyOf": []any{
			map[string]any{"type": "string", "pattern": durationPattern},
			map[string]any{"const": 0},
		}, "description": "a Go duration: 500ms, 90s, 5m, 1h30m (0 alone may go without a unit)"}, true
	case windowType:
		d, _ := g.special(apiDuration)
		return map[string]any{"type": "array", "items": d, "minItems": 2, "maxItems": 2,
			"description": "a window [from, to] of durations since the scenario started, e.g. [0s, 10m]"}, true
	case programType:
		return map[string]any{"anyOf": []any{
			map[string]any{"type": "array", "items": g.schemaOf(reflect.TypeOf(api.Step{}))},
			g.mustSpecial(quantityType),
		}, "description": "a usage program: steps such as [{set: 100Mi}, {at: 1m, rampTo: 1Gi, over: 5m}], or a quantity"}, true
	case percentType:
		return map[string]any{"type": "string", "pattern": `^\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)%\s*$`, "description": "a percentage such as 5%"}, true
	}
	return nil, false
}

func (g *generator) mustSpecial(t reflect.Type) map[string]any {
	s, _ := g.special(t)
	return s
}

var jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// schemaOf is the schema of a value of type t.
func (g *generator) schemaOf(t reflect.Type) map[string]any {
	if s, ok := g.special(t); ok {
		return s
	}
	if t.Kind() != reflect.Pointer && (t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler)) {
		// A type that reads its own JSON (resource.QuantityValue, ...): its Go fields say
		// nothing of its form, so the schema lets anything through and the loader judges.
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(g.schemaOf(t.Elem()))
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		bits := t.Bits()
		return map[string]any{"type": "integer", "minimum": -(int64(1) << (bits - 1)), "maximum": int64(1)<<(bits-1) - 1}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		s := map[string]any{"type": "integer", "minimum": 0}
		if t.Bits() < 64 {
			s["maximum"] = uint64(1)<<t.Bits() - 1
		}
		return s
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "description": "bytes, base64-encoded"}
		}
		return nullable(map[string]any{"type": "array", "items": g.schemaOf(t.Elem())})
	case reflect.Map:
		return nullable(map[string]any{"type": "object", "additionalProperties": g.schemaOf(t.Elem())})
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		return g.structRef(t)
	}
	return map[string]any{}
}

// nullable lets a YAML key without a value (null) stand for an absent pointer, list or map,
// as the loader reads it.
func nullable(s map[string]any) map[string]any {
	if ref, ok := s["$ref"]; ok {
		return map[string]any{"anyOf": []any{map[string]any{"$ref": ref}, map[string]any{"type": "null"}}}
	}
	if ty, ok := s["type"].(string); ok {
		out := map[string]any{}
		for k, v := range s {
			out[k] = v
		}
		out["type"] = []any{ty, "null"}
		return out
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

// structRef defines a named struct type once and refers to it.
func (g *generator) structRef(t reflect.Type) map[string]any {
	if t.Name() == "" {
		return g.structSchema(t)
	}
	name, ok := g.names[t]
	if !ok {
		name = g.defName(t)
		g.names[t] = name
		g.defs[name] = map[string]any{} // placeholder: a type that contains itself refers to it
		g.defs[name] = g.structSchema(t)
	}
	return map[string]any{"$ref": "#/definitions/" + name}
}

// defName names a definition by the last two elements of its package path and its type
// (core.v1.PodSpec, meta.v1.ObjectMeta, api.v1alpha1.Spec), with more of the path where two
// packages would share a name.
func (g *generator) defName(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	for n := min(2, len(parts)); n <= len(parts); n++ {
		name := strings.Join(parts[len(parts)-n:], ".") + "." + t.Name()
		if _, taken := g.defs[name]; !taken {
			return name
		}
	}
	return t.PkgPath() + "." + t.Name()
}

// structSchema lists a struct's fields by their JSON names, embedded inline structs'
// fields in place; a field not listed is refused, as the loader refuses unknown fields.
func (g *generator) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	g.addFields(t, props)
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	key := t.PkgPath() + "." + t.Name()
	if t.PkgPath() == reflect.TypeOf(api.Scenario{}).PkgPath() {
		if d := g.docs[t.Name()]; d != "" {
			s["description"] = d
		}
		for name, p := range props {
			if d := g.docs[t.Name()+"."+name]; d != "" {
				props[name] = describe(p.(map[string]any), d)
			}
		}
	}
	if h, ok := hints[key]; ok {
		if len(h.required) > 0 {
			s["required"] = h.required
		}
		for field, values := range h.enum {
			p, ok := props[field].(map[string]any)
			if !ok {
				panic(fmt.Sprintf("schema hint for %s names no field %q", key, field))
			}
			p["enum"] = values
		}
		if h.exactlyOne {
			s["minProperties"], s["maxProperties"] = 1, 1
		}
		if len(h.oneOf) > 0 {
			// Exactly one of these keys is given (a pod entry's pod or one workload).
			var alts []any
			for _, k := range h.oneOf {
				alts = append(alts, map[string]any{"required": []string{k}})
			}
			s["oneOf"] = alts
		}
		if h.description != "" {
			s["description"] = h.description
		}
	}
	if len(props) == 0 {
		// A type whose JSON form is its own (a struct without exported fields): anything.
		return map[string]any{}
	}
	return s
}

func (g *generator) addFields(t reflect.Type, props map[string]any) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" && (opts == "inline" || strings.Contains(","+opts+",", ",inline,") || tag == "") {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.addFields(ft, props)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.schemaOf(ft)
	}
}

// hint is what reflection cannot see of a type: which fields the loader requires and the
// values it accepts for an enumerated field.
type hint struct {
	required    []string
	enum        map[string][]any
	exactlyOne  bool
	oneOf       []string
	description string
}

func strs(values ...string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

const apiPkg = "nodesim/api/v1alpha1."

// hints are keyed by package path and type name. Each list is the loader's own (the
// constants of package v1alpha1 and the lists package scenarios checks against).
var hints = map[string]hint{
	apiPkg + "Scenario": {required: []string{"apiVersion", "kind", "metadata", "spec"},
		enum: map[string][]any{"apiVersion": strs(api.APIVersion), "kind": strs(api.Kind)}},
	apiPkg + "Metadata": {required: []string{"name"}},
	apiPkg + "Spec": {required: []string{"duration"},
		enum: map[string][]any{"stopWhen": strs(api.StopNever, api.StopAllPodsTerminal)}},
	apiPkg + "Node": {enum: map[string][]any{"cgroupVersion": strs(api.CgroupV1, api.CgroupV2),
		"imageFs": strs(api.ImageFsShared, api.ImageFsSeparate)}},
	apiPkg + "Image":                   {required: []string{"name"}},
	apiPkg + "Failure":                 {required: []string{"call", "error"}, enum: map[string][]any{"call": strs(scenarios.CRICalls()...)}},
	apiPkg + "PodEntry":                {oneOf: []string{"pod", "deployment", "replicaSet", "statefulSet", "daemonSet", "job", "cronJob"}, enum: map[string][]any{"source": strs(api.SourceAPI, api.SourceFile)}},
	apiPkg + "Event":                   {required: []string{"at"}},
	apiPkg + "SetUsage":                {required: []string{"pod", "container"}},
	apiPkg + "ProbeStep":               {enum: map[string][]any{"result": strs(api.ProbeSuccess, api.ProbeFailure)}},
	apiPkg + "Expectation":             {exactlyOne: true, description: "one assertion, checked at the end of the run: exactly one key"},
	apiPkg + "ExpectEvicted":           {required: []string{"pods"}, enum: map[string][]any{"order": strs("strict", "any")}},
	apiPkg + "ExpectContainerCount":    {required: []string{"pod"}},
	apiPkg + "ExpectPhase":             {required: []string{"pod", "is"}, enum: map[string][]any{"is": strs("Pending", "Running", "Succeeded", "Failed")}},
	apiPkg + "ExpectAdmissionRejected": {required: []string{"pods"}},
	apiPkg + "ExpectNodeCondition": {required: []string{"type", "status"}, enum: map[string][]any{
		"type": strs("Ready", "MemoryPressure", "DiskPressure", "PIDPressure"), "status": strs("True", "False")}},
	apiPkg + "ExpectLatency": {required: []string{"metric", "percentile", "max"}, enum: map[string][]any{"metric": strs(scenarios.LatencyMetrics()...)}},
	apiPkg + "ExpectCount":   {required: []string{"metric"}, enum: map[string][]any{"metric": strs(scenarios.CountMetrics()...)}},
}

// describe adds a description to a property's schema; one that is only a $ref is wrapped,
// since draft 7 ignores what sits beside a $ref.
func describe(s map[string]any, d string) map[string]any {
	out := map[string]any{}
	if _, ok := s["$ref"]; ok {
		out["allOf"] = []any{s}
	} else {
		for k, v := range s {
			out[k] = v
		}
	}
	out["description"] = d
	return out
}

// readDocs collects the doc comments of the Go files in dir (tests left out): each type's,
// and each struct field's (the comment above it, else the one after it on its line) under
// Type.jsonName.
func readDocs(dir string) (map[string]string, error) {
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(matches) == 0 {
		return nil, fmt.Errorf("reading the scenario types' source in %s: no Go files (%v)", dir, err)
	}
	docs := map[string]string{}
	for _, path := range matches {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("reading the scenario types' source: %w", err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if d := oneLine(doc); d != "" {
					docs[ts.Name.Name] = d
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, field := range st.Fields.List {
					d := oneLine(field.Doc)
					if d == "" {
						d = oneLine(field.Comment)
					}
					if d == "" || field.Tag == nil {
						continue
					}
					tag, _ := strconv.Unquote(field.Tag.Value)
					name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
					if name != "" && name != "-" {
						docs[ts.Name.Name+"."+name] = d
					}
				}
			}
		}
	}
	return docs, nil
}

// oneLine joins a comment's lines into one paragraph.
func oneLine(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}

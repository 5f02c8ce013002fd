package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// The committed scenario.schema.json is what the Go types give today.
func TestCommittedSchemaIsCurrent(t *testing.T) {
	want, err := Scenario(filepath.Join("..", "api", "v1alpha1"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("scenario.schema.json is out of date with the scenario types: run go generate ./schema")
	}
}

// compile compiles the committed schema as a draft-07 validator reads it.
func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	if err := c.AddResource("scenario.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validateYAML checks one YAML document against the schema, as yaml-language-server does.
func validateYAML(s *jsonschema.Schema, src []byte) error {
	j, err := yaml.YAMLToJSON(src)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// Every shipped scenario is valid against the schema.
func TestShippedScenariosValidate(t *testing.T) {
	s := compile(t)
	files, err := filepath.Glob(filepath.Join("..", "scenarios", "*.yaml"))
	if err != nil || len(files) < 40 {
		t.Fatalf("found %d shipped scenarios (%v)", len(files), err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateYAML(s, src); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}

// What the loader refuses, the schema flags too, where a schema can tell: an unknown field
// (in the scenario, in the pod, in the kubelet configuration), a value outside an enumerated
// field's list, a malformed duration or quantity, a missing required field, an expectation
// with two keys.
func TestSchemaRefusesMistakes(t *testing.T) {
	s := compile(t)
	const base = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: x}
spec:
  duration: 20m
  node: {capacity: {memory: 4Gi}}
  kubelet: {evictionHard: {memory.available: 100Mi}, maxPods: 50}
  pods:
    - pod:
        metadata: {name: web}
        spec: {containers: [{name: app, image: "nginx:1.27", resources: {requests: {memory: 200Mi}}}]}
      behavior:
        app: {memory: [{set: 100Mi}, {at: 1m, rampTo: 600Mi, over: 5m, noise: 5%}], pids: 20}
  expect:
    - count: {metric: evictions, max: 0}
    - nodeCondition: {type: MemoryPressure, status: "True", firstWithin: [1m, 2m]}
`
	if err := validateYAML(s, []byte(base)); err != nil {
		t.Fatalf("the base scenario is valid: %v", err)
	}
	for _, c := range []struct{ name, from, to string }{
		{"unknown spec field", "  duration: 20m\n", "  duration: 20m\n  durration: 5m\n"},
		{"kubelet typo", "evictionHard:", "evictonHard:"},
		{"pod spec typo", "containers:", "container:"},
		{"stopWhen value", "  duration: 20m\n", "  duration: 20m\n  stopWhen: sometimes\n"},
		{"duration without a unit", "duration: 20m", "duration: 20"},
		{"duration word", "duration: 20m", "duration: soon"},
		{"quantity", "memory: 4Gi", "memory: 4GB"},
		{"count metric", "metric: evictions", "metric: evicitons"},
		{"condition status", `status: "True"`, `status: "Yes"`},
		{"window of one", "firstWithin: [1m, 2m]", "firstWithin: [1m]"},
		{"two keys in one expectation", "- count: {metric: evictions, max: 0}", "- count: {metric: evictions, max: 0}\n      restarts: {pod: web}"},
		{"missing duration", "  duration: 20m\n", ""},
		{"apiVersion", "nodesim/v1alpha1", "nodesim/v1"},
		{"noise", "noise: 5%", "noise: 5"},
	} {
		src := strings.Replace(base, c.from, c.to, 1)
		if src == base {
			t.Fatalf("%s: the edit changed nothing", c.name)
		}
		if err := validateYAML(s, []byte(src)); err == nil {
			t.Errorf("%s: the schema accepts it", c.name)
		}
	}
}

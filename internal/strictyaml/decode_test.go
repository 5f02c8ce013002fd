package strictyaml

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

type testKubelet struct {
	EvictionHard map[string]string `json:"evictionHard,omitempty"`
	MaxPods      int32             `json:"maxPods,omitempty"`
}

type testSpec struct {
	Name     string            `json:"name"`
	Replicas int               `json:"replicas"`
	Small    uint8             `json:"small"`
	Enabled  bool              `json:"enabled"`
	Ratio    float64           `json:"ratio"`
	Ratio32  float32           `json:"ratio32"`
	Tags     []string          `json:"tags"`
	Kubelet  testKubelet       `json:"kubelet"`
	Labels   map[string]string `json:"labels"`
	Extra    any               `json:"extra"`
	Timeout  time.Duration     `json:"timeout"`
	Ptr      *int              `json:"ptr"`
	Pair     [2]int            `json:"pair"`
	Data     []byte            `json:"data"`
	Policy   testPolicy        `json:"policy"`
	Raw      *yaml.Node        `json:"raw"`
	Ignored  string            `json:"-"`
	private  string
}

type testPolicy string

type testScenario struct {
	Spec testSpec `json:"spec"`
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "unknown field with suggestion",
			src: `spec:
  kubelet:
    evictonHard: {}
`,
			want: []string{`test.yaml:3:5: spec.kubelet: unknown field "evictonHard" (did you mean "evictionHard"?)`},
		},
		{
			name: "unknown field without suggestion",
			src: `spec:
  name: x
  zzz: 1
`,
			want: []string{`test.yaml:3:3: spec: unknown field "zzz"`},
		},
		{
			name: "unknown field differing only in case",
			src:  "spec:\n  NAME: x\n",
			want: []string{`test.yaml:2:3: spec: unknown field "NAME" (did you mean "name"?)`},
		},
		{
			name: "unknown top-level field",
			src:  "spc: {}\n",
			want: []string{`test.yaml:1:1: unknown field "spc" (did you mean "spec"?)`},
		},
		{
			name: "three mistakes in position order",
			src: `spec:
  tags: [a, b]
  replicas: three
  kubelet:
    maxPod: 10
  enabled: "yes"
`,
			want: []string{
				`test.yaml:3:13: spec.replicas: expected an integer, got string "three"`,
				`test.yaml:5:5: spec.kubelet: unknown field "maxPod" (did you mean "maxPods"?)`,
				`test.yaml:6:12: spec.enabled: expected a boolean, got string "yes"`,
			},
		},
		{
			name: "string where int expected",
			src:  "spec:\n  replicas: \"3\"\n",
			want: []string{`test.yaml:2:13: spec.replicas: expected an integer, got string "3" (remove the quotes)`},
		},
		{
			name: "int where string expected",
			src:  "spec:\n  name: 123\n",
			want: []string{`test.yaml:2:9: spec.name: expected a string, got integer 123 (quote it if you mean the string "123")`},
		},
		{
			name: "bool where string expected",
			src:  "spec:\n  name: true\n",
			want: []string{`test.yaml:2:9: spec.name: expected a string, got boolean true (quote it if you mean the string "true")`},
		},
		{
			name: "float where string-kinded named type expected",
			src:  "spec:\n  policy: 1.5\n",
			want: []string{`test.yaml:2:11: spec.policy: expected a string, got float 1.5 (quote it if you mean the string "1.5")`},
		},
		{
			name: "int overflow",
			src:  "spec:\n  small: 300\n",
			want: []string{`test.yaml:2:10: spec.small: value 300 out of range for uint8`},
		},
		{
			name: "negative uint",
			src:  "spec:\n  small: -1\n",
			want: []string{`test.yaml:2:10: spec.small: value -1 out of range for uint8`},
		},
		{
			name: "int beyond 64 bits",
			src:  "spec:\n  replicas: 99999999999999999999\n",
			want: []string{`test.yaml:2:13: spec.replicas: value 99999999999999999999 out of range for int`},
		},
		{
			name: "float where int expected",
			src:  "spec:\n  replicas: 1.5\n",
			want: []string{`test.yaml:2:13: spec.replicas: expected an integer, got float 1.5`},
		},
		{
			name: "float32 overflow",
			src:  "spec:\n  ratio32: 1e300\n",
			want: []string{`test.yaml:2:12: spec.ratio32: value 1e300 out of range for float32`},
		},
		{
			name: "mapping where sequence expected",
			src:  "spec:\n  tags: {a: 1}\n",
			want: []string{`test.yaml:2:9: spec.tags: expected a sequence, got a mapping`},
		},
		{
			name: "sequence where mapping expected",
			src:  "spec: [1, 2]\n",
			want: []string{`test.yaml:1:7: spec: expected a mapping, got a sequence`},
		},
		{
			name: "scalar where mapping expected at root",
			src:  "hello\n",
			want: []string{`test.yaml:1:1: expected a mapping, got string "hello"`},
		},
		{
			name: "wrong element type in sequence",
			src:  "spec:\n  tags:\n    - ok\n    - 42\n",
			want: []string{`test.yaml:4:7: spec.tags[1]: expected a string, got integer 42 (quote it if you mean the string "42")`},
		},
		{
			name: "wrong value type in map with dotted key",
			src:  "spec:\n  labels:\n    app.kubernetes.io/name: 7\n",
			want: []string{`test.yaml:3:29: spec.labels["app.kubernetes.io/name"]: expected a string, got integer 7 (quote it if you mean the string "7")`},
		},
		{
			name: "duplicate field",
			src:  "spec:\n  name: a\n  name: b\n",
			want: []string{`test.yaml:3:3: spec: duplicate field "name"`},
		},
		{
			name: "duplicate map key",
			src:  "spec:\n  labels: {a: x, a: y}\n",
			want: []string{`test.yaml:2:18: spec.labels: duplicate key "a"`},
		},
		{
			name: "non-scalar key",
			src:  "spec:\n  ? [a]\n  : 1\n",
			want: []string{`test.yaml:2:5: spec: mapping keys must be scalars, got a sequence`},
		},
		{
			name: "null key",
			src:  "spec:\n  labels: {~: x}\n",
			want: []string{`test.yaml:2:12: spec.labels: mapping key must not be null`},
		},
		{
			name: "array length",
			src:  "spec:\n  pair: [1, 2, 3]\n",
			want: []string{`test.yaml:2:9: spec.pair: expected a sequence of 2 elements, got 3`},
		},
		{
			name: "bad duration",
			src:  "spec:\n  timeout: 5 minutes\n",
			want: []string{`test.yaml:2:12: spec.timeout: invalid duration "5 minutes": use a number with a unit such as "90s" or "1h30m"`},
		},
		{
			name: "integer duration",
			src:  "spec:\n  timeout: 90\n",
			want: []string{`test.yaml:2:12: spec.timeout: expected a duration such as "90s", got integer 90`},
		},
		{
			name: "bad base64",
			src:  "spec:\n  data: '!!!'\n",
			want: []string{`test.yaml:2:9: spec.data: invalid base64 data: illegal base64 data at input byte 0`},
		},
		{
			name: "custom tag",
			src:  "spec:\n  name: !secret x\n",
			want: []string{`test.yaml:2:9: spec.name: expected a string, got a value tagged !secret`},
		},
		{
			name: "explicit int tag on non-integer",
			src:  "spec:\n  replicas: !!int abc\n",
			want: []string{`test.yaml:2:13: spec.replicas: invalid int "abc"`},
		},
		{
			name: "generic value with unsupported tag",
			src:  "spec:\n  extra: [!foo x]\n",
			want: []string{`test.yaml:2:11: spec.extra[0]: unsupported tag !foo`},
		},
		{
			name: "generic duplicate key",
			src:  "spec:\n  extra: {a: 1, a: 2}\n",
			want: []string{`test.yaml:2:17: spec.extra: duplicate key "a"`},
		},
		{
			name: "cyclic alias",
			src:  "spec:\n  extra: &a [1, *a]\n",
			want: []string{`test.yaml:2:17: spec.extra[1]: alias *a refers to a value that contains it (cyclic document)`},
		},
		{
			name: "errors inside an aliased value are reported at the anchor, per use",
			src:  "spec:\n  labels: &l {a: 1}\n  extra: x\n  kubelet:\n    evictionHard: *l\n",
			want: []string{
				`test.yaml:2:18: spec.kubelet.evictionHard.a: expected a string, got integer 1 (quote it if you mean the string "1")`,
				`test.yaml:2:18: spec.labels.a: expected a string, got integer 1 (quote it if you mean the string "1")`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out testScenario
			d := decodeYAML(t, tt.src, &out)
			checkErrors(t, d, tt.want)
		})
	}
}

func TestDecodeValues(t *testing.T) {
	src := `spec:
  name: web
  replicas: 0x10
  small: 255
  enabled: true
  ratio: .5
  ratio32: 1_000
  tags: [a, "b", 'c']
  kubelet:
    evictionHard:
      memory.available: 100Mi
    maxPods: 110
  labels: {app: web, "1": "one"}
  extra: {n: 1, f: 2.5, s: x, b: false, z: ~, l: [1, [2]], t: 2024-01-02}
  timeout: 1m30s
  ptr: 7
  pair: [1, 2]
  data: aGVsbG8=
  policy: Always
  raw: {keep: me}
`
	var out testScenario
	out.Spec.Ignored = "untouched"
	d := decodeYAML(t, src, &out)
	checkErrors(t, d, nil)

	seven := 7
	want := testSpec{
		Name:     "web",
		Replicas: 16,
		Small:    255,
		Enabled:  true,
		Ratio:    0.5,
		Ratio32:  1000,
		Tags:     []string{"a", "b", "c"},
		Kubelet:  testKubelet{EvictionHard: map[string]string{"memory.available": "100Mi"}, MaxPods: 110},
		Labels:   map[string]string{"app": "web", "1": "one"},
		Extra: map[string]any{
			"n": int64(1), "f": 2.5, "s": "x", "b": false, "z": nil,
			"l": []any{int64(1), []any{int64(2)}}, "t": "2024-01-02",
		},
		Timeout: 90 * time.Second,
		Ptr:     &seven,
		Pair:    [2]int{1, 2},
		Data:    []byte("hello"),
		Policy:  "Always",
		Ignored: "untouched",
	}
	got := out.Spec
	if got.Raw == nil || got.Raw.Kind != yaml.MappingNode || got.Raw.Line != 20 {
		t.Errorf("Raw = %+v, want the mapping node at line 20", got.Raw)
	}
	got.Raw = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n got: %#v\nwant: %#v", got, want)
	}
}

func TestDecodeNulls(t *testing.T) {
	one := 1
	out := testScenario{Spec: testSpec{
		Name:   "default",
		Ptr:    &one,
		Tags:   []string{"x"},
		Labels: map[string]string{"a": "b"},
		Extra:  "x",
	}}
	d := decodeYAML(t, "spec:\n  name: ~\n  ptr: null\n  tags:\n  labels: ~\n  extra: null\n", &out)
	checkErrors(t, d, nil)
	if out.Spec.Name != "default" {
		t.Errorf("Name = %q, want the previous value kept", out.Spec.Name)
	}
	if out.Spec.Ptr != nil || out.Spec.Tags != nil || out.Spec.Labels != nil || out.Spec.Extra != nil {
		t.Errorf("pointer, slice, map and interface should be nil after null: %+v", out.Spec)
	}
}

func TestDecodeSpecialFloats(t *testing.T) {
	var out struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
		C float64 `json:"c"`
	}
	d := decodeYAML(t, "a: .inf\nb: -.Inf\nc: .nan\n", &out)
	checkErrors(t, d, nil)
	if !math.IsInf(out.A, 1) || !math.IsInf(out.B, -1) || !math.IsNaN(out.C) {
		t.Errorf("got %v %v %v", out.A, out.B, out.C)
	}
}

// embedded structs are flattened like encoding/json does.
type testMeta struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
}

type testInner struct {
	Deep string `json:"deep"`
}

type testEmbedding struct {
	testMeta   `json:",inline"`
	*testInner        // unexported embedded pointer: skipped, as in encoding/json
	Name       string `json:"name"`
	Untagged   int
}

func TestDecodeEmbedded(t *testing.T) {
	var out testEmbedding
	d := decodeYAML(t, "kind: Pod\napiVersion: v1\nname: x\nUntagged: 3\ndeep: no\n", &out)
	checkErrors(t, d, []string{`test.yaml:5:1: unknown field "deep"`})
	if out.Kind != "Pod" || out.APIVersion != "v1" || out.Name != "x" || out.Untagged != 3 {
		t.Errorf("got %+v", out)
	}
}

func TestDecodeMergeKeys(t *testing.T) {
	type item struct {
		Name     string `json:"name"`
		Replicas int    `json:"replicas"`
		Image    string `json:"image"`
	}
	var out struct {
		Defaults map[string]any `json:"defaults"`
		Small    map[string]any `json:"small"`
		Items    []item         `json:"items"`
	}
	src := `defaults: &d
  replicas: 2
  image: nginx
small: &s
  replicas: 1
items:
  - <<: *d
    name: a
  - name: b
    <<: *d
    replicas: 5
  - <<: [*s, *d]
    name: c
`
	d := decodeYAML(t, src, &out)
	checkErrors(t, d, nil)
	want := []item{{"a", 2, "nginx"}, {"b", 5, "nginx"}, {"c", 1, "nginx"}}
	if !reflect.DeepEqual(out.Items, want) {
		t.Errorf("items = %+v, want %+v", out.Items, want)
	}
	if p, ok := d.Positions["items[0].image"]; !ok || p.Line != 3 {
		t.Errorf("merged value position = %v, want line 3", p)
	}
}

func TestDecodeMergeKeyErrors(t *testing.T) {
	type item struct {
		Name string `json:"name"`
	}
	var out struct {
		Defaults any    `json:"defaults"`
		Items    []item `json:"items"`
	}
	src := `defaults: &d
  nam: x
items:
  - <<: *d
  - <<: 5
  - <<: [[a]]
`
	d := decodeYAML(t, src, &out)
	checkErrors(t, d, []string{
		`test.yaml:2:3: items[0]: unknown field "nam" (did you mean "name"?)`,
		`test.yaml:5:9: items[1]: the value of a merge key (<<) must be a mapping or a sequence of mappings, got integer 5`,
		`test.yaml:6:10: items[2]: the value of a merge key (<<) must be a mapping or a sequence of mappings, got a sequence`,
	})
}

func TestDecodeAliasBomb(t *testing.T) {
	// Ten levels of ten-fold aliasing expand to 10^10 nodes.
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		ref := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s%s]\n", i, i, strings.Repeat(ref+", ", 9), ref)
	}
	// No wall-clock bound here (it fails on a loaded machine): the decoder stops at its
	// expansion budget, so the expansion error below is the proof; without the budget the
	// test would never finish.
	var out map[string]any
	d := decodeYAML(t, b.String(), &out)
	lines := errorLines(d)
	if len(lines) != 1 || !strings.Contains(lines[0], "document too large after alias expansion") {
		t.Errorf("errors = %q, want one expansion error", lines)
	}
}

func TestDecodeDepthLimit(t *testing.T) {
	src := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	var out any
	d := decodeYAML(t, src, &out)
	lines := errorLines(d)
	if len(lines) != 1 || !strings.Contains(lines[0], "document nested too deeply") {
		t.Errorf("errors = %q, want one depth error", lines)
	}
}

func TestDecodeTooManyErrors(t *testing.T) {
	var b strings.Builder
	for i := range 1500 {
		b.WriteString("- ")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString("\n")
	}
	var out []int
	d := decodeYAML(t, b.String(), &out)
	if n := len(d.Errors); n != maxErrors+1 {
		t.Fatalf("got %d errors, want %d", n, maxErrors+1)
	}
	if last := d.Errors[len(d.Errors)-1]; !strings.Contains(last.Msg, "too many errors") {
		t.Errorf("last error = %v", last)
	}
}

func TestDecodeNotPointer(t *testing.T) {
	root, err := ParseDocument(testFile, []byte("a: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(testFile)
	var m map[string]int
	d.Decode(root, "", m)
	d.Decode(root, "", nil)
	d.Decode(root, "", (*int)(nil))
	lines := errorLines(d)
	if len(lines) != 3 {
		t.Fatalf("errors = %q, want 3", lines)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "test.yaml:1:1: internal error: Decode needs a non-nil pointer") {
			t.Errorf("unexpected error %q", l)
		}
	}
}

func TestDecodeUnsupportedGoTypes(t *testing.T) {
	var out struct {
		C  chan int          `json:"c"`
		M  map[int]string    `json:"m"`
		S  fmtStringer       `json:"s"`
		OK map[string]string `json:"ok"`
	}
	d := decodeYAML(t, "c: 1\nm: {1: a}\ns: x\nok: {a: b}\n", &out)
	checkErrors(t, d, []string{
		`test.yaml:1:4: c: internal error: cannot decode into Go type chan int`,
		`test.yaml:2:4: m: internal error: cannot decode into map with key type int`,
		`test.yaml:3:4: s: internal error: cannot decode into non-empty interface type strictyaml.fmtStringer`,
	})
	if out.OK["a"] != "b" {
		t.Errorf("decoding should continue after internal errors: %+v", out.OK)
	}
}

type fmtStringer interface{ String() string }

// steps is "a number, or a list of steps", the kind of type NodeUnmarshaler
// exists for.
type steps struct {
	Count int
	Items []string
	path  string
}

func (s *steps) UnmarshalYAMLNode(d *Decoder, n *yaml.Node, path string) {
	s.path = path
	switch n.Kind {
	case yaml.ScalarNode:
		d.Decode(n, path, &s.Count)
	case yaml.SequenceNode:
		d.Decode(n, path, &s.Items)
	default:
		d.Errorf(n, path, "expected a number or a list of steps, got %s", describe(n))
	}
}

func TestNodeUnmarshaler(t *testing.T) {
	type phase struct {
		Name  string `json:"name"`
		Steps steps  `json:"steps"`
		Alt   *steps `json:"alt"`
	}
	var out struct {
		Phases []phase `json:"phases"`
	}
	src := `phases:
  - name: a
    steps: 3
  - name: b
    steps: [x, 7]
    alt: {a: 1}
  - name: c
    steps: &s [y]
    alt: *s
`
	d := decodeYAML(t, src, &out)
	checkErrors(t, d, []string{
		`test.yaml:5:16: phases[1].steps[1]: expected a string, got integer 7 (quote it if you mean the string "7")`,
		`test.yaml:6:10: phases[1].alt: expected a number or a list of steps, got a mapping`,
	})
	if got := out.Phases[0].Steps; got.Count != 3 || got.path != "phases[0].steps" {
		t.Errorf("phases[0].steps = %+v", got)
	}
	if got := out.Phases[1].Steps; got.path != "phases[1].steps" || len(got.Items) != 2 || got.Items[0] != "x" {
		t.Errorf("phases[1].steps = %+v", got)
	}
	if got := out.Phases[2].Alt; got == nil || got.path != "phases[2].alt" || len(got.Items) != 1 {
		t.Errorf("phases[2].alt = %+v", got)
	}
	if p := d.Positions["phases[2].alt"]; p.Line != 9 || p.Column != 10 {
		t.Errorf("alias position = %v, want the alias use site 9:10", p)
	}
}

func TestJSONUnmarshalers(t *testing.T) {
	type res struct {
		Quantities map[string]resource.Quantity `json:"quantities"`
		Duration   metav1.Duration              `json:"duration"`
		Port       intstr.IntOrString           `json:"port"`
		Time       metav1.Time                  `json:"time"`
		Opt        *resource.Quantity           `json:"opt"`
	}
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, r res)
		want  []string
	}{
		{
			name: "valid quantities",
			src:  "quantities: {a: 8Gi, b: 4, c: 100m, d: 0.5, e: 1e3, f: '250M'}\nopt: 1Ki\n",
			check: func(t *testing.T, r res) {
				for k, v := range map[string]string{"a": "8Gi", "b": "4", "c": "100m", "d": "500m", "e": "1k", "f": "250M"} {
					if q := r.Quantities[k]; q.Cmp(resource.MustParse(v)) != 0 {
						t.Errorf("quantity %s = %s, want %s", k, q.String(), v)
					}
				}
				if r.Opt == nil || r.Opt.Value() != 1024 {
					t.Errorf("opt = %v", r.Opt)
				}
			},
		},
		{
			name: "invalid quantity",
			src:  "quantities:\n  memory: 8Gx\n",
			want: []string{`test.yaml:2:11: quantities.memory: invalid value "8Gx": ` + resource.ErrFormatWrong.Error()},
		},
		{
			name: "quantity from a mapping",
			src:  "quantities:\n  cpu: {a: 1}\n",
			want: []string{`test.yaml:2:8: quantities.cpu: invalid value (a mapping): ` + resource.ErrFormatWrong.Error()},
		},
		{
			name: "infinity is not JSON",
			src:  "quantities:\n  cpu: .inf\n",
			want: []string{`test.yaml:2:8: quantities.cpu: invalid value ".inf": infinity and NaN are not allowed here`},
		},
		{
			name: "valid duration",
			src:  "duration: 90s\n",
			check: func(t *testing.T, r res) {
				if r.Duration.Duration != 90*time.Second {
					t.Errorf("duration = %v", r.Duration)
				}
			},
		},
		{
			name: "invalid duration",
			src:  "duration: 5 minutes\n",
			want: []string{`test.yaml:1:11: duration: invalid value "5 minutes": unknown unit " minutes" in duration "5 minutes"`},
		},
		{
			name: "int or string",
			src:  "port: 8080\n",
			check: func(t *testing.T, r res) {
				if r.Port != intstr.FromInt32(8080) {
					t.Errorf("port = %v", r.Port)
				}
			},
		},
		{
			name: "quoted int stays a string",
			src:  "port: \"8080\"\n",
			check: func(t *testing.T, r res) {
				if r.Port != intstr.FromString("8080") {
					t.Errorf("port = %v", r.Port)
				}
			},
		},
		{
			name: "timestamp",
			src:  "time: 2024-05-06T07:08:09Z\n",
			check: func(t *testing.T, r res) {
				if !r.Time.Time.Equal(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)) {
					t.Errorf("time = %v", r.Time)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r res
			d := decodeYAML(t, tt.src, &r)
			checkErrors(t, d, tt.want)
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

// textValue implements only encoding.TextUnmarshaler.
type textValue struct{ s string }

func (v *textValue) UnmarshalText(b []byte) error {
	if strings.HasPrefix(string(b), "bad") {
		return errTextValue
	}
	v.s = string(b)
	return nil
}

type textError struct{}

func (textError) Error() string { return "must not start with bad" }

var errTextValue = textError{}

func TestTextUnmarshaler(t *testing.T) {
	var out struct {
		A textValue  `json:"a"`
		B *textValue `json:"b"`
		C textValue  `json:"c"`
		D textValue  `json:"d"`
	}
	d := decodeYAML(t, "a: hello\nb: 42\nc: badness\nd: [x]\n", &out)
	checkErrors(t, d, []string{
		`test.yaml:3:4: c: invalid value "badness": must not start with bad`,
		`test.yaml:4:4: d: expected a scalar, got a sequence`,
	})
	if out.A.s != "hello" || out.B == nil || out.B.s != "42" {
		t.Errorf("got %+v %+v", out.A, out.B)
	}
}

func TestPositions(t *testing.T) {
	src := `spec:
  kubelet:
    evictionHard:
      memory.available: 200Mi
  tags:
    - a
    - b
`
	var out testScenario
	d := decodeYAML(t, src, &out)
	checkErrors(t, d, nil)
	want := map[string]Pos{
		"":                          {testFile, 1, 1},
		"spec":                      {testFile, 2, 3},
		"spec.kubelet":              {testFile, 3, 5},
		"spec.kubelet.evictionHard": {testFile, 4, 7},
		`spec.kubelet.evictionHard["memory.available"]`: {testFile, 4, 25},
		"spec.tags":    {testFile, 6, 5},
		"spec.tags[0]": {testFile, 6, 7},
		"spec.tags[1]": {testFile, 7, 7},
	}
	if !reflect.DeepEqual(d.Positions, want) {
		t.Errorf("positions:\n got %v\nwant %v", d.Positions, want)
	}

	d.ErrorAt("spec.kubelet.maxPods", "required")
	d.ErrorAt(`spec.kubelet.evictionHard["memory.available"].x[3]`, "deep")
	d.ErrorAt(`spec.tags[1]`, "exact")
	d.ErrorAt(`nothing.here`, "root")
	checkErrors(t, d, []string{
		`test.yaml:1:1: nothing.here: root`,
		`test.yaml:3:5: spec.kubelet.maxPods: required`,
		`test.yaml:4:25: spec.kubelet.evictionHard["memory.available"].x[3]: deep`,
		`test.yaml:7:7: spec.tags[1]: exact`,
	})
}

func TestDecodeWithPathPrefix(t *testing.T) {
	root, err := ParseDocument(testFile, []byte("name: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(testFile)
	var out testSpec
	d.Decode(root, "spec.pods[3]", &out)
	checkErrors(t, d, []string{`test.yaml:1:7: spec.pods[3].name: expected a string, got integer 1 (quote it if you mean the string "1")`})
	if _, ok := d.Positions["spec.pods[3]"]; !ok {
		t.Errorf("root path not recorded: %v", d.Positions)
	}
}

func TestZeroDecoder(t *testing.T) {
	var d Decoder
	root := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "5"}
	var i int
	d.Decode(root, "", &i)
	if i != 5 || d.Err() != nil {
		t.Errorf("got %d, %v", i, d.Err())
	}
	d.Decode(nil, "x", &i)
	d.Errorf(nil, "x", "constructed")
	if got := errorLines(&d); len(got) != 1 || got[0] != "x: constructed" {
		t.Errorf("errors = %q", got)
	}
}

func TestConstructedNodes(t *testing.T) {
	// Trees built by hand may hold nils, odd child counts and dangling
	// aliases; the decoder must report, not panic.
	str := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "x"}
	nodes := []*yaml.Node{
		{Kind: yaml.MappingNode, Content: []*yaml.Node{nil, str}},
		{Kind: yaml.MappingNode, Content: []*yaml.Node{str}},
		{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!merge", Value: "<<"}, nil}},
		{Kind: yaml.SequenceNode, Content: []*yaml.Node{nil, {Kind: yaml.AliasNode, Value: "dangling"}}},
		{Kind: yaml.DocumentNode},
		{Kind: yaml.Kind(99)},
	}
	for i, n := range nodes {
		d := NewDecoder(testFile)
		var g any
		d.Decode(n, "", &g)
		var doc fuzzDoc
		d.Decode(n, "", &doc)
		var port intstr.IntOrString
		d.Decode(n, "port", &port)
		var items []fuzzItem
		d.Decode(n, "items", &items)
		t.Logf("node %d: %v", i, d.Err())
	}
}

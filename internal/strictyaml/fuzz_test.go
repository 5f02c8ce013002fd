package strictyaml

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// fuzzItem mixes our own kinds of fields, including a NodeUnmarshaler.
type fuzzItem struct {
	Name    string            `json:"name"`
	Steps   steps             `json:"steps"`
	Alt     *steps            `json:"alt"`
	Count   *int32            `json:"count"`
	Weights []float32         `json:"weights"`
	Labels  map[string]string `json:"labels"`
	Any     any               `json:"any"`
	Pair    [2]uint8          `json:"pair"`
	Timeout time.Duration     `json:"timeout"`
	Data    []byte            `json:"data"`
	Text    textValue         `json:"text"`
	Raw     yaml.Node         `json:"raw"`
	Nested  *fuzzItem         `json:"nested"`
}

type fuzzDoc struct {
	Pod       corev1.Pod                                `json:"pod"`
	Kubelet   kubeletconfigv1beta1.KubeletConfiguration `json:"kubelet"`
	Resources map[string]resource.Quantity              `json:"resources"`
	Items     []*fuzzItem                               `json:"items"`
	Extra     map[string]any                            `json:"extra"`
	Port      intstr.IntOrString                        `json:"port"`
	When      metav1.Time                               `json:"when"`
	Every     metav1.Duration                           `json:"every"`
	Anchors   any                                       `json:"anchors"`
}

// fuzzSeeds are realistic and nasty inputs; the same set, in Go's corpus file
// format, lives in testdata/fuzz/FuzzDecode.
var fuzzSeeds = []string{
	"pod:\n" + indent(podManifest, "  "),
	"kubelet:\n  apiVersion: kubelet.config.k8s.io/v1beta1\n  kind: KubeletConfiguration\n  evictionHard: {memory.available: 200Mi}\n  syncFrequency: 30s\n  featureGates: {EventedPLEG: true}\n",
	"resources: {cpu: 100m, memory: 8Gi, gpu: 4, bad: 8Gx, neg: -1, big: 1e400, hex: 0x10, inf: .inf}\n",
	"items:\n  - name: a\n    steps: 3\n  - name: b\n    steps: [x, 7]\n    alt: {a: 1}\n    count: 99999999999\n",
	"anchors: &a {x: 1}\nitems:\n  - <<: *a\n    name: m\n  - <<: [*a, {y: 2}]\n  - <<: 5\n",
	"a: &a [*a]\n",
	"anchors: &x {<<: *x}\n",
	"l0: &l0 [a, a, a, a, a, a, a, a, a]\nl1: &l1 [*l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0, *l0]\nl2: &l2 [*l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1]\nextra: {bomb: [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]}\n",
	"extra: " + strings.Repeat("[", 250) + strings.Repeat("]", 250) + "\n",
	"items:\n  - data: !!binary aGVsbG8=\n    raw: !custom {a: b}\n    any: [!!timestamp 2001-12-14, !!str 1, !!int 0b101, !!float .5, !weird x]\n    text: !!int 12\n",
	"? [complex, key]\n: 1\n? {a: b}\n: 2\n~: null\n\"\": empty\n",
	"pod: {metadata: {name: a, name: b}, spec: {containers: [{name: c, resources: {limts: {cpu: 1}}}]}}\n",
	"a: 1\n---\nb: 2\n",
	"a: [1,\n",
	"port: \"80\"\nwhen: 2024-01-02T03:04:05Z\nevery: 5 minutes\nitems: [{timeout: 90, pair: [1, 300], weights: [1e39, .nan]}]\n",
	"\xef\xbb\xbfitems: [{name: \"\\u00e9\\x00\"}]\n",
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := ParseDocument("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("ParseDocument returned %T, want *Error: %v", err, err)
			}
			if e.Pos.Line < 1 {
				t.Fatalf("syntax error without a line: %v", e)
			}
			if strings.ContainsAny(e.Error(), "\r\n") {
				t.Fatalf("multi-line error: %q", e.Error())
			}
			return
		}
		if root == nil {
			t.Fatal("ParseDocument returned neither a node nor an error")
		}

		d := NewDecoder("fuzz.yaml")
		var doc fuzzDoc
		d.Decode(root, "", &doc)
		var generic any
		d.Decode(root, "generic", &generic)
		var items []fuzzItem
		d.Decode(root, "items", &items)

		for _, e := range d.Errors {
			if e.Pos.Line < 1 {
				t.Fatalf("error without a line: %v", e)
			}
			if e.Msg == "" {
				t.Fatalf("error without a message at %v", e.Pos)
			}
			if strings.ContainsAny(e.Error(), "\r\n") {
				t.Fatalf("multi-line error: %q", e.Error())
			}
		}
		for path, pos := range d.Positions {
			if pos.Line < 1 {
				t.Fatalf("position of %q has no line: %v", path, pos)
			}
		}
		if err := d.Err(); err != nil && err.Error() == "" {
			t.Fatal("empty error text")
		}

		// Paths are derived from keys; ErrorAt must cope with any string.
		probe := string(data[:min(len(data), 64)])
		d.ErrorAt(probe, "probe")
		if e := d.Errors[len(d.Errors)-1]; e.Pos.Line < 1 && !d.aborted {
			t.Fatalf("ErrorAt(%q) found no position: %v", probe, e)
		}
		_ = Suggest(probe, []string{"name", "steps", "evictionHard"})
	})
}

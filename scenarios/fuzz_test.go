package scenarios

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the loader: it must return a scenario or positioned
// errors, never panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	for _, name := range []string{"crashloop", "startup"} {
		if src, err := BuiltinSource(name); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte(good + "  events:\n    - {at: 1m, deletePod: web, gracePeriodSeconds: 5}\n  expect:\n    - restarts: {pod: web, min: 1, max: 0}\n"))
	f.Add([]byte(good + "      behavior:\n        \"*\": {exit: {after: 1s, code: 1}, runs: [{exit: {after: 2s, code: 0}}, {}]}\n"))
	f.Add([]byte(strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubelet: {evictionHard: {memory.available: 1Gi}, featureGates: {X: true}}\n  kubeletConfigFile: k.yaml\n", 1)))
	f.Add([]byte("apiVersion: nodesim/v1alpha1\nkind: Scenario\nspec: {pods: [{pod: {spec: {containers: [{}]}}}]}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("spec:\n  pods:\n    - replicas: 99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(string) ([]byte, error) {
			return []byte("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"), nil
		}
		glob := func(string) ([]string, error) { return []string{"m.yaml"}, nil }
		l, err := Parse("f.yaml", data, read, glob)
		if err == nil && l == nil {
			t.Fatal("no scenario and no error")
		}
		if err != nil && !strings.HasPrefix(err.Error(), "f.yaml:") && !strings.Contains(err.Error(), ".yaml:") {
			t.Fatalf("error without a position: %v", err)
		}
	})
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pod the API server's Priority admission would refuse is bad input: one positioned line
// with the plugin's wording, and exit 2.
func TestPriorityRefusalsExitTwo(t *testing.T) {
	const head = "apiVersion: nodesim/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n  duration: 5m\n  pods:\n    - pod:\n        metadata: {name: web}\n        spec:\n"
	const ctr = "          containers: [{name: app, image: \"nginx:1.27\"}]\n"
	cases := []struct{ name, spec, want string }{
		{"unknown class", "          priorityClassName: gold\n",
			`:10:30: spec.pods[0].pod.spec.priorityClassName: pods "web" is forbidden: no PriorityClass with name gold was found`},
		{"priority mismatch", "          priorityClassName: system-cluster-critical\n          priority: 5\n",
			`:11:21: spec.pods[0].pod.spec.priority: pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 2000000000 from the given PriorityClass name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.yaml")
			if err := os.WriteFile(path, []byte(head+c.spec+ctr), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := nodesim(t, "run", path)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (%s)", code, errOut)
			}
			if !strings.Contains(errOut, path+c.want) {
				t.Errorf("stderr\n%s\ndoes not contain\n%s%s", errOut, path, c.want)
			}
		})
	}
}

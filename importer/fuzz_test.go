package importer

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzImport: no capture, however malformed, panics the import or makes it hand back a
// scenario the loader refuses (Import checks its output; an error is an answer, a panic is
// not). The same bytes are tried as each of the four captures at once.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"node.yaml", "configz.json"} {
		data, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"node": {"nodeName": "n", "memory": {"workingSetBytes": 5}}, "pods": [{"podRef": {"name": "p"}, "containers": [{"name": "a"}]}]}`))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- metadata: {name: p, annotations: {kubernetes.io/config.mirror: x}}\n  spec: {containers: [{name: a, image: b}]}\n"))
	f.Add([]byte("kind: Node\nmetadata: {name: \"\"}\nstatus: {capacity: {pods: \"-1\"}}\n"))
	f.Add([]byte(`{"kubeletconfig": {"featureGates": {"AllAlpha": true}, "maxPods": -5}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &Input{Name: "capture", Data: data}
		_, _ = Import(Inputs{Pods: in, Configz: in, Summary: in, Node: in})
		_, _ = Import(Inputs{Pods: in})
		_, _ = Import(Inputs{Summary: in})
	})
}

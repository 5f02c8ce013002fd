package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runFile(t *testing.T, src string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code = run(append([]string{"run", file}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// A BestEffort pod that a DaemonSet makes carries the controller's memory-pressure
// toleration, so the kubelet admits it under MemoryPressure; the same template from a
// ReplicaSet is rejected (Evicted), as upstream's eviction admission does.
func TestDaemonPodToleratesMemoryPressure(t *testing.T) {
	src := `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  duration: 5m
  node:
    capacity: {cpu: "4", memory: 4Gi}
  kubelet:
    evictionSoft: {memory.available: 1Gi}
    evictionSoftGracePeriod: {memory.available: 10m}
  runtime:
    images: [{name: "app:v1", size: 20Mi, present: true}]
  pods:
    - pod:
        metadata: {name: hog}
        spec: {containers: [{name: app, image: "app:v1", resources: {requests: {memory: 3Gi}}}]}
      behavior:
        app: {memory: [{set: 1Gi}, {at: 1m, set: 3500Mi}]}
    - at: 3m
      daemonSet:
        metadata: {name: agent}
        spec:
          selector: {matchLabels: {app: agent}}
          template:
            metadata: {labels: {app: agent}}
            spec: {containers: [{name: app, image: "app:v1"}]}
    - at: 3m
      replicaSet:
        metadata: {name: worker}
        spec:
          replicas: 1
          selector: {matchLabels: {app: worker}}
          template:
            metadata: {labels: {app: worker}}
            spec: {containers: [{name: app, image: "app:v1"}]}
`
	out, errOut, code := runFile(t, src, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Pods []struct {
			Pod, Phase string
		} `json:"pods"`
		AdmissionRejections []struct {
			Pod, Reason string
		} `json:"admissionRejections"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	phases := map[string]string{}
	for _, p := range r.Pods {
		phases[p.Pod] = p.Phase
	}
	// The five characters after the name come from a hash of the owner and the ordinal.
	if phases["default/agent-4z8t8"] != "Running" {
		t.Errorf("daemon pod: %v", phases)
	}
	if len(r.AdmissionRejections) != 1 || r.AdmissionRejections[0].Pod != "default/worker-8qkzt" || r.AdmissionRejections[0].Reason != "Evicted" {
		t.Errorf("rejections %+v", r.AdmissionRejections)
	}
}

// A pod upstream's validation refuses is bad input: exit 2, one line per problem,
// file:line:column: path: upstream's message.
func TestPodValidationErrorExitsTwo(t *testing.T) {
	src := `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  duration: 5m
  pods:
    - deployment:
        metadata: {name: web}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              containers:
                - name: app
                  image: nginx
                  resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}
`
	_, errOut, code := runFile(t, src)
	want := `s.yaml:17:41: spec.pods[0].deployment.spec.template.spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi`
	if code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant it to contain\n%s", code, errOut, want)
	}
}

package scenarios

import (
	"strings"
	"testing"
)

// Pods are validated by upstream's ValidatePodCreate; each error is upstream's words at the
// line and column where the offending value is written, under the loader's path.
func TestPodValidationErrorsArePositioned(t *testing.T) {
	withContainer := func(extra string) string {
		return strings.Replace(good, "image: nginx:1.27\n", "image: nginx:1.27\n"+extra, 1)
	}
	cases := []struct {
		name, src string
		files     map[string]string
		want      []string
	}{
		// Line 14 of the scenario is the inserted resources line; "requests" is the map
		// validateResourceRequirements names, at column 37 ("resources: {requests: {" is
		// 14 spaces + 12 + 11 characters before it).
		{"memory limit below request", withContainer("              resources: {requests: {memory: 500Mi}, limits: {memory: 400Mi}}\n"), nil,
			[]string{`s.yaml:14:37: spec.pods[0].pod.spec.containers[0].resources.requests: Invalid value: "500Mi": must be less than or equal to memory limit of 400Mi`}},
		{"bad name", strings.Replace(good, "{name: web}", "{name: Web_1}", 1), nil,
			[]string{`s.yaml:9:26: spec.pods[0].pod.metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"duplicate container name", good + "            - name: app\n              image: busybox\n", nil,
			[]string{`s.yaml:14:21: spec.pods[0].pod.spec.containers[1].name: Duplicate value: "app"`}},
		{"probe without handler", withContainer("              livenessProbe: {periodSeconds: 3}\n"), nil,
			[]string{`s.yaml:14:30: spec.pods[0].pod.spec.containers[0].livenessProbe: Required value: must specify a handler type`}},
		// A map key that is no identifier keeps its quotes in the loader's path. The request
		// was copied from the limit by defaulting, so it is written nowhere: its error is at
		// the resources mapping that holds it.
		{"extended resource not an integer", withContainer("              resources: {limits: {example.com/gpu: 500m}}\n"), nil,
			[]string{`s.yaml:14:26: spec.pods[0].pod.spec.containers[0].resources.requests["example.com/gpu"]: Invalid value: "500m": must be an integer`,
				`s.yaml:14:53: spec.pods[0].pod.spec.containers[0].resources.limits["example.com/gpu"]: Invalid value: "500m": must be an integer`}},
		{"unsupported restart policy", strings.Replace(good, "          containers:\n", "          restartPolicy: Sometimes\n          containers:\n", 1), nil,
			[]string{`s.yaml:11:26: spec.pods[0].pod.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`}},
		// In a pod file, the error is positioned in that file, under the item's path.
		{"error in a PodList item", strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  podFiles: [m/*.yaml]\n", 1),
			map[string]string{"m/list.yaml": "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n  spec:\n    containers:\n    - {name: c, image: busybox, resources: {limits: {cpu: -1}}}\n"},
			[]string{`m/list.yaml:7:44: items[0].spec.containers[0].resources.requests.cpu: Invalid value: "-1": must be greater than or equal to 0`,
				`m/list.yaml:7:59: items[0].spec.containers[0].resources.limits.cpu: Invalid value: "-1": must be greater than or equal to 0`}},
		// A static pod is named after the node before validation, as the kubelet does.
		{"static pod name too long", strings.Replace(good, "{name: web}", "{name: "+strings.Repeat("a", 250)+"}", 1),
			nil, []string{`spec.pods[0].pod.metadata.name: Invalid value: "` + strings.Repeat("a", 250) + `-node-1": must be no more than 253 characters`}},
	}
	cases[len(cases)-1].src = strings.Replace(cases[len(cases)-1].src, "    - pod:\n", "    - source: file\n      pod:\n", 1)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.src, c.files)
			if err == nil {
				t.Fatal("accepted")
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(c.want) {
				t.Fatalf("%d errors, want %d:\n%v", len(got), len(c.want), err)
			}
			for i, w := range c.want {
				if !strings.HasSuffix(got[i], w) {
					t.Errorf("error\n%s\nwant\n%s", got[i], w)
				}
			}
		})
	}
}

// The replicas of one entry share their spec: a problem in it is reported once.
func TestReplicaErrorsReportedOnce(t *testing.T) {
	src := strings.Replace(good, "    - pod:\n", "    - replicas: 5\n      pod:\n", 1)
	src = strings.Replace(src, "image: nginx:1.27\n", "image: nginx:1.27\n              imagePullPolicy: Sometimes\n", 1)
	_, err := parse(t, src, nil)
	if err == nil || strings.Count(err.Error(), "\n") != 0 || !strings.Contains(err.Error(), `s.yaml:15:32: spec.pods[0].pod.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`) {
		t.Errorf("want one positioned error, got:\n%v", err)
	}
}

// An updated pod is defaulted and validated like a new one, positioned in its event.
func TestUpdatedPodIsValidated(t *testing.T) {
	src := good + "  events:\n    - at: 1m\n      updatePod: default/web\n      pod:\n        spec:\n          containers:\n            - {name: app, image: \"\"}\n"
	_, err := parse(t, src, nil)
	if err == nil || !strings.Contains(err.Error(), `s.yaml:20:34: spec.events[0].pod.spec.containers[0].image: Required value`) {
		t.Errorf("got:\n%v", err)
	}
}

func TestLoaderPath(t *testing.T) {
	for in, want := range map[string]string{
		"spec.containers[0].resources.limits[memory]":          "spec.containers[0].resources.limits.memory",
		"spec.containers[2].resources.limits[example.com/gpu]": `spec.containers[2].resources.limits["example.com/gpu"]`,
		"metadata.labels":             "metadata.labels",
		"metadata.annotations[a.b/c]": `metadata.annotations["a.b/c"]`,
		"spec":                        "spec",
	} {
		if got := loaderPath(in); got != want {
			t.Errorf("loaderPath(%q) = %q, want %q", in, got, want)
		}
	}
}

package scenarios

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// withRules puts extra fields under the good scenario's container app (line 14 on), and an
// optional kubelet block.
func withRules(kubelet, container string) string {
	src := good
	if kubelet != "" {
		src = strings.Replace(src, "  duration: 5m\n", "  duration: 5m\n  kubelet: "+kubelet+"\n", 1)
	}
	return strings.Replace(src, "image: nginx:1.27\n", "image: nginx:1.27\n"+container, 1)
}

const (
	ruleNever42 = "              restartPolicy: Never\n              restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n"
	ruleAll42   = "              restartPolicy: Never\n              restartPolicyRules: [{action: RestartAllContainers, exitCodes: {operator: In, values: [42]}}]\n"
	gatesOff    = "{featureGates: {ContainerRestartRules: false, RestartAllContainersOnContainerExits: false}}"
	restartAll0 = "{featureGates: {RestartAllContainersOnContainerExits: false}}"
)

// The API server's validation of container restart policies and rules (v1.37
// validateContainerRestartPolicy / validateInitContainerRestartPolicy), in its words.
func TestRestartRulesValidation(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"rules without a container restartPolicy", withRules("", "              restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n"),
			[]string{`spec.pods[0].pod.spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used`}},
		{"unknown container restartPolicy", withRules("", "              restartPolicy: Sometimes\n"),
			[]string{`s.yaml:14:30: spec.pods[0].pod.spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`}},
		{"unknown action", withRules("", "              restartPolicy: Never\n              restartPolicyRules: [{action: Retry, exitCodes: {operator: In, values: [42]}}]\n"),
			[]string{`s.yaml:15:45: spec.pods[0].pod.spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Retry": supported values: "Restart", "RestartAllContainers"`}},
		{"RestartAllContainers with its gate off", withRules(restartAll0, ruleAll42),
			[]string{`spec.pods[0].pod.spec.containers[0].restartPolicyRules[0].action: Unsupported value: "RestartAllContainers": supported values: "Restart"`}},
		{"unknown operator", withRules("", "              restartPolicy: Never\n              restartPolicyRules: [{action: Restart, exitCodes: {operator: Is, values: [42]}}]\n"),
			[]string{`spec.pods[0].pod.spec.containers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Is": supported values: "In", "NotIn"`}},
		{"rule without exitCodes", withRules("", "              restartPolicy: Never\n              restartPolicyRules: [{action: Restart}]\n"),
			[]string{`spec.pods[0].pod.spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified`}},
		{"21 rules", withRules("", "              restartPolicy: Never\n              restartPolicyRules: ["+strings.Repeat("{action: Restart, exitCodes: {operator: In, values: [1]}}, ", 20)+"{action: Restart, exitCodes: {operator: In, values: [1]}}]\n"),
			[]string{`spec.pods[0].pod.spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items`}},
		{"a sidecar's rules without RestartAllContainers", strings.Replace(good, "          containers:\n", "          initContainers:\n            - {name: side, image: envoy:1, restartPolicy: Always, restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [1]}}]}\n          containers:\n", 1) +
			"  kubelet: " + restartAll0 + "\n",
			[]string{`spec.pods[0].pod.spec.initContainers[0].restartPolicyRules: Forbidden: restartPolicyRules are not allowed for init containers with restart policy Always`}},
		{"regular container restartPolicy of a static pod with the gate off", strings.Replace(withRules(gatesOff, "              restartPolicy: Never\n"), "    - pod:\n", "    - source: file\n      pod:\n", 1),
			[]string{`spec.pods[0].pod.spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers`}},
		{"init container restartPolicy Never of a static pod with the gate off", strings.Replace(strings.Replace(good, "          containers:\n", "          initContainers:\n            - {name: setup, image: busybox, restartPolicy: Never}\n          containers:\n", 1), "    - pod:\n", "    - source: file\n      pod:\n", 1) +
			"  kubelet: " + gatesOff + "\n",
			[]string{`spec.pods[0].pod.spec.initContainers[0].restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"an update that changes the rules", withRules("", ruleNever42) + "  events:\n    - at: 1m\n      updatePod: default/web\n      pod: {spec: {containers: [{name: app, image: nginx:1.28, restartPolicy: Never}]}}\n",
			[]string{`spec.events[0].pod.spec.containers[0]: Forbidden: pod updates may not change a container's restartPolicy or restartPolicyRules`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.src, nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%s\ndoes not contain\n%s", err, w)
				}
			}
		})
	}
}

// Rules load as written with the v1.37 defaults, and a pod from the API server loses them,
// with a warning, when ContainerRestartRules is off (dropDisabledPodFields).
func TestRestartRulesLoadOrDrop(t *testing.T) {
	l, err := parse(t, withRules("", ruleAll42), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Pods[0].Pod.Spec.Containers[0]
	if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyNever || len(c.RestartPolicyRules) != 1 ||
		c.RestartPolicyRules[0].Action != corev1.ContainerRestartRuleActionRestartAllContainers ||
		c.RestartPolicyRules[0].ExitCodes.Values[0] != 42 || len(l.Warnings) != 0 {
		t.Errorf("rules not loaded as written: %+v, warnings %v", c, l.Warnings)
	}

	l, err = parse(t, withRules(gatesOff, ruleNever42), nil)
	if err != nil {
		t.Fatal(err)
	}
	c = l.Pods[0].Pod.Spec.Containers[0]
	if c.RestartPolicy != nil || c.RestartPolicyRules != nil {
		t.Errorf("gate off: restartPolicy %v, rules %v kept; the API server drops them", c.RestartPolicy, c.RestartPolicyRules)
	}
	want := []string{
		"s.yaml:15:30: spec.pods[0].pod.spec.containers[0].restartPolicy: dropped by the API server: the ContainerRestartRules feature gate is off",
		"s.yaml:16:35: spec.pods[0].pod.spec.containers[0].restartPolicyRules: dropped by the API server: the ContainerRestartRules feature gate is off",
	}
	var got []string
	for _, w := range l.Warnings {
		if strings.Contains(w, "dropped") {
			got = append(got, w)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A sidecar keeps its restartPolicy: Always with the gate off; its rules go.
	src := strings.Replace(good, "          containers:\n", "          initContainers:\n            - {name: side, image: envoy:1, restartPolicy: Always, restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [1]}}]}\n          containers:\n", 1) +
		"  kubelet: " + gatesOff + "\n"
	l, err = parse(t, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	side := l.Pods[0].Pod.Spec.InitContainers[0]
	if side.RestartPolicy == nil || *side.RestartPolicy != corev1.ContainerRestartPolicyAlways || side.RestartPolicyRules != nil {
		t.Errorf("gate off: sidecar restartPolicy %v rules %v; want Always and no rules", side.RestartPolicy, side.RestartPolicyRules)
	}

	// A static pod is not dropped: the file source's validation lets a sidecar's rules
	// through, and the kubelet with the gate off ignores them, which a warning says.
	l, err = parse(t, strings.Replace(src, "    - pod:\n", "    - source: file\n      pod:\n", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if side := l.Pods[0].Pod.Spec.InitContainers[0]; len(side.RestartPolicyRules) != 1 || len(l.Warnings) != 1 ||
		!strings.HasSuffix(l.Warnings[0], "spec.pods[0].pod.spec.initContainers[0].restartPolicyRules: ignored by the kubelet: the ContainerRestartRules feature gate is off") {
		t.Errorf("static pod, gate off: rules %v, warnings %q", side.RestartPolicyRules, l.Warnings)
	}
}

// A pod read from podFiles is dropped and validated the same way, positioned in its file.
func TestRestartRulesInPodFiles(t *testing.T) {
	file := "apiVersion: v1\nkind: Pod\nmetadata: {name: job}\nspec:\n  restartPolicy: Never\n  containers:\n    - name: app\n      image: busybox\n" +
		"      restartPolicy: Never\n      restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]\n"
	src := strings.Replace(good, "  pods:\n", "  podFiles: [pods/*.yaml]\n  pods:\n", 1)
	l, err := parse(t, src, map[string]string{"pods/job.yaml": file})
	if err != nil {
		t.Fatal(err)
	}
	var job *corev1.Pod
	for _, p := range l.Pods {
		if p.Pod.Name == "job" {
			job = p.Pod
		}
	}
	if job == nil || len(job.Spec.Containers[0].RestartPolicyRules) != 1 {
		t.Fatalf("the file's pod lost its rules: %+v", job)
	}
	l, err = parse(t, src+"  kubelet: "+gatesOff+"\n", map[string]string{"pods/job.yaml": file})
	if err != nil {
		t.Fatal(err)
	}
	want := "pods/job.yaml:9:22: spec.containers[0].restartPolicy: dropped by the API server: the ContainerRestartRules feature gate is off"
	if len(l.Warnings) != 2 || l.Warnings[0] != want {
		t.Errorf("warnings %q, want first %q", l.Warnings, want)
	}
	bad := strings.Replace(file, "action: Restart", "action: Retry", 1)
	if _, err := parse(t, src, map[string]string{"pods/job.yaml": bad}); err == nil ||
		!strings.Contains(err.Error(), `pods/job.yaml:10:37: spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Retry"`) {
		t.Errorf("a bad rule in a pod file: %v", err)
	}
}

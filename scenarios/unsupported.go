package scenarios

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// replicaSuffix is the "-N" a replicated entry's pods carry, or "".
func replicaSuffix(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 {
		return ""
	}
	for _, r := range name[i+1:] {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return name[i:]
}

// refuseUnsupported rejects the scenario fields whose behaviour the simulation does not
// model yet. A field is never silently ignored: either the node acts on it or the scenario
// is refused with a positioned "not supported yet" error. Each entry goes when its
// behaviour lands.
func (l *loader) refuseUnsupported() {
	no := func(path, what string) {
		l.d.ErrorAt(path, "%s: not supported yet", what)
	}
	inline := map[string]bool{}
	for _, e := range l.sc.Spec.Pods {
		inline[e.Pod.Name] = true
	}
	for _, p := range l.out.Pods {
		// Inline entries and inline workloads are checked where they are written.
		if inline[p.Pod.Name] || inline[strings.TrimSuffix(p.Pod.Name, replicaSuffix(p.Pod.Name))] || l.workloadPods[p.Key()] {
			continue
		}
		for _, c := range append(append([]corev1.Container{}, p.Pod.Spec.InitContainers...), p.Pod.Spec.Containers...) {
			if len(c.RestartPolicyRules) > 0 {
				no("spec.podFiles", fmt.Sprintf("pod %s, container %s: container restart rules (ContainerRestartRules, RestartAllContainers)", p.Key(), c.Name))
			}
		}
	}
	for i, e := range l.sc.Spec.Pods {
		for _, list := range []struct {
			field      string
			containers []corev1.Container
		}{{"containers", e.Pod.Spec.Containers}, {"initContainers", e.Pod.Spec.InitContainers}} {
			for j, c := range list.containers {
				if len(c.RestartPolicyRules) > 0 {
					no(indexPath("spec.pods", i)+indexPath(".pod.spec."+list.field, j)+".restartPolicyRules",
						"container restart rules (ContainerRestartRules, RestartAllContainers)")
				}
			}
		}
	}
}

package scenarios

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"nodesim/internal/strictyaml"
)

// Container restart policies and rules reach the node as the v1.37 control plane lets them:
// a pod from the API server first loses them when the ContainerRestartRules gate is off
// (the API server's dropDisabledPodFields), then passes pod validation
// (validateContainerRestartPolicy, validateInitContainerRestartPolicy); a static pod is only
// validated, by the kubelet's file source. nodesim has one set of feature gates, the
// kubelet's, and runs its API server with them.

// dropRestartRules does what happens to a pod's container-level restartPolicy and
// restartPolicyRules before pod validation sees them, with the ContainerRestartRules gate
// off: the API server drops them from a new pod (dropDisabledPodFields); a static pod keeps
// them, and the kubelet ignores a sidecar's rules. Validation itself is upstream's
// ValidatePodCreate, whose options carry the run's gates (admitPod). warn reports a warning
// at a path of the pod's own file.
func (l *loader) dropRestartRules(pod *corev1.Pod, specPath string, static bool, warn func(path, msg string)) {
	if l.gates().Enabled("ContainerRestartRules") {
		return
	}
	if !static {
		dropContainerRestartRules(pod, specPath, warn)
		return
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways && len(c.RestartPolicyRules) > 0 {
			warn(strictyaml.Index(specPath+".initContainers", i)+".restartPolicyRules", "ignored by the kubelet: the ContainerRestartRules feature gate is off")
		}
	}
}

// warnAt records a warning positioned at a field of the file d reads, as errors are, once
// (the replicas of one entry share their spec).
func (l *loader) warnAt(d *strictyaml.Decoder, path, msg string) {
	pos, ok := d.Positions[path]
	if !ok {
		pos = strictyaml.Pos{File: d.File}
	}
	w := (&strictyaml.Error{Pos: pos, Path: path, Msg: msg}).Error()
	for _, seen := range l.out.Warnings {
		if seen == w {
			return
		}
	}
	l.out.Warnings = append(l.out.Warnings, w)
}

// fieldError reports an upstream validation error at its field, in upstream's words.
func (l *loader) fieldError(e *field.Error) {
	l.d.ErrorAt(e.Field, "%s", e.ErrorBody())
}

// dropContainerRestartRules clears what the API server drops from a new pod while the
// ContainerRestartRules gate is off: every regular container's restartPolicy and rules, and
// an init container's rules and any restartPolicy but Always (a sidecar keeps its own). A
// warning names each dropped field, so that it is never ignored silently.
func dropContainerRestartRules(pod *corev1.Pod, specPath string, warnAt func(path, msg string)) {
	warn := func(path string) {
		warnAt(path, "dropped by the API server: the ContainerRestartRules feature gate is off")
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		path := strictyaml.Index(specPath+".initContainers", i)
		if c.RestartPolicy != nil && *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			warn(path + ".restartPolicy")
			c.RestartPolicy = nil
		}
		if len(c.RestartPolicyRules) > 0 {
			warn(path + ".restartPolicyRules")
			c.RestartPolicyRules = nil
		}
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		path := strictyaml.Index(specPath+".containers", i)
		if c.RestartPolicy != nil {
			warn(path + ".restartPolicy")
			c.RestartPolicy = nil
		}
		if len(c.RestartPolicyRules) > 0 {
			warn(path + ".restartPolicyRules")
			c.RestartPolicyRules = nil
		}
	}
}

// checkRestartRulesUnchanged refuses an update that changes a container's restartPolicy or
// restartPolicyRules: pod validation lets an update change little more than images.
func (l *loader) checkRestartRulesUnchanged(old, updated *corev1.Pod, specPath string) {
	for _, list := range []struct {
		field        string
		old, updated []corev1.Container
	}{{"initContainers", old.Spec.InitContainers, updated.Spec.InitContainers}, {"containers", old.Spec.Containers, updated.Spec.Containers}} {
		for i := range list.updated {
			c := &list.updated[i]
			for j := range list.old {
				o := &list.old[j]
				if o.Name != c.Name {
					continue
				}
				if !equality.Semantic.DeepEqual(o.RestartPolicy, c.RestartPolicy) || !equality.Semantic.DeepEqual(o.RestartPolicyRules, c.RestartPolicyRules) {
					l.fieldError(field.Forbidden(field.NewPath(strictyaml.Index(specPath+"."+list.field, i)),
						"pod updates may not change a container's restartPolicy or restartPolicyRules"))
				}
			}
		}
	}
}

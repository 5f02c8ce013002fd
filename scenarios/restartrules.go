package scenarios

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/strictyaml"
)

// Container restart policies and rules reach the node as the v1.37 control plane lets them:
// a pod from the API server first loses them when the ContainerRestartRules gate is off
// (the API server's dropDisabledPodFields), then passes pod validation
// (validateContainerRestartPolicy, validateInitContainerRestartPolicy); a static pod is only
// validated, by the kubelet's file source. nodesim has one set of feature gates, the
// kubelet's, and runs its API server with them.

// Upstream's limits on rules.
const (
	maxRestartPolicyRules = 20
	maxRuleExitCodes      = 255
)

func (l *loader) gateOn(name string) bool {
	return l.out.Gates == nil || l.out.Gates.Enabled(name)
}

// checkRestartRules drops, then validates, the container-level restartPolicy and
// restartPolicyRules of a pod whose spec is at specPath (the pod's path + ".spec").
func (l *loader) checkRestartRules(pod *corev1.Pod, specPath, source string) {
	allowRules := l.gateOn("ContainerRestartRules")
	allowRestartAll := l.gateOn("RestartAllContainersOnContainerExits")
	if !allowRules && source != api.SourceFile {
		l.dropContainerRestartRules(pod, specPath)
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		path := strictyaml.Index(specPath+".initContainers", i)
		if c.RestartPolicy == nil {
			if len(c.RestartPolicyRules) > 0 {
				l.fieldError(field.Required(field.NewPath(path+".restartPolicy"), "must specify restartPolicy when restart rules are used"))
			}
			continue
		}
		switch {
		case !allowRules && *c.RestartPolicy != corev1.ContainerRestartPolicyAlways:
			l.fieldError(field.NotSupported(field.NewPath(path+".restartPolicy"), *c.RestartPolicy, []corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways}))
		case !allowRules:
			if len(c.RestartPolicyRules) > 0 {
				// Only a static pod gets here: validation lets a sidecar's rules through,
				// and the kubelet with the gate off never reads them.
				l.warnAt(path+".restartPolicyRules", "ignored by the kubelet: the ContainerRestartRules feature gate is off")
			}
		case *c.RestartPolicy == corev1.ContainerRestartPolicyAlways && !allowRestartAll && len(c.RestartPolicyRules) > 0:
			l.fieldError(field.Forbidden(field.NewPath(path+".restartPolicyRules"), "restartPolicyRules are not allowed for init containers with restart policy Always"))
		default:
			l.validateContainerRestartPolicy(c, path, allowRestartAll)
		}
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		path := strictyaml.Index(specPath+".containers", i)
		if allowRules {
			l.validateContainerRestartPolicy(c, path, allowRestartAll)
		} else if c.RestartPolicy != nil {
			l.fieldError(field.Forbidden(field.NewPath(path+".restartPolicy"), "may not be set for non-init containers"))
		}
	}
}

// validateContainerRestartPolicy is upstream's check of one container's restartPolicy and
// restartPolicyRules, with the gates allowing rules.
func (l *loader) validateContainerRestartPolicy(c *corev1.Container, path string, allowRestartAll bool) {
	policyPath := field.NewPath(path + ".restartPolicy")
	if c.RestartPolicy == nil {
		if len(c.RestartPolicyRules) == 0 {
			return
		}
		l.fieldError(field.Required(policyPath, "must specify restartPolicy when restart rules are used"))
	} else if policies := sets.New(corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyOnFailure, corev1.ContainerRestartPolicyNever); !policies.Has(*c.RestartPolicy) {
		l.fieldError(field.NotSupported(policyPath, *c.RestartPolicy, sets.List(policies)))
	}
	rulesPath := path + ".restartPolicyRules"
	if len(c.RestartPolicyRules) > maxRestartPolicyRules {
		l.fieldError(field.TooMany(field.NewPath(rulesPath), len(c.RestartPolicyRules), maxRestartPolicyRules))
	}
	actions := sets.New(corev1.ContainerRestartRuleActionRestart)
	if allowRestartAll {
		actions.Insert(corev1.ContainerRestartRuleActionRestartAllContainers)
	}
	operators := sets.New(corev1.ContainerRestartRuleOnExitCodesOpIn, corev1.ContainerRestartRuleOnExitCodesOpNotIn)
	for i, rule := range c.RestartPolicyRules {
		rp := strictyaml.Index(rulesPath, i)
		if !actions.Has(rule.Action) {
			l.fieldError(field.NotSupported(field.NewPath(rp+".action"), rule.Action, sets.List(actions)))
		}
		if rule.ExitCodes == nil {
			l.fieldError(field.Required(field.NewPath(rp+".exitCodes"), "must be specified"))
			continue
		}
		if !operators.Has(rule.ExitCodes.Operator) {
			l.fieldError(field.NotSupported(field.NewPath(rp+".exitCodes.operator"), rule.ExitCodes.Operator, sets.List(operators)))
		}
		if n := len(rule.ExitCodes.Values); n > maxRuleExitCodes {
			l.fieldError(field.TooMany(field.NewPath(rp+".exitCodes.values"), n, maxRuleExitCodes))
		}
	}
}

// warnAt records a warning positioned at a field of the file being read, as errors are.
func (l *loader) warnAt(path, msg string) {
	pos, ok := l.d.Positions[path]
	if !ok {
		pos = strictyaml.Pos{File: l.d.File}
	}
	l.out.Warnings = append(l.out.Warnings, (&strictyaml.Error{Pos: pos, Path: path, Msg: msg}).Error())
}

// fieldError reports an upstream validation error at its field, in upstream's words.
func (l *loader) fieldError(e *field.Error) {
	l.d.ErrorAt(e.Field, "%s", e.ErrorBody())
}

// dropContainerRestartRules clears what the API server drops from a new pod while the
// ContainerRestartRules gate is off: every regular container's restartPolicy and rules, and
// an init container's rules and any restartPolicy but Always (a sidecar keeps its own). A
// warning names each dropped field, so that it is never ignored silently.
func (l *loader) dropContainerRestartRules(pod *corev1.Pod, specPath string) {
	warn := func(path string) {
		l.warnAt(path, "dropped by the API server: the ContainerRestartRules feature gate is off")
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

package scenarios

import (
	"strings"

	schedulingv1 "k8s.io/api/scheduling/v1"

	"nodesim/internal/strictyaml"
	"nodesim/internal/upstream"
)

// highestUserDefinablePriority is the largest value a PriorityClass other than the system
// ones may have (upstream's scheduling.HighestUserDefinablePriority, 10^9).
const highestUserDefinablePriority = 1000000000

// priorityClasses returns the classes pods resolve against: the built-in system classes and
// those of spec.priorityClasses, each checked once as the API server checks a PriorityClass
// on creation.
func (l *loader) priorityClasses() *upstream.PriorityClasses {
	if l.classes != nil {
		return l.classes
	}
	l.classes = upstream.NewPriorityClasses()
	for i := range l.sc.Spec.PriorityClasses {
		l.addPriorityClass(&l.sc.Spec.PriorityClasses[i], strictyaml.Index("spec.priorityClasses", i), l.d.ErrorAt)
	}
	return l.classes
}

// addPriorityClass checks a declared class as the API server checks a PriorityClass on
// creation and adds it; errors go to errorAt under path.
func (l *loader) addPriorityClass(pc *schedulingv1.PriorityClass, path string, errorAt func(path, format string, args ...any)) {
	at := func(field string) string {
		if path == "" {
			return field
		}
		if field == "" {
			return path
		}
		return path + "." + field
	}
	if pc.APIVersion != "" && pc.APIVersion != "scheduling.k8s.io/v1" {
		errorAt(at("apiVersion"), "apiVersion %q is not scheduling.k8s.io/v1", pc.APIVersion)
		return
	}
	if pc.Kind != "" && pc.Kind != "PriorityClass" {
		errorAt(at("kind"), "kind %q is not a PriorityClass", pc.Kind)
		return
	}
	if pc.Name == "" {
		errorAt(at("metadata"), "missing required field \"name\"")
		return
	}
	if msg := isDNSSubdomain(pc.Name); msg != "" {
		errorAt(at("metadata.name"), "invalid priority class name %q: %s", pc.Name, msg)
		return
	}
	if upstream.IsSystem(pc.Name) || strings.HasPrefix(pc.Name, "system-") {
		errorAt(at("metadata.name"), "priority class names with 'system-' prefix are reserved for system use only")
		return
	}
	if pc.Value > highestUserDefinablePriority {
		errorAt(at("value"), "maximum allowed value of a user defined priority is %d", highestUserDefinablePriority)
		return
	}
	if p := pc.PreemptionPolicy; p != nil && *p != "PreemptLowerPriority" && *p != "Never" {
		errorAt(at("preemptionPolicy"), "unsupported value %q: supported values: \"Never\", \"PreemptLowerPriority\"", string(*p))
		return
	}
	if err := l.priorityClasses().Add(pc); err != nil {
		errorAt(at(""), "%v", err)
	}
}

package scenarios

import (
	"strings"

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
		pc := &l.sc.Spec.PriorityClasses[i]
		path := strictyaml.Index("spec.priorityClasses", i)
		if pc.APIVersion != "" && pc.APIVersion != "scheduling.k8s.io/v1" {
			l.d.ErrorAt(path+".apiVersion", "apiVersion %q is not scheduling.k8s.io/v1", pc.APIVersion)
			continue
		}
		if pc.Kind != "" && pc.Kind != "PriorityClass" {
			l.d.ErrorAt(path+".kind", "kind %q is not a PriorityClass", pc.Kind)
			continue
		}
		if pc.Name == "" {
			l.d.ErrorAt(path+".metadata", "missing required field \"name\"")
			continue
		}
		if msg := isDNSSubdomain(pc.Name); msg != "" {
			l.d.ErrorAt(path+".metadata.name", "invalid priority class name %q: %s", pc.Name, msg)
			continue
		}
		if upstream.IsSystem(pc.Name) || strings.HasPrefix(pc.Name, "system-") {
			l.d.ErrorAt(path+".metadata.name", "priority class names with 'system-' prefix are reserved for system use only; %s is built in", pc.Name)
			continue
		}
		if pc.Value > highestUserDefinablePriority {
			l.d.ErrorAt(path+".value", "maximum allowed value of a user defined priority is %d", highestUserDefinablePriority)
			continue
		}
		if p := pc.PreemptionPolicy; p != nil && *p != "PreemptLowerPriority" && *p != "Never" {
			l.oneOf(path+".preemptionPolicy", string(*p), "PreemptLowerPriority", "Never")
			continue
		}
		if err := l.classes.Add(pc); err != nil {
			l.d.ErrorAt(path, "%v", err)
		}
	}
	return l.classes
}

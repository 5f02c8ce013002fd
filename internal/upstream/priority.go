package upstream

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingdefaults "k8s.io/kubernetes/pkg/apis/scheduling/v1"
)

// PriorityClasses is what the API server's Priority admission plugin resolves pod priorities
// against: the built-in system classes, which the API server creates at bootstrap, plus the
// PriorityClass objects a scenario declares.
type PriorityClasses struct {
	byName map[string]*schedulingv1.PriorityClass
}

// NewPriorityClasses starts from upstream's own list of system classes, defaulted as the API
// server stores them (preemptionPolicy PreemptLowerPriority).
func NewPriorityClasses() *PriorityClasses {
	pcs := &PriorityClasses{byName: map[string]*schedulingv1.PriorityClass{}}
	for _, pc := range schedulingdefaults.SystemPriorityClasses() {
		schedulingdefaults.SetObjectDefaults_PriorityClass(pc)
		pcs.byName[pc.Name] = pc
	}
	return pcs
}

// IsSystem reports whether name is one of the built-in system classes, which a scenario cannot
// redefine (the API server refuses to create a class with a system name).
func IsSystem(name string) bool {
	for _, pc := range schedulingdefaults.SystemPriorityClasses() {
		if pc.Name == name {
			return true
		}
	}
	return false
}

// Add records a declared class, defaulted as the API server defaults it. It refuses a name
// taken already and a second globalDefault class, as the plugin's validation of PriorityClass
// creation does.
func (p *PriorityClasses) Add(pc *schedulingv1.PriorityClass) error {
	if _, dup := p.byName[pc.Name]; dup {
		return fmt.Errorf("priorityclasses.scheduling.k8s.io %q already exists", pc.Name)
	}
	if pc.GlobalDefault {
		if d := p.globalDefault(); d != nil {
			return fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", d.Name)
		}
	}
	pc = pc.DeepCopy()
	schedulingdefaults.SetObjectDefaults_PriorityClass(pc)
	p.byName[pc.Name] = pc
	return nil
}

func (p *PriorityClasses) globalDefault() *schedulingv1.PriorityClass {
	names := make([]string, 0, len(p.byName))
	for n := range p.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var d *schedulingv1.PriorityClass
	for _, n := range names {
		pc := p.byName[n]
		// With more than one default (a race upstream), the lowest value wins.
		if pc.GlobalDefault && (d == nil || pc.Value < d.Value) {
			d = pc
		}
	}
	return d
}

// defaultPriorityWhenNoDefaultClass is the priority of a pod with no class when no class is
// marked globalDefault (upstream's scheduling.DefaultPriorityWhenNoDefaultClassExists).
const defaultPriorityWhenNoDefaultClass = 0

// AdmitPod does on a pod's creation what the Priority admission plugin does: it resolves
// spec.priorityClassName (or the globalDefault class when it is empty) to spec.priority and
// spec.preemptionPolicy, and refuses an unknown class or a priority or preemption policy
// that disagrees with the class. The error is the plugin's wording, as the API server
// returns it (a Forbidden status for the pod). field names the spec field at fault.
func (p *PriorityClasses) AdmitPod(pod *corev1.Pod) (field string, err error) {
	forbidden := func(format string, args ...any) error {
		return fmt.Errorf("pods %q is forbidden: %s", pod.Name, fmt.Sprintf(format, args...))
	}
	var (
		name   = pod.Spec.PriorityClassName
		value  int32
		policy *corev1.PreemptionPolicy
	)
	if name == "" {
		if d := p.globalDefault(); d != nil {
			name, value, policy = d.Name, d.Value, d.PreemptionPolicy
		} else {
			value = defaultPriorityWhenNoDefaultClass
			lower := corev1.PreemptLowerPriority
			policy = &lower
		}
	} else {
		pc, ok := p.byName[name]
		if !ok {
			return "priorityClassName", forbidden("no PriorityClass with name %v was found", name)
		}
		value, policy = pc.Value, pc.PreemptionPolicy
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != value {
		return "priority", forbidden("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, value)
	}
	if policy != nil && pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
		return "preemptionPolicy", forbidden("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *policy)
	}
	pod.Spec.PriorityClassName = name
	pod.Spec.Priority = &value
	if policy != nil {
		pp := *policy
		pod.Spec.PreemptionPolicy = &pp
	}
	return "", nil
}

package scenarios

// refuseUnsupported rejects the scenario fields whose behaviour the simulation does not
// model yet. A field is never silently ignored: either the node acts on it or the scenario
// is refused with a positioned "not supported yet" error. Each entry goes when its
// behaviour lands.
func (l *loader) refuseUnsupported() {
	no := func(path, what string) {
		l.d.ErrorAt(path, "%s: not supported yet", what)
	}
	for i, e := range l.sc.Spec.Pods {
		for j, c := range e.Pod.Spec.Containers {
			if c.Lifecycle != nil && c.Lifecycle.PostStart != nil {
				no(indexPath("spec.pods", i)+indexPath(".pod.spec.containers", j)+".lifecycle.postStart", "postStart hooks")
			}
		}
		for j, c := range e.Pod.Spec.InitContainers {
			if c.Lifecycle != nil && c.Lifecycle.PostStart != nil {
				no(indexPath("spec.pods", i)+indexPath(".pod.spec.initContainers", j)+".lifecycle.postStart", "postStart hooks")
			}
		}
	}
}

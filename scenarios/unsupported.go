package scenarios

import (
	corev1 "k8s.io/api/core/v1"

	"nodesim/internal/strictyaml"
)

// refuseUnsupported rejects the scenario fields whose behaviour the simulation does not
// model yet. A field is never silently ignored: either the node acts on it or the scenario
// is refused with a positioned "not supported yet" error. Each entry goes when its
// behaviour lands.
func (l *loader) refuseUnsupported() {
	no := func(path, what string) {
		l.d.ErrorAt(path, "%s: not supported yet", what)
	}
	s := &l.sc.Spec
	if s.Node.SystemUsage != nil {
		no("spec.node.systemUsage", "systemUsage (node memory and disk accounting)")
	}
	for i := range s.Pods {
		e := &s.Pods[i]
		p := strictyaml.Index("spec.pods", i)
		for j, c := range append(append([]corev1.Container{}, e.Pod.Spec.InitContainers...), e.Pod.Spec.Containers...) {
			cp := strictyaml.Index(p+".pod.spec.containers", j-len(e.Pod.Spec.InitContainers))
			if j < len(e.Pod.Spec.InitContainers) {
				cp = strictyaml.Index(p+".pod.spec.initContainers", j)
			}
			if c.Lifecycle != nil && c.Lifecycle.PostStart != nil {
				no(cp+".lifecycle.postStart", "postStart hooks")
			}
		}
		for _, name := range sortedKeys(e.Behavior) {
			b := e.Behavior[name]
			bp := strictyaml.Join(p+".behavior", name)
			all := append([]*behaviorView{{b.Memory != nil, b.Disk != nil, b.Volumes != nil, b.Pids != nil, b.Probes != nil, bp}}, nil...)
			for k, r := range b.Runs {
				all = append(all, &behaviorView{r.Memory != nil, r.Disk != nil, r.Volumes != nil, r.Pids != nil, r.Probes != nil, strictyaml.Index(bp+".runs", k)})
			}
			for _, v := range all {
				if v.memory {
					no(v.path+".memory", "memory usage programs")
				}
				if v.disk {
					no(v.path+".disk", "disk usage programs")
				}
				if v.volumes {
					no(v.path+".volumes", "emptyDir usage programs")
				}
				if v.pids {
					no(v.path+".pids", "PID usage programs")
				}
			}
		}
	}
	for i, e := range s.Events {
		p := strictyaml.Index("spec.events", i)
		switch {
		case e.SetUsage != nil:
			no(p+".setUsage", "setUsage events")
		case e.SetSystemUsage != nil:
			no(p+".setSystemUsage", "setSystemUsage events")
		}
	}
	for i, x := range s.Expect {
		p := strictyaml.Index("spec.expect", i)
		switch {
		case x.Evicted != nil:
			no(p+".evicted", "eviction expectations")
		case x.NotEvicted != nil:
			no(p+".notEvicted", "eviction expectations")
		case x.OOMKilled != nil:
			no(p+".oomKilled", "OOM-kill expectations")
		}
	}
}

type behaviorView struct {
	memory, disk, volumes, pids, probes bool
	path                                string
}

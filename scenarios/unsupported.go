package scenarios

import (
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
	if len(s.Runtime.Failures) > 0 {
		no("spec.runtime.failures", "injected CRI failures")
	}
	for i := range s.Pods {
		e := &s.Pods[i]
		p := strictyaml.Index("spec.pods", i)
		if e.Source == "file" {
			no(p+".source", "static pods (source: file)")
		}
		if len(e.Pod.Spec.InitContainers) > 0 {
			no(p+".pod.spec.initContainers", "init containers")
		}
		for j, c := range e.Pod.Spec.Containers {
			cp := strictyaml.Index(p+".pod.spec.containers", j)
			if c.LivenessProbe != nil {
				no(cp+".livenessProbe", "liveness probes")
			}
			if c.ReadinessProbe != nil {
				no(cp+".readinessProbe", "readiness probes")
			}
			if c.StartupProbe != nil {
				no(cp+".startupProbe", "startup probes")
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
				if v.probes {
					no(v.path+".probes", "probe scripts")
				}
			}
		}
	}
	for i, e := range s.Events {
		p := strictyaml.Index("spec.events", i)
		switch {
		case e.UpdatePod != "":
			no(p+".updatePod", "updatePod events")
		case e.SetUsage != nil:
			no(p+".setUsage", "setUsage events")
		case e.SetSystemUsage != nil:
			no(p+".setSystemUsage", "setSystemUsage events")
		case e.RestartKubelet != nil:
			no(p+".restartKubelet", "restartKubelet events")
		case e.RuntimeDown != nil:
			no(p+".runtimeDown", "runtimeDown events")
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
		case x.AdmissionRejected != nil:
			no(p+".admissionRejected", "admission expectations")
		case x.NodeCondition != nil:
			no(p+".nodeCondition", "node condition expectations")
		}
	}
}

type behaviorView struct {
	memory, disk, volumes, pids, probes bool
	path                                string
}

package scenarios

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/strictyaml"
)

func (l *loader) checkNode() {
	n := &l.sc.Spec.Node
	p := "spec.node"
	if n.Name != "" {
		if msg := isDNSSubdomain(n.Name); msg != "" {
			l.d.ErrorAt(p+".name", "invalid node name %q: %s", n.Name, msg)
		}
	}
	for _, name := range sortedKeys(n.Capacity) {
		q := n.Capacity[corev1.ResourceName(name)]
		switch corev1.ResourceName(name) {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods:
		default:
			if !strings.Contains(name, "/") && !strings.HasPrefix(name, "hugepages-") {
				l.d.ErrorAt(strictyaml.Join(p+".capacity", name), "unknown resource %q%s", name,
					suggestion(name, []string{"cpu", "memory", "ephemeral-storage", "pods"}))
				continue
			}
		}
		if q.Sign() <= 0 {
			l.d.ErrorAt(strictyaml.Join(p+".capacity", name), "capacity of %s must be positive", name)
		}
		if corev1.ResourceName(name) == corev1.ResourcePods && l.out.Kubelet != nil && q.Value() != int64(l.out.Kubelet.MaxPods) {
			l.d.ErrorAt(strictyaml.Join(p+".capacity", name), "the node's pod capacity is the kubelet's maxPods (%d here), as the kubelet reports it; set spec.kubelet.maxPods instead", l.out.Kubelet.MaxPods)
		}
	}
	if n.Inodes != nil && *n.Inodes <= 0 {
		l.d.ErrorAt(p+".inodes", "inodes must be positive")
	}
	if n.Pids != nil && *n.Pids <= 0 {
		l.d.ErrorAt(p+".pids", "pids must be positive")
	}
	switch n.CgroupVersion {
	case "", api.CgroupV1, api.CgroupV2:
	default:
		l.oneOf(p+".cgroupVersion", n.CgroupVersion, api.CgroupV1, api.CgroupV2)
	}
	switch n.ImageFs {
	case "", api.ImageFsShared:
		if n.ImageFsCapacity != nil {
			l.d.ErrorAt(p+".imageFsCapacity", "imageFsCapacity goes with imageFs: separate")
		}
	case api.ImageFsSeparate:
		if n.ImageFsCapacity == nil {
			l.d.ErrorAt(p, "imageFs: separate needs imageFsCapacity")
		}
	default:
		l.oneOf(p+".imageFs", n.ImageFs, api.ImageFsShared, api.ImageFsSeparate)
	}
}

// criCalls are the calls of the fake runtime that can be slowed or made to fail.
func criCalls() []string {
	return []string{"runPodSandbox", "stopPodSandbox", "removePodSandbox", "createContainer",
		"startContainer", "stopContainer", "removeContainer", "pullImage", "listPodSandbox",
		"listContainers", "containerStatus", "podSandboxStatus"}
}

func (l *loader) checkRuntime() {
	r := &l.sc.Spec.Runtime
	if r.PullBandwidth != nil && r.PullBandwidth.Sign() <= 0 {
		l.d.ErrorAt("spec.runtime.pullBandwidth", "pullBandwidth must be positive")
	}
	seen := map[string]bool{}
	for i, img := range r.Images {
		ip := strictyaml.Index("spec.runtime.images", i)
		if img.Name == "" {
			l.d.ErrorAt(ip, "missing required field \"name\"")
			continue
		}
		if seen[img.Name] {
			l.d.ErrorAt(ip+".name", "duplicate image %q", img.Name)
		}
		seen[img.Name] = true
		if img.Size != nil && img.Size.Sign() < 0 {
			l.d.ErrorAt(ip+".size", "size must not be negative")
		}
	}
	for i, f := range r.Failures {
		fp := strictyaml.Index("spec.runtime.failures", i)
		if f.Call == "" {
			l.d.ErrorAt(fp, "missing required field \"call\"")
		} else if !contains(criCalls(), f.Call) {
			l.oneOf(fp+".call", f.Call, criCalls()...)
		}
		if f.Error == "" {
			l.d.ErrorAt(fp, "missing required field \"error\" (the message the call fails with)")
		}
		if f.Image != "" && f.Call != "pullImage" {
			l.d.ErrorAt(fp+".image", "image goes with call: pullImage")
		}
		if f.From != nil && f.To != nil && f.To.Duration <= f.From.Duration {
			l.d.ErrorAt(fp+".to", "to (%s) must be after from (%s)", f.To.Duration, f.From.Duration)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// podRef checks a namespace/name reference to a scenario pod and returns it.
func (l *loader) podRef(path, ref string) *Pod {
	if ref == "" {
		l.d.ErrorAt(path, "missing pod (namespace/name)")
		return nil
	}
	key := ref
	if !strings.Contains(ref, "/") {
		key = "default/" + ref
	}
	if p, ok := l.pods[key]; ok {
		return p
	}
	known := sortedKeys(l.pods)
	l.d.ErrorAt(path, "no pod %s in this scenario%s", key, suggestion(key, known))
	return nil
}

func (l *loader) containerRef(path string, p *Pod, name string) {
	if p == nil {
		return
	}
	if name == "" {
		l.d.ErrorAt(path, "missing container name")
		return
	}
	var names []string
	for _, list := range [][]corev1.Container{p.Pod.Spec.InitContainers, p.Pod.Spec.Containers} {
		for _, c := range list {
			if c.Name == name {
				return
			}
			names = append(names, c.Name)
		}
	}
	l.d.ErrorAt(path, "pod %s has no container %q%s", p.Key(), name, suggestion(name, names))
}

func (l *loader) checkEvents() {
	for i := range l.sc.Spec.Events {
		e := &l.sc.Spec.Events[i]
		p := strictyaml.Index("spec.events", i)
		n := l.item(i, "spec", "events")
		if lookup(n, "at") == nil {
			l.required(p, "at", " (when the event happens)")
		}
		actions := actionKeys(n, "deletePod", "updatePod", "setUsage", "setSystemUsage", "restartKubelet", "runtimeDown")
		if len(actions) != 1 {
			l.d.ErrorAt(p, "an event needs exactly one of deletePod, updatePod, setUsage, setSystemUsage, restartKubelet, runtimeDown; got %d", len(actions))
			continue
		}
		if e.GracePeriodSeconds != nil && e.DeletePod == "" {
			l.d.ErrorAt(p+".gracePeriodSeconds", "gracePeriodSeconds goes with deletePod")
		}
		if e.Pod != nil && e.UpdatePod == "" {
			l.d.ErrorAt(p+".pod", "pod goes with updatePod")
		}
		switch actions[0] {
		case "deletePod":
			l.podRef(p+".deletePod", e.DeletePod)
			if g := e.GracePeriodSeconds; g != nil && *g < 0 {
				l.d.ErrorAt(p+".gracePeriodSeconds", "gracePeriodSeconds must not be negative")
			}
		case "updatePod":
			target := l.podRef(p+".updatePod", e.UpdatePod)
			if e.Pod == nil {
				l.required(p, "pod", " (the changed v1.Pod)")
			} else if target != nil {
				if e.Pod.Name == "" {
					e.Pod.Name = target.Pod.Name
				}
				if e.Pod.Namespace == "" {
					e.Pod.Namespace = target.Pod.Namespace
				}
				if e.Pod.Name != target.Pod.Name || e.Pod.Namespace != target.Pod.Namespace {
					l.d.ErrorAt(p+".pod.metadata", "the updated pod must keep the name %s", target.Key())
				}
				e.Pod.UID = target.Pod.UID
				e.Pod.CreationTimestamp = target.Pod.CreationTimestamp
				l.admitUpdate(e.Pod, target.Source == api.SourceFile, prefixMapper(p+".pod"))
				l.checkRestartRulesUnchanged(target.Pod, e.Pod, p+".pod.spec")
			}
		case "setUsage":
			target := l.podRef(p+".setUsage.pod", e.SetUsage.Pod)
			l.containerRef(p+".setUsage.container", target, e.SetUsage.Container)
		case "restartKubelet":
			if !*e.RestartKubelet {
				l.d.ErrorAt(p+".restartKubelet", "restartKubelet: false does nothing; remove the event")
			}
		case "runtimeDown":
			if e.RuntimeDown.Duration <= 0 {
				l.d.ErrorAt(p+".runtimeDown", "runtimeDown must be a positive duration")
			}
		}
		if e.At.Duration > l.sc.Spec.Duration.Duration && l.sc.Spec.Duration.Duration > 0 {
			l.d.ErrorAt(p+".at", "event at %s is after the end of the run (%s)", e.At.Duration, l.sc.Spec.Duration.Duration)
		}
	}
}

// actionKeys returns which of the given keys a mapping has.
func actionKeys(n *yaml.Node, keys ...string) []string {
	var got []string
	for _, k := range keys {
		if lookup(n, k) != nil {
			got = append(got, k)
		}
	}
	return got
}

// LatencyMetrics are the latency metrics an expectation may bound.
func LatencyMetrics() []string {
	return []string{"podStartup", "podStartupWithPulls", "containerRestart", "probeFailureToRestart",
		"evictionDetection", "evictionCompletion", "podTermination", "plegRelist", "plegRelistInterval",
		"podWorkerSync", "syncLoopIterationWait"}
}

// CountMetrics are the run-wide counters an expectation may bound.
func CountMetrics() []string {
	return []string{"evictions", "nodeOOMKills", "cgroupOOMKills", "oomKills", "restarts",
		"admissionRejections", "plegDiscardedEvents", "podsStarted", "podsTerminated", "containersStarted"}
}

func (l *loader) checkExpectations() {
	kinds := []string{"evicted", "notEvicted", "oomKilled", "restarts", "phase", "admissionRejected", "nodeCondition", "latency", "count"}
	for i := range l.sc.Spec.Expect {
		x := &l.sc.Spec.Expect[i]
		p := strictyaml.Index("spec.expect", i)
		n := l.item(i, "spec", "expect")
		if got := actionKeys(n, kinds...); len(got) != 1 {
			l.d.ErrorAt(p, "an expectation has exactly one of %s; got %d", strings.Join(kinds, ", "), len(got))
			continue
		}
		switch {
		case x.Evicted != nil:
			if len(x.Evicted.Pods) == 0 {
				l.d.ErrorAt(p+".evicted", "missing required field \"pods\"")
			}
			for j, ref := range x.Evicted.Pods {
				l.podRef(strictyaml.Index(p+".evicted.pods", j), ref)
			}
			switch x.Evicted.Order {
			case "", "strict", "any":
			default:
				l.oneOf(p+".evicted.order", x.Evicted.Order, "strict", "any")
			}
		case x.NotEvicted != nil:
			for j, ref := range x.NotEvicted {
				l.podRef(strictyaml.Index(p+".notEvicted", j), ref)
			}
		case x.OOMKilled != nil:
			l.checkCount(p+".oomKilled", x.OOMKilled)
		case x.Restarts != nil:
			l.checkCount(p+".restarts", x.Restarts)
		case x.Phase != nil:
			l.podRef(p+".phase.pod", x.Phase.Pod)
			switch x.Phase.Is {
			case corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed:
			default:
				l.oneOf(p+".phase.is", string(x.Phase.Is), "Pending", "Running", "Succeeded", "Failed")
			}
		case x.AdmissionRejected != nil:
			for j, ref := range x.AdmissionRejected.Pods {
				l.podRef(strictyaml.Index(p+".admissionRejected.pods", j), ref)
			}
		case x.NodeCondition != nil:
			nc := x.NodeCondition
			switch nc.Type {
			case corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure:
			default:
				l.oneOf(p+".nodeCondition.type", string(nc.Type), "Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
			}
			switch nc.Status {
			case corev1.ConditionTrue, corev1.ConditionFalse:
			default:
				l.oneOf(p+".nodeCondition.status", string(nc.Status), "True", "False")
			}
		case x.Latency != nil:
			if !contains(LatencyMetrics(), x.Latency.Metric) {
				l.oneOf(p+".latency.metric", x.Latency.Metric, LatencyMetrics()...)
			}
			if x.Latency.Percentile <= 0 || x.Latency.Percentile > 100 {
				l.d.ErrorAt(p+".latency.percentile", "percentile must be in (0, 100], got %g", x.Latency.Percentile)
			}
			if lookup(n, "latency", "max") == nil {
				l.d.ErrorAt(p+".latency", "missing required field \"max\"")
			}
		case x.Count != nil:
			if !contains(CountMetrics(), x.Count.Metric) {
				l.oneOf(p+".count.metric", x.Count.Metric, CountMetrics()...)
			}
			if x.Count.Min == nil && x.Count.Max == nil {
				l.d.ErrorAt(p+".count", "a count needs min, max or both")
			}
		}
	}
}

func (l *loader) checkCount(p string, c *api.ExpectContainerCount) {
	pod := l.podRef(p+".pod", c.Pod)
	if c.Container != "" {
		l.containerRef(p+".container", pod, c.Container)
	}
	if c.Min == nil && c.Max == nil {
		l.d.ErrorAt(p, "needs min, max or both")
	}
	if c.Min != nil && c.Max != nil && *c.Min > *c.Max {
		l.d.ErrorAt(p, "min %d is above max %d", *c.Min, *c.Max)
	}
	if c.Min != nil && *c.Min < 0 {
		l.d.ErrorAt(p+".min", "min must not be negative")
	}
}

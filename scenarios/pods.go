package scenarios

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/strictyaml"
)

func isDNSLabel(s string) string {
	return strings.Join(validation.IsDNS1123Label(s), "; ")
}

func isDNSSubdomain(s string) string {
	return strings.Join(validation.IsDNS1123Subdomain(s), "; ")
}

// loadPods expands replicas and workloads into pods and admits each as the API server (or,
// for static pods, the kubelet's file source) would.
func (l *loader) loadPods() {
	l.pods = map[string]*Pod{}
	l.priorityClasses()
	filePods := l.readPodFiles()
	for i := range l.sc.Spec.Pods {
		e := &l.sc.Spec.Pods[i]
		path := strictyaml.Index("spec.pods", i)
		source := e.Source
		switch source {
		case "":
			source = api.SourceAPI
		case api.SourceAPI, api.SourceFile:
		default:
			l.oneOf(path+".source", e.Source, api.SourceAPI, api.SourceFile)
		}
		w, ok := l.entryWorkload(i, path)
		if !ok {
			continue
		}
		if w != nil {
			l.loadWorkload(e, w, path)
			continue
		}
		replicas := 1
		if e.Replicas != nil {
			if *e.Replicas < 1 || *e.Replicas > 1000 {
				l.d.ErrorAt(path+".replicas", "replicas must be between 1 and 1000, got %d", *e.Replicas)
				continue
			}
			replicas = int(*e.Replicas)
		}
		if source == api.SourceFile && e.Pod.Name == "" {
			// The kubelet's file source refuses a static pod without a name before it
			// defaults anything.
			l.required(path+".pod.metadata", "name", " (invalid pod: name is needed for the pod)")
			continue
		}
		errorAt := dedupErrors(l.d.ErrorAt)
		admitted := true
		for r := 0; r < replicas; r++ {
			pod := e.Pod.DeepCopy()
			if e.Replicas != nil && pod.Name != "" {
				pod.Name = fmt.Sprintf("%s-%d", e.Pod.Name, r)
			}
			if source == api.SourceFile {
				// The kubelet's file source names a static pod after its node.
				pod.Name += "-" + l.nodeName()
			}
			p := Pod{At: e.At.Duration, Source: source, Pod: pod, Behavior: e.Behavior}
			if !l.addPod(p, path+".pod.metadata.name", prefixMapper(path+".pod"), errorAt) {
				admitted = false
				break
			}
		}
		if admitted {
			l.checkBehavior(e, path)
		}
	}
	l.loadPodFiles(filePods)
}

func (l *loader) nodeName() string {
	if n := l.sc.Spec.Node.Name; n != "" {
		return n
	}
	return api.DefaultNodeName
}

// addPod admits a pod (admitPod) and records it, refusing a duplicate name. Errors about the
// pod go to errorAt at the paths mapPath gives (the pod may come from another file than the
// scenario). It reports whether the pod was admitted.
func (l *loader) addPod(p Pod, namePath string, mapPath pathMapper, errorAt func(path, format string, args ...any)) bool {
	if !l.admitPod(&p, mapPath, errorAt) {
		return false
	}
	key := p.Key()
	if _, dup := l.pods[key]; dup {
		l.d.ErrorAt(namePath, "duplicate pod %s", key)
		return false
	}
	l.out.Pods = append(l.out.Pods, p)
	l.pods[key] = &l.out.Pods[len(l.out.Pods)-1]
	return true
}

// checkBehavior checks that behaviour keys name containers and volumes of the pod.
func (l *loader) checkBehavior(e *api.PodEntry, path string) {
	containers := map[string]bool{}
	var names []string
	for _, list := range [][]corev1.Container{e.Pod.Spec.InitContainers, e.Pod.Spec.Containers} {
		for _, c := range list {
			containers[c.Name] = true
			names = append(names, c.Name)
		}
	}
	volumes := map[string]bool{}
	var volNames []string
	for _, v := range e.Pod.Spec.Volumes {
		if v.EmptyDir != nil {
			volumes[v.Name] = true
			volNames = append(volNames, v.Name)
		}
	}
	for _, name := range sortedKeys(e.Behavior) {
		bp := strictyaml.Join(path+".behavior", name)
		if name != "*" && !containers[name] {
			l.d.ErrorAt(bp, "behavior for %q names no container of pod %s%s", name, e.Pod.Name, suggestion(name, names))
			continue
		}
		b := e.Behavior[name]
		hasPostStart := false
		for _, list := range [][]corev1.Container{e.Pod.Spec.InitContainers, e.Pod.Spec.Containers} {
			for _, c := range list {
				if (name == "*" || c.Name == name) && c.Lifecycle != nil && c.Lifecycle.PostStart != nil {
					hasPostStart = true
				}
			}
		}
		check := func(b api.Behavior, bp string) {
			if b.PostStart != nil && !hasPostStart {
				l.d.ErrorAt(bp+".postStart", "postStart: container %q has no lifecycle.postStart hook to run", name)
			}
			for _, v := range sortedKeys(b.Volumes) {
				if !volumes[v] {
					l.d.ErrorAt(strictyaml.Join(bp+".volumes", v), "volumes: %q is not an emptyDir volume of pod %s%s", v, e.Pod.Name, suggestion(v, volNames))
				}
			}
			if b.Exit != nil && b.Exit.Code < 0 || b.Exit != nil && b.Exit.Code > 255 {
				l.d.ErrorAt(bp+".exit.code", "exit code must be between 0 and 255, got %d", b.Exit.Code)
			}
			if b.Probes != nil {
				l.checkProbeScripts(e, name, b.Probes, bp+".probes")
			}
		}
		check(b, bp)
		for i, r := range b.Runs {
			if len(r.Runs) > 0 {
				l.d.ErrorAt(strictyaml.Index(bp+".runs", i)+".runs", "runs cannot be nested")
			}
			check(r, strictyaml.Index(bp+".runs", i))
		}
	}
}

// checkProbeScripts checks that a probe script has a probe to drive and valid steps.
func (l *loader) checkProbeScripts(e *api.PodEntry, name string, ps *api.ProbeScripts, path string) {
	var specs []corev1.Container
	for _, c := range append(append([]corev1.Container{}, e.Pod.Spec.InitContainers...), e.Pod.Spec.Containers...) {
		if name == "*" || c.Name == name {
			specs = append(specs, c)
		}
	}
	for _, pt := range []struct {
		name  string
		steps []api.ProbeStep
		has   func(*corev1.Container) bool
	}{
		{"liveness", ps.Liveness, func(c *corev1.Container) bool { return c.LivenessProbe != nil }},
		{"readiness", ps.Readiness, func(c *corev1.Container) bool { return c.ReadinessProbe != nil }},
		{"startup", ps.Startup, func(c *corev1.Container) bool { return c.StartupProbe != nil }},
	} {
		if len(pt.steps) == 0 {
			continue
		}
		any := false
		for i := range specs {
			if pt.has(&specs[i]) {
				any = true
			}
		}
		pp := path + "." + pt.name
		if !any {
			l.d.ErrorAt(pp, "a %s script, but container %q has no %sProbe", pt.name, name, pt.name)
		}
		for i, st := range pt.steps {
			sp := strictyaml.Index(pp, i)
			switch st.Result {
			case "", api.ProbeSuccess, api.ProbeFailure:
			default:
				l.oneOf(sp+".result", st.Result, api.ProbeSuccess, api.ProbeFailure)
			}
			if st.Result == "" && st.Latency == nil {
				l.d.ErrorAt(sp, "a probe step needs a result (success or failure) or a latency")
			}
			if st.From != nil && st.To != nil && st.To.Duration <= st.From.Duration {
				l.d.ErrorAt(sp+".to", "to (%s) must be after from (%s)", st.To.Duration, st.From.Duration)
			}
		}
	}
}

// filePod is a pod read from a podFiles entry, kept until every file's PriorityClass objects
// are known.
type filePod struct {
	pod    *corev1.Pod
	d      *strictyaml.Decoder
	prefix string // where the pod is written in its document ("" or "items[3]")
	entry  string
	// A pod made from a workload: when it is delivered, and where its errors go (its
	// workload's template, each problem once for all the workload's pods).
	at      time.Duration
	mapPath pathMapper
	errorAt func(path, format string, args ...any)
}

// podList is a v1 List or PodList, as `kubectl get pods -o yaml` writes it.
type podList struct {
	APIVersion string          `json:"apiVersion,omitempty"`
	Kind       string          `json:"kind,omitempty"`
	Metadata   metav1.ListMeta `json:"metadata,omitempty"`
	Items      []corev1.Pod    `json:"items"`
}

// readPodFiles reads the files named by spec.podFiles: each may hold several YAML documents,
// each a Pod, a List or PodList of pods, or a scheduling.k8s.io/v1 PriorityClass. Classes are
// added at once; pods are returned for loadPodFiles to admit once all classes are known.
func (l *loader) readPodFiles() []filePod {
	var out []filePod
	for i, pattern := range l.sc.Spec.PodFiles {
		path := strictyaml.Index("spec.podFiles", i)
		if l.glob == nil || l.read == nil {
			l.d.ErrorAt(path, "cannot read %q: this scenario has no directory to read files from", pattern)
			continue
		}
		files, err := l.glob(pattern)
		if err != nil {
			l.d.ErrorAt(path, "bad pattern %q: %v", pattern, err)
			continue
		}
		if len(files) == 0 {
			l.d.ErrorAt(path, "%q matches no file", pattern)
			continue
		}
		for _, f := range files {
			data, err := l.read(f)
			if err != nil {
				l.d.ErrorAt(path, "cannot read %s: %v", f, unwrapPathError(err))
				continue
			}
			roots, err := strictyaml.ParseDocuments(f, data)
			if err != nil {
				l.extraErr(err)
				continue
			}
			for _, root := range roots {
				// One decoder per document: positions are recorded by field path.
				d := newDecoder(f)
				kind := ""
				if k := lookup(root, "kind"); k != nil {
					kind = k.Value
				}
				switch kind {
				case "List", "PodList":
					if kind == "List" && listHasWorkloads(root) {
						out = append(out, l.fileListItems(d, root, path)...)
						break
					}
					list := &podList{}
					d.Decode(root, "", list)
					for j := range list.Items {
						ip := strictyaml.Index("items", j)
						pod := &list.Items[j]
						if pod.Kind != "" && pod.Kind != "Pod" {
							d.ErrorAt(ip+".kind", "kind %q is not a Pod", pod.Kind)
							continue
						}
						out = append(out, l.filePod(d, pod, ip, path)...)
					}
				case "PriorityClass":
					pc := &schedulingv1.PriorityClass{}
					d.Decode(root, "", pc)
					if len(d.Errors) == 0 {
						l.addPriorityClass(pc, "", d.ErrorAt)
					}
				case "", "Pod":
					pod := &corev1.Pod{}
					d.Decode(root, "", pod)
					out = append(out, l.filePod(d, pod, "", path)...)
				default:
					if wk, ok := workloadByKind(kind); ok {
						out = append(out, l.fileWorkload(d, root, "", wk, path)...)
						break
					}
					d.Errorf(lookup(root, "kind"), "kind", "kind %q is not a Pod, List, PodList, PriorityClass, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob", kind)
				}
				l.extra = append(l.extra, d.Errors...)
			}
		}
	}
	return out
}

// filePod keeps one pod of a file for admission, dropping what the API server sets itself,
// as re-creating the pod from a `kubectl get -o yaml` dump does: status, uid,
// resourceVersion, generation, creationTimestamp, deletion fields, managedFields, selfLink,
// and spec.nodeName (the pod is bound to the simulated node).
func (l *loader) filePod(d *strictyaml.Decoder, pod *corev1.Pod, prefix, entry string) []filePod {
	if len(d.Errors) > 0 {
		return nil
	}
	// A pod file's pods come from the API server: the drop is positioned in the file.
	l.dropRestartRules(pod, prefixMapper(prefix)("spec"), false, func(path, msg string) { l.warnAt(d, path, msg) })
	DropServerFields(pod)
	// The same bounds as an inline pod's seconds counts (checkGraceSeconds).
	maxSecs := int64(MaxDuration / time.Second)
	sp := prefixMapper(prefix)("spec")
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && *g > maxSecs {
		d.ErrorAt(sp+".terminationGracePeriodSeconds", "terminationGracePeriodSeconds %d is out of range (at most %d, a year)", *g, maxSecs)
		return nil
	}
	if a := pod.Spec.ActiveDeadlineSeconds; a != nil && *a > maxSecs {
		d.ErrorAt(sp+".activeDeadlineSeconds", "activeDeadlineSeconds %d is out of range (at most %d, a year)", *a, maxSecs)
		return nil
	}
	return []filePod{{pod: pod, d: d, prefix: prefix, entry: entry}}
}

// loadPodFiles admits the pods read from spec.podFiles, each delivered at 0s with no
// behaviour.
func (l *loader) loadPodFiles(pods []filePod) {
	for _, fp := range pods {
		n := len(fp.d.Errors)
		mapPath, errorAt := fp.mapPath, fp.errorAt
		if mapPath == nil {
			mapPath, errorAt = prefixMapper(fp.prefix), fp.d.ErrorAt
		}
		l.addPod(Pod{At: fp.at, Source: api.SourceAPI, Pod: fp.pod}, fp.entry, mapPath, errorAt)
		l.extra = append(l.extra, fp.d.Errors[n:]...)
	}
}

// DropServerFields clears what the API server sets on a pod itself, so that a pod as the API
// server returned it (a `kubectl get -o yaml` dump, a live node's capture) can be created
// again: status, uid, resourceVersion, generation, creationTimestamp, the deletion fields,
// managedFields, selfLink, and spec.nodeName (the pod is bound to the simulated node).
func DropServerFields(pod *corev1.Pod) {
	pod.Status = corev1.PodStatus{}
	pod.UID = ""
	pod.ResourceVersion = ""
	pod.Generation = 0
	pod.CreationTimestamp = metav1.Time{}
	pod.DeletionTimestamp = nil
	pod.DeletionGracePeriodSeconds = nil
	pod.ManagedFields = nil
	pod.SelfLink = ""
	pod.Spec.NodeName = ""
}

package scenarios

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/strictyaml"
	"nodesim/sim"
)

func isDNSLabel(s string) string {
	return strings.Join(validation.IsDNS1123Label(s), "; ")
}

func isDNSSubdomain(s string) string {
	return strings.Join(validation.IsDNS1123Subdomain(s), "; ")
}

// loadPods expands replicas, applies the API server's defaults and checks each pod.
func (l *loader) loadPods() {
	l.pods = map[string]*Pod{}
	l.priorityClasses()
	filePods := l.readPodFiles()
	for i := range l.sc.Spec.Pods {
		e := &l.sc.Spec.Pods[i]
		path := strictyaml.Index("spec.pods", i)
		switch e.Source {
		case "", api.SourceAPI, api.SourceFile:
		default:
			l.oneOf(path+".source", e.Source, api.SourceAPI, api.SourceFile)
		}
		if lookup(l.item(i, "spec", "pods"), "pod") == nil {
			l.required(path, "pod", " (a v1.Pod manifest)")
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
		if !l.checkPodSpec(&e.Pod, path+".pod") {
			continue
		}
		source := e.Source
		if source == "" {
			source = api.SourceAPI
		}
		l.checkRestartRules(&e.Pod, path+".pod.spec", source)
		l.checkBehavior(e, path)
		for r := 0; r < replicas; r++ {
			pod := e.Pod.DeepCopy()
			if e.Replicas != nil {
				pod.Name = fmt.Sprintf("%s-%d", e.Pod.Name, r)
			}
			if source == api.SourceFile {
				// The kubelet's file source names a static pod after its node.
				pod.Name += "-" + l.nodeName()
			}
			p := Pod{At: e.At.Duration, Source: source, Pod: pod, Behavior: e.Behavior}
			l.addPod(p, path+".pod.metadata.name", path+".pod.spec", l.d.ErrorAt)
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

// addPod defaults a pod, resolves its priority as the API server's Priority admission does,
// and records it, refusing a duplicate name. Errors about the spec go to errorAt under
// specPath (the pod may come from another file than the scenario).
func (l *loader) addPod(p Pod, namePath, specPath string, errorAt func(path, format string, args ...any)) {
	DefaultPod(p.Pod, p.At)
	// Static pods never pass through the API server's admission; the kubelet treats them as
	// critical on its own.
	if p.Source == api.SourceAPI {
		if field, err := l.priorityClasses().AdmitPod(p.Pod); err != nil {
			errorAt(specPath+"."+field, "%v", err)
			return
		}
	}
	key := p.Key()
	if _, dup := l.pods[key]; dup {
		l.d.ErrorAt(namePath, "duplicate pod %s", key)
		return
	}
	if len(p.Pod.Name) > 253 {
		l.d.ErrorAt(namePath, "pod name %q is too long", p.Pod.Name)
	}
	l.out.Pods = append(l.out.Pods, p)
	l.pods[key] = &l.out.Pods[len(l.out.Pods)-1]
}

// checkPodSpec checks what the kubelet needs of a manifest; it reports whether the pod is
// usable at all.
func (l *loader) checkPodSpec(pod *corev1.Pod, path string) bool {
	ok := true
	if pod.Name == "" {
		l.d.ErrorAt(path+".metadata", "missing required field \"name\"")
		ok = false
	} else if msg := isDNSSubdomain(pod.Name); msg != "" {
		l.d.ErrorAt(path+".metadata.name", "invalid pod name %q: %s", pod.Name, msg)
		ok = false
	}
	if pod.Namespace != "" {
		if msg := isDNSLabel(pod.Namespace); msg != "" {
			l.d.ErrorAt(path+".metadata.namespace", "invalid namespace %q: %s", pod.Namespace, msg)
		}
	}
	if len(pod.Spec.Containers) == 0 {
		l.d.ErrorAt(path+".spec", "a pod needs at least one container in spec.containers")
		return false
	}
	names := map[string]bool{}
	check := func(list []corev1.Container, field string) {
		for i := range list {
			c := &list[i]
			cp := strictyaml.Index(path+".spec."+field, i)
			if c.Name == "" {
				l.d.ErrorAt(cp, "missing required field \"name\"")
				ok = false
				continue
			}
			if msg := isDNSLabel(c.Name); msg != "" {
				l.d.ErrorAt(cp+".name", "invalid container name %q: %s", c.Name, msg)
			}
			if names[c.Name] {
				l.d.ErrorAt(cp+".name", "duplicate container name %q", c.Name)
			}
			names[c.Name] = true
			if c.Image == "" {
				l.d.ErrorAt(cp, "missing required field \"image\"")
			}
			switch c.ImagePullPolicy {
			case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
			default:
				l.oneOf(cp+".imagePullPolicy", string(c.ImagePullPolicy), string(corev1.PullAlways), string(corev1.PullIfNotPresent), string(corev1.PullNever))
			}
			for name, lim := range c.Resources.Limits {
				if req, has := c.Resources.Requests[name]; has && req.Cmp(lim) > 0 {
					l.d.ErrorAt(cp+".resources.requests."+string(name), "request %s is above the limit %s", req.String(), lim.String())
				}
			}
			for _, list := range []corev1.ResourceList{c.Resources.Limits, c.Resources.Requests} {
				for name, q := range list {
					if q.Sign() < 0 {
						l.d.ErrorAt(cp+".resources", "%s must not be negative", name)
					}
				}
			}
			l.checkProbe(c.LivenessProbe, cp+".livenessProbe", true)
			l.checkProbe(c.ReadinessProbe, cp+".readinessProbe", false)
			l.checkProbe(c.StartupProbe, cp+".startupProbe", true)
		}
	}
	check(pod.Spec.InitContainers, "initContainers")
	check(pod.Spec.Containers, "containers")
	switch pod.Spec.RestartPolicy {
	case "", corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	default:
		l.oneOf(path+".spec.restartPolicy", string(pod.Spec.RestartPolicy), string(corev1.RestartPolicyAlways), string(corev1.RestartPolicyOnFailure), string(corev1.RestartPolicyNever))
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		l.d.ErrorAt(path+".spec.terminationGracePeriodSeconds", "must not be negative")
	}
	return ok
}

func (l *loader) checkProbe(p *corev1.Probe, path string, successMustBeOne bool) {
	if p == nil {
		return
	}
	for _, f := range []struct {
		name string
		v    int32
		min  int32
	}{{"initialDelaySeconds", p.InitialDelaySeconds, 0}, {"timeoutSeconds", p.TimeoutSeconds, 0},
		{"periodSeconds", p.PeriodSeconds, 0}, {"successThreshold", p.SuccessThreshold, 0},
		{"failureThreshold", p.FailureThreshold, 0}} {
		if f.v < f.min {
			l.d.ErrorAt(path+"."+f.name, "%s must not be negative", f.name)
		}
	}
	if successMustBeOne && p.SuccessThreshold > 1 {
		l.d.ErrorAt(path+".successThreshold", "successThreshold must be 1 for liveness and startup probes")
	}
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
	pod      *corev1.Pod
	d        *strictyaml.Decoder
	specPath string
	entry    string
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
					list := &podList{}
					d.Decode(root, "", list)
					for j := range list.Items {
						ip := strictyaml.Index("items", j)
						pod := &list.Items[j]
						if pod.Kind != "" && pod.Kind != "Pod" {
							d.ErrorAt(ip+".kind", "kind %q is not a Pod", pod.Kind)
							continue
						}
						out = append(out, l.filePod(d, root, pod, ip, path)...)
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
					out = append(out, l.filePod(d, root, pod, "", path)...)
				default:
					d.ErrorAt("kind", "kind %q is not a Pod, List, PodList or PriorityClass", kind)
				}
				l.extra = append(l.extra, d.Errors...)
			}
		}
	}
	return out
}

// filePod checks one pod of a file and drops what the API server sets itself, as re-creating
// the pod from a `kubectl get -o yaml` dump does: status, uid, resourceVersion, generation,
// creationTimestamp, deletion fields, managedFields, selfLink, and spec.nodeName (the pod is
// bound to the simulated node).
func (l *loader) filePod(d *strictyaml.Decoder, root *yaml.Node, pod *corev1.Pod, prefix, entry string) []filePod {
	sub := &loader{d: d, root: root, out: &Loaded{Gates: l.out.Gates}, pods: map[string]*Pod{}}
	if len(d.Errors) > 0 || !sub.checkPodSpec(pod, prefix) {
		return nil
	}
	sp := "spec"
	if prefix != "" {
		sp = prefix + ".spec"
	}
	sub.checkRestartRules(pod, sp, api.SourceAPI)
	l.out.Warnings = append(l.out.Warnings, sub.out.Warnings...)
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
	return []filePod{{pod: pod, d: d, specPath: sp, entry: entry}}
}

// loadPodFiles admits the pods read from spec.podFiles, each delivered at 0s with no
// behaviour.
func (l *loader) loadPodFiles(pods []filePod) {
	for _, fp := range pods {
		n := len(fp.d.Errors)
		l.addPod(Pod{Source: api.SourceAPI, Pod: fp.pod}, fp.entry, fp.specPath, fp.d.ErrorAt)
		l.extra = append(l.extra, fp.d.Errors[n:]...)
	}
}

// DefaultPod applies the API server's defaults that the kubelet relies on (namespace,
// restart policy, grace period, pull policy, probe settings), a UID derived from the pod's
// name so that runs are reproducible, and a creation time at its delivery.
func DefaultPod(p *corev1.Pod, at time.Duration) {
	if p.Namespace == "" {
		p.Namespace = "default"
	}
	if p.UID == "" {
		sum := sha256.Sum256([]byte(p.Namespace + "/" + p.Name))
		h := fmt.Sprintf("%x", sum[:16])
		p.UID = types.UID(h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32])
	}
	if p.CreationTimestamp.IsZero() {
		p.CreationTimestamp = metav1.NewTime(sim.Epoch.Add(at))
	}
	s := &p.Spec
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.TerminationGracePeriodSeconds == nil {
		g := int64(corev1.DefaultTerminationGracePeriodSeconds)
		s.TerminationGracePeriodSeconds = &g
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	for _, list := range [][]corev1.Container{s.InitContainers, s.Containers} {
		for i := range list {
			defaultContainer(&list[i])
		}
	}
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		// The API server pulls :latest and untagged images always, others if not present.
		if _, tag := SplitImage(c.Image); tag == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		} else {
			c.ImagePullPolicy = corev1.PullIfNotPresent
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	// Limits without requests: requests default to the limits.
	for name, lim := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[name]; !ok {
			if c.Resources.Requests == nil {
				c.Resources.Requests = corev1.ResourceList{}
			}
			c.Resources.Requests[name] = lim.DeepCopy()
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p == nil {
			continue
		}
		if p.TimeoutSeconds == 0 {
			p.TimeoutSeconds = 1
		}
		if p.PeriodSeconds == 0 {
			p.PeriodSeconds = 10
		}
		if p.SuccessThreshold == 0 {
			p.SuccessThreshold = 1
		}
		if p.FailureThreshold == 0 {
			p.FailureThreshold = 3
		}
	}
}

// SplitImage splits an image reference into its repository and tag ("latest" when none; a
// digest reference has no tag).
func SplitImage(image string) (repo, tag string) {
	if i := strings.Index(image, "@"); i >= 0 {
		return image[:i], ""
	}
	slash := strings.LastIndex(image, "/")
	if i := strings.LastIndex(image, ":"); i > slash {
		return image[:i], image[i+1:]
	}
	return image, "latest"
}

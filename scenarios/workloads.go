package scenarios

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/strictyaml"
	"nodesim/internal/upstream"
	"nodesim/sim"
)

// workloadKind is a controller's object that a spec.pods entry or a pod file may bring
// instead of a pod.
type workloadKind struct {
	key  string // the spec.pods entry's field
	kind string
	gv   schema.GroupVersion
}

var (
	appsGV  = schema.GroupVersion{Group: "apps", Version: "v1"}
	batchGV = schema.GroupVersion{Group: "batch", Version: "v1"}
)

// workloadKinds are the kinds nodesim expands into pods, in the order errors name them.
func workloadKinds() []workloadKind {
	return []workloadKind{
		{"deployment", "Deployment", appsGV}, {"replicaSet", "ReplicaSet", appsGV},
		{"statefulSet", "StatefulSet", appsGV}, {"daemonSet", "DaemonSet", appsGV},
		{"job", "Job", batchGV}, {"cronJob", "CronJob", batchGV},
	}
}

func workloadByKind(kind string) (workloadKind, bool) {
	for _, k := range workloadKinds() {
		if k.kind == kind {
			return k, true
		}
	}
	return workloadKind{}, false
}

// workloadSource is where a workload is written: its decoder and its path there, so that
// every problem found in it or in its pods is positioned in its own file.
type workloadSource struct {
	errorAt func(path, format string, args ...any)
	prefix  string // the workload's path ("spec.pods[2].deployment", "", "items[1]")
	at      time.Duration
}

func (s workloadSource) path(p string) string { return prefixMapper(s.prefix)(p) }

// entryWorkload reads which object spec.pods[i] brings: a pod (nil, true), a workload, or
// nothing usable (false, reported).
func (l *loader) entryWorkload(i int, path string) (any, bool) {
	e := &l.sc.Spec.Pods[i]
	n := l.item(i, "spec", "pods")
	var keys []string
	if lookup(n, "pod") != nil {
		keys = append(keys, "pod")
	}
	var obj any
	all := []string{"pod"}
	for _, k := range workloadKinds() {
		all = append(all, k.key)
		if lookup(n, k.key) == nil {
			continue
		}
		keys = append(keys, k.key)
		switch k.key {
		case "deployment":
			obj = e.Deployment
		case "replicaSet":
			obj = e.ReplicaSet
		case "statefulSet":
			obj = e.StatefulSet
		case "daemonSet":
			obj = e.DaemonSet
		case "job":
			obj = e.Job
		case "cronJob":
			obj = e.CronJob
		}
	}
	switch {
	case len(keys) == 0:
		l.required(path, "pod", " (a v1.Pod manifest, or one of "+strings.Join(all[1:], ", ")+")")
		return nil, false
	case len(keys) > 1:
		l.d.ErrorAt(path, "an entry brings exactly one of %s; this one has %s", strings.Join(all, ", "), strings.Join(keys, " and "))
		return nil, false
	case keys[0] == "pod":
		return nil, true
	}
	key := keys[0]
	ok := true
	if e.Replicas != nil {
		l.d.ErrorAt(path+".replicas", "replicas goes with pod; a %s's replicas are in its own spec", key)
		ok = false
	}
	if e.Source == api.SourceFile {
		l.d.ErrorAt(path+".source", "a static pod (source: file) is a pod, not a %s", key)
		ok = false
	}
	if obj == nil || isNilPointer(obj) {
		l.d.ErrorAt(path+"."+key, "%s is empty", key)
		ok = false
	}
	return obj, ok
}

func isNilPointer(obj any) bool {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return o == nil
	case *appsv1.ReplicaSet:
		return o == nil
	case *appsv1.StatefulSet:
		return o == nil
	case *appsv1.DaemonSet:
		return o == nil
	case *batchv1.Job:
		return o == nil
	case *batchv1.CronJob:
		return o == nil
	}
	return true
}

// loadWorkload expands an inline workload into its pods and admits them; behaviour
// applies to the pods' containers by the template's container names.
func (l *loader) loadWorkload(e *api.PodEntry, obj any, path string) {
	key := ""
	for _, k := range workloadKinds() {
		if kindOf(obj) == k.kind {
			key = k.key
		}
	}
	// A workload that did not decode is not expanded: its pods would only repeat the problem.
	for _, e := range l.d.Errors {
		if p := path + "." + key; e.Path == p || strings.HasPrefix(e.Path, p+".") || strings.HasPrefix(e.Path, p+"[") {
			return
		}
	}
	src := workloadSource{errorAt: l.d.ErrorAt, prefix: path + "." + key, at: e.At.Duration}
	pods, tmpl := l.expandWorkload(obj, src)
	if tmpl == nil {
		return
	}
	entry := &api.PodEntry{Pod: corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: objectMeta(obj).Name}, Spec: tmpl.Spec}, Behavior: e.Behavior}
	l.checkBehavior(entry, path)
	tmplPath := src.path(templatePath(obj))
	for _, list := range []struct {
		field      string
		containers []corev1.Container
	}{{"containers", tmpl.Spec.Containers}, {"initContainers", tmpl.Spec.InitContainers}} {
		for j, c := range list.containers {
			if len(c.RestartPolicyRules) > 0 {
				l.d.ErrorAt(strictyaml.Index(tmplPath+".spec."+list.field, j)+".restartPolicyRules",
					"container restart rules (ContainerRestartRules, RestartAllContainers): not supported yet")
			}
		}
	}
	mapPath := templateMapper(tmplPath, src.path("metadata.name"))
	errorAt := dedupErrors(src.errorAt)
	if l.workloadPods == nil {
		l.workloadPods = map[string]bool{}
	}
	for _, p := range pods {
		p.Behavior = e.Behavior
		if l.addPod(p, src.path("metadata.name"), mapPath, errorAt) {
			l.workloadPods[p.Key()] = true
		}
	}
}

func kindOf(obj any) string {
	switch obj.(type) {
	case *appsv1.Deployment:
		return "Deployment"
	case *appsv1.ReplicaSet:
		return "ReplicaSet"
	case *appsv1.StatefulSet:
		return "StatefulSet"
	case *appsv1.DaemonSet:
		return "DaemonSet"
	case *batchv1.Job:
		return "Job"
	case *batchv1.CronJob:
		return "CronJob"
	}
	return ""
}

func objectMeta(obj any) *metav1.ObjectMeta {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &o.ObjectMeta
	case *appsv1.ReplicaSet:
		return &o.ObjectMeta
	case *appsv1.StatefulSet:
		return &o.ObjectMeta
	case *appsv1.DaemonSet:
		return &o.ObjectMeta
	case *batchv1.Job:
		return &o.ObjectMeta
	case *batchv1.CronJob:
		return &o.ObjectMeta
	}
	return nil
}

func typeMeta(obj any) *metav1.TypeMeta {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &o.TypeMeta
	case *appsv1.ReplicaSet:
		return &o.TypeMeta
	case *appsv1.StatefulSet:
		return &o.TypeMeta
	case *appsv1.DaemonSet:
		return &o.TypeMeta
	case *batchv1.Job:
		return &o.TypeMeta
	case *batchv1.CronJob:
		return &o.TypeMeta
	}
	return nil
}

// templatePath is where a workload's pod template is written, below the workload.
func templatePath(obj any) string {
	if _, ok := obj.(*batchv1.CronJob); ok {
		return "spec.jobTemplate.spec.template"
	}
	return "spec.template"
}

// controllerRef is the owner reference a controller puts on what it creates.
func controllerRef(gv schema.GroupVersion, kind string, meta *metav1.ObjectMeta) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: gv.String(), Kind: kind, Name: meta.Name, UID: meta.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

// nameSuffix is the five characters the API server appends to a generateName, from the
// alphabet it draws them from. nodesim draws them from a hash of the owner and the pod's
// ordinal rather than from the run's seed, so that a pod keeps its name across seeds and
// expectations can name it.
func nameSuffix(owner string, ordinal int) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	sum := sha256.Sum256([]byte(owner + "\x00" + strconv.Itoa(ordinal)))
	v := binary.BigEndian.Uint64(sum[:8])
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[v%uint64(len(alphabet))]
		v /= uint64(len(alphabet))
	}
	return string(b)
}

// prepareWorkload does to a workload what the API server does on create: the metadata it
// sets, v1 defaulting, the Job strategy's selector and labels, then the kind's validation,
// every error positioned in src. It reports whether the workload was accepted.
func (l *loader) prepareWorkload(obj any, src workloadSource) bool {
	kind := kindOf(obj)
	wk, _ := workloadByKind(kind)
	tm := typeMeta(obj)
	ok := true
	if tm.APIVersion != "" && tm.APIVersion != wk.gv.String() {
		src.errorAt(src.path("apiVersion"), "apiVersion %q is not %s's (want %q)", tm.APIVersion, kind, wk.gv.String())
		ok = false
	}
	if tm.Kind != "" && tm.Kind != kind {
		src.errorAt(src.path("kind"), "kind %q under %s (want %q)", tm.Kind, wk.key, kind)
		ok = false
	}
	meta := objectMeta(obj)
	if meta.Namespace == "" {
		meta.Namespace = "default"
	}
	meta.UID = stableUID(kind + "/" + meta.Namespace + "/" + meta.Name)
	meta.CreationTimestamp = metav1.NewTime(sim.Epoch.Add(src.at))
	meta.Generation = 1
	meta.ResourceVersion = ""
	if err := upstream.DefaultWorkload(obj); err != nil {
		src.errorAt(src.path(""), "%v", err)
		return false
	}
	if job, isJob := obj.(*batchv1.Job); isJob {
		upstream.PrepareJobForCreate(job)
	}
	errs, err := l.gates().ValidateWorkload(obj)
	if err != nil {
		src.errorAt(src.path(""), "%v", err)
		return false
	}
	for _, e := range errs {
		src.errorAt(src.path(loaderPath(e.Field)), "%s", e.ErrorBody())
	}
	return ok && len(errs) == 0
}

// expandWorkload makes the pods a workload's controller creates on this node, or refuses
// the workload where its controller would do what nodesim does not model. It returns the
// pods and the workload's (defaulted) pod template, nil when refused.
func (l *loader) expandWorkload(obj any, src workloadSource) ([]Pod, *corev1.PodTemplateSpec) {
	if !l.prepareWorkload(obj, src) {
		return nil, nil
	}
	meta := objectMeta(obj)
	if !checkWorkloadBounds(obj, src) {
		return nil, nil
	}
	newPod := func(t *corev1.PodTemplateSpec, name, generateName string, owner metav1.OwnerReference, extra map[string]string) *corev1.Pod {
		labels := maps.Clone(t.Labels)
		if labels == nil && len(extra) > 0 {
			labels = map[string]string{}
		}
		maps.Copy(labels, extra)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, GenerateName: generateName, Namespace: meta.Namespace,
				Labels: labels, Annotations: maps.Clone(t.Annotations),
				OwnerReferences: []metav1.OwnerReference{owner},
			},
			Spec: *t.Spec.DeepCopy(),
		}
		return pod
	}
	at := src.at
	var pods []*corev1.Pod
	var tmpl *corev1.PodTemplateSpec
	switch o := obj.(type) {
	case *appsv1.Deployment:
		tmpl = &o.Spec.Template
		// The Deployment controller makes a ReplicaSet named after the template's hash,
		// which labels its pods with it and names them after itself.
		hash := upstream.PodTemplateHash(tmpl)
		rs := metav1.ObjectMeta{Name: o.Name + "-" + hash, Namespace: o.Namespace}
		rs.UID = stableUID("ReplicaSet/" + rs.Namespace + "/" + rs.Name)
		owner := controllerRef(appsGV, "ReplicaSet", &rs)
		for i := 0; i < int(*o.Spec.Replicas); i++ {
			pods = append(pods, newPod(tmpl, rs.Name+"-"+nameSuffix(rs.Namespace+"/"+rs.Name, i), rs.Name+"-", owner,
				map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: hash}))
		}
	case *appsv1.ReplicaSet:
		tmpl = &o.Spec.Template
		owner := controllerRef(appsGV, "ReplicaSet", &o.ObjectMeta)
		for i := 0; i < int(*o.Spec.Replicas); i++ {
			pods = append(pods, newPod(tmpl, o.Name+"-"+nameSuffix(o.Namespace+"/"+o.Name, i), o.Name+"-", owner, nil))
		}
	case *appsv1.StatefulSet:
		tmpl = &o.Spec.Template
		if *o.Spec.Replicas > 1 && o.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
			src.errorAt(src.path("spec.podManagementPolicy"), "podManagementPolicy %s creates each pod once the one before is Running and Ready: the StatefulSet controller is not modelled; set podManagementPolicy: Parallel (all pods at once) or replicas: 1", o.Spec.PodManagementPolicy)
			return nil, nil
		}
		if len(o.Spec.VolumeClaimTemplates) > 0 {
			src.errorAt(src.path("spec.volumeClaimTemplates"), "volumeClaimTemplates: persistent volume claims are not modelled")
			return nil, nil
		}
		rev, err := upstream.StatefulSetRevision(o)
		if err != nil {
			src.errorAt(src.path(""), "%v", err)
			return nil, nil
		}
		owner := controllerRef(appsGV, "StatefulSet", &o.ObjectMeta)
		for i := 0; i < int(*o.Spec.Replicas); i++ {
			name := o.Name + "-" + strconv.Itoa(i)
			p := newPod(tmpl, name, "", owner, map[string]string{
				appsv1.ControllerRevisionHashLabelKey: rev,
				appsv1.StatefulSetPodNameLabel:        name,
				appsv1.PodIndexLabel:                  strconv.Itoa(i),
			})
			// The controller sets the pod's hostname, and its subdomain to the set's
			// governing service.
			p.Spec.Hostname = name
			p.Spec.Subdomain = o.Spec.ServiceName
			pods = append(pods, p)
		}
	case *appsv1.DaemonSet:
		tmpl = &o.Spec.Template
		// One pod on this node, the only node there is.
		hash := upstream.PodTemplateHash(tmpl)
		owner := controllerRef(appsGV, "DaemonSet", &o.ObjectMeta)
		p := newPod(tmpl, o.Name+"-"+nameSuffix(o.Namespace+"/"+o.Name, 0), o.Name+"-", owner, map[string]string{
			appsv1.DefaultDaemonSetUniqueLabelKey: hash,
			daemonSetTemplateGenerationKey:        strconv.FormatInt(o.Generation, 10),
		})
		daemonPodTolerations(&p.Spec)
		daemonPodNodeAffinity(&p.Spec, l.nodeName())
		pods = append(pods, p)
	case *batchv1.Job:
		tmpl = &o.Spec.Template
		ps, ok := l.jobPods(o, src, newPod)
		if !ok {
			return nil, nil
		}
		pods = ps
	case *batchv1.CronJob:
		tmpl = &o.Spec.JobTemplate.Spec.Template
		job, jobAt, ok := l.cronJobRun(o, src)
		if !ok {
			return nil, nil
		}
		at = jobAt
		ps, ok := l.jobPods(job, src, newPod)
		if !ok {
			return nil, nil
		}
		pods = ps
	}
	out := make([]Pod, len(pods))
	for i, p := range pods {
		out[i] = Pod{At: at, Source: api.SourceAPI, Pod: p}
	}
	return out, tmpl
}

type podMaker func(t *corev1.PodTemplateSpec, name, generateName string, owner metav1.OwnerReference, extra map[string]string) *corev1.Pod

// jobPods are the pods the Job controller creates at once: parallelism of them, or fewer
// when fewer completions are wanted. Later waves, and the pods that replace failed ones,
// need the controller's view of the pods' outcomes, which nodesim does not model.
func (l *loader) jobPods(job *batchv1.Job, src workloadSource, newPod podMaker) ([]*corev1.Pod, bool) {
	spec := &job.Spec
	if spec.Suspend != nil && *spec.Suspend {
		src.errorAt(src.path("spec.suspend"), "a suspended Job creates no pods; nothing to run")
		return nil, false
	}
	if spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion {
		src.errorAt(src.path("spec.completionMode"), "completionMode Indexed: indexed Jobs are not modelled")
		return nil, false
	}
	n := *spec.Parallelism
	if spec.Completions != nil {
		if *spec.Completions > n {
			src.errorAt(src.path("spec.completions"), "completions %d above parallelism %d: the Job controller's later waves are not modelled; set parallelism to completions", *spec.Completions, n)
			return nil, false
		}
		n = *spec.Completions
	}
	if n > 1000 {
		src.errorAt(src.path("spec.parallelism"), "a Job of %d pods is above the 1000-pod limit of an entry", n)
		return nil, false
	}
	owner := controllerRef(batchGV, "Job", &job.ObjectMeta)
	var pods []*corev1.Pod
	for i := 0; i < int(n); i++ {
		p := newPod(&spec.Template, job.Name+"-"+nameSuffix(job.Namespace+"/"+job.Name, i), job.Name+"-", owner, nil)
		// The Job controller tracks its pods with a finalizer.
		p.Finalizers = []string{batchv1.JobTrackingFinalizer}
		pods = append(pods, p)
	}
	return pods, true
}

// cronJobRun is the Job the CronJob controller creates for the first time the schedule
// fires after the CronJob was created (at the entry's time), and when. Only that one run is
// modelled: a schedule that fires again within the run is refused.
func (l *loader) cronJobRun(cj *batchv1.CronJob, src workloadSource) (*batchv1.Job, time.Duration, bool) {
	if cj.Spec.TimeZone != nil && *cj.Spec.TimeZone != "UTC" && *cj.Spec.TimeZone != "Etc/UTC" {
		src.errorAt(src.path("spec.timeZone"), "timeZone %q: the simulated clock runs in UTC; only UTC is modelled", *cj.Spec.TimeZone)
		return nil, 0, false
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		src.errorAt(src.path("spec.suspend"), "a suspended CronJob creates no Jobs; nothing to run")
		return nil, 0, false
	}
	sched, err := cron.ParseStandard(cj.Spec.Schedule)
	if err != nil {
		// ValidateCronJobCreate has already refused an unparsable schedule.
		src.errorAt(src.path("spec.schedule"), "%v", err)
		return nil, 0, false
	}
	created := cj.CreationTimestamp.Time
	first := sched.Next(created)
	end := sim.Epoch.Add(l.sc.Spec.Duration.Duration)
	if first.After(end) {
		src.errorAt(src.path("spec.schedule"), "the schedule first fires at %s, after the end of the run (%s)", first.Sub(sim.Epoch), l.sc.Spec.Duration.Duration)
		return nil, 0, false
	}
	if next := sched.Next(first); !next.After(end) {
		src.errorAt(src.path("spec.schedule"), "the schedule fires at %s and again at %s: only one run of a CronJob is modelled; shorten the run or space the schedule", first.Sub(sim.Epoch), next.Sub(sim.Epoch))
		return nil, 0, false
	}
	tmpl := &cj.Spec.JobTemplate
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s-%d", cj.Name, first.Unix()/60),
			Namespace: cj.Namespace,
			Labels:    maps.Clone(tmpl.Labels),
			Annotations: func() map[string]string {
				a := maps.Clone(tmpl.Annotations)
				if a == nil {
					a = map[string]string{}
				}
				a[batchv1.CronJobScheduledTimestampAnnotation] = first.UTC().Format(time.RFC3339)
				return a
			}(),
			OwnerReferences: []metav1.OwnerReference{controllerRef(batchGV, "CronJob", &cj.ObjectMeta)},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	jobSrc := src
	jobSrc.at = first.Sub(sim.Epoch)
	if !l.prepareJobOfCronJob(job, jobSrc) {
		return nil, 0, false
	}
	return job, jobSrc.at, true
}

// prepareJobOfCronJob creates the CronJob's Job as the API server would; its errors are
// positioned at the CronJob's jobTemplate.
func (l *loader) prepareJobOfCronJob(job *batchv1.Job, src workloadSource) bool {
	tmpl := src.path("spec.jobTemplate")
	inner := workloadSource{at: src.at, prefix: tmpl, errorAt: func(path, format string, args ...any) {
		// The Job's metadata is the controller's; its spec is the template's.
		if strings.HasPrefix(path, tmpl+".metadata") || strings.HasPrefix(path, tmpl+".apiVersion") || strings.HasPrefix(path, tmpl+".kind") {
			path = src.path("metadata.name")
		}
		src.errorAt(path, format, args...)
	}}
	return l.prepareWorkload(job, inner)
}

// daemonPodTolerations adds the tolerations the DaemonSet controller gives every daemon
// pod, so that node conditions do not evict or keep it out: not-ready and unreachable
// (NoExecute), disk, memory and PID pressure and unschedulable (NoSchedule), and network
// unavailable for a host-network pod.
func daemonPodTolerations(spec *corev1.PodSpec) {
	add := func(key string, effect corev1.TaintEffect) {
		for _, t := range spec.Tolerations {
			if t.Key == key && t.Effect == effect && t.Operator == corev1.TolerationOpExists {
				return
			}
		}
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
	}
	add(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)
	if spec.HostNetwork {
		add(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)
	}
}

// daemonPodNodeAffinity pins a daemon pod to its node, as the DaemonSet controller does:
// a required node affinity on the node's metadata.name.
func daemonPodNodeAffinity(spec *corev1.PodSpec, node string) {
	term := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{
		Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node},
	}}}
	if spec.Affinity == nil {
		spec.Affinity = &corev1.Affinity{}
	}
	if spec.Affinity.NodeAffinity == nil {
		spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
}

// daemonSetTemplateGenerationKey is the label the DaemonSet controller puts the template's
// generation in (extensions/v1beta1 DaemonSetTemplateGenerationKey).
const daemonSetTemplateGenerationKey = "pod-template-generation"

// newWorkload returns an empty object of a workload kind.
func newWorkload(kind string) any {
	switch kind {
	case "Deployment":
		return &appsv1.Deployment{}
	case "ReplicaSet":
		return &appsv1.ReplicaSet{}
	case "StatefulSet":
		return &appsv1.StatefulSet{}
	case "DaemonSet":
		return &appsv1.DaemonSet{}
	case "Job":
		return &batchv1.Job{}
	case "CronJob":
		return &batchv1.CronJob{}
	}
	return nil
}

// fileWorkload decodes a workload written in a pod file at prefix and expands it into the
// pods its controller creates, for loadPodFiles to admit. What the API server sets itself
// (status, uid, resourceVersion, generation, creationTimestamp, managedFields) is dropped,
// as re-creating the object from a `kubectl get -o yaml` dump does.
func (l *loader) fileWorkload(d *strictyaml.Decoder, n *yaml.Node, prefix string, wk workloadKind, entry string) []filePod {
	obj := newWorkload(wk.kind)
	before := len(d.Errors)
	d.Decode(n, prefix, obj)
	if len(d.Errors) > before {
		return nil
	}
	meta := objectMeta(obj)
	meta.ManagedFields = nil
	meta.SelfLink = ""
	clearStatus(obj)
	src := workloadSource{errorAt: d.ErrorAt, prefix: prefix}
	pods, _ := l.expandWorkload(obj, src)
	mapPath := templateMapper(src.path(templatePath(obj)), src.path("metadata.name"))
	errorAt := dedupErrors(d.ErrorAt)
	var out []filePod
	for _, p := range pods {
		out = append(out, filePod{pod: p.Pod, d: d, prefix: prefix, entry: entry, at: p.At, mapPath: mapPath, errorAt: errorAt})
	}
	return out
}

func clearStatus(obj any) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		o.Status = appsv1.DeploymentStatus{}
	case *appsv1.ReplicaSet:
		o.Status = appsv1.ReplicaSetStatus{}
	case *appsv1.StatefulSet:
		o.Status = appsv1.StatefulSetStatus{}
	case *appsv1.DaemonSet:
		o.Status = appsv1.DaemonSetStatus{}
	case *batchv1.Job:
		o.Status = batchv1.JobStatus{}
	case *batchv1.CronJob:
		o.Status = batchv1.CronJobStatus{}
	}
}

// listHasWorkloads reports whether a List holds an item of a workload kind.
func listHasWorkloads(root *yaml.Node) bool {
	items := lookup(root, "items")
	if items == nil || items.Kind != yaml.SequenceNode {
		return false
	}
	for _, it := range items.Content {
		if k := lookup(it, "kind"); k != nil {
			if _, ok := workloadByKind(k.Value); ok {
				return true
			}
		}
	}
	return false
}

// fileListItems reads a v1 List that holds workloads (`kubectl get deploy,sts -o yaml`),
// each item by its own kind: pods and workloads.
func (l *loader) fileListItems(d *strictyaml.Decoder, root *yaml.Node, entry string) []filePod {
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k := root.Content[i].Value; k {
		case "apiVersion", "kind", "metadata", "items":
		default:
			d.Errorf(root.Content[i], strictyaml.Join("", k), "unknown field %q", k)
		}
	}
	var out []filePod
	for j, it := range lookup(root, "items").Content {
		ip := strictyaml.Index("items", j)
		kind := ""
		if k := lookup(it, "kind"); k != nil {
			kind = k.Value
		}
		if wk, ok := workloadByKind(kind); ok {
			out = append(out, l.fileWorkload(d, it, ip, wk, entry)...)
			continue
		}
		if kind != "" && kind != "Pod" {
			d.Errorf(lookup(it, "kind"), ip+".kind", "kind %q is not a Pod or a workload", kind)
			continue
		}
		pod := &corev1.Pod{}
		before := len(d.Errors)
		d.Decode(it, ip, pod)
		if len(d.Errors) == before {
			out = append(out, l.filePod(d, pod, ip, entry)...)
		}
	}
	return out
}

// maxWorkloadPods bounds the pods one workload makes, as replicas bounds an entry's.
const maxWorkloadPods = 1000

// checkWorkloadBounds holds a workload to the bounds every scenario value is held to: at most
// maxWorkloadPods replicas, and template seconds counts that stay finite as durations. It
// refuses the Job fields only a running Job controller acts on.
func checkWorkloadBounds(obj any, src workloadSource) bool {
	ok := true
	var replicas *int32
	switch o := obj.(type) {
	case *appsv1.Deployment:
		replicas = o.Spec.Replicas
	case *appsv1.ReplicaSet:
		replicas = o.Spec.Replicas
	case *appsv1.StatefulSet:
		replicas = o.Spec.Replicas
	case *batchv1.Job:
		ok = refuseJobControllerFields(&o.Spec, src, "spec.") && ok
	case *batchv1.CronJob:
		ok = refuseJobControllerFields(&o.Spec.JobTemplate.Spec, src, "spec.jobTemplate.spec.") && ok
	}
	if replicas != nil && *replicas > maxWorkloadPods {
		src.errorAt(src.path("spec.replicas"), "replicas %d is above the %d-pod limit of a workload", *replicas, maxWorkloadPods)
		ok = false
	}
	tmpl := templateOf(obj)
	maxSecs := int64(MaxDuration / time.Second)
	tp := src.path(templatePath(obj) + ".spec")
	if g := tmpl.Spec.TerminationGracePeriodSeconds; g != nil && *g > maxSecs {
		src.errorAt(tp+".terminationGracePeriodSeconds", "terminationGracePeriodSeconds %d is out of range (at most %d, a year)", *g, maxSecs)
		ok = false
	}
	if a := tmpl.Spec.ActiveDeadlineSeconds; a != nil && *a > maxSecs {
		src.errorAt(tp+".activeDeadlineSeconds", "activeDeadlineSeconds %d is out of range (at most %d, a year)", *a, maxSecs)
		ok = false
	}
	return ok
}

// refuseJobControllerFields refuses the Job fields whose effect is the Job controller's
// work after its pods exist, which nodesim does not model.
func refuseJobControllerFields(spec *batchv1.JobSpec, src workloadSource, at string) bool {
	ok := true
	if spec.ActiveDeadlineSeconds != nil {
		src.errorAt(src.path(at+"activeDeadlineSeconds"), "activeDeadlineSeconds: the Job controller terminating its pods at the deadline is not modelled")
		ok = false
	}
	if spec.PodFailurePolicy != nil {
		src.errorAt(src.path(at+"podFailurePolicy"), "podFailurePolicy: the Job controller's handling of failed pods is not modelled")
		ok = false
	}
	return ok
}

func templateOf(obj any) *corev1.PodTemplateSpec {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &o.Spec.Template
	case *appsv1.ReplicaSet:
		return &o.Spec.Template
	case *appsv1.StatefulSet:
		return &o.Spec.Template
	case *appsv1.DaemonSet:
		return &o.Spec.Template
	case *batchv1.Job:
		return &o.Spec.Template
	case *batchv1.CronJob:
		return &o.Spec.JobTemplate.Spec.Template
	}
	return &corev1.PodTemplateSpec{}
}

package scenarios

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const workloadBase = `apiVersion: nodesim/v1alpha1
kind: Scenario
metadata:
  name: t
spec:
  duration: 5m
  pods:
`

func podsByKey(l *Loaded) map[string]*corev1.Pod {
	m := map[string]*corev1.Pod{}
	for _, p := range l.Pods {
		m[p.Key()] = p.Pod
	}
	return m
}

// The shipped workloads scenario: each workload becomes the pods its controller makes,
// named and labelled as the controller does it.
func TestShippedWorkloadsExpandAsControllersDo(t *testing.T) {
	l, err := LoadBuiltin("workloads")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range l.Pods {
		keys = append(keys, p.Key())
	}
	// The Deployment's pods are named after its ReplicaSet, web-<pod-template-hash>; the hash
	// 56494ff445 is what upstream's controller.ComputeHash gives for the defaulted template
	// of scenarios/workloads/apps.yaml (checked against k8s.io/kubernetes/pkg/controller
	// v1.37.2). The CronJob "5 0 * * *" created at 2026-01-01T00:00Z first fires at 00:05:
	// its Job is report-<minutes since the epoch> = 1767225600/60 + 5 = 29453765.
	want := []string{
		"default/migrate-2m89q", "default/report-29453765-5lhpv",
		"default/web-56494ff445-stl5p", "default/web-56494ff445-r489z", "default/web-56494ff445-dr7kz",
		"default/db-0", "default/db-1", "monitoring/node-exporter-xck2w",
		"default/backfill-qp84z", "default/backfill-8vr7w",
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("pods\n%v\nwant\n%v", keys, want)
	}
	pods := podsByKey(l)

	web := pods["default/web-56494ff445-stl5p"]
	if web.Labels["pod-template-hash"] != "56494ff445" || web.Labels["app"] != "web" || web.GenerateName != "web-56494ff445-" {
		t.Errorf("deployment pod labels %v, generateName %q", web.Labels, web.GenerateName)
	}
	if o := web.OwnerReferences; len(o) != 1 || o[0].Kind != "ReplicaSet" || o[0].Name != "web-56494ff445" || o[0].APIVersion != "apps/v1" || !*o[0].Controller {
		t.Errorf("deployment pod owner %+v", o)
	}
	// Pod defaulting ran on the pods: requests copied from the limits, the probe's defaults.
	if c := web.Spec.Containers[0]; c.ReadinessProbe.PeriodSeconds != 10 || c.ReadinessProbe.HTTPGet.Scheme != corev1.URISchemeHTTP {
		t.Errorf("pod defaults missing: %+v", c.ReadinessProbe)
	}

	db := pods["default/db-1"]
	// The first ControllerRevision of the set: db-<FNV-32 of its patch, collision count 0>,
	// checked against upstream's history.NewControllerRevision on the patch the StatefulSet
	// controller's getPatch builds.
	if db.Labels["controller-revision-hash"] != "db-"+dbRevisionHash || db.Labels["statefulset.kubernetes.io/pod-name"] != "db-1" ||
		db.Labels["apps.kubernetes.io/pod-index"] != "1" || db.Spec.Hostname != "db-1" || db.Spec.Subdomain != "db" {
		t.Errorf("statefulset pod labels %v hostname %q subdomain %q", db.Labels, db.Spec.Hostname, db.Spec.Subdomain)
	}
	if o := db.OwnerReferences; o[0].Kind != "StatefulSet" || o[0].Name != "db" {
		t.Errorf("statefulset pod owner %+v", o)
	}

	ds := pods["monitoring/node-exporter-xck2w"]
	// Six tolerations every daemon pod gets, and network-unavailable for hostNetwork: 7.
	if ds.Labels["controller-revision-hash"] != dsTemplateHash || ds.Labels["pod-template-generation"] != "1" || len(ds.Spec.Tolerations) != 7 {
		t.Errorf("daemon pod labels %v, %d tolerations", ds.Labels, len(ds.Spec.Tolerations))
	}
	if terms := ds.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms; terms[0].MatchFields[0].Values[0] != "node-1" {
		t.Errorf("daemon pod not pinned to node-1: %+v", terms)
	}
	// Priority admission resolved the class for the daemon pod too.
	if ds.Spec.Priority == nil || *ds.Spec.Priority != 2000001000 {
		t.Errorf("daemon pod priority %v", ds.Spec.Priority)
	}

	job := pods["default/backfill-qp84z"]
	uid := job.OwnerReferences[0].UID
	if job.Labels["job-name"] != "backfill" || job.Labels["batch.kubernetes.io/job-name"] != "backfill" ||
		job.Labels["controller-uid"] != string(uid) || job.Labels["batch.kubernetes.io/controller-uid"] != string(uid) ||
		!slices.Equal(job.Finalizers, []string{"batch.kubernetes.io/job-tracking"}) {
		t.Errorf("job pod labels %v finalizers %v", job.Labels, job.Finalizers)
	}

	report := l.Pods[1]
	// Delivered when the schedule fires, 5m into the run.
	if report.At.String() != "5m0s" || report.Pod.OwnerReferences[0].Name != "report-29453765" {
		t.Errorf("cron job pod at %s owned by %v", report.At, report.Pod.OwnerReferences)
	}
	if l.Pods[0].Behavior["migrate"].Exit == nil {
		t.Error("the inline job's behaviour did not reach its pod")
	}
}

// Pod names do not depend on the run's seed, so that expectations can name them.
func TestWorkloadPodNamesIgnoreTheSeed(t *testing.T) {
	src := workloadBase + "    - replicaSet:\n        metadata: {name: rs}\n        spec:\n          replicas: 2\n          selector: {matchLabels: {a: b}}\n          template:\n            metadata: {labels: {a: b}}\n            spec: {containers: [{name: c, image: nginx}]}\n"
	a, err := parse(t, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parse(t, strings.Replace(src, "  duration: 5m\n", "  duration: 5m\n  seed: 99\n", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Pods[0].Key() != b.Pods[0].Key() || a.Pods[0].Key() == a.Pods[1].Key() || !strings.HasPrefix(a.Pods[0].Pod.Name, "rs-") || len(a.Pods[0].Pod.Name) != len("rs-")+5 {
		t.Errorf("names %s %s / %s", a.Pods[0].Key(), a.Pods[1].Key(), b.Pods[0].Key())
	}
}

// Workload errors: upstream's validation of the kind, in its words, positioned in the
// manifest; what the controllers would do that nodesim does not model is refused where it
// is asked for.
func TestWorkloadErrors(t *testing.T) {
	tmpl := func(labels, spec string) string {
		return "          template:\n            metadata: {labels: {" + labels + "}}\n            spec: " + spec + "\n"
	}
	cases := []struct {
		name, src string
		files     map[string]string
		want      []string
	}{
		{"selector does not match the template", workloadBase + "    - deployment:\n        metadata: {name: web}\n        spec:\n          selector: {matchLabels: {app: web}}\n" + tmpl("app: webx", "{containers: [{name: c, image: nginx}]}"), nil,
			[]string{"s.yaml:13:32: spec.pods[0].deployment.spec.template.metadata.labels: Invalid value: {\"app\":\"webx\"}: `selector` does not match template `labels`"}},
		{"pod error inside a template", workloadBase + "    - daemonSet:\n        metadata: {name: ds}\n        spec:\n          selector: {matchLabels: {a: b}}\n" + tmpl("a: b", "{containers: [{name: c, image: nginx}, {name: c, image: nginx}]}"), nil,
			[]string{`s.yaml:14:65: spec.pods[0].daemonSet.spec.template.spec.containers[1].name: Duplicate value: "c"`}},
		{"ordered statefulset", workloadBase + "    - statefulSet:\n        metadata: {name: db}\n        spec:\n          replicas: 2\n          selector: {matchLabels: {a: b}}\n" + tmpl("a: b", "{containers: [{name: c, image: nginx}]}"), nil,
			[]string{`s.yaml:11:11: spec.pods[0].statefulSet.spec.podManagementPolicy: podManagementPolicy OrderedReady creates each pod once the one before is Running and Ready: the StatefulSet controller is not modelled`}},
		{"job waves", workloadBase + "    - job:\n        metadata: {name: j}\n        spec:\n          completions: 3\n          parallelism: 2\n          template:\n            spec: {restartPolicy: Never, containers: [{name: c, image: nginx}]}\n", nil,
			[]string{`s.yaml:11:24: spec.pods[0].job.spec.completions: completions 3 above parallelism 2: the Job controller's later waves are not modelled`}},
		{"job restart policy", workloadBase + "    - job:\n        metadata: {name: j}\n        spec:\n          template:\n            spec: {containers: [{name: c, image: nginx}]}\n", nil,
			[]string{`spec.pods[0].job.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
		{"cronjob fires twice", workloadBase + "    - cronJob:\n        metadata: {name: cj}\n        spec:\n          schedule: \"*/2 * * * *\"\n          jobTemplate:\n            spec:\n              template:\n                spec: {restartPolicy: Never, containers: [{name: c, image: nginx}]}\n", nil,
			[]string{`s.yaml:11:21: spec.pods[0].cronJob.spec.schedule: the schedule fires at 2m0s and again at 4m0s: only one run of a CronJob is modelled`}},
		{"pod and workload in one entry", workloadBase + "    - pod: {metadata: {name: a}, spec: {containers: [{name: c, image: nginx}]}}\n      job: {metadata: {name: j}}\n", nil,
			[]string{`s.yaml:8:7: spec.pods[0]: an entry brings exactly one of pod, deployment, replicaSet, statefulSet, daemonSet, job, cronJob; this one has pod and job`}},
		{"replicas beside a workload", workloadBase + "    - replicas: 2\n      job: {metadata: {name: j}, spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: nginx}]}}}}\n", nil,
			[]string{`s.yaml:8:17: spec.pods[0].replicas: replicas goes with pod; a job's replicas are in its own spec`}},
		{"behaviour for no container of the template", workloadBase + "    - job: {metadata: {name: j}, spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: nginx}]}}}}\n      behavior: {x: {exit: {after: 1s, code: 0}}}\n", nil,
			[]string{`spec.pods[0].behavior.x: behavior for "x" names no container of pod j`}},
		// In a file, positioned in the file.
		{"file deployment", strings.Replace(workloadBase, "  pods:\n", "  podFiles: [m/*.yaml]\n", 1),
			map[string]string{"m/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: Web}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: nginx}]}\n"},
			[]string{`m/d.yaml:3:18: metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of`}},
		{"file unknown kind", strings.Replace(workloadBase, "  pods:\n", "  podFiles: [m/*.yaml]\n", 1),
			map[string]string{"m/d.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"},
			[]string{`m/d.yaml:2:7: kind: kind "Service" is not a Pod, List, PodList, PriorityClass, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.src, c.files)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("errors\n%v\nlack\n%s", err, w)
				}
			}
		})
	}
}

// A List of workloads and pods (`kubectl get deploy,pods -o yaml`) is read item by item.
func TestListOfWorkloads(t *testing.T) {
	files := map[string]string{"m/l.yaml": `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: rs}
  spec:
    replicas: 2
    selector: {matchLabels: {a: b}}
    template:
      metadata: {labels: {a: b}}
      spec: {containers: [{name: c, image: nginx}]}
  status: {replicas: 2}
- apiVersion: v1
  kind: Pod
  metadata: {name: solo}
  spec: {containers: [{name: c, image: nginx}]}
`}
	l, err := parse(t, strings.Replace(workloadBase, "  pods:\n", "  podFiles: [m/*.yaml]\n", 1), files)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Pods) != 3 || !strings.HasPrefix(l.Pods[0].Pod.Name, "rs-") || l.Pods[2].Pod.Name != "solo" {
		t.Errorf("pods %v", podsByKey(l))
	}
}

// Hashes of scenarios/workloads/apps.yaml's defaulted objects as upstream v1.37.2 computes
// them: history.NewControllerRevision of the StatefulSet's patch (collision count 0), and
// controller.ComputeHash of the DaemonSet's template.
const (
	dbRevisionHash = "67b4f96ddc"
	dsTemplateHash = "75c79c9fcb"
)

// Every count a workload or a pod file gives is bounded as an inline pod's is: a run can
// neither make millions of pods nor overflow a grace period into the past.
func TestWorkloadAndFileBounds(t *testing.T) {
	files := map[string]string{"m/p.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: 9223372036854775807\n  containers: [{name: c, image: nginx}]\n"}
	src := strings.Replace(workloadBase, "  pods:\n", "  podFiles: [m/*.yaml]\n  pods:\n", 1) +
		"    - replicaSet:\n        metadata: {name: rs}\n        spec:\n          replicas: 2000000\n          selector: {matchLabels: {a: b}}\n          template:\n            metadata: {labels: {a: b}}\n            spec: {containers: [{name: c, image: nginx}]}\n" +
		"    - job: {metadata: {name: j}, spec: {activeDeadlineSeconds: 60, template: {spec: {restartPolicy: Never, containers: [{name: c, image: nginx}]}}}}\n"
	_, err := parse(t, src, files)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`m/p.yaml:5:34: spec.terminationGracePeriodSeconds: terminationGracePeriodSeconds 9223372036854775807 is out of range (at most 31536000, a year)`,
		`s.yaml:12:21: spec.pods[0].replicaSet.spec.replicas: replicas 2000000 is above the 1000-pod limit of a workload`,
		`spec.pods[1].job.spec.activeDeadlineSeconds: activeDeadlineSeconds: the Job controller terminating its pods at the deadline is not modelled`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors\n%v\nlack\n%s", err, want)
		}
	}
}

// A workload with a decoding error is reported once, by the decoder, not expanded.
func TestUndecodedWorkloadIsNotExpanded(t *testing.T) {
	src := workloadBase + "    - replicaSet:\n        metadata: {name: rs}\n        spec:\n          replicaz: 2\n          selector: {matchLabels: {a: b}}\n          template:\n            metadata: {labels: {a: b}}\n            spec: {containers: [{name: c}]}\n"
	_, err := parse(t, src, nil)
	if err == nil || strings.Count(err.Error(), "\n") != 0 || !strings.Contains(err.Error(), `s.yaml:11:11: spec.pods[0].replicaSet.spec: unknown field "replicaz" (did you mean "replicas"?)`) {
		t.Errorf("want one unknown-field error, got:\n%v", err)
	}
}

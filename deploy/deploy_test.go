// Package deploy holds the Kubernetes manifests and the container image definition that run
// nodesim's sharded sweeps on a cluster. The test below keeps them from rotting: every
// manifest decodes strictly into the k8s.io/api types and passes the API server's own
// validation, and the pieces agree with each other (shard count, file names, volumes).
package deploy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchapiv1 "k8s.io/kubernetes/pkg/apis/batch/v1"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
	"k8s.io/kubernetes/pkg/apis/core"
	coreapiv1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"sigs.k8s.io/yaml"

	"nodesim/scenarios"
)

// manifests are the objects of every YAML file in this directory, by file.
type manifests struct {
	jobs       map[string]*batchv1.Job
	configMaps map[string]*corev1.ConfigMap
	pvcs       map[string]*corev1.PersistentVolumeClaim
	pods       map[string]*corev1.Pod
}

// splitDocuments splits a YAML stream at its "---" lines.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// load decodes every manifest strictly: an unknown or misspelt field, a duplicate key or a
// wrong type fails, as `kubectl apply --validate=strict` would.
func load(t *testing.T) *manifests {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	sort.Strings(files)
	m := &manifests{jobs: map[string]*batchv1.Job{}, configMaps: map[string]*corev1.ConfigMap{},
		pvcs: map[string]*corev1.PersistentVolumeClaim{}, pods: map[string]*corev1.Pod{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs := splitDocuments(data)
		if len(docs) != 1 {
			t.Errorf("%s: %d documents, want one object per file", f, len(docs))
			continue
		}
		var meta struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(docs[0], &meta); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var obj any
		switch meta.APIVersion + " " + meta.Kind {
		case "batch/v1 Job":
			j := &batchv1.Job{}
			m.jobs[f], obj = j, j
		case "v1 ConfigMap":
			c := &corev1.ConfigMap{}
			m.configMaps[f], obj = c, c
		case "v1 PersistentVolumeClaim":
			p := &corev1.PersistentVolumeClaim{}
			m.pvcs[f], obj = p, p
		case "v1 Pod":
			p := &corev1.Pod{}
			m.pods[f], obj = p, p
		default:
			t.Errorf("%s: %s %s is not one of the kinds this test knows", f, meta.APIVersion, meta.Kind)
			continue
		}
		if err := yaml.UnmarshalStrict(docs[0], obj); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	return m
}

// scheme converts and defaults the v1 objects as the API server does before validating.
func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme, core.AddToScheme, batch.AddToScheme, coreapiv1.AddToScheme, batchapiv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func fail(t *testing.T, file string, errs field.ErrorList) {
	t.Helper()
	for _, e := range errs {
		t.Errorf("%s: %v", file, e)
	}
}

// TestManifestsValidate decodes every manifest strictly and runs the API server's
// validation of each object after v1 defaulting, as `kubectl apply` would meet it.
func TestManifestsValidate(t *testing.T) {
	m := load(t)
	if len(m.jobs) < 3 || len(m.configMaps) != 1 || len(m.pvcs) != 1 || len(m.pods) != 1 {
		t.Fatalf("found %d Jobs, %d ConfigMaps, %d PVCs, %d Pods: want the sweep, S3 sweep and merge Jobs, the scenario, the results volume and its reader",
			len(m.jobs), len(m.configMaps), len(m.pvcs), len(m.pods))
	}
	s := scheme(t)
	for f, j := range m.jobs {
		v1 := j.DeepCopy()
		s.Default(v1)
		var job batch.Job
		if err := s.Convert(v1, &job, nil); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		// What the API server's Job strategy adds on create: the uid and the selector it
		// generates from it, with the labels on the template.
		job.Namespace, job.UID = "default", types.UID("3f6c2a9e-1d4b-4c8a-9e7f-0a1b2c3d4e5f")
		labels := map[string]string{batch.ControllerUidLabel: string(job.UID), batch.JobNameLabel: job.Name,
			batch.LegacyControllerUidLabel: string(job.UID), batch.LegacyJobNameLabel: job.Name}
		job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batch.ControllerUidLabel: string(job.UID)}}
		if job.Spec.Template.Labels == nil {
			job.Spec.Template.Labels = map[string]string{}
		}
		for k, v := range labels {
			job.Spec.Template.Labels[k] = v
		}
		fail(t, f, batchvalidation.ValidateJobCreate(&job, batchvalidation.JobValidationOptions{RequirePrefixedLabels: true}))
	}
	for f, c := range m.configMaps {
		var cm core.ConfigMap
		if err := s.Convert(c, &cm, nil); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cm.Namespace = "default"
		fail(t, f, corevalidation.ValidateConfigMap(&cm))
	}
	for f, p := range m.pvcs {
		v1 := p.DeepCopy()
		s.Default(v1)
		var pvc core.PersistentVolumeClaim
		if err := s.Convert(v1, &pvc, nil); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pvc.Namespace = "default"
		fail(t, f, corevalidation.ValidatePersistentVolumeClaim(&pvc, corevalidation.PersistentVolumeClaimSpecValidationOptions{}))
	}
	for f, p := range m.pods {
		v1 := p.DeepCopy()
		s.Default(v1)
		var pod core.Pod
		if err := s.Convert(v1, &pod, nil); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pod.Namespace = "default"
		fail(t, f, corevalidation.ValidatePodCreate(&pod, corevalidation.PodValidationOptions{}))
	}
}

// TestShippedScenarioValidates: the ConfigMap's scenario is one nodesim runs.
func TestShippedScenarioValidates(t *testing.T) {
	for f, c := range load(t).configMaps {
		text, ok := c.Data["scenario.yaml"]
		if !ok {
			t.Fatalf("%s: no scenario.yaml key (the Jobs read /scenario/scenario.yaml)", f)
		}
		if _, err := scenarios.Parse(f, []byte(text), nil, nil); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

var shardFlag = regexp.MustCompile(`^--shard=\$\(JOB_COMPLETION_INDEX\)/(\d+)$`)

// TestShardsAgree: each Indexed Job runs as many shards as it has completions, each shard
// from JOB_COMPLETION_INDEX, writing a file per index; the merge Job names exactly the files
// the sweep Job writes; every mount names a volume of its pod and every claim a shipped PVC.
func TestShardsAgree(t *testing.T) {
	m := load(t)
	var written []string
	for f, j := range m.jobs {
		spec := j.Spec.Template.Spec
		checkVolumes(t, f, spec, m)
		if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
			continue
		}
		shard := findShard(spec)
		if shard == nil {
			t.Errorf("%s: an Indexed Job without a container running `nodesim sweep --shard=...`", f)
			continue
		}
		n := 0
		out := ""
		for _, a := range shard.Args {
			if g := shardFlag.FindStringSubmatch(a); g != nil {
				n, _ = strconv.Atoi(g[1])
			}
			if v, ok := strings.CutPrefix(a, "--shard-out="); ok {
				out = v
			}
		}
		if j.Spec.Completions == nil || n != int(*j.Spec.Completions) {
			completions := "unset"
			if j.Spec.Completions != nil {
				completions = strconv.Itoa(int(*j.Spec.Completions))
			}
			t.Errorf("%s: --shard=$(JOB_COMPLETION_INDEX)/%d but completions %s", f, n, completions)
		}
		if !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") {
			t.Errorf("%s: --shard-out %q does not vary with the index: shards would overwrite each other", f, out)
		}
		if j.Spec.Parallelism == nil || int(*j.Spec.Parallelism) > n {
			t.Errorf("%s: parallelism %v, want at most the %d shards", f, j.Spec.Parallelism, n)
		}
		if shard.Args[0] != "sweep" || !mountsConfigMap(spec, shard, filepath.Dir(shard.Args[1])) {
			t.Errorf("%s: the shard does not sweep a file of the ConfigMap it mounts: %q", f, shard.Args)
		}
		if strings.HasPrefix(out, "/results/") {
			for i := 0; i < n; i++ {
				written = append(written, strings.ReplaceAll(out, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i)))
			}
		}
	}
	merged := 0
	for f, j := range m.jobs {
		for _, c := range j.Spec.Template.Spec.Containers {
			if len(c.Args) < 2 || c.Args[0] != "sweep" || c.Args[1] != "merge" {
				continue
			}
			merged++
			var files []string
			for _, a := range c.Args[2:] {
				if !strings.HasPrefix(a, "-") {
					files = append(files, a)
				}
			}
			if fmt.Sprint(files) != fmt.Sprint(written) {
				t.Errorf("%s merges %q, the sweep Job writes %q", f, files, written)
			}
		}
	}
	if merged != 1 || len(written) == 0 {
		t.Errorf("%d merge Jobs and %d slices on the shared volume, want one merge of every slice", merged, len(written))
	}
}

// mountsConfigMap says whether c mounts a ConfigMap volume at dir.
func mountsConfigMap(spec corev1.PodSpec, c *corev1.Container, dir string) bool {
	for _, vm := range c.VolumeMounts {
		for _, v := range spec.Volumes {
			if v.Name == vm.Name && v.ConfigMap != nil && vm.MountPath == dir {
				return true
			}
		}
	}
	return false
}

func findShard(spec corev1.PodSpec) *corev1.Container {
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range list {
			for _, a := range list[i].Args {
				if shardFlag.MatchString(a) {
					return &list[i]
				}
			}
		}
	}
	return nil
}

func checkVolumes(t *testing.T, f string, spec corev1.PodSpec, m *manifests) {
	t.Helper()
	vols := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		vols[v.Name] = v
	}
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		for _, vm := range c.VolumeMounts {
			if _, ok := vols[vm.Name]; !ok {
				t.Errorf("%s: container %s mounts %q, which the pod does not declare", f, c.Name, vm.Name)
			}
		}
	}
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil && !hasPVC(m, v.PersistentVolumeClaim.ClaimName) {
			t.Errorf("%s: claim %q is no shipped PersistentVolumeClaim", f, v.PersistentVolumeClaim.ClaimName)
		}
		if v.ConfigMap != nil && !hasConfigMap(m, v.ConfigMap.Name) {
			t.Errorf("%s: ConfigMap %q is not shipped", f, v.ConfigMap.Name)
		}
	}
}

func hasPVC(m *manifests, name string) bool {
	for _, p := range m.pvcs {
		if p.Name == name {
			return p.Spec.AccessModes[0] == corev1.ReadWriteMany
		}
	}
	return false
}

func hasConfigMap(m *manifests, name string) bool {
	for _, c := range m.configMaps {
		if c.Name == name {
			return true
		}
	}
	return false
}

// TestDockerfile: the image builds the static binary with the Go the module asks for.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if goVersion == nil {
		t.Fatal("no go directive in go.mod")
	}
	for _, want := range []string{
		"FROM golang:" + string(goVersion[1]) + " AS build",
		"CGO_ENABLED=0 go build",
		"./cmd/nodesim",
		"FROM gcr.io/distroless/static",
		`ENTRYPOINT ["/nodesim"]`,
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "cmd", "nodesim", "main.go")); err != nil {
		t.Errorf("the Dockerfile builds ./cmd/nodesim: %v", err)
	}
}

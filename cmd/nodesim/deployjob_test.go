package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// readManifest decodes one shipped manifest of deploy/.
func readManifest(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestDeployJobsRunAsShipped plays the shipped Indexed Job and merge Job with nodesim
// itself: each index's container arguments, $(JOB_COMPLETION_INDEX) expanded as the kubelet
// expands it, the ConfigMap's scenario at /scenario and a directory for the shared volume
// at /results; then the merge Job's arguments. The merge must print exactly what the
// unsharded sweep prints and write the same JUnit. Only --seeds is lowered (25 to 2) to keep
// the test short; every other argument is the manifests'.
func TestDeployJobsRunAsShipped(t *testing.T) {
	var cm corev1.ConfigMap
	var job, merge batchv1.Job
	readManifest(t, "scenario-configmap.yaml", &cm)
	readManifest(t, "sweep-job.yaml", &job)
	readManifest(t, "merge-job.yaml", &merge)

	dir := t.TempDir()
	scenarioDir, results := filepath.Join(dir, "scenario"), filepath.Join(dir, "results")
	for _, d := range []string{scenarioDir, results} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range cm.Data {
		if err := os.WriteFile(filepath.Join(scenarioDir, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mounts := strings.NewReplacer("/scenario/", scenarioDir+"/", "/results/", results+"/")
	args := func(c corev1.Container, index int) []string {
		var out []string
		for _, a := range c.Args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(index))
			if a == "--seeds=25" {
				a = "--seeds=2"
			}
			out = append(out, mounts.Replace(a))
		}
		return out
	}

	shard := job.Spec.Template.Spec.Containers[0]
	n := int(*job.Spec.Completions)
	var whole []string
	for i := 0; i < n; i++ {
		a := args(shard, i)
		if _, errOut, code := nodesim(t, a...); code != 0 {
			t.Fatalf("index %d: nodesim %s: exit %d\n%s", i, strings.Join(a, " "), code, errOut)
		}
		if i == 0 {
			for _, x := range a {
				if !strings.HasPrefix(x, "--shard") {
					whole = append(whole, x)
				}
			}
		}
	}
	mergeArgs := args(merge.Spec.Template.Spec.Containers[0], 0)
	merged, errOut, mergeCode := nodesim(t, mergeArgs...)
	if mergeCode != 0 && mergeCode != 1 {
		t.Fatalf("merge: exit %d\n%s", mergeCode, errOut)
	}
	mergedJUnit, err := os.ReadFile(filepath.Join(results, "thresholds.junit.xml"))
	if err != nil {
		t.Fatal(err)
	}

	wholeJUnit := filepath.Join(dir, "whole.junit.xml")
	unsharded, errOut, code := nodesim(t, append(whole, "--quiet", "--junit="+wholeJUnit)...)
	if code != mergeCode {
		t.Errorf("unsharded sweep exit %d, merge %d\n%s", code, mergeCode, errOut)
	}
	if !strings.Contains(merged, "spec.kubelet.evictionHard[memory.available]") || !strings.Contains(merged, "evictionPressureTransitionPeriod") {
		t.Errorf("the merge does not show the Job's grid:\n%s", merged)
	}
	if unsharded != merged {
		t.Errorf("the merge of the Job's slices differs from the unsharded sweep:\n--- merge\n%s\n--- unsharded\n%s", merged, unsharded)
	}
	if junit, err := os.ReadFile(wholeJUnit); err != nil || string(junit) != string(mergedJUnit) {
		t.Errorf("the merge's JUnit differs from the unsharded sweep's (%v)", err)
	}

	// A shard that never wrote its slice is named.
	if err := os.Remove(filepath.Join(results, "thresholds-shard-3.json")); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := nodesim(t, mergeArgs...); code != 2 || !strings.Contains(errOut, "thresholds-shard-3.json") {
		t.Errorf("merge with slice 3 missing: exit %d\n%s", code, errOut)
	}
}

// The object-storage variant's shard (an init container) runs as shipped and writes the file
// its upload container sends.
func TestDeployS3JobShardRuns(t *testing.T) {
	var cm corev1.ConfigMap
	var job batchv1.Job
	readManifest(t, "scenario-configmap.yaml", &cm)
	readManifest(t, "sweep-job-s3.yaml", &job)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(cm.Data["scenario.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	expand := strings.NewReplacer("$(JOB_COMPLETION_INDEX)", "5", "/scenario/", dir+"/", "/slice/", dir+"/", "--seeds=25", "--seeds=1")
	var shard []string
	for _, a := range job.Spec.Template.Spec.InitContainers[0].Args {
		shard = append(shard, expand.Replace(a))
	}
	if _, errOut, code := nodesim(t, shard...); code != 0 {
		t.Fatalf("nodesim %s: exit %d\n%s", strings.Join(shard, " "), code, errOut)
	}
	upload := job.Spec.Template.Spec.Containers[0].Args
	sent := expand.Replace(upload[2])
	if _, err := os.Stat(sent); err != nil {
		t.Errorf("the upload container sends %s, which the shard did not write: %v", upload[2], err)
	}
}

package upstream

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/apps"
	appsdefaults "k8s.io/kubernetes/pkg/apis/apps/v1"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	"k8s.io/kubernetes/pkg/apis/batch"
	batchdefaults "k8s.io/kubernetes/pkg/apis/batch/v1"
	batchvalidation "k8s.io/kubernetes/pkg/apis/batch/validation"
	"k8s.io/kubernetes/pkg/features"
	hashutil "k8s.io/kubernetes/pkg/util/hash"
)

// DefaultWorkload applies the v1 defaults the API server applies when it decodes a
// Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob: the object's own (replicas
// 1, strategies, history limits, parallelism and completions 1, backoffLimit 6, ...) and its
// pod template's spec. Like DefaultPod, it sees the v1.37 default gates.
func DefaultWorkload(obj any) error {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		appsdefaults.SetObjectDefaults_Deployment(o)
	case *appsv1.ReplicaSet:
		appsdefaults.SetObjectDefaults_ReplicaSet(o)
	case *appsv1.StatefulSet:
		appsdefaults.SetObjectDefaults_StatefulSet(o)
	case *appsv1.DaemonSet:
		appsdefaults.SetObjectDefaults_DaemonSet(o)
	case *batchv1.Job:
		batchdefaults.SetObjectDefaults_Job(o)
	case *batchv1.CronJob:
		batchdefaults.SetObjectDefaults_CronJob(o)
	default:
		return fmt.Errorf("no defaults for %T", obj)
	}
	return nil
}

// PrepareJobForCreate does what the API server's Job strategy does before validating a new
// Job without manualSelector: the job-name and controller-uid labels (both the legacy and
// the batch.kubernetes.io/ keys) on its pod template, unless already set, and a selector on
// the controller-uid label.
func PrepareJobForCreate(job *batchv1.Job) {
	if job.Spec.ManualSelector != nil && *job.Spec.ManualSelector {
		return
	}
	labels := job.Spec.Template.Labels
	if labels == nil {
		labels = map[string]string{}
		job.Spec.Template.Labels = labels
	}
	for _, k := range []string{batch.LegacyJobNameLabel, batch.JobNameLabel} {
		if _, set := labels[k]; !set {
			labels[k] = job.Name
		}
	}
	for _, k := range []string{batch.LegacyControllerUidLabel, batch.ControllerUidLabel} {
		if _, set := labels[k]; !set {
			labels[k] = string(job.UID)
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{}
	}
	if job.Spec.Selector.MatchLabels == nil {
		job.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, set := job.Spec.Selector.MatchLabels[batch.ControllerUidLabel]; !set {
		job.Spec.Selector.MatchLabels[batch.ControllerUidLabel] = string(job.UID)
	}
}

// ValidateWorkload validates a defaulted workload as the API server does on create
// (ValidateDeployment, ValidateReplicaSet, ValidateStatefulSet, ValidateDaemonSet,
// ValidateJobCreate, ValidateCronJobCreate), with this run's pod validation options for its
// template. A Job must have been through PrepareJobForCreate.
func (g *KubeletGates) ValidateWorkload(obj any) (field.ErrorList, error) {
	opts := g.PodValidationOptions()
	switch o := obj.(type) {
	case *appsv1.Deployment:
		in := &apps.Deployment{}
		if err := appsdefaults.Convert_v1_Deployment_To_apps_Deployment(o, in, nil); err != nil {
			return nil, convertErr(o.Name, err)
		}
		return appsvalidation.ValidateDeployment(in, opts), nil
	case *appsv1.ReplicaSet:
		in := &apps.ReplicaSet{}
		if err := appsdefaults.Convert_v1_ReplicaSet_To_apps_ReplicaSet(o, in, nil); err != nil {
			return nil, convertErr(o.Name, err)
		}
		return appsvalidation.ValidateReplicaSet(in, opts), nil
	case *appsv1.StatefulSet:
		in := &apps.StatefulSet{}
		if err := appsdefaults.Convert_v1_StatefulSet_To_apps_StatefulSet(o, in, nil); err != nil {
			return nil, convertErr(o.Name, err)
		}
		set := appsvalidation.StatefulSetValidationOptions{
			AllowStatefulSetRecreateStrategy: g.Enabled(string(features.StatefulSetRecreateStrategy)),
		}
		return appsvalidation.ValidateStatefulSet(in, set, opts), nil
	case *appsv1.DaemonSet:
		in := &apps.DaemonSet{}
		if err := appsdefaults.Convert_v1_DaemonSet_To_apps_DaemonSet(o, in, nil); err != nil {
			return nil, convertErr(o.Name, err)
		}
		return appsvalidation.ValidateDaemonSet(in, opts), nil
	case *batchv1.Job:
		in := &batch.Job{}
		if err := batchdefaults.Convert_v1_Job_To_batch_Job(o, in, nil); err != nil {
			return nil, convertErr(o.Name, err)
		}
		return batchvalidation.ValidateJobCreate(in, batchvalidation.JobValidationOptions{PodValidationOptions: opts, RequirePrefixedLabels: true}), nil
	case *batchv1.CronJob:
		in := &batch.CronJob{}
		if err := batchdefaults.Convert_v1_CronJob_To_batch_CronJob(o, in, nil); err != nil {
			return nil, convertErr(o.Name, err)
		}
		return batchvalidation.ValidateCronJobCreate(in, opts), nil
	}
	return nil, fmt.Errorf("cannot validate %T", obj)
}

func convertErr(name string, err error) error {
	return fmt.Errorf("converting %s to the internal type: %w", name, err)
}

// PodTemplateHash is the pod-template-hash the Deployment controller gives a template (and
// the controller-revision-hash the DaemonSet controller gives it), with no hash collision
// so far: upstream's controller.ComputeHash, an FNV-32a hash of the template as
// hashutil.DeepHashObject prints it, its decimal value encoded with rand.SafeEncodeString.
// The template must be defaulted as the API server stored it.
func PodTemplateHash(t *corev1.PodTemplateSpec) string {
	h := fnv.New32a()
	hashutil.DeepHashObject(h, *t)
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// StatefulSetRevision is the name of the first ControllerRevision the StatefulSet
// controller makes for a set, which its pods carry in their controller-revision-hash label:
// "<set>-<hash>", the hash an FNV-32 of the revision's patch (the set's pod template under
// spec.template with "$patch": "replace", as JSON with sorted keys) followed by the collision
// count 0. The set must be defaulted as the API server stored it.
func StatefulSetRevision(set *appsv1.StatefulSet) (string, error) {
	data, err := json.Marshal(set)
	if err != nil {
		return "", err
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return "", err
	}
	spec, _ := raw["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if template == nil {
		return "", fmt.Errorf("statefulset %s has no template", set.Name)
	}
	template["$patch"] = "replace"
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
	if err != nil {
		return "", err
	}
	h := fnv.New32()
	h.Write(patch)
	h.Write([]byte(strconv.FormatInt(0, 10)))
	hash := rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
	prefix := set.Name
	// A revision's name is a DNS subdomain: the prefix is cut so that "-<hash>" still fits.
	if len(prefix) > 223 {
		prefix = prefix[:223]
	}
	return prefix + "-" + hash, nil
}

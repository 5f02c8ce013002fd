package upstream

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
)

// With the v1.37 default gates, the options a run derives for a pod being created are the
// ones the API server's pod registry derives (GetValidationOptionsFromPodSpecAndMeta with no
// old pod), which reads the process-wide gates; only ResourceIsPod is set by the caller.
func TestPodValidationOptionsMatchUpstreamOnCreate(t *testing.T) {
	g, err := NewKubeletGates()
	if err != nil {
		t.Fatal(err)
	}
	spec := &core.PodSpec{Containers: []core.Container{{Name: "app", Image: "nginx"}}}
	want := podutil.GetValidationOptionsFromPodSpecAndMeta(spec, nil, &metav1.ObjectMeta{}, nil)
	if got := g.PodValidationOptions(); got != want {
		t.Errorf("options\n%+v\nwant upstream's\n%+v", got, want)
	}
	// A gate the kubelet config turns off reaches the options of that run only.
	if err := g.Set(map[string]bool{"PodLevelResources": false, "InPlacePodLevelResourcesVerticalScaling": false,
		"PodLevelResourcesFixDefaulting": false, "PodLevelResourcesFixKubeletQOSClass": false}); err != nil {
		t.Fatal(err)
	}
	fresh, _ := NewKubeletGates()
	if g.PodValidationOptions().PodLevelResourcesEnabled || !fresh.PodValidationOptions().PodLevelResourcesEnabled {
		t.Error("PodLevelResources=false must disable pod-level resources in this run's options only")
	}
}

// v1 defaulting fills what SetObjectDefaults_Pod fills; each value below is upstream's
// default as pkg/apis/core/v1/defaults.go sets it.
func TestDefaultPodIsUpstreams(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "nginx",
		Ports:          []corev1.ContainerPort{{ContainerPort: 80}},
		Resources:      corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{}}},
	}}}}
	DefaultPod(pod)
	s := pod.Spec
	c := s.Containers[0]
	switch {
	case s.RestartPolicy != corev1.RestartPolicyAlways, s.DNSPolicy != corev1.DNSClusterFirst,
		s.SchedulerName != corev1.DefaultSchedulerName, *s.TerminationGracePeriodSeconds != 30,
		s.SecurityContext == nil, s.EnableServiceLinks == nil || !*s.EnableServiceLinks:
		t.Errorf("pod spec defaults: %+v", s)
	case c.ImagePullPolicy != corev1.PullAlways: // untagged: :latest is pulled always
		t.Errorf("pull policy %q", c.ImagePullPolicy)
	case c.TerminationMessagePath != "/dev/termination-log", c.TerminationMessagePolicy != corev1.TerminationMessageReadFile:
		t.Errorf("termination message %q %q", c.TerminationMessagePath, c.TerminationMessagePolicy)
	case c.Ports[0].Protocol != corev1.ProtocolTCP:
		t.Errorf("port protocol %q", c.Ports[0].Protocol)
	case c.Resources.Requests.Memory().String() != "1Gi": // requests default to the limits
		t.Errorf("requests %v", c.Resources.Requests)
	}
	p := c.ReadinessProbe
	if p.TimeoutSeconds != 1 || p.PeriodSeconds != 10 || p.SuccessThreshold != 1 || p.FailureThreshold != 3 ||
		p.HTTPGet.Path != "/" || p.HTTPGet.Scheme != corev1.URISchemeHTTP {
		t.Errorf("probe defaults %+v %+v", p, p.HTTPGet)
	}
}

// A static pod is validated without ResourceIsPod, as the kubelet's file source does: with
// hostNetwork, only a pod the API server stores must have hostPort equal to containerPort
// (validateHostNetwork); from a file, hostPort 0 is let through.
func TestResourceIsPodOnlyForAPIServerPods(t *testing.T) {
	g, _ := NewKubeletGates()
	pod := &corev1.Pod{Spec: corev1.PodSpec{HostNetwork: true, Containers: []corev1.Container{{
		Name: "app", Image: "nginx", Ports: []corev1.ContainerPort{{ContainerPort: 80}},
	}}}}
	pod.Name, pod.Namespace = "p", "default"
	DefaultPod(pod)
	// Defaulting already sets hostPort to containerPort for hostNetwork pods; undo it to see
	// the validation rule alone.
	pod.Spec.Containers[0].Ports[0].HostPort = 0
	apiErrs, err := g.ValidatePodCreate(pod, false)
	if err != nil {
		t.Fatal(err)
	}
	fileErrs, _ := g.ValidatePodCreate(pod, true)
	if len(apiErrs) != 1 || apiErrs[0].Field != "spec.containers[0].ports[0].hostPort" || len(fileErrs) != 0 {
		t.Errorf("api server: %v; file: %v", apiErrs, fileErrs)
	}
}

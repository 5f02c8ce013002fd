package strictyaml

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: default
  labels:
    app.kubernetes.io/name: web
  annotations:
    example.com/owner: team-a
spec:
  terminationGracePeriodSeconds: 45
  restartPolicy: Always
  nodeSelector:
    kubernetes.io/os: linux
  tolerations:
    - key: node.kubernetes.io/not-ready
      operator: Exists
      effect: NoExecute
      tolerationSeconds: 300
  containers:
    - name: app
      image: nginx:1.27
      args: ["--port", "8080"]
      ports:
        - name: http
          containerPort: 8080
          protocol: TCP
      env:
        - name: MODE
          value: "production"
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
      resources:
        requests:
          cpu: 250m
          memory: 64Mi
        limits:
          cpu: 1
          memory: 1Gi
          ephemeral-storage: 2G
      readinessProbe:
        httpGet:
          path: /healthz
          port: http
        initialDelaySeconds: 5
        periodSeconds: 10
      livenessProbe:
        tcpSocket:
          port: 8080
        failureThreshold: 3
      securityContext:
        runAsNonRoot: true
        allowPrivilegeEscalation: false
  initContainers:
    - name: init
      image: busybox
      command: [sh, -c, "echo hi"]
`

func TestDecodePod(t *testing.T) {
	var pod corev1.Pod
	d := decodeYAML(t, podManifest, &pod)
	checkErrors(t, d, nil)

	if pod.APIVersion != "v1" || pod.Kind != "Pod" {
		t.Errorf("TypeMeta = %+v", pod.TypeMeta)
	}
	if pod.Name != "web-0" || pod.Labels["app.kubernetes.io/name"] != "web" || pod.Annotations["example.com/owner"] != "team-a" {
		t.Errorf("ObjectMeta = %+v", pod.ObjectMeta)
	}
	if pod.Spec.TerminationGracePeriodSeconds == nil || *pod.Spec.TerminationGracePeriodSeconds != 45 {
		t.Errorf("terminationGracePeriodSeconds = %v", pod.Spec.TerminationGracePeriodSeconds)
	}
	if pod.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		t.Errorf("restartPolicy = %q", pod.Spec.RestartPolicy)
	}
	if tol := pod.Spec.Tolerations; len(tol) != 1 || tol[0].Effect != corev1.TaintEffectNoExecute || *tol[0].TolerationSeconds != 300 {
		t.Errorf("tolerations = %+v", tol)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("containers = %+v", pod.Spec.Containers)
	}
	c := pod.Spec.Containers[0]
	if c.Name != "app" || c.Image != "nginx:1.27" || len(c.Args) != 2 || c.Ports[0].ContainerPort != 8080 || c.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("container = %+v", c)
	}
	if c.Env[0].Value != "production" || c.Env[1].ValueFrom.FieldRef.FieldPath != "metadata.name" {
		t.Errorf("env = %+v", c.Env)
	}
	for name, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: "250m", corev1.ResourceMemory: "64Mi"} {
		if got := c.Resources.Requests[name]; got.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("requests[%s] = %s, want %s", name, got.String(), want)
		}
	}
	for name, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: "1", corev1.ResourceMemory: "1Gi", corev1.ResourceEphemeralStorage: "2G"} {
		if got := c.Resources.Limits[name]; got.Cmp(resource.MustParse(want)) != 0 {
			t.Errorf("limits[%s] = %s, want %s", name, got.String(), want)
		}
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet.Port != intstr.FromString("http") || p.InitialDelaySeconds != 5 || p.PeriodSeconds != 10 {
		t.Errorf("readinessProbe = %+v", p)
	}
	if p := c.LivenessProbe; p == nil || p.TCPSocket.Port != intstr.FromInt32(8080) || p.FailureThreshold != 3 {
		t.Errorf("livenessProbe = %+v", p)
	}
	if sc := c.SecurityContext; sc == nil || !*sc.RunAsNonRoot || *sc.AllowPrivilegeEscalation {
		t.Errorf("securityContext = %+v", sc)
	}
	if ic := pod.Spec.InitContainers; len(ic) != 1 || ic[0].Command[2] != "echo hi" {
		t.Errorf("initContainers = %+v", ic)
	}
	if p := d.Positions["spec.containers[0].resources.limits.cpu"]; p != (Pos{testFile, 40, 16}) {
		t.Errorf("position of limits.cpu = %v", p)
	}
}

func TestDecodePodErrors(t *testing.T) {
	src := `apiVersion: v1
kind: Pod
metadata:
  name: web-0
  labels:
    tier: 1
spec:
  terminationGracePeriodSeconds: soon
  restartPolicy: always
  containers:
    - name: app
      image: nginx
      resources:
        limts:
          memory: 1Gi
        requests:
          memory: 8Gx
      ports:
        - containerPort: 99999999999
      livenessProbe:
        httpGet: {path: /, port: 8080, scheme: HTTP, hst: x}
`
	var pod corev1.Pod
	d := decodeYAML(t, src, &pod)
	checkErrors(t, d, []string{
		`test.yaml:6:11: metadata.labels.tier: expected a string, got integer 1 (quote it if you mean the string "1")`,
		`test.yaml:8:34: spec.terminationGracePeriodSeconds: expected an integer, got string "soon"`,
		`test.yaml:14:9: spec.containers[0].resources: unknown field "limts" (did you mean "limits"?)`,
		`test.yaml:17:19: spec.containers[0].resources.requests.memory: invalid value "8Gx": ` + resource.ErrFormatWrong.Error(),
		`test.yaml:19:26: spec.containers[0].ports[0].containerPort: value 99999999999 out of range for int32`,
		`test.yaml:21:54: spec.containers[0].livenessProbe.httpGet: unknown field "hst" (did you mean "host"?)`,
	})
	// Enum values are not validated here: that is the API validation's job.
	if pod.Spec.RestartPolicy != "always" {
		t.Errorf("restartPolicy = %q", pod.Spec.RestartPolicy)
	}
}

func TestDecodeKubeletConfiguration(t *testing.T) {
	src := `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
syncFrequency: 30s
maxPods: 110
evictionHard:
  memory.available: 200Mi
  nodefs.available: "10%"
evictionSoftGracePeriod:
  memory.available: 1m30s
featureGates:
  EventedPLEG: true
  InPlacePodVerticalScaling: false
systemReserved:
  cpu: 500m
failSwapOn: false
logging:
  format: json
  flushFrequency: 5s
  verbosity: 2
`
	var kc kubeletconfigv1beta1.KubeletConfiguration
	d := decodeYAML(t, src, &kc)
	checkErrors(t, d, nil)

	if kc.APIVersion != "kubelet.config.k8s.io/v1beta1" || kc.Kind != "KubeletConfiguration" {
		t.Errorf("TypeMeta = %+v", kc.TypeMeta)
	}
	if kc.SyncFrequency.Duration != 30*time.Second {
		t.Errorf("syncFrequency = %v", kc.SyncFrequency)
	}
	if kc.MaxPods != 110 {
		t.Errorf("maxPods = %d", kc.MaxPods)
	}
	if kc.EvictionHard["memory.available"] != "200Mi" || kc.EvictionHard["nodefs.available"] != "10%" {
		t.Errorf("evictionHard = %v", kc.EvictionHard)
	}
	if !kc.FeatureGates["EventedPLEG"] || kc.FeatureGates["InPlacePodVerticalScaling"] {
		t.Errorf("featureGates = %v", kc.FeatureGates)
	}
	if kc.FailSwapOn == nil || *kc.FailSwapOn {
		t.Errorf("failSwapOn = %v", kc.FailSwapOn)
	}
	if kc.Logging.Format != "json" || kc.Logging.FlushFrequency.Duration.Duration != 5*time.Second || kc.Logging.Verbosity != 2 {
		t.Errorf("logging = %+v", kc.Logging)
	}
	if p, ok := d.Positions[`evictionHard["memory.available"]`]; !ok || p != (Pos{testFile, 6, 21}) {
		t.Errorf("position of evictionHard[\"memory.available\"] = %v, %v", p, ok)
	}
}

func TestDecodeKubeletConfigurationErrors(t *testing.T) {
	src := `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
evictonHard:
  memory.available: 200Mi
evictionSoft:
  memory.available: 5
syncFrequency: 30
featureGates:
  EventedPLEG: "true"
`
	var kc kubeletconfigv1beta1.KubeletConfiguration
	d := decodeYAML(t, src, &kc)
	checkErrors(t, d, []string{
		`test.yaml:3:1: unknown field "evictonHard" (did you mean "evictionHard"?)`,
		`test.yaml:6:21: evictionSoft["memory.available"]: expected a string, got integer 5 (quote it if you mean the string "5")`,
		`test.yaml:7:16: syncFrequency: invalid value "30": cannot unmarshal number into Go value of type string`,
		`test.yaml:9:16: featureGates.EventedPLEG: expected a boolean, got string "true" (remove the quotes)`,
	})
}

func BenchmarkDecodePod(b *testing.B) {
	data := []byte(podManifest)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		root, err := ParseDocument(testFile, data)
		if err != nil {
			b.Fatal(err)
		}
		d := NewDecoder(testFile)
		var pod corev1.Pod
		d.Decode(root, "", &pod)
		if err := d.Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodePodOnly excludes yaml.v3 parsing to show the decoder's own
// cost.
func BenchmarkDecodePodOnly(b *testing.B) {
	root, err := ParseDocument(testFile, []byte(podManifest))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d := NewDecoder(testFile)
		var pod corev1.Pod
		d.Decode(root, "", &pod)
		if err := d.Err(); err != nil {
			b.Fatal(err)
		}
	}
}

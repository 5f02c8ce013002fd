package importer

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"sigs.k8s.io/yaml"
)

// The fixture is the captures of one worker node, "worker-7", built with the upstream types
// so that they have the shape the API server and the kubelet give them: 32 pods bound to it
// (30 running, 2 finished Job pods), its /configz, its /stats/summary and its Node object.
// TestFixturesUpToDate keeps testdata/node30 equal to what fixture() writes.

const fixtureNode = "worker-7"

// fixtureTime is when the summary was taken; the pods' stats are up to 9s older, as the
// kubelet's cAdvisor housekeeping leaves them.
var fixtureTime = time.Date(2026, 11, 20, 10, 15, 0, 0, time.UTC)

// Node figures.
const (
	fixtureMemoryKi   = 32863240  // capacity.memory, as a 32GiB machine reports it
	fixtureDiskKi     = 101430960 // capacity.ephemeral-storage
	fixtureSystemWS   = 1900 << 20
	fixtureDiskUsed   = 23 << 30
	fixtureInodes     = 6291456
	fixtureMaxPID     = 4194304
	fixtureSysReserve = 512 << 20
	fixtureKubeReserv = 1 << 30
	fixtureEvictHard  = 100 << 20
)

// fixtureContainer is a container of the fixture with its captured usage.
type fixtureContainer struct {
	name, image      string
	req, lim         string // memory request and limit ("" = none)
	cpu              string // cpu request
	ws, rootfs, logs int64  // bytes
	init, sidecar    bool
	ranFor           time.Duration // an init container's run
}

type fixturePod struct {
	ns, name, class string
	priority        int32
	policy          corev1.PreemptionPolicy
	containers      []fixtureContainer
	mirror          bool
	phase           corev1.PodPhase
	restartPolicy   corev1.RestartPolicy
	scratch         int64 // emptyDir "scratch" usage, bytes
	owner           string
}

const mi = 1 << 20

// fixturePods lists the node's pods. Usage figures vary per pod by a fixed rule so that
// every number differs and none is round.
func fixturePods() []fixturePod {
	var pods []fixturePod
	pods = append(pods,
		fixturePod{ns: "kube-system", name: "haproxy-" + fixtureNode, class: "system-node-critical", priority: 2000001000, mirror: true,
			containers: []fixtureContainer{{name: "haproxy", image: "haproxy:2.9", req: "32Mi", cpu: "25m", ws: 41*mi + 123456, rootfs: 24576, logs: 3*mi + 4096}}},
		fixturePod{ns: "kube-system", name: "kube-proxy-x7k2p", class: "system-node-critical", priority: 2000001000, owner: "DaemonSet",
			containers: []fixtureContainer{{name: "kube-proxy", image: "registry.k8s.io/kube-proxy:v1.37.2", cpu: "50m", ws: 57*mi + 331776, rootfs: 45056, logs: 12*mi + 81920}}},
		fixturePod{ns: "kube-system", name: "calico-node-9fz4d", class: "system-node-critical", priority: 2000001000, owner: "DaemonSet",
			containers: []fixtureContainer{
				{name: "install-cni", image: "calico/cni:v3.29.1", init: true, ranFor: 4 * time.Second},
				{name: "calico-node", image: "calico/node:v3.29.1", req: "128Mi", cpu: "250m", ws: 189*mi + 770048, rootfs: 2*mi + 8192, logs: 25*mi + 7000}}},
		fixturePod{ns: "monitoring", name: "node-exporter-ttl5m", class: "system-node-critical", priority: 2000001000, owner: "DaemonSet",
			containers: []fixtureContainer{{name: "node-exporter", image: "quay.io/prometheus/node-exporter:v1.8.2", req: "64Mi", lim: "128Mi", cpu: "100m", ws: 23*mi + 5120, rootfs: 8192, logs: 300000}}},
		fixturePod{ns: "kube-system", name: "coredns-6f6b679f8f-qz2lw", class: "system-cluster-critical", priority: 2000000000, owner: "ReplicaSet",
			containers: []fixtureContainer{{name: "coredns", image: "registry.k8s.io/coredns/coredns:v1.11.3", req: "70Mi", lim: "170Mi", cpu: "100m", ws: 31*mi + 901120, rootfs: 16384, logs: 1*mi + 2048}}},
	)
	for i := 0; i < 8; i++ {
		pods = append(pods, fixturePod{ns: "shop", name: fmt.Sprintf("web-7d9c5b8f4-%c%c%c", 'a'+i, 'k'+i, 'p'+i), owner: "ReplicaSet",
			containers: []fixtureContainer{{name: "nginx", image: "nginx:1.27", req: "256Mi", lim: "512Mi", cpu: "200m",
				ws: int64(280+13*i)*mi + int64(i)*40960 + 7777, rootfs: int64(3+i) * mi, logs: int64(20+2*i) * mi}}})
	}
	for i := 0; i < 6; i++ {
		pods = append(pods, fixturePod{ns: "shop", name: fmt.Sprintf("api-5c8d7f6b9-%c%c%c", 'b'+i, 'm'+i, 'r'+i), owner: "ReplicaSet",
			containers: []fixtureContainer{{name: "api", image: "ghcr.io/example/shop-api:3.4.1", req: "1Gi", lim: "1Gi", cpu: "500m",
				ws: int64(610+37*i)*mi + int64(i)*12288 + 1, rootfs: 512*1024 + int64(i)*4096, logs: int64(40+i) * mi}}})
	}
	for i := 0; i < 5; i++ {
		pods = append(pods, fixturePod{ns: "batch", name: fmt.Sprintf("worker-66b9c4d5d-%c%c%c", 'c'+i, 'n'+i, 's'+i), class: "batch-low", priority: 100,
			policy: corev1.PreemptNever, owner: "ReplicaSet",
			containers: []fixtureContainer{{name: "worker", image: "ghcr.io/example/worker:1.2.0", req: "512Mi", lim: "2Gi", cpu: "250m",
				ws: int64(700+91*i)*mi + 3333, rootfs: int64(10+i) * mi, logs: int64(5+i) * mi}}})
	}
	for i := 0; i < 3; i++ {
		pods = append(pods, fixturePod{ns: "shop", name: fmt.Sprintf("cache-warmer-%d", i), owner: "StatefulSet",
			containers: []fixtureContainer{{name: "warmer", image: "redis:7.4", ws: int64(90+17*i)*mi + 2048, rootfs: 4096, logs: 64 * 1024}}})
	}
	pods = append(pods,
		fixturePod{ns: "shop", name: "checkout-8f7d6c5b4-tw9qz", owner: "ReplicaSet",
			containers: []fixtureContainer{
				{name: "envoy", image: "envoyproxy/envoy:v1.32.1", sidecar: true, init: true, req: "64Mi", lim: "256Mi", cpu: "50m", ws: 77*mi + 1234, rootfs: 8192, logs: 6 * mi},
				{name: "checkout", image: "ghcr.io/example/checkout:2.0.3", req: "384Mi", lim: "768Mi", cpu: "300m", ws: 402*mi + 99999, rootfs: 1 * mi, logs: 9 * mi}}},
		fixturePod{ns: "media", name: "thumbnailer-7b5d9c8f6-hh2xk", owner: "ReplicaSet", scratch: 1800*mi + 12345,
			containers: []fixtureContainer{{name: "thumbnailer", image: "ghcr.io/example/thumbnailer:0.9.0", req: "256Mi", lim: "1Gi", cpu: "200m", ws: 333*mi + 4321, rootfs: 2 * mi, logs: 1 * mi}}},
		fixturePod{ns: "batch", name: "nightly-report-29391840-qv8mc", owner: "Job", restartPolicy: corev1.RestartPolicyNever,
			containers: []fixtureContainer{{name: "report", image: "ghcr.io/example/report:5.1.0", req: "128Mi", lim: "512Mi", cpu: "100m", ws: 151*mi + 777, rootfs: 30 * mi, logs: 2 * mi}}},
		fixturePod{ns: "batch", name: "nightly-report-29390400-h7d2k", owner: "Job", restartPolicy: corev1.RestartPolicyNever, phase: corev1.PodSucceeded,
			containers: []fixtureContainer{{name: "report", image: "ghcr.io/example/report:5.1.0", req: "128Mi", lim: "512Mi", cpu: "100m"}}},
		fixturePod{ns: "batch", name: "nightly-report-29388960-m4x9b", owner: "Job", restartPolicy: corev1.RestartPolicyNever, phase: corev1.PodFailed,
			containers: []fixtureContainer{{name: "report", image: "ghcr.io/example/report:5.1.0", req: "128Mi", lim: "512Mi", cpu: "100m"}}},
	)
	return pods
}

func ptrTo[T any](v T) *T { return &v }

// fixturePod builds the v1.Pod the API server would return for p, status included.
func (p fixturePod) pod(i int) corev1.Pod {
	created := metav1.NewTime(fixtureTime.Add(-time.Duration(30-i) * time.Hour))
	restart := p.restartPolicy
	if restart == "" {
		restart = corev1.RestartPolicyAlways
	}
	pod := corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name: p.name, Namespace: p.ns, UID: types.UID("0f1e2d3c-4b5a-4978-8695-" + fmt.Sprintf("%012d", i)),
			ResourceVersion: fmt.Sprint(1000000 + 17*i), CreationTimestamp: created,
			Labels: map[string]string{"app": p.containers[len(p.containers)-1].name},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: "v1", Time: &created, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{}}}`)}}},
		},
		Spec: corev1.PodSpec{
			NodeName: fixtureNode, RestartPolicy: restart, TerminationGracePeriodSeconds: ptrTo(int64(30)),
			DNSPolicy: corev1.DNSClusterFirst, SchedulerName: "default-scheduler", EnableServiceLinks: ptrTo(true),
			ServiceAccountName: "default", SecurityContext: &corev1.PodSecurityContext{},
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))}},
			Priority: ptrTo(p.priority), PriorityClassName: p.class,
		},
	}
	policy := p.policy
	if policy == "" {
		policy = corev1.PreemptLowerPriority
	}
	pod.Spec.PreemptionPolicy = &policy
	if p.owner != "" {
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: p.owner, Name: p.name + "-owner", UID: types.UID("owner-" + p.name), Controller: ptrTo(true)}}
	}
	if p.mirror {
		pod.Annotations = map[string]string{
			"kubernetes.io/config.mirror": "5b3c1f2e9d8a7b6c", "kubernetes.io/config.hash": "5b3c1f2e9d8a7b6c",
			"kubernetes.io/config.seen": "2026-11-19T04:15:00.000000000Z", "kubernetes.io/config.source": "file"}
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: fixtureNode, UID: "node-uid-7", Controller: ptrTo(true)}}
		pod.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
	}
	if p.scratch > 0 {
		pod.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	}
	phase := p.phase
	if phase == "" {
		phase = corev1.PodRunning
	}
	pod.Status = corev1.PodStatus{Phase: phase, QOSClass: corev1.PodQOSBurstable, HostIP: "10.0.3.17", PodIP: fmt.Sprintf("10.244.7.%d", 10+i),
		StartTime: &created, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: created}}}
	for _, c := range p.containers {
		ctr := corev1.Container{Name: c.name, Image: c.image, ImagePullPolicy: corev1.PullIfNotPresent,
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile}
		if c.req != "" || c.cpu != "" {
			ctr.Resources.Requests = corev1.ResourceList{}
			if c.req != "" {
				ctr.Resources.Requests[corev1.ResourceMemory] = resource.MustParse(c.req)
			}
			if c.cpu != "" {
				ctr.Resources.Requests[corev1.ResourceCPU] = resource.MustParse(c.cpu)
			}
		}
		if c.lim != "" {
			ctr.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(c.lim)}
		}
		if p.scratch > 0 {
			ctr.VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/scratch"}}
		}
		started := metav1.NewTime(created.Add(5 * time.Second))
		st := corev1.ContainerStatus{Name: c.name, Image: c.image, ImageID: c.image + "@sha256:" + fmt.Sprintf("%064d", i), ContainerID: fmt.Sprintf("containerd://%064x", i*7+len(c.name))}
		switch {
		case c.init && !c.sidecar:
			st.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: started, FinishedAt: metav1.NewTime(started.Add(c.ranFor))}
		case phase == corev1.PodSucceeded:
			st.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: started, FinishedAt: metav1.NewTime(started.Add(20 * time.Minute))}
		case phase == corev1.PodFailed:
			st.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", StartedAt: started, FinishedAt: metav1.NewTime(started.Add(3 * time.Minute))}
		default:
			st.State.Running = &corev1.ContainerStateRunning{StartedAt: started}
			st.Ready, st.Started = true, ptrTo(true)
		}
		if c.init {
			if c.sidecar {
				ctr.RestartPolicy = ptrTo(corev1.ContainerRestartPolicyAlways)
			}
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, ctr)
			pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, st)
			continue
		}
		pod.Spec.Containers = append(pod.Spec.Containers, ctr)
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, st)
	}
	return pod
}

// fixtureImageSizes are the node's images and their sizes.
func fixtureImageSizes() map[string]int64 {
	return map[string]int64{
		"haproxy:2.9": 42*mi + 512001, "registry.k8s.io/kube-proxy:v1.37.2": 30*mi + 88123, "calico/cni:v3.29.1": 94*mi + 1234,
		"calico/node:v3.29.1": 150*mi + 4321, "quay.io/prometheus/node-exporter:v1.8.2": 11*mi + 777, "registry.k8s.io/coredns/coredns:v1.11.3": 18*mi + 6060,
		"nginx:1.27": 72*mi + 9999, "ghcr.io/example/shop-api:3.4.1": 210*mi + 1, "ghcr.io/example/worker:1.2.0": 330*mi + 33,
		"redis:7.4": 45*mi + 4545, "envoyproxy/envoy:v1.32.1": 61*mi + 16, "ghcr.io/example/checkout:2.0.3": 120*mi + 120,
		"ghcr.io/example/thumbnailer:0.9.0": 480*mi + 48, "ghcr.io/example/report:5.1.0": 95*mi + 95,
		"registry.k8s.io/pause:3.10": 320 * 1024,
	}
}

// fixture returns the four captures as files: name -> bytes.
func fixture() (map[string][]byte, error) {
	out := map[string][]byte{}
	specs := fixturePods()

	list := corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for i, p := range specs {
		list.Items = append(list.Items, p.pod(i))
	}
	b, err := yaml.Marshal(list)
	if err != nil {
		return nil, err
	}
	out["pods.yaml"] = b

	// The summary: every running container's usage, the pods' own figures, the node's.
	sum := statsv1alpha1.Summary{Node: statsv1alpha1.NodeStats{NodeName: fixtureNode, StartTime: metav1.NewTime(fixtureTime.Add(-40 * time.Hour))}}
	var podsWS uint64
	var podsDisk uint64
	for i, p := range specs {
		if p.phase == corev1.PodSucceeded || p.phase == corev1.PodFailed {
			continue
		}
		at := metav1.NewTime(fixtureTime.Add(-time.Duration(i%10) * time.Second))
		ps := statsv1alpha1.PodStats{PodRef: statsv1alpha1.PodReference{Name: p.name, Namespace: p.ns, UID: "0f1e2d3c-4b5a-4978-8695-" + fmt.Sprintf("%012d", i)},
			StartTime: metav1.NewTime(fixtureTime.Add(-time.Duration(30-i) * time.Hour))}
		var ws uint64
		for _, c := range p.containers {
			if c.init && !c.sidecar {
				continue
			}
			cs := statsv1alpha1.ContainerStats{Name: c.name, StartTime: ps.StartTime,
				Memory: &statsv1alpha1.MemoryStats{Time: at, WorkingSetBytes: ptrTo(uint64(c.ws)), UsageBytes: ptrTo(uint64(c.ws) + 8*mi), RSSBytes: ptrTo(uint64(c.ws) * 9 / 10)},
				CPU:    &statsv1alpha1.CPUStats{Time: at, UsageNanoCores: ptrTo(uint64(1000000 * (i + 1))), UsageCoreNanoSeconds: ptrTo(uint64(1e12) + uint64(i))},
				Rootfs: &statsv1alpha1.FsStats{Time: at, UsedBytes: ptrTo(uint64(c.rootfs)), CapacityBytes: ptrTo(uint64(fixtureDiskKi) * 1024), InodesUsed: ptrTo(uint64(12 + i))},
				Logs:   &statsv1alpha1.FsStats{Time: at, UsedBytes: ptrTo(uint64(c.logs)), CapacityBytes: ptrTo(uint64(fixtureDiskKi) * 1024), InodesUsed: ptrTo(uint64(2))}}
			ps.Containers = append(ps.Containers, cs)
			ws += uint64(c.ws)
			podsDisk += uint64(c.rootfs + c.logs)
		}
		// The pod cgroup holds a little more than its containers (the pause container,
		// the pod's own pages); node working set counts it.
		ps.Memory = &statsv1alpha1.MemoryStats{Time: at, WorkingSetBytes: ptrTo(ws + 600*1024)}
		podsWS += ws + 600*1024
		if p.scratch > 0 {
			ps.VolumeStats = []statsv1alpha1.VolumeStats{{Name: "scratch", FsStats: statsv1alpha1.FsStats{Time: at, UsedBytes: ptrTo(uint64(p.scratch))}}}
			podsDisk += uint64(p.scratch)
		}
		ps.ProcessStats = &statsv1alpha1.ProcessStats{ProcessCount: ptrTo(uint64(len(p.containers) * 3))}
		sum.Pods = append(sum.Pods, ps)
	}
	capMem := uint64(fixtureMemoryKi) * 1024
	nodeWS := podsWS + fixtureSystemWS
	now := metav1.NewTime(fixtureTime)
	sum.Node.Memory = &statsv1alpha1.MemoryStats{Time: now, WorkingSetBytes: ptrTo(nodeWS), AvailableBytes: ptrTo(capMem - nodeWS), UsageBytes: ptrTo(nodeWS + 3<<30)}
	fsCap := uint64(fixtureDiskKi) * 1024
	sum.Node.Fs = &statsv1alpha1.FsStats{Time: now, CapacityBytes: ptrTo(fsCap), UsedBytes: ptrTo(uint64(fixtureDiskUsed)), AvailableBytes: ptrTo(fsCap - fixtureDiskUsed),
		Inodes: ptrTo(uint64(fixtureInodes)), InodesFree: ptrTo(uint64(fixtureInodes - 402113)), InodesUsed: ptrTo(uint64(402113))}
	var imagesBytes uint64
	for _, s := range fixtureImageSizes() {
		imagesBytes += uint64(s)
	}
	sum.Node.Runtime = &statsv1alpha1.RuntimeStats{ImageFs: &statsv1alpha1.FsStats{Time: now, CapacityBytes: ptrTo(fsCap), UsedBytes: ptrTo(imagesBytes),
		AvailableBytes: ptrTo(fsCap - fixtureDiskUsed)}}
	sum.Node.Rlimit = &statsv1alpha1.RlimitStats{Time: now, MaxPID: ptrTo(int64(fixtureMaxPID)), NumOfRunningProcesses: ptrTo(int64(612))}
	sum.Node.SystemContainers = []statsv1alpha1.ContainerStats{{Name: "kubelet", StartTime: sum.Node.StartTime,
		Memory: &statsv1alpha1.MemoryStats{Time: now, WorkingSetBytes: ptrTo(uint64(96 * mi))}}}
	if b, err = json.MarshalIndent(sum, "", "  "); err != nil {
		return nil, err
	}
	out["summary.json"] = append(b, '\n')

	// /configz: the running configuration, every field defaulted as a v1.37 kubelet serves it
	// (a representative subset), one gate this version no longer knows.
	cfg := kubeletconfigv1beta1.KubeletConfiguration{
		EnableServer: ptrTo(true), StaticPodPath: "/etc/kubernetes/manifests", SyncFrequency: metav1.Duration{Duration: time.Minute},
		FileCheckFrequency: metav1.Duration{Duration: 20 * time.Second}, HTTPCheckFrequency: metav1.Duration{Duration: 20 * time.Second},
		Address: "0.0.0.0", Port: 10250, TLSCertFile: "/var/lib/kubelet/pki/kubelet.crt", TLSPrivateKeyFile: "/var/lib/kubelet/pki/kubelet.key",
		Authentication: kubeletconfigv1beta1.KubeletAuthentication{X509: kubeletconfigv1beta1.KubeletX509Authentication{ClientCAFile: "/etc/kubernetes/pki/ca.crt"},
			Webhook:   kubeletconfigv1beta1.KubeletWebhookAuthentication{Enabled: ptrTo(true), CacheTTL: metav1.Duration{Duration: 2 * time.Minute}},
			Anonymous: kubeletconfigv1beta1.KubeletAnonymousAuthentication{Enabled: ptrTo(false)}},
		Authorization:   kubeletconfigv1beta1.KubeletAuthorization{Mode: "Webhook", Webhook: kubeletconfigv1beta1.KubeletWebhookAuthorization{CacheAuthorizedTTL: metav1.Duration{Duration: 5 * time.Minute}, CacheUnauthorizedTTL: metav1.Duration{Duration: 30 * time.Second}}},
		RegistryPullQPS: ptrTo(int32(5)), RegistryBurst: 10, EventRecordQPS: ptrTo(int32(50)), EventBurst: 100, EnableDebuggingHandlers: ptrTo(true),
		HealthzPort: ptrTo(int32(10248)), HealthzBindAddress: "127.0.0.1", OOMScoreAdj: ptrTo(int32(-999)), ClusterDomain: "cluster.local", ClusterDNS: []string{"10.96.0.10"},
		StreamingConnectionIdleTimeout: metav1.Duration{Duration: 4 * time.Hour}, NodeStatusUpdateFrequency: metav1.Duration{Duration: 10 * time.Second},
		NodeStatusReportFrequency: metav1.Duration{Duration: 5 * time.Minute}, NodeLeaseDurationSeconds: 40, ImageMinimumGCAge: metav1.Duration{Duration: 2 * time.Minute},
		ImageMaximumGCAge: metav1.Duration{}, ImageGCHighThresholdPercent: ptrTo(int32(85)), ImageGCLowThresholdPercent: ptrTo(int32(80)),
		VolumeStatsAggPeriod: metav1.Duration{Duration: time.Minute}, CgroupsPerQOS: ptrTo(true), CgroupDriver: "systemd", CPUManagerPolicy: "none",
		CPUManagerReconcilePeriod: metav1.Duration{Duration: 10 * time.Second}, MemoryManagerPolicy: "None", TopologyManagerPolicy: "none", TopologyManagerScope: "container",
		RuntimeRequestTimeout: metav1.Duration{Duration: 2 * time.Minute}, HairpinMode: "promiscuous-bridge", MaxPods: 110, PodPidsLimit: ptrTo(int64(-1)),
		ResolverConfig: ptrTo("/run/systemd/resolve/resolv.conf"), CPUCFSQuota: ptrTo(true), CPUCFSQuotaPeriod: &metav1.Duration{Duration: 100 * time.Millisecond},
		MaxOpenFiles: 1000000, ContentType: "application/vnd.kubernetes.protobuf", KubeAPIQPS: ptrTo(int32(50)), KubeAPIBurst: 100,
		SerializeImagePulls:              ptrTo(true),
		EvictionHard:                     map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%"},
		EvictionPressureTransitionPeriod: metav1.Duration{Duration: 5 * time.Minute}, EnableControllerAttachDetach: ptrTo(true), MakeIPTablesUtilChains: ptrTo(true),
		IPTablesMasqueradeBit: ptrTo(int32(14)), IPTablesDropBit: ptrTo(int32(15)), FailSwapOn: ptrTo(true), ContainerLogMaxSize: "10Mi", ContainerLogMaxFiles: ptrTo(int32(5)),
		ContainerLogMaxWorkers: ptrTo(int32(1)), ContainerLogMonitorInterval: &metav1.Duration{Duration: 10 * time.Second}, ConfigMapAndSecretChangeDetectionStrategy: "Watch",
		SystemReserved: map[string]string{"cpu": "100m", "memory": "512Mi"}, KubeReserved: map[string]string{"cpu": "100m", "memory": "1Gi"},
		EnforceNodeAllocatable: []string{"pods"}, VolumePluginDir: "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
		FeatureGates:                  map[string]bool{"KubeletCrashLoopBackOffMax": true, "CSIMigration": true},
		CrashLoopBackOff:              kubeletconfigv1beta1.CrashLoopBackOffConfig{MaxContainerRestartPeriod: &metav1.Duration{Duration: 60 * time.Second}},
		LocalStorageCapacityIsolation: ptrTo(true), ContainerRuntimeEndpoint: "unix:///run/containerd/containerd.sock",
	}
	if b, err = json.MarshalIndent(map[string]any{"kubeletconfig": cfg}, "", "  "); err != nil {
		return nil, err
	}
	out["configz.json"] = append(b, '\n')

	// The Node: capacity, allocatable (capacity minus reserved minus the hard memory
	// threshold, as the kubelet computes it), its images.
	capQ := func(s string) resource.Quantity { return resource.MustParse(s) }
	allocMem := resource.NewQuantity(int64(fixtureMemoryKi)*1024-fixtureSysReserve-fixtureKubeReserv-fixtureEvictHard, resource.BinarySI)
	// nodefs.available 10% is reserved as the kubelet reserves a percentage: a float32
	// fraction of the capacity, 103865303040 x 0.1 (as float32) = 10386530458 bytes.
	diskBytes, pct := int64(fixtureDiskKi)*1024, float32(10)
	allocDisk := resource.NewQuantity(diskBytes-int64(float64(diskBytes)*float64(pct/100)), resource.DecimalSI)
	node := corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: fixtureNode, UID: "node-uid-7", ResourceVersion: "998877",
			Labels: map[string]string{"kubernetes.io/hostname": fixtureNode, "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "m6i.2xlarge"}},
		Spec: corev1.NodeSpec{PodCIDR: "10.244.7.0/24", PodCIDRs: []string{"10.244.7.0/24"}, ProviderID: "aws:///eu-west-1a/i-0abc"},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{corev1.ResourceCPU: capQ("8"), corev1.ResourceMemory: capQ(fmt.Sprintf("%dKi", fixtureMemoryKi)),
				corev1.ResourceEphemeralStorage: capQ(fmt.Sprintf("%dKi", fixtureDiskKi)), corev1.ResourcePods: capQ("110"),
				"hugepages-1Gi": capQ("0"), "hugepages-2Mi": capQ("0")},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: capQ("7800m"), corev1.ResourceMemory: *allocMem,
				corev1.ResourceEphemeralStorage: *allocDisk, corev1.ResourcePods: capQ("110"), "hugepages-1Gi": capQ("0"), "hugepages-2Mi": capQ("0")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.NewTime(fixtureTime)}},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.3.17"}, {Type: corev1.NodeHostName, Address: fixtureNode}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.37.2", ContainerRuntimeVersion: "containerd://2.1.4", KernelVersion: "6.8.0-1021-aws",
				OSImage: "Ubuntu 24.04.1 LTS", OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
	names := make([]string, 0, len(fixtureImageSizes()))
	for n := range fixtureImageSizes() {
		names = append(names, n)
	}
	sortBySize(names, fixtureImageSizes())
	for _, n := range names {
		node.Status.Images = append(node.Status.Images, corev1.ContainerImage{Names: []string{n[:indexColon(n)] + "@sha256:" + fmt.Sprintf("%064x", len(n)), n}, SizeBytes: fixtureImageSizes()[n]})
	}
	if b, err = yaml.Marshal(node); err != nil {
		return nil, err
	}
	out["node.yaml"] = b
	return out, nil
}

// sortBySize orders image names largest first, as the kubelet lists them.
func sortBySize(names []string, sizes map[string]int64) {
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && (sizes[names[j]] > sizes[names[j-1]] || sizes[names[j]] == sizes[names[j-1]] && names[j] < names[j-1]); j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
}

func indexColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
	}
	return len(s)
}

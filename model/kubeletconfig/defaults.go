// Package kubeletconfig fills a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) with the
// upstream kubelet's v1.37 defaults, and says which of its fields nodesim models.
//
// The defaults restate upstream's pkg/kubelet/apis/config/v1beta1/defaults.go and
// pkg/kubelet/eviction/defaults_linux.go for the fields a simulated node reads.
package kubeletconfig

import (
	logsapi "k8s.io/component-base/logs/api/v1"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// DefaultEvictionHard is the Linux default hard eviction map, used when evictionHard is absent.
func DefaultEvictionHard() map[string]string {
	return map[string]string{
		"memory.available":   "100Mi",
		"nodefs.available":   "10%",
		"nodefs.inodesFree":  "5%",
		"imagefs.available":  "15%",
		"imagefs.inodesFree": "5%",
	}
}

// SetDefaults fills every field the simulation reads that the user left unset, as the
// upstream kubelet would at start-up. cgroupV1 decides singleProcessOOMKill's default;
// gates (nil for the v1.37 defaults) decide whether the crash-loop cap is defaulted, which
// the kubelet does only under KubeletCrashLoopBackOffMax.
func SetDefaults(c *kubeletconfigv1beta1.KubeletConfiguration, cgroupV1 bool, gates Gates) {
	dur := func(d *metav1.Duration, def time.Duration) {
		if d.Duration == 0 {
			d.Duration = def
		}
	}
	setRemainingDefaults(c)
	dur(&c.SyncFrequency, time.Minute)
	dur(&c.FileCheckFrequency, 20*time.Second)
	dur(&c.NodeStatusUpdateFrequency, 10*time.Second)
	dur(&c.RuntimeRequestTimeout, 2*time.Minute)
	dur(&c.ImageMinimumGCAge, 2*time.Minute)
	dur(&c.EvictionPressureTransitionPeriod, 5*time.Minute)
	if c.RegistryPullQPS == nil {
		c.RegistryPullQPS = ptr(int32(5))
	}
	if c.RegistryBurst == 0 {
		c.RegistryBurst = 10
	}
	if c.ImageGCHighThresholdPercent == nil {
		c.ImageGCHighThresholdPercent = ptr(int32(85))
	}
	if c.ImageGCLowThresholdPercent == nil {
		c.ImageGCLowThresholdPercent = ptr(int32(80))
	}
	if c.MaxPods == 0 {
		c.MaxPods = 110
	}
	if c.PodPidsLimit == nil {
		c.PodPidsLimit = ptr(int64(-1))
	}
	if c.SerializeImagePulls == nil {
		// Upstream: serialized unless maxParallelImagePulls allows two or more.
		c.SerializeImagePulls = ptr(c.MaxParallelImagePulls == nil || *c.MaxParallelImagePulls < 2)
	}
	if c.ContainerLogMaxSize == "" {
		c.ContainerLogMaxSize = "10Mi"
	}
	if c.ContainerLogMaxFiles == nil {
		c.ContainerLogMaxFiles = ptr(int32(5))
	}
	if c.EnforceNodeAllocatable == nil {
		c.EnforceNodeAllocatable = []string{"pods"}
	}
	if c.SingleProcessOOMKill == nil {
		// Upstream: true on cgroup v1 (which has no group kill), false on cgroup v2.
		c.SingleProcessOOMKill = ptr(cgroupV1)
	}
	if c.CrashLoopBackOff.MaxContainerRestartPeriod == nil && (gates == nil || gates.Enabled("KubeletCrashLoopBackOffMax")) {
		c.CrashLoopBackOff.MaxContainerRestartPeriod = &metav1.Duration{Duration: 300 * time.Second}
	}
	if c.EvictionHard == nil {
		c.EvictionHard = DefaultEvictionHard()
	} else if c.MergeDefaultEvictionSettings != nil && *c.MergeDefaultEvictionSettings {
		for k, v := range DefaultEvictionHard() {
			if _, ok := c.EvictionHard[k]; !ok {
				c.EvictionHard[k] = v
			}
		}
	}
}

// modelled lists, by their JSON names, the KubeletConfiguration fields the simulation reads.
// A field that is set in a scenario but not listed here is reported as "not modelled".
func modelled() map[string]bool {
	return map[string]bool{
		"apiVersion": true, "kind": true,
		"syncFrequency":                    true,
		"serializeImagePulls":              true,
		"maxParallelImagePulls":            true,
		"maxPods":                          true,
		"systemReserved":                   true,
		"kubeReserved":                     true,
		"nodeStatusUpdateFrequency":        true,
		"crashLoopBackOff":                 true,
		"featureGates":                     true,
		"evictionHard":                     true,
		"evictionSoft":                     true,
		"evictionSoftGracePeriod":          true,
		"evictionMaxPodGracePeriod":        true,
		"evictionMinimumReclaim":           true,
		"evictionPressureTransitionPeriod": true,
		"mergeDefaultEvictionSettings":     true,
		"enforceNodeAllocatable":           true,
		"imageGCHighThresholdPercent":      true,
		"imageGCLowThresholdPercent":       true,
		"imageMinimumGCAge":                true,
		"kernelMemcgNotification":          true,
		"singleProcessOOMKill":             true,
		"failCgroupV1":                     true,
	}
}

// Modelled reports whether the simulation reads the field called name.
func Modelled(name string) bool { return modelled()[name] }

// NotModelled returns, sorted, the given field names that the simulation does not read.
func NotModelled(set []string) []string {
	m := modelled()
	var out []string
	for _, f := range set {
		if !m[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// CrashLoopBackOffMax is the crash-loop back-off cap from the config (300s by default).
func CrashLoopBackOffMax(c *kubeletconfigv1beta1.KubeletConfiguration) time.Duration {
	if p := c.CrashLoopBackOff.MaxContainerRestartPeriod; p != nil && p.Duration > 0 {
		return p.Duration
	}
	return 300 * time.Second
}

func ptr[T any](v T) *T { return &v }

// setRemainingDefaults fills the fields the simulation does not read with the v1.37
// defaults (SetDefaults_KubeletConfiguration), so that the configuration is validated as
// the kubelet validates it: after defaulting.
func setRemainingDefaults(c *kubeletconfigv1beta1.KubeletConfiguration) {
	dur := func(d *metav1.Duration, def time.Duration) {
		if d.Duration == 0 {
			d.Duration = def
		}
	}
	str := func(s *string, def string) {
		if *s == "" {
			*s = def
		}
	}
	b := func(p **bool, def bool) {
		if *p == nil {
			*p = ptr(def)
		}
	}
	i32 := func(p **int32, def int32) {
		if *p == nil {
			*p = ptr(def)
		}
	}
	b(&c.EnableServer, true)
	dur(&c.HTTPCheckFrequency, 20*time.Second)
	str(&c.Address, "0.0.0.0")
	if c.Port == 0 {
		c.Port = 10250
	}
	b(&c.Authentication.Anonymous.Enabled, false)
	b(&c.Authentication.Webhook.Enabled, true)
	dur(&c.Authentication.Webhook.CacheTTL, 2*time.Minute)
	if c.Authorization.Mode == "" {
		c.Authorization.Mode = kubeletconfigv1beta1.KubeletAuthorizationModeWebhook
	}
	dur(&c.Authorization.Webhook.CacheAuthorizedTTL, 5*time.Minute)
	dur(&c.Authorization.Webhook.CacheUnauthorizedTTL, 30*time.Second)
	i32(&c.EventRecordQPS, 50)
	if c.EventBurst == 0 {
		c.EventBurst = 100
	}
	b(&c.EnableDebuggingHandlers, true)
	i32(&c.HealthzPort, 10248)
	str(&c.HealthzBindAddress, "127.0.0.1")
	i32(&c.OOMScoreAdj, -999)
	dur(&c.StreamingConnectionIdleTimeout, 4*time.Hour)
	if c.NodeStatusReportFrequency.Duration == 0 {
		// Read before nodeStatusUpdateFrequency is defaulted, as upstream does.
		if c.NodeStatusUpdateFrequency.Duration == 0 {
			c.NodeStatusReportFrequency.Duration = 5 * time.Minute
		} else {
			c.NodeStatusReportFrequency = c.NodeStatusUpdateFrequency
		}
	}
	if c.NodeLeaseDurationSeconds == 0 {
		c.NodeLeaseDurationSeconds = 40
	}
	dur(&c.VolumeStatsAggPeriod, time.Minute)
	b(&c.CgroupsPerQOS, true)
	str(&c.CgroupDriver, "cgroupfs")
	str(&c.CPUManagerPolicy, "none")
	dur(&c.CPUManagerReconcilePeriod, 10*time.Second)
	str(&c.MemoryManagerPolicy, kubeletconfigv1beta1.NoneMemoryManagerPolicy)
	str(&c.TopologyManagerPolicy, kubeletconfigv1beta1.NoneTopologyManagerPolicy)
	str(&c.TopologyManagerScope, kubeletconfigv1beta1.ContainerTopologyManagerScope)
	str(&c.HairpinMode, kubeletconfigv1beta1.PromiscuousBridge)
	if c.ResolverConfig == nil {
		c.ResolverConfig = ptr("/etc/resolv.conf")
	}
	b(&c.CPUCFSQuota, true)
	if c.CPUCFSQuotaPeriod == nil {
		c.CPUCFSQuotaPeriod = &metav1.Duration{Duration: 100 * time.Millisecond}
	}
	i32(&c.NodeStatusMaxImages, 50)
	if c.MaxOpenFiles == 0 {
		c.MaxOpenFiles = 1000000
	}
	str(&c.ContentType, "application/vnd.kubernetes.protobuf")
	i32(&c.KubeAPIQPS, 50)
	if c.KubeAPIBurst == 0 {
		c.KubeAPIBurst = 100
	}
	b(&c.MergeDefaultEvictionSettings, false)
	b(&c.EnableControllerAttachDetach, true)
	b(&c.MakeIPTablesUtilChains, true)
	i32(&c.IPTablesMasqueradeBit, 14)
	i32(&c.IPTablesDropBit, 15)
	b(&c.FailSwapOn, true)
	i32(&c.ContainerLogMaxWorkers, 1)
	if c.ContainerLogMonitorInterval == nil {
		c.ContainerLogMonitorInterval = &metav1.Duration{Duration: 10 * time.Second}
	}
	if c.ConfigMapAndSecretChangeDetectionStrategy == "" {
		c.ConfigMapAndSecretChangeDetectionStrategy = kubeletconfigv1beta1.WatchChangeDetectionStrategy
	}
	str(&c.VolumePluginDir, "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/")
	logsapi.SetRecommendedLoggingConfiguration(&c.Logging)
	b(&c.EnableSystemLogHandler, true)
	b(&c.EnableProfilingHandler, true)
	b(&c.EnableDebugFlagsHandler, true)
	b(&c.SeccompDefault, false)
	b(&c.FailCgroupV1, true)
	if c.MemoryReservationPolicy == "" {
		c.MemoryReservationPolicy = kubeletconfigv1beta1.NoneMemoryReservationPolicy
	}
	b(&c.RegisterNode, true)
	b(&c.LocalStorageCapacityIsolation, true)
	str(&c.ContainerRuntimeEndpoint, "unix:///run/containerd/containerd.sock")
	str(&c.PodLogsDir, "/var/log/pods")
}

// Package kubeletconfig fills a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) with the
// upstream kubelet's v1.37 defaults, and says which of its fields nodesim models.
//
// The defaults restate upstream's pkg/kubelet/apis/config/v1beta1/defaults.go and
// pkg/kubelet/eviction/defaults_linux.go for the fields a simulated node reads.
package kubeletconfig

import (
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
// upstream kubelet would at start-up. cgroupV1 decides singleProcessOOMKill's default.
func SetDefaults(c *kubeletconfigv1beta1.KubeletConfiguration, cgroupV1 bool) {
	dur := func(d *metav1.Duration, def time.Duration) {
		if d.Duration == 0 {
			d.Duration = def
		}
	}
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
	if c.CrashLoopBackOff.MaxContainerRestartPeriod == nil {
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

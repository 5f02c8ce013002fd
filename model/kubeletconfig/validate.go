package kubeletconfig

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/blang/semver/v4"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	metricsapi "k8s.io/component-base/metrics/api/v1"
	tracingapi "k8s.io/component-base/tracing/api/v1"
	"k8s.io/component-helpers/node/util/sysctl"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
	"k8s.io/kubernetes/pkg/util/taints"
	"k8s.io/utils/cpuset"

	// The kubelet binary registers the json log format; without it "format: json" would
	// read as unsupported here though the kubelet accepts it.
	_ "k8s.io/component-base/logs/json/register"
)

// Problem is one reason the v1.37 kubelet refuses its configuration at start-up, in the
// kubelet's words, with the field it is about, so that the loader can position it.
type Problem struct {
	// Field is the top-level KubeletConfiguration key the problem is about, as written in
	// a config file (e.g. "imageGCLowThresholdPercent").
	Field string
	// Key is the map key or list index inside Field, if the problem is about one entry.
	Key string
	// Msg is the kubelet's message.
	Msg string
	// Related are other fields the problem is about, in order of preference, for when
	// Field itself was not written (a defaulted low threshold above a written high one).
	Related []string
}

// kubeletVersion is the version the kubelet compares showHiddenMetricsForVersion with.
var kubeletVersion = semver.MustParse("1.37.2")

// Validate checks a defaulted configuration with every rule the v1.37 kubelet applies to
// its configuration before it starts (ValidateKubeletConfiguration and its OS-specific and
// reserved-memory parts, for a Linux node), each problem at its own field. The rules are
// our own restatement: importing upstream's validation package would pull client-go's
// informers into the binary (measured: 478 more packages, a cold build 50s -> 4m38s on 2
// cores, the binary 37 MB -> 83 MB). gates answers with the per-run gates, the config's
// featureGates applied; fg, when not nil, is the same gates for upstream's logging and
// tracing validators, which we call as they are.
func Validate(c *kubeletconfigv1beta1.KubeletConfiguration, gates Gates, fg featuregate.FeatureGate, cgroupV1 bool) []Problem {
	var out []Problem
	add := func(fieldName, key, format string, args ...any) {
		out = append(out, Problem{Field: fieldName, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	inv := func(fieldName, format string, args ...any) {
		add(fieldName, "", "invalid configuration: "+format, args...)
	}
	i32 := func(p *int32, def int32) int32 {
		if p == nil {
			return def
		}
		return *p
	}
	isTrue := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	on := gates.Enabled

	if c.NodeLeaseDurationSeconds <= 0 {
		inv("nodeLeaseDurationSeconds", "nodeLeaseDurationSeconds must be greater than 0")
	}
	if c.SystemCgroups != "" && c.CgroupRoot == "" {
		inv("systemCgroups", "systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified")
	}
	if c.EventBurst < 0 {
		inv("eventBurst", "eventBurst (--event-burst) %v must not be a negative number", c.EventBurst)
	}
	if q := i32(c.EventRecordQPS, 50); q < 0 {
		inv("eventRecordQPS", "eventRecordQPS (--event-qps) %v must not be a negative number", q)
	}
	if p := i32(c.HealthzPort, 10248); p != 0 && !validPort(p) {
		inv("healthzPort", "healthzPort (--healthz-port) %v must be between 1 and 65535, inclusive", p)
	}
	period := 100 * time.Millisecond
	if c.CPUCFSQuotaPeriod != nil {
		period = c.CPUCFSQuotaPeriod.Duration
	}
	if !on("CustomCPUCFSQuotaPeriod") && period != 100*time.Millisecond {
		inv("cpuCFSQuotaPeriod", "cpuCFSQuotaPeriod (--cpu-cfs-quota-period) %v requires feature gate CustomCPUCFSQuotaPeriod", durationString(period))
	}
	if on("CustomCPUCFSQuotaPeriod") && (period < time.Millisecond || period > time.Second) {
		inv("cpuCFSQuotaPeriod", "cpuCFSQuotaPeriod (--cpu-cfs-quota-period) %v must be between 1ms and 1sec, inclusive", durationString(period))
	}
	hi, lo := i32(c.ImageGCHighThresholdPercent, 85), i32(c.ImageGCLowThresholdPercent, 80)
	if hi < 0 || hi > 100 {
		inv("imageGCHighThresholdPercent", "imageGCHighThresholdPercent (--image-gc-high-threshold) %v must be between 0 and 100, inclusive", hi)
	}
	if lo < 0 || lo > 100 {
		inv("imageGCLowThresholdPercent", "imageGCLowThresholdPercent (--image-gc-low-threshold) %v must be between 0 and 100, inclusive", lo)
	}
	if lo >= hi {
		inv("imageGCLowThresholdPercent", "imageGCLowThresholdPercent (--image-gc-low-threshold) %v must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) %v", lo, hi)
		out[len(out)-1].Related = []string{"imageGCHighThresholdPercent"}
	}
	if c.ImageMaximumGCAge.Duration != 0 && !on("ImageMaximumGCAge") {
		inv("imageMaximumGCAge", "ImageMaximumGCAge feature gate is required for Kubelet configuration option imageMaximumGCAge")
	}
	out = append(out, validateDefaultPodSysctls(c.DefaultPodSysctls, on("DefaultPodSysctls"))...)
	if d := c.ImageMinimumGCAge.Duration; d < 0 {
		inv("imageMinimumGCAge", "imageMinimumGCAge %v must not be negative", d)
	}
	if d := c.ImageMaximumGCAge.Duration; d < 0 {
		inv("imageMaximumGCAge", "imageMaximumGCAge %v must not be negative", d)
	}
	if mx, mn := c.ImageMaximumGCAge.Duration, c.ImageMinimumGCAge.Duration; mx > 0 && mx <= mn {
		inv("imageMaximumGCAge", "imageMaximumGCAge %v must be greater than imageMinimumGCAge %v", mx, mn)
	}
	if b := i32(c.IPTablesDropBit, 15); b < 0 || b > 31 {
		inv("iptablesDropBit", "iptablesDropBit (--iptables-drop-bit) %v must be between 0 and 31, inclusive", b)
	}
	if b := i32(c.IPTablesMasqueradeBit, 14); b < 0 || b > 31 {
		inv("iptablesMasqueradeBit", "iptablesMasqueradeBit (--iptables-masquerade-bit) %v must be between 0 and 31, inclusive", b)
	}
	if c.KubeAPIBurst < 0 {
		inv("kubeAPIBurst", "kubeAPIBurst (--kube-api-burst) %v must not be a negative number", c.KubeAPIBurst)
	}
	if q := i32(c.KubeAPIQPS, 50); q < 0 {
		inv("kubeAPIQPS", "kubeAPIQPS (--kube-api-qps) %v must not be a negative number", q)
	}
	if n := i32(c.NodeStatusMaxImages, 50); n < -1 {
		inv("nodeStatusMaxImages", "nodeStatusMaxImages (--node-status-max-images) %v must be -1 or greater", n)
	}
	if c.MaxOpenFiles < 0 {
		inv("maxOpenFiles", "maxOpenFiles (--max-open-files) %v must not be a negative number", c.MaxOpenFiles)
	}
	if c.MaxPods < 0 {
		inv("maxPods", "maxPods (--max-pods) %v must not be a negative number", c.MaxPods)
	}
	if a := i32(c.OOMScoreAdj, -999); a < -1000 || a > 1000 {
		inv("oomScoreAdj", "oomScoreAdj (--oom-score-adj) %v must be between -1000 and 1000, inclusive", a)
	}
	if c.PodsPerCore < 0 {
		inv("podsPerCore", "podsPerCore (--pods-per-core) %v must not be a negative number", c.PodsPerCore)
	}
	port := c.Port
	if port == 0 {
		port = 10250
	}
	if !validPort(port) {
		inv("port", "port (--port) %v must be between 1 and 65535, inclusive", port)
	}
	if c.ReadOnlyPort != 0 && !validPort(c.ReadOnlyPort) {
		inv("readOnlyPort", "readOnlyPort (--read-only-port) %v must be between 0 and 65535, inclusive", c.ReadOnlyPort)
	}
	if c.RegistryBurst < 0 {
		inv("registryBurst", "registryBurst (--registry-burst) %v must not be a negative number", c.RegistryBurst)
	}
	if q := i32(c.RegistryPullQPS, 5); q < 0 {
		inv("registryPullQPS", "registryPullQPS (--registry-qps) %v must not be a negative number", q)
	}
	if m := c.MaxParallelImagePulls; m != nil && *m < 1 {
		inv("maxParallelImagePulls", "maxParallelImagePulls %v must be a positive number", *m)
	}
	if isTrue(c.SerializeImagePulls, true) && c.MaxParallelImagePulls != nil && *c.MaxParallelImagePulls > 1 {
		inv("maxParallelImagePulls", "maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false")
		out[len(out)-1].Related = []string{"serializeImagePulls"}
	}
	if c.ServerTLSBootstrap && !on("RotateKubeletServerCertificate") {
		inv("serverTLSBootstrap", "serverTLSBootstrap %v requires feature gate RotateKubeletServerCertificate", c.ServerTLSBootstrap)
	}
	if c.RunOnce {
		inv("runOnce", "runOnce (--runOnce) %v, Runonce mode has been deprecated and should not be set", c.RunOnce)
	}
	for i, t := range c.RegisterWithTaints {
		key := fmt.Sprint(i)
		if err := taints.CheckTaintValidation(t); err != nil {
			add("registerWithTaints", key, "invalid taint: %v", t)
		}
		if t.TimeAdded != nil {
			add("registerWithTaints", key, "invalid configuration: taint.TimeAdded is not nil")
		}
	}
	policy := orDefault(c.TopologyManagerPolicy, "none")
	switch policy {
	case "none", "best-effort", "restricted", "single-numa-node":
	default:
		inv("topologyManagerPolicy", "topologyManagerPolicy (--topology-manager-policy) %q must be one of: %q", policy, []string{"none", "best-effort", "restricted", "single-numa-node"})
	}
	scope := orDefault(c.TopologyManagerScope, "container")
	switch scope {
	case "container", "pod":
	default:
		inv("topologyManagerScope", "topologyManagerScope (--topology-manager-scope) %q must be one of: %q, or %q", scope, "container", "pod")
	}
	out = append(out, validateShutdown(c, on)...)
	if on("NodeSwap") {
		switch b := c.MemorySwap.SwapBehavior; b {
		case "", "NoSwap", "LimitedSwap":
		default:
			add("memorySwap", "swapBehavior", "invalid configuration: memorySwap.swapBehavior %q must be one of: \"\", %q or %q", b, "LimitedSwap", "NoSwap")
		}
	} else if c.MemorySwap != (kubeletconfigv1beta1.MemorySwapConfiguration{}) {
		inv("memorySwap", "memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled")
	}
	if on("KubeletCrashLoopBackOffMax") {
		if p := c.CrashLoopBackOff.MaxContainerRestartPeriod; p == nil {
			inv("crashLoopBackOff", "FeatureGate KubeletCrashLoopBackOffMax is enabled, CrashLoopBackOff.MaxContainerRestartPeriod must be set")
		} else if ms := p.Duration.Milliseconds(); ms < 1000 || ms > 300000 {
			add("crashLoopBackOff", "maxContainerRestartPeriod", "invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: %v seconds) must be set between 1s and 300s", p.Seconds())
		}
	} else if c.CrashLoopBackOff.MaxContainerRestartPeriod != nil {
		add("crashLoopBackOff", "maxContainerRestartPeriod", "invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set")
	}
	out = append(out, validateEnforceNodeAllocatable(c)...)
	switch m := orDefault(c.HairpinMode, "promiscuous-bridge"); m {
	case "none", "hairpin-veth", "promiscuous-bridge":
	default:
		inv("hairpinMode", "option %q specified for hairpinMode (--hairpin-mode). Valid options are %q, %q or %q", m, "none", "hairpin-veth", "promiscuous-bridge")
	}
	out = append(out, validateImagePullCredentials(c, on("KubeletEnsureSecretPulledImages"))...)
	if c.ReservedSystemCPUs != "" {
		if c.SystemReservedCgroup != "" || c.KubeReservedCgroup != "" {
			inv("reservedSystemCPUs", "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)")
		}
		if _, err := cpuset.Parse(c.ReservedSystemCPUs); err != nil {
			inv("reservedSystemCPUs", "unable to parse reservedSystemCPUs (--reserved-cpus) %v, error: %v", c.ReservedSystemCPUs, err)
		}
	}
	out = append(out, validateReservedMemory(c.ReservedMemory)...)
	out = append(out, validateLinux(c, cgroupV1)...)
	if v := c.ShowHiddenMetricsForVersion; v != "" {
		if err := metricsapi.ValidateShowHiddenMetricsVersionForKubeletBackwardCompatOnly(kubeletVersion, v); err != nil {
			add("showHiddenMetricsForVersion", "", "%v", err)
		}
	}
	for _, e := range logsapi.Validate(&c.Logging, fg, field.NewPath("logging")) {
		add("logging", fieldChild(e.Field, "logging"), "%v", e)
	}
	for _, e := range tracingapi.ValidateTracingConfiguration(c.Tracing, fg, field.NewPath("tracing")) {
		add("tracing", fieldChild(e.Field, "tracing"), "%v", e)
	}
	memoryQoS := on("MemoryQoS")
	if f := c.MemoryThrottlingFactor; f != nil {
		if !memoryQoS && *f != 0.9 {
			inv("memoryThrottlingFactor", "memoryThrottlingFactor must not be set when MemoryQoS feature gate is disabled")
		}
		if *f <= 0 || *f > 1.0 {
			inv("memoryThrottlingFactor", "memoryThrottlingFactor %v must be greater than 0 and less than or equal to 1.0", *f)
		}
	}
	mrp := orDefault(string(c.MemoryReservationPolicy), "None")
	if !memoryQoS && mrp == "TieredReservation" {
		inv("memoryReservationPolicy", "memoryReservationPolicy %q requires MemoryQoS feature gate to be enabled", mrp)
	}
	switch mrp {
	case "None", "TieredReservation":
	default:
		inv("memoryReservationPolicy", "option %q specified for memoryReservationPolicy. Valid options are %q or %q", mrp, "None", "TieredReservation")
	}
	// containerRuntimeEndpoint defaults to containerd's socket, so it is empty only when a
	// value the defaulting cannot see (none in a file) cleared it: nothing to check here.
	if isTrue(c.EnableSystemLogQuery, false) {
		if !on("NodeLogQuery") {
			inv("enableSystemLogQuery", "NodeLogQuery feature gate is required for enableSystemLogQuery")
		}
		if !isTrue(c.EnableSystemLogHandler, true) {
			inv("enableSystemLogQuery", "enableSystemLogHandler is required for enableSystemLogQuery")
		}
	}
	if n := i32(c.ContainerLogMaxWorkers, 1); n < 1 {
		inv("containerLogMaxWorkers", "containerLogMaxWorkers must be greater than or equal to 1")
	}
	if p := c.ContainerLogMonitorInterval; p != nil && p.Duration.Seconds() < 3 {
		inv("containerLogMonitorInterval", "containerLogMonitorInterval must be a positive time duration greater than or equal to 3s")
	}
	if n := i32(c.ContainerLogMaxFiles, 5); n <= 1 {
		inv("containerLogMaxFiles", "containerLogMaxFiles must be greater than 1")
	}
	out = append(out, validatePodLogsDir(orDefault(c.PodLogsDir, "/var/log/pods"))...)
	return out
}

func validPort(p int32) bool { return p >= 1 && p <= 65535 }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// durationString prints a duration as upstream's messages print a metav1.Duration value
// (the struct, formatted with %v): {100ms}.
func durationString(d time.Duration) string { return "{" + d.String() + "}" }

// fieldChild is the part of a field path below root: "logging.format" -> "format".
func fieldChild(path, root string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, root), ".")
}

const (
	sysctlSegment = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
	sysctlMaxLen  = 253
)

var sysctlName = regexp.MustCompile("^(" + sysctlSegment + "[\\./])*" + sysctlSegment + "$")

func validateDefaultPodSysctls(m map[string]string, gateOn bool) []Problem {
	if len(m) == 0 {
		return nil
	}
	if !gateOn {
		return []Problem{{Field: "defaultPodSysctls", Msg: "invalid configuration: DefaultPodSysctls feature gate is required for Kubelet configuration option defaultPodSysctls"}}
	}
	var out []Problem
	seen := map[string]bool{}
	for _, k := range sortedMapKeys(m) {
		if len(k) > sysctlMaxLen || !sysctlName.MatchString(k) {
			out = append(out, Problem{Field: "defaultPodSysctls", Key: k, Msg: fmt.Sprintf("invalid configuration: %q is not a valid sysctl name for defaultPodSysctls", k)})
			continue
		}
		if ns, _, _ := sysctl.GetNamespace(k); ns == sysctl.UnknownNamespace {
			out = append(out, Problem{Field: "defaultPodSysctls", Key: k, Msg: fmt.Sprintf("invalid configuration: %q is not known to be namespaced for defaultPodSysctls", k)})
		}
		n := sysctl.NormalizeName(k)
		if seen[n] {
			out = append(out, Problem{Field: "defaultPodSysctls", Key: k, Msg: fmt.Sprintf("invalid configuration: duplicate sysctl %q found in defaultPodSysctls", n)})
		}
		seen[n] = true
	}
	return out
}

func validateShutdown(c *kubeletconfigv1beta1.KubeletConfiguration, on func(string) bool) []Problem {
	var out []Problem
	inv := func(f, format string, args ...any) {
		out = append(out, Problem{Field: f, Msg: "invalid configuration: " + fmt.Sprintf(format, args...)})
	}
	g, crit := c.ShutdownGracePeriod, c.ShutdownGracePeriodCriticalPods
	short := func(d time.Duration) bool { return d < 0 || d > 0 && d < time.Second }
	if on("GracefulNodeShutdown") {
		if crit.Duration > g.Duration {
			inv("shutdownGracePeriodCriticalPods", "shutdownGracePeriodCriticalPods %v must be <= shutdownGracePeriod %v", durationString(crit.Duration), durationString(g.Duration))
			out[len(out)-1].Related = []string{"shutdownGracePeriod"}
		}
		if short(g.Duration) {
			inv("shutdownGracePeriod", "shutdownGracePeriod %v must be either zero or otherwise >= 1 sec", durationString(g.Duration))
		}
		if short(crit.Duration) {
			inv("shutdownGracePeriodCriticalPods", "shutdownGracePeriodCriticalPods %v must be either zero or otherwise >= 1 sec", durationString(crit.Duration))
		}
	} else if g.Duration > 0 || crit.Duration > 0 {
		inv("shutdownGracePeriod", "specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown")
		out[len(out)-1].Related = []string{"shutdownGracePeriodCriticalPods"}
	}
	if len(c.ShutdownGracePeriodByPodPriority) != 0 {
		if !on("GracefulNodeShutdownBasedOnPodPriority") {
			inv("shutdownGracePeriodByPodPriority", "Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority")
		} else if g.Duration > 0 || crit.Duration > 0 {
			inv("shutdownGracePeriodByPodPriority", "Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time")
		}
	}
	return out
}

// The enforceNodeAllocatable values the kubelet knows.
const (
	enforcePods                     = "pods"
	enforceSystemReserved           = "system-reserved"
	enforceSystemReservedCompressib = "system-reserved-compressible"
	enforceKubeReserved             = "kube-reserved"
	enforceKubeReservedCompressible = "kube-reserved-compressible"
	enforceNone                     = "none"
)

func validateEnforceNodeAllocatable(c *kubeletconfigv1beta1.KubeletConfiguration) []Problem {
	var out []Problem
	const f = "enforceNodeAllocatable"
	add := func(key, format string, args ...any) {
		out = append(out, Problem{Field: f, Key: key, Msg: "invalid configuration: " + fmt.Sprintf(format, args...)})
	}
	has := map[string]bool{}
	for _, v := range c.EnforceNodeAllocatable {
		has[v] = true
	}
	if has[enforceSystemReserved] && has[enforceSystemReservedCompressib] {
		add("", "both %q and %q cannot be specified together in enforceNodeAllocatable (--enforce-node-allocatable)", enforceSystemReserved, enforceSystemReservedCompressib)
	}
	if has[enforceKubeReserved] && has[enforceKubeReservedCompressible] {
		add("", "both %q and %q cannot be specified together in enforceNodeAllocatable (--enforce-node-allocatable)", enforceKubeReserved, enforceKubeReservedCompressible)
	}
	seen := map[string]bool{}
	for i, v := range c.EnforceNodeAllocatable {
		key := fmt.Sprint(i)
		if seen[v] {
			add(key, "duplicated enforcements %q in enforceNodeAllocatable (--enforce-node-allocatable)", v)
			continue
		}
		seen[v] = true
		switch v {
		case enforcePods:
		case enforceSystemReserved, enforceSystemReservedCompressib:
			if c.SystemReservedCgroup == "" {
				add(key, "systemReservedCgroup (--system-reserved-cgroup) must be specified when %q or %q included in enforceNodeAllocatable (--enforce-node-allocatable)", enforceSystemReserved, enforceSystemReservedCompressib)
			}
		case enforceKubeReserved, enforceKubeReservedCompressible:
			if c.KubeReservedCgroup == "" {
				add(key, "kubeReservedCgroup (--kube-reserved-cgroup) must be specified when %q or %q included in enforceNodeAllocatable (--enforce-node-allocatable)", enforceKubeReserved, enforceKubeReservedCompressible)
			}
		case enforceNone:
			if len(c.EnforceNodeAllocatable) > 1 {
				add(key, "enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when %q is specified", enforceNone)
			}
			continue
		default:
			add(key, "option %q specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are %q, %q, %q, %q, %q or %q",
				v, enforcePods, enforceSystemReserved, enforceSystemReservedCompressib, enforceKubeReserved, enforceKubeReservedCompressible, enforceNone)
			continue
		}
		if c.CgroupsPerQOS != nil && !*c.CgroupsPerQOS {
			add(key, "cgroupsPerQOS (--cgroups-per-qos) must be set to true when %q contained in enforceNodeAllocatable (--enforce-node-allocatable)", v)
		}
	}
	return out
}

func validateImagePullCredentials(c *kubeletconfigv1beta1.KubeletConfiguration, gateOn bool) []Problem {
	var out []Problem
	inv := func(f, format string, args ...any) {
		out = append(out, Problem{Field: f, Msg: "invalid configuration: " + fmt.Sprintf(format, args...)})
	}
	policy := string(c.ImagePullCredentialsVerificationPolicy)
	if !gateOn {
		if policy != "" {
			inv("imagePullCredentialsVerificationPolicy", "`imagePullCredentialsVerificationPolicy` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled")
		}
		if len(c.PreloadedImagesVerificationAllowlist) > 0 {
			inv("preloadedImagesVerificationAllowlist", "`preloadedImagesVerificationAllowlist` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled")
		}
		return out
	}
	// With the gate on, the defaulting sets NeverVerifyPreloadedImages.
	policy = orDefault(policy, "NeverVerifyPreloadedImages")
	switch policy {
	case "NeverVerify", "NeverVerifyPreloadedImages", "NeverVerifyAllowlistedImages", "AlwaysVerify":
	default:
		inv("imagePullCredentialsVerificationPolicy", "option %q specified for imagePullCredentialsVerificationPolicy. Valid options are %q, %q, %q or %q",
			policy, "NeverVerify", "NeverVerifyPreloadedImages", "NeverVerifyAllowlistedImages", "AlwaysVerify")
	}
	if len(c.PreloadedImagesVerificationAllowlist) > 0 && policy != "NeverVerifyAllowlistedImages" {
		inv("preloadedImagesVerificationAllowlist", "can't set `preloadedImagesVerificationAllowlist` if `imagePullCredentialsVertificationPolicy` is not \"NeverVerifyAllowlistedImages\"")
	} else {
		for i, p := range c.PreloadedImagesVerificationAllowlist {
			if err := allowlistPattern(p); err != nil {
				out = append(out, Problem{Field: "preloadedImagesVerificationAllowlist", Key: fmt.Sprint(i), Msg: "invalid configuration: invalid image pattern in `preloadedImagesVerificationAllowlist`: " + err.Error()})
				break
			}
		}
	}
	return out
}

// allowlistPattern checks one preloadedImagesVerificationAllowlist entry as the kubelet's
// image pull manager does: a registry path, optionally ending in "/*", without a tag or
// digest.
func allowlistPattern(p string) error {
	if p != strings.TrimSpace(p) {
		return fmt.Errorf("leading/trailing spaces are not allowed: %s", p)
	}
	trimmed, wildcard := p, strings.HasSuffix(p, "/*")
	if wildcard {
		trimmed = strings.TrimSuffix(trimmed, "*")
	}
	if trimmed == "" {
		return fmt.Errorf("the supplied pattern is too short: %s", p)
	}
	if strings.ContainsRune(trimmed, '*') {
		return fmt.Errorf("not a valid wildcard pattern, only patterns ending with '/*' are allowed: %s", p)
	}
	if wildcard {
		if len(trimmed) == 1 {
			return fmt.Errorf("at least registry hostname is required")
		}
		return nil
	}
	if strings.Contains(trimmed, "@") || strings.LastIndex(trimmed, ":") > strings.LastIndex(trimmed, "/") {
		return fmt.Errorf("neither tag nor digest is accepted in an image reference: %s", p)
	}
	return nil
}

func validateReservedMemory(list []kubeletconfigv1beta1.MemoryReservation) []Problem {
	var out []Problem
	seen := map[int32]map[v1.ResourceName]bool{}
	for i, r := range list {
		key := fmt.Sprint(i)
		if seen[r.NumaNode] == nil {
			seen[r.NumaNode] = map[v1.ResourceName]bool{}
		}
		names := make([]string, 0, len(r.Limits))
		for n := range r.Limits {
			names = append(names, string(n))
		}
		sort.Strings(names)
		for _, s := range names {
			name := v1.ResourceName(s)
			q := r.Limits[name]
			if name != v1.ResourceMemory && !strings.HasPrefix(s, v1.ResourceHugePagesPrefix) {
				out = append(out, Problem{Field: "reservedMemory", Key: key, Msg: fmt.Sprintf("invalid configuration: the limit type %q for NUMA node %d is not supported, only %v is accepted", name, r.NumaNode, []v1.ResourceName{v1.ResourceMemory, v1.ResourceHugePagesPrefix + "<HugePageSize>"})})
			}
			if q.IsZero() {
				out = append(out, Problem{Field: "reservedMemory", Key: key, Msg: fmt.Sprintf("invalid configuration: reserved memory may not be zero for NUMA node %d and resource %q", r.NumaNode, name)})
			}
			if seen[r.NumaNode][name] {
				out = append(out, Problem{Field: "reservedMemory", Key: key, Msg: fmt.Sprintf("invalid configuration: the reserved memory has a duplicate value for NUMA node %d and resource %q", r.NumaNode, name)})
			}
			seen[r.NumaNode][name] = true
		}
	}
	return out
}

const userNsUnit = 65536

// validateLinux is the kubelet's Linux-only check; like upstream it stops at the first
// problem.
func validateLinux(c *kubeletconfigv1beta1.KubeletConfiguration, cgroupV1 bool) []Problem {
	if cgroupV1 && (c.FailCgroupV1 == nil || *c.FailCgroupV1) {
		return []Problem{{Field: "failCgroupV1", Msg: "kubelet is configured to not run on a host using cgroup v1. cgroup v1 support is unsupported and will be removed in a future release"}}
	}
	if cgroupV1 && c.SingleProcessOOMKill != nil && !*c.SingleProcessOOMKill {
		return []Problem{{Field: "singleProcessOOMKill", Msg: "invalid configuration: singleProcessOOMKill must not be explicitly set to false when using cgroup v1"}}
	}
	if u := c.UserNamespaces; u != nil && u.IDsPerPod != nil {
		n := *u.IDsPerPod
		p := func(msg string) []Problem {
			return []Problem{{Field: "userNamespaces", Key: "idsPerPod", Msg: "invalid configuration: " + msg}}
		}
		switch {
		case n < userNsUnit:
			return p(fmt.Sprintf("userNamespaces.idsPerPod must not be less than %d", userNsUnit))
		case n%userNsUnit != 0:
			return p(fmt.Sprintf("userNamespaces.idsPerPod must be a multiple of %d", userNsUnit))
		case n > math.MaxUint32:
			return p(fmt.Sprintf("userNamespaces.idsPerPod must not be more than %d", int64(math.MaxUint32)))
		}
	}
	return nil
}

func validatePodLogsDir(dir string) []Problem {
	var out []Problem
	inv := func(format string, args ...any) {
		out = append(out, Problem{Field: "podLogsDir", Msg: "invalid configuration: " + fmt.Sprintf(format, args...)})
	}
	if !filepath.IsAbs(dir) {
		inv("pod logs path %q must be absolute path", dir)
	}
	if filepath.Clean(dir) != dir {
		inv("pod logs path %q must be normalized", dir)
	}
	for _, r := range dir {
		if r > unicode.MaxASCII {
			inv("pod logs path %q mut contains ASCII characters only", dir)
			break
		}
	}
	return out
}

func sortedMapKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

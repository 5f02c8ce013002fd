package scenarios

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"nodesim/model/eviction"
)

// loadDistroConfig loads the minimal scenario with the named file of
// testdata/kubelet-configs as its kubeletConfigFile.
func loadDistroConfig(t *testing.T, file string) (*Loaded, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "kubelet-configs", file))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubeletConfigFile: "+file+"\n", 1)
	return Parse("s.yaml", []byte(src), func(name string) ([]byte, error) {
		if name != file {
			t.Fatalf("the scenario reads %q, not its kubelet file", name)
		}
		return data, nil
	}, nil)
}

// hardSignals lists the signals of the hard eviction thresholds a config yields, sorted.
func hardSignals(t *testing.T, l *Loaded) string {
	t.Helper()
	c := l.Kubelet
	ths, err := eviction.ParseThresholdConfig(c.EnforceNodeAllocatable, c.EvictionHard, c.EvictionSoft, c.EvictionSoftGracePeriod, c.EvictionMinimumReclaim)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, th := range ths {
		if th.GracePeriod == 0 {
			out = append(out, string(th.Signal))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestDistributionKubeletConfigs loads the kubelet config files public installers and
// distributions ship (testdata/kubelet-configs, sources in its README) and checks that each
// is accepted or refused as the v1.37 kubelet would, in the kubelet's words, positioned in
// the file.
func TestDistributionKubeletConfigs(t *testing.T) {
	cases := []struct {
		file string
		// errs are the refusals, one per line; none means the kubelet starts.
		errs []string
		// warnings and gates (the featureGates listed as not modelled) of an accepted file.
		warnings, gates []string
		check           func(t *testing.T, l *Loaded)
	}{
		{
			// kubeadm writes every duration it leaves to the kubelet as "0s"; the v1beta1
			// defaulting (SetDefaults_KubeletConfiguration) treats a zero duration as unset,
			// so syncFrequency 0s becomes 1m and nodeStatusUpdateFrequency 0s becomes 10s.
			// logging.flushFrequency: 0 is a plain number, which the kubelet's
			// TimeOrMetaDuration accepts (nanoseconds).
			file: "kubeadm.yaml",
			check: func(t *testing.T, l *Loaded) {
				if got := l.Kubelet.SyncFrequency.Duration; got != time.Minute {
					t.Errorf("syncFrequency %s, want the 1m default for 0s", got)
				}
				if got := l.Kubelet.NodeStatusUpdateFrequency.Duration; got != 10*time.Second {
					t.Errorf("nodeStatusUpdateFrequency %s, want the 10s default for 0s", got)
				}
				// evictionHard unset: the defaults memory.available<100Mi, nodefs.available<10%,
				// nodefs.inodesFree<5%, imagefs.available<15%, imagefs.inodesFree<5%, and with
				// enforceNodeAllocatable's default [pods] the allocatableMemory.available twin of
				// memory.available that ParseThresholdConfig adds.
				if got := hardSignals(t, l); got != "allocatableMemory.available imagefs.available imagefs.inodesFree memory.available nodefs.available nodefs.inodesFree" {
					t.Errorf("hard thresholds %q", got)
				}
			},
		},
		{
			// amazon-eks-ami: RotateKubeletServerCertificate is a BETA gate in v1.37 (default
			// on), so SetFromMap takes it without a warning; nodesim does not model serving
			// certificates, so it is listed as not modelled.
			file:  "eks-al2.json",
			gates: []string{"featureGates.RotateKubeletServerCertificate"},
			check: func(t *testing.T, l *Loaded) {
				if l.Kubelet.MaxPods != 29 {
					t.Errorf("maxPods %d, want 29", l.Kubelet.MaxPods)
				}
				// Its three thresholds replace the defaults (no imagefs ones), plus the
				// allocatableMemory.available twin of memory.available.
				if got := hardSignals(t, l); got != "allocatableMemory.available memory.available nodefs.available nodefs.inodesFree" {
					t.Errorf("hard thresholds %q", got)
				}
			},
		},
		{
			// kube-up writes podCidr, which is not a KubeletConfiguration field (podCIDR is):
			// the strict decode fails on it alone, so the kubelet decodes the file again
			// leniently (kubeletconfig codec DecodeKubeletConfiguration) and starts, logging
			// the strict error. AllAlpha: false is the registry's own default: accepted.
			file:     "kube-up-gce.yaml",
			warnings: []string{`kube-up-gce.yaml:25:1: unknown field "podCidr" (did you mean "podCIDR"?): the kubelet decodes the file leniently and ignores it`},
		},
		{
			// kind's kubeadm patch carries metadata (kubeadm's component-config documents have
			// it); the kubelet's lenient decode ignores it. Its "0%" thresholds are ignored
			// by parseThresholdStatement (0% and 100% mean no threshold), and evictionHard
			// being set replaces the defaults (mergeDefaultEvictionSettings is false), so no
			// hard threshold is left at all.
			file:     "kind.yaml",
			warnings: []string{`kind.yaml:3:1: unknown field "metadata": the kubelet decodes the file leniently and ignores it`},
			check: func(t *testing.T, l *Loaded) {
				if got := hardSignals(t, l); got != "" {
					t.Errorf("hard thresholds %q, want none", got)
				}
			},
		},
		{
			// k3s's drop-in: a complete v1beta1 file; evictionMinimumReclaim 10% above
			// 5% hard thresholds is accepted by ParseThresholdConfig.
			file: "k3s.yaml",
			check: func(t *testing.T, l *Loaded) {
				if got := hardSignals(t, l); got != "imagefs.available nodefs.available" {
					t.Errorf("hard thresholds %q", got)
				}
			},
		},
		{
			// Talos: many 0s durations like kubeadm, systemReserved with a pid entry.
			file: "talos.yaml",
		},
		{
			// OpenShift renders its cluster-wide FeatureGate into the kubelet config,
			// OpenShift-only gates included. The v1.37 registry (featuregate.SetFromMap)
			// refuses each gate it does not know ("unrecognized feature gate") and NodeSwap,
			// GA and locked on in v1.37, set false ("feature is locked to true").
			file: "openshift.yaml",
			errs: []string{
				`openshift.yaml:16:23: featureGates.AdminNetworkPolicy: unrecognized feature gate: AdminNetworkPolicy (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:17:20: featureGates.AlibabaPlatform: unrecognized feature gate: AlibabaPlatform (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:18:26: featureGates.AzureWorkloadIdentity: unrecognized feature gate: AzureWorkloadIdentity (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:19:20: featureGates.BuildCSIVolumes: unrecognized feature gate: BuildCSIVolumes (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:20:26: featureGates.CloudDualStackNodeIPs: unrecognized feature gate: CloudDualStackNodeIPs (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:21:43: featureGates.DisableKubeletCloudCredentialProviders: unrecognized feature gate: DisableKubeletCloudCredentialProviders (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:23:25: featureGates.NetworkLiveMigration: unrecognized feature gate: NetworkLiveMigration (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:24:13: featureGates.NodeSwap: cannot set feature gate NodeSwap to false, feature is locked to true (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:25:25: featureGates.PrivateHostedZoneAWS: unrecognized feature gate: PrivateHostedZoneAWS (the v1.37 kubelet refuses to start)`,
				`openshift.yaml:27:30: featureGates.ValidatingAdmissionPolicy: unrecognized feature gate: ValidatingAdmissionPolicy (the v1.37 kubelet refuses to start)`,
			},
		},
		{
			// AKS (AgentBaker) turned on the CSI migration gates for its in-tree Azure
			// volumes; all three went GA and were removed from the registry, as was
			// DelegateFSGroupToCSIDriver: each is "unrecognized". RotateKubeletServerCertificate
			// is still registered and passes.
			file: "aks.json",
			errs: []string{
				`aks.json:48:25: featureGates.CSIMigration: unrecognized feature gate: CSIMigration (the v1.37 kubelet refuses to start)`,
				`aks.json:49:34: featureGates.CSIMigrationAzureDisk: unrecognized feature gate: CSIMigrationAzureDisk (the v1.37 kubelet refuses to start)`,
				`aks.json:50:34: featureGates.CSIMigrationAzureFile: unrecognized feature gate: CSIMigrationAzureFile (the v1.37 kubelet refuses to start)`,
				`aks.json:51:39: featureGates.DelegateFSGroupToCSIDriver: unrecognized feature gate: DelegateFSGroupToCSIDriver (the v1.37 kubelet refuses to start)`,
			},
		},
		{
			// Bottlerocket's template for Kubernetes before 1.28 turns on
			// KubeletCredentialProviders, GA in 1.26 and removed from the registry in 1.28:
			// the v1.37 kubelet refuses it as unrecognized.
			file: "bottlerocket.yaml",
			errs: []string{
				`bottlerocket.yaml:35:31: featureGates.KubeletCredentialProviders: unrecognized feature gate: KubeletCredentialProviders (the v1.37 kubelet refuses to start)`,
			},
		},
		{
			// amazon-eks-ami's AL2 template as committed (byte copy): besides the Beta gate
			// above it turns NodeSwap off, and NodeSwap is GA and locked to true in v1.37, so
			// SetFromMap refuses the file. (The AL2 AMIs stopped at Kubernetes 1.32.)
			file: "eks-al2-template.json",
			errs: []string{
				`eks-al2-template.json:32:17: featureGates.NodeSwap: cannot set feature gate NodeSwap to false, feature is locked to true (the v1.37 kubelet refuses to start)`,
			},
		},
		{
			// Bottlerocket's kubelet template for Kubernetes 1.33, rendered with the values a
			// 2-vCPU node with maxPods 29 gets (kube_reserve_cpu 70m; kube_reserve_memory
			// 11Mi x 29 + 255Mi = 574Mi). DynamicResourceAllocation is GA and locked to true
			// in v1.37: setting it true is accepted with the kubelet's GA warning.
			// kubeReservedCgroup without kube-reserved in enforceNodeAllocatable is valid.
			file:     "bottlerocket-1.33.yaml",
			warnings: []string{"featureGates DynamicResourceAllocation=true: setting GA feature gate. It will be removed in a future release."},
			gates:    []string{"featureGates.DynamicResourceAllocation"},
			check: func(t *testing.T, l *Loaded) {
				if l.Kubelet.MaxPods != 29 || l.Kubelet.KubeReserved["memory"] != "574Mi" {
					t.Errorf("maxPods %d, kubeReserved %v", l.Kubelet.MaxPods, l.Kubelet.KubeReserved)
				}
			},
		},
		{
			// OpenShift's machine-config-operator worker kubelet.conf as committed at
			// 01e20aa8 (the Ignition file's inline contents; {{.ClusterDNSIP}} rendered as
			// 172.30.0.10). Its gates of the 1.1x releases are gone from the v1.37 registry:
			// each refused as unrecognized, in the file's order of keys sorted.
			file: "openshift-mco-worker.yaml",
			errs: []string{
				`openshift-mco-worker.yaml:24:18: featureGates.IPv6DualStack: unrecognized feature gate: IPv6DualStack (the v1.37 kubelet refuses to start)`,
				`openshift-mco-worker.yaml:25:27: featureGates.LegacyNodeRoleBehavior: unrecognized feature gate: LegacyNodeRoleBehavior (the v1.37 kubelet refuses to start)`,
				`openshift-mco-worker.yaml:26:28: featureGates.NodeDisruptionExclusion: unrecognized feature gate: NodeDisruptionExclusion (the v1.37 kubelet refuses to start)`,
				`openshift-mco-worker.yaml:28:16: featureGates.SCTPSupport: unrecognized feature gate: SCTPSupport (the v1.37 kubelet refuses to start)`,
				`openshift-mco-worker.yaml:29:25: featureGates.ServiceNodeExclusion: unrecognized feature gate: ServiceNodeExclusion (the v1.37 kubelet refuses to start)`,
				`openshift-mco-worker.yaml:30:24: featureGates.SupportPodPidsLimit: unrecognized feature gate: SupportPodPidsLimit (the v1.37 kubelet refuses to start)`,
			},
		},
		{
			// minikube's kubeadm v1beta4 template (ktmpl/v1beta4.go at 27772aae), its
			// KubeletConfiguration document rendered with cgroup driver systemd and no extra
			// kubelet options. As with kind, evictionHard once set replaces the defaults
			// (mergeDefaultEvictionSettings is false) and its 0% entries mean no threshold,
			// so no hard threshold is left, not even memory.available's.
			file: "minikube-v1beta4.yaml",
			check: func(t *testing.T, l *Loaded) {
				if got := hardSignals(t, l); got != "" {
					t.Errorf("hard thresholds %q, want none", got)
				}
			},
		},
		{
			// SidecarContainers went GA in v1.33 and its gate has since been removed: a
			// config that still turns it on is refused as unrecognized.
			file: "minikube-sidecars.yaml",
			errs: []string{
				`minikube-sidecars.yaml:20:22: featureGates.SidecarContainers: unrecognized feature gate: SidecarContainers (the v1.37 kubelet refuses to start)`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			l, err := loadDistroConfig(t, c.file)
			if len(c.errs) > 0 {
				if err == nil {
					t.Fatalf("accepted; the v1.37 kubelet refuses it:\n%s", strings.Join(c.errs, "\n"))
				}
				if got, want := err.Error(), strings.Join(c.errs, "\n"); got != want {
					t.Fatalf("errors:\n%s\nwant:\n%s", got, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused; the v1.37 kubelet starts with it:\n%v", err)
			}
			if got, want := strings.Join(l.Warnings, "\n"), strings.Join(c.warnings, "\n"); got != want {
				t.Errorf("warnings:\n%s\nwant:\n%s", got, want)
			}
			var gates []string
			for _, k := range l.NotModelled {
				if strings.HasPrefix(k, "featureGates.") {
					gates = append(gates, k)
				}
			}
			if got, want := strings.Join(gates, " "), strings.Join(c.gates, " "); got != want {
				t.Errorf("not-modelled gates %q, want %q", got, want)
			}
			if c.check != nil {
				c.check(t, l)
			}
		})
	}
}

// TestKubeletFileGateErrorsPositioned: a dependency refusal is positioned at the gate in the
// file, and a gate given inline is reported inline.
func TestKubeletFileGateErrorsPositioned(t *testing.T) {
	// GracefulNodeShutdown off alone already breaks its dependents that are on by default
	// (GracefulNodeShutdownBasedOnPodPriority, WindowsGracefulNodeShutdown): SetFromMap
	// refuses it with the dependency error, which the gate's own value (line 4, column 25)
	// carries.
	file := "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  GracefulNodeShutdown: false\n"
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubeletConfigFile: kubelet.yaml\n", 1)
	_, err := parse(t, src, map[string]string{"kubelet.yaml": file})
	want := "kubelet.yaml:4:25: featureGates.GracefulNodeShutdown: GracefulNodeShutdownBasedOnPodPriority is enabled, but depends on features that are disabled: [GracefulNodeShutdown]; " +
		"WindowsGracefulNodeShutdown is enabled, but depends on features that are disabled: [GracefulNodeShutdown] (the v1.37 kubelet refuses to start)"
	if err == nil || err.Error() != want {
		t.Errorf("errors:\n%v\nwant:\n%s", err, want)
	}

	// Inline featureGates win over the file's (field by field): the error is the inline one.
	src = strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubeletConfigFile: kubelet.yaml\n  kubelet: {featureGates: {SidecarContainers: true}}\n", 1)
	_, err = parse(t, src, map[string]string{"kubelet.yaml": file})
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:8:") ||
		!strings.Contains(err.Error(), "spec.kubelet.featureGates.SidecarContainers: unrecognized feature gate: SidecarContainers") {
		t.Errorf("an inline gate's refusal is not positioned inline:\n%v", err)
	}
}

// TestKubeletConfigValidatedPerField: every rule of the kubelet's start-up validation
// (ValidateKubeletConfiguration, v1.37.2), each refusal at the line and column of its own
// field in the kubeletConfigFile, in the kubelet's words. Values are checked after the
// kubelet's defaulting: image GC high 85, low 80; port 10250; the crash-loop cap 300s under
// KubeletCrashLoopBackOffMax (Beta, on).
func TestKubeletConfigValidatedPerField(t *testing.T) {
	head := "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubeletConfigFile: kubelet.yaml\n", 1)
	const refuses = " (the v1.37 kubelet refuses to start)"
	cases := []struct{ body, want string }{
		// Image GC: kind's high 100 passes, so does 81 over the default low 80; a lone high of 80
		// leaves the defaulted low at 80, refused at the high threshold the file wrote.
		{"imageGCHighThresholdPercent: 100\n", ""},
		{"imageGCHighThresholdPercent: 81\n", ""},
		{"imageGCHighThresholdPercent: 80\n", "kubelet.yaml:3:30: imageGCHighThresholdPercent: invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 80 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 80"},
		{"imageGCHighThresholdPercent: 90\nimageGCLowThresholdPercent: 95\n", "kubelet.yaml:4:29: imageGCLowThresholdPercent: invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 95 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 90"},
		{"imageGCHighThresholdPercent: 101\n", "kubelet.yaml:3:30: imageGCHighThresholdPercent: invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive"},
		{"nodeLeaseDurationSeconds: -1\n", "kubelet.yaml:3:27: nodeLeaseDurationSeconds: invalid configuration: nodeLeaseDurationSeconds must be greater than 0"},
		{"port: 70000\n", "kubelet.yaml:3:7: port: invalid configuration: port (--port) 70000 must be between 1 and 65535, inclusive"},
		{"healthzPort: 0\n", ""},
		{"readOnlyPort: -1\n", "kubelet.yaml:3:15: readOnlyPort: invalid configuration: readOnlyPort (--read-only-port) -1 must be between 0 and 65535, inclusive"},
		{"oomScoreAdj: -1001\n", "kubelet.yaml:3:14: oomScoreAdj: invalid configuration: oomScoreAdj (--oom-score-adj) -1001 must be between -1000 and 1000, inclusive"},
		{"iptablesDropBit: 32\n", "kubelet.yaml:3:18: iptablesDropBit: invalid configuration: iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive"},
		{"maxPods: -3\n", "kubelet.yaml:3:10: maxPods: invalid configuration: maxPods (--max-pods) -3 must not be a negative number"},
		{"eventBurst: -1\n", "kubelet.yaml:3:13: eventBurst: invalid configuration: eventBurst (--event-burst) -1 must not be a negative number"},
		{"nodeStatusMaxImages: -2\n", "kubelet.yaml:3:22: nodeStatusMaxImages: invalid configuration: nodeStatusMaxImages (--node-status-max-images) -2 must be -1 or greater"},
		{"systemCgroups: /system.slice\n", "kubelet.yaml:3:16: systemCgroups: invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified"},
		{"topologyManagerPolicy: numa\n", `kubelet.yaml:3:24: topologyManagerPolicy: invalid configuration: topologyManagerPolicy (--topology-manager-policy) "numa" must be one of: ["none" "best-effort" "restricted" "single-numa-node"]`},
		{"hairpinMode: bridge\n", `kubelet.yaml:3:14: hairpinMode: invalid configuration: option "bridge" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`},
		// Two parallel pulls need serializeImagePulls false; written true, it is refused at
		// maxParallelImagePulls.
		{"serializeImagePulls: true\nmaxParallelImagePulls: 2\n", "kubelet.yaml:4:24: maxParallelImagePulls: invalid configuration: maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false"},
		{"maxParallelImagePulls: 0\n", "kubelet.yaml:3:24: maxParallelImagePulls: invalid configuration: maxParallelImagePulls 0 must be a positive number"},
		{"crashLoopBackOff:\n  maxContainerRestartPeriod: 301s\n", "kubelet.yaml:4:30: crashLoopBackOff.maxContainerRestartPeriod: invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: 301 seconds) must be set between 1s and 300s"},
		// The cap set with its gate off: upstream refuses it rather than ignore it.
		{"featureGates:\n  KubeletCrashLoopBackOffMax: false\ncrashLoopBackOff:\n  maxContainerRestartPeriod: 60s\n", "kubelet.yaml:6:30: crashLoopBackOff.maxContainerRestartPeriod: invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set"},
		{"featureGates:\n  KubeletCrashLoopBackOffMax: false\n", ""},
		{"enforceNodeAllocatable: [pods, system-reserved]\n", `kubelet.yaml:3:32: enforceNodeAllocatable[1]: invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" or "system-reserved-compressible" included in enforceNodeAllocatable (--enforce-node-allocatable)`},
		{"enforceNodeAllocatable: [pods, pods]\n", `kubelet.yaml:3:32: enforceNodeAllocatable[1]: invalid configuration: duplicated enforcements "pods" in enforceNodeAllocatable (--enforce-node-allocatable)`},
		{"shutdownGracePeriod: 500ms\n", "kubelet.yaml:3:22: shutdownGracePeriod: invalid configuration: shutdownGracePeriod {500ms} must be either zero or otherwise >= 1 sec"},
		{"shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 40s\n", "kubelet.yaml:4:34: shutdownGracePeriodCriticalPods: invalid configuration: shutdownGracePeriodCriticalPods {40s} must be <= shutdownGracePeriod {30s}"},
		{"memorySwap:\n  swapBehavior: UnlimitedSwap\n", `kubelet.yaml:4:17: memorySwap.swapBehavior: invalid configuration: memorySwap.swapBehavior "UnlimitedSwap" must be one of: "", "LimitedSwap" or "NoSwap"`},
		// MemoryQoS is Beta and on in v1.37: a factor is accepted, unless the gate is off.
		{"memoryThrottlingFactor: 0.8\n", ""},
		{"memoryThrottlingFactor: 0.8\nfeatureGates:\n  MemoryQoS: false\n", "kubelet.yaml:3:25: memoryThrottlingFactor: invalid configuration: memoryThrottlingFactor must not be set when MemoryQoS feature gate is disabled"},
		{"memoryThrottlingFactor: 1.5\n", "kubelet.yaml:3:25: memoryThrottlingFactor: invalid configuration: memoryThrottlingFactor 1.5 must be greater than 0 and less than or equal to 1.0"},
		{"containerLogMaxFiles: 1\n", "kubelet.yaml:3:23: containerLogMaxFiles: invalid configuration: containerLogMaxFiles must be greater than 1"},
		{"containerLogMonitorInterval: 1s\n", "kubelet.yaml:3:30: containerLogMonitorInterval: invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s"},
		{"podLogsDir: var/log/pods\n", `kubelet.yaml:3:13: podLogsDir: invalid configuration: pod logs path "var/log/pods" must be absolute path`},
		{"reservedSystemCPUs: 0-x\n", `kubelet.yaml:3:21: reservedSystemCPUs: invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) 0-x, error: strconv.Atoi: parsing "x": invalid syntax`},
		{"registerWithTaints:\n- key: bad key!\n  effect: NoSchedule\n", "kubelet.yaml:4:3: registerWithTaints[0]: invalid taint: {bad key!  NoSchedule <nil>}"},
		{"logging:\n  format: xml\n", `kubelet.yaml:4:11: logging.format: logging.format: Invalid value: "xml": Unsupported log format`},
		{"logging:\n  format: json\n", ""},
		{"defaultPodSysctls:\n  net.ipv4.ip_forward: \"1\"\n", "kubelet.yaml:4:3: defaultPodSysctls: invalid configuration: DefaultPodSysctls feature gate is required for Kubelet configuration option defaultPodSysctls"},
		{"serverTLSBootstrap: true\nfeatureGates:\n  RotateKubeletServerCertificate: false\n", "kubelet.yaml:3:21: serverTLSBootstrap: invalid configuration: serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate"},
		{"userNamespaces:\n  idsPerPod: 1000\n", "kubelet.yaml:4:14: userNamespaces.idsPerPod: invalid configuration: userNamespaces.idsPerPod must not be less than 65536"},
		{"showHiddenMetricsForVersion: \"1.30\"\n", "kubelet.yaml:3:30: showHiddenMetricsForVersion: invalid showHiddenMetricsForVersion: showHiddenMetricsForVersion: Invalid value: \"1.30\": must be omitted or have the value '1.36'; only the previous minor version is allowed"},
	}
	for _, c := range cases {
		_, err := parse(t, src, map[string]string{"kubelet.yaml": head + c.body})
		got, want := "", c.want
		if err != nil {
			got = err.Error()
		}
		if want != "" {
			want += refuses
		}
		if got != want {
			t.Errorf("%q:\n got %s\nwant %s", c.body, got, want)
		}
	}
}

// TestKubeletFileEvictionErrorsPositioned: a threshold ParseThresholdConfig refuses
// (parseThresholdStatement: a percentage above 100%) is reported at its field in the file.
func TestKubeletFileEvictionErrorsPositioned(t *testing.T) {
	src := strings.Replace(good, "  duration: 5m\n", "  duration: 5m\n  kubeletConfigFile: kubelet.yaml\n", 1)
	file := "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionSoft:\n  memory.available: 200%\n"
	_, err := parse(t, src, map[string]string{"kubelet.yaml": file})
	want := `kubelet.yaml:4:21: evictionSoft["memory.available"]: eviction percentage threshold memory.available must be <= 100%: 200%`
	if err == nil || err.Error() != want {
		t.Errorf("errors:\n%v\nwant:\n%s", err, want)
	}
}

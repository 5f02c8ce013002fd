package kubeletconfig

import (
	"sort"
	"time"

	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// Gates answers whether a feature gate is on for a run: the v1.37 registry's default, or
// what the config's featureGates set.
type Gates interface {
	Enabled(name string) bool
}

// ModelledGates are the feature gates the simulated kubelet reads: setting one changes the
// run as it changes the v1.37 kubelet. Any other gate a config sets is accepted (when the
// registry accepts it) and listed as not modelled. One line per gate.
var modelledGates = map[string]bool{
	"KubeletCrashLoopBackOffMax":            true, // the back-off cap follows crashLoopBackOff.maxContainerRestartPeriod
	"ReduceDefaultCrashLoopBackOffDecay":    true, // 1s initial back-off, 60s cap
	"ChangeContainerStatusOnKubeletRestart": true, // a restarted kubelet resets Started/Ready
	"PLEGOnDemandRelist":                    true, // locked on: the worker asks for a relist of its pod
	"PodLevelResources":                     true, // spec.resources: QoS, oom_score_adj, admission, ranking, pod cgroup OOM
	"ContainerRestartRules":                 true, // a container's restartPolicy and restartPolicyRules
	"RestartAllContainersOnContainerExits":  true, // the RestartAllContainers rule action
}

// GateModelled reports whether the simulation reads the gate.
func GateModelled(name string) bool { return modelledGates[name] }

// NotModelledGates returns, sorted, the gates the config sets that the simulation does not
// read, as "featureGates.Name".
func NotModelledGates(set map[string]bool) []string {
	var out []string
	for name := range set {
		if !modelledGates[name] && name != "AllAlpha" && name != "AllBeta" {
			out = append(out, "featureGates."+name)
		}
	}
	sort.Strings(out)
	return out
}

// CrashLoopBackOff is the crash-loop back-off's initial period and cap, as the v1.37 kubelet
// derives them (newCrashLoopBackOff): 10s up to 300s; with ReduceDefaultCrashLoopBackOffDecay
// 1s up to 60s; with KubeletCrashLoopBackOffMax (on by default) the cap is the config's
// crashLoopBackOff.maxContainerRestartPeriod, and the initial period never exceeds it.
func CrashLoopBackOff(c *kubeletconfigv1beta1.KubeletConfiguration, g Gates) (initial, max time.Duration) {
	initial, max = 10*time.Second, 300*time.Second
	if g.Enabled("ReduceDefaultCrashLoopBackOffDecay") {
		initial, max = time.Second, 60*time.Second
	}
	if g.Enabled("KubeletCrashLoopBackOffMax") {
		max = CrashLoopBackOffMax(c)
		if max < initial {
			initial = max
		}
	}
	return initial, max
}

package upstream

import (
	"testing"
)

// The gates nodesim accepts are exactly the v1.37.2 kubelet's: pkg/features (kube, client-go
// and zpages gates) plus the logging gates the kubelet adds, AllAlpha and AllBeta included.
// The counts are what the v1.37.2 registry holds at emulation version 1.37; the named gates
// were checked by hand against pkg/features/kube_features.go.
func TestGatesAreV137s(t *testing.T) {
	g, err := NewKubeletGates()
	if err != nil {
		t.Fatal(err)
	}
	all := g.All()
	stages := map[string]int{}
	byName := map[string]Gate{}
	for _, x := range all {
		stages[x.Stage]++
		byName[x.Name] = x
	}
	if len(all) != 252 || stages["ALPHA"] != 56 || stages["BETA"] != 108 || stages["GA"] != 71 || stages["DEPRECATED"] != 17 {
		t.Errorf("%d gates, stages %v; want 252: ALPHA 56, BETA 108, GA 71, DEPRECATED 17", len(all), stages)
	}
	for _, want := range []Gate{
		{Name: "RotateKubeletServerCertificate", Stage: "BETA", Default: true},
		{Name: "KubeletInUserNamespace", Stage: "BETA", Default: true},
		{Name: "EventedPLEG", Stage: "ALPHA", Default: false},
		{Name: "KubeletCrashLoopBackOffMax", Stage: "BETA", Default: true},
		{Name: "ReduceDefaultCrashLoopBackOffDecay", Stage: "ALPHA", Default: false},
		{Name: "ChangeContainerStatusOnKubeletRestart", Stage: "DEPRECATED", Default: false},
		{Name: "NodeSwap", Stage: "GA", Default: true, LockToDefault: true},
		{Name: "PLEGOnDemandRelist", Stage: "GA", Default: true, LockToDefault: true},
		{Name: "PodLevelResources", Stage: "BETA", Default: true},
	} {
		if got, ok := byName[want.Name]; !ok || got != want {
			t.Errorf("%s: got %+v (registered %v), want %+v", want.Name, got, ok, want)
		}
	}
	if _, ok := byName["SidecarContainers"]; ok {
		t.Error("SidecarContainers was removed after GA and must not be accepted")
	}
}

// Each gate alone is answered as the v1.37 kubelet answers it at start-up.
func TestCheckAnswersAsTheKubelet(t *testing.T) {
	g, err := NewKubeletGates()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		value bool
		want  string
	}{
		{"RotateKubeletServerCertificate", true, ""},
		{"CustomCPUCFSQuotaPeriod", true, ""},
		{"KubeletInUserNamespace", true, ""},
		{"AllBeta", true, ""},
		{"EventedPLEG", true, ""},
		{"NodeSwap", false, "cannot set feature gate NodeSwap to false, feature is locked to true"},
		{"PLEGOnDemandRelist", false, "cannot set feature gate PLEGOnDemandRelist to false, feature is locked to true"},
		{"SidecarContainers", true, "unrecognized feature gate: SidecarContainers"},
		{"NoSuchGate", false, "unrecognized feature gate: NoSuchGate"},
	} {
		if got := g.Check(c.name, c.value); got != c.want {
			t.Errorf("%s=%v: %q, want %q", c.name, c.value, got, c.want)
		}
	}
	// Setting one run's gates leaves the registry, and so the next run, as it was.
	if err := g.Set(map[string]bool{"ReduceDefaultCrashLoopBackOffDecay": true}); err != nil {
		t.Fatal(err)
	}
	fresh, _ := NewKubeletGates()
	if !g.Enabled("ReduceDefaultCrashLoopBackOffDecay") || fresh.Enabled("ReduceDefaultCrashLoopBackOffDecay") {
		t.Error("a run's gates leaked into the registry")
	}
	if err := fresh.Set(map[string]bool{"ChangeContainerStatusOnKubeletRestart": true}); err != nil {
		t.Fatal(err)
	}
	if want := "featureGates ChangeContainerStatusOnKubeletRestart=true: setting deprecated feature gate. It will be removed in a future release."; len(fresh.Warnings) != 1 || fresh.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", fresh.Warnings, want)
	}
}

package kubeletconfig

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"
)

type gates map[string]bool

func (g gates) Enabled(name string) bool { return g[name] }

// The crash-loop back-off's initial period and cap under each combination of the two gates
// and the config's maxContainerRestartPeriod, as upstream's newCrashLoopBackOff gives them.
func TestCrashLoopBackOff(t *testing.T) {
	cfg := func(max time.Duration) *kubeletconfigv1beta1.KubeletConfiguration {
		c := &kubeletconfigv1beta1.KubeletConfiguration{}
		if max > 0 {
			c.CrashLoopBackOff.MaxContainerRestartPeriod = &metav1.Duration{Duration: max}
		}
		return c
	}
	const s = time.Second
	for _, c := range []struct {
		name          string
		g             gates
		max           time.Duration
		initial, wcap time.Duration
	}{
		{"v1.37 defaults (KubeletCrashLoopBackOffMax on), config default", gates{"KubeletCrashLoopBackOffMax": true}, 0, 10 * s, 300 * s},
		{"config cap 60s", gates{"KubeletCrashLoopBackOffMax": true}, 60 * s, 10 * s, 60 * s},
		{"config cap below the initial period", gates{"KubeletCrashLoopBackOffMax": true}, 5 * s, 5 * s, 5 * s},
		{"gate off: the config's cap is ignored", gates{}, 60 * s, 10 * s, 300 * s},
		{"reduced decay, gate off", gates{"ReduceDefaultCrashLoopBackOffDecay": true}, 0, 1 * s, 60 * s},
		{"reduced decay, gate on, config default", gates{"ReduceDefaultCrashLoopBackOffDecay": true, "KubeletCrashLoopBackOffMax": true}, 0, 1 * s, 300 * s},
		{"reduced decay, gate on, config 30s", gates{"ReduceDefaultCrashLoopBackOffDecay": true, "KubeletCrashLoopBackOffMax": true}, 30 * s, 1 * s, 30 * s},
	} {
		initial, max := CrashLoopBackOff(cfg(c.max), c.g)
		if initial != c.initial || max != c.wcap {
			t.Errorf("%s: %s up to %s, want %s up to %s", c.name, initial, max, c.initial, c.wcap)
		}
	}
}

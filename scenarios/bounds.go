package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/safetext"
	"nodesim/internal/strictyaml"
)

// The bounds every scenario value is held to, so that no run can hang, overflow or run time
// backwards. A run lasts at most 30 days; with every duration at most a year and every
// quantity at most 1Ei, sums of a handful of them stay exact in int64 nanoseconds and bytes,
// and float64 usage figures keep whole-byte precision.
const (
	// MaxDuration bounds every duration a scenario or kubelet config gives (latencies, grace
	// periods, program steps, kubelet periods).
	MaxDuration = 365 * 24 * time.Hour
	// MinPeriod is the shortest period anything repeats at (kubelet loops, usage programs'
	// repeat and ramps): shorter ones would only multiply events without changing anything a
	// node can show.
	MinPeriod = time.Millisecond
	// MaxPullTime bounds an image pull's time at the runtime's bandwidth.
	MaxPullTime = MaxDuration
)

// MaxQuantity is the largest quantity a scenario may give, 1Ei: far below int64 overflow
// (8Ei), and more than any node holds.
var MaxQuantity = resource.MustParse("1Ei")

// checkValue is the decoder's range check for every value a type decodes itself: it is
// called for each duration and quantity of the scenario and of its referenced files.
func checkValue(v any, written string) string {
	switch x := v.(type) {
	case *api.Duration:
		return checkDuration(x.Duration, written)
	case *metav1.Duration:
		return checkDuration(x.Duration, written)
	case time.Duration:
		return checkDuration(x, written)
	case *resource.Quantity:
		abs := x.DeepCopy()
		if abs.Sign() < 0 {
			abs.Neg()
		}
		if abs.Cmp(MaxQuantity) > 0 {
			return fmt.Sprintf("quantity %s is out of range (at most %s)", strconv.Quote(safetext.Escape(written)), MaxQuantity.String())
		}
	}
	return ""
}

func checkDuration(d time.Duration, written string) string {
	if d > MaxDuration || d < -MaxDuration {
		return fmt.Sprintf("duration %s is out of range (at most %s)", strconv.Quote(safetext.Escape(written)), FormatDuration(MaxDuration))
	}
	return ""
}

// FormatDuration writes a bound the way a user would: 8760h, 1ms, 90s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	for _, zero := range []string{"0s", "0m"} {
		if strings.HasSuffix(s, zero) && len(s) > len(zero) && !strings.HasSuffix(s, "ms") {
			s = strings.TrimSuffix(s, zero)
		}
	}
	return s
}

// newDecoder is a strict decoder for a file of this scenario, with the range check on.
func newDecoder(file string) *strictyaml.Decoder {
	d := strictyaml.NewDecoder(file)
	d.Check = checkValue
	return d
}

// checkBounds holds what no single value's range says: periods that must be positive and at
// least MinPeriod, seconds counts within MaxDuration, and pull times that stay finite.
func (l *loader) checkBounds() {
	l.checkKubeletPeriods()
	l.checkProgramPeriods()
	l.checkGraceSeconds()
	l.checkPullTimes()
}

// checkKubeletPeriods: the kubelet's loops the model runs tick at these periods; zero means
// "the default" upstream and is filled before this check, so what is left must be positive.
func (l *loader) checkKubeletPeriods() {
	cfg := l.out.Kubelet
	if cfg == nil {
		return
	}
	for _, f := range []struct {
		field string
		d     time.Duration
	}{
		{"syncFrequency", cfg.SyncFrequency.Duration},
		{"fileCheckFrequency", cfg.FileCheckFrequency.Duration},
		{"nodeStatusUpdateFrequency", cfg.NodeStatusUpdateFrequency.Duration},
		{"runtimeRequestTimeout", cfg.RuntimeRequestTimeout.Duration},
	} {
		if f.d < MinPeriod {
			l.d.ErrorAt(l.kubeletPath(f.field), "%s must be at least %s, got %s", f.field, FormatDuration(MinPeriod), f.d)
		}
	}
	for _, f := range []struct {
		field string
		d     time.Duration
	}{
		{"evictionPressureTransitionPeriod", cfg.EvictionPressureTransitionPeriod.Duration},
		{"imageMinimumGCAge", cfg.ImageMinimumGCAge.Duration},
	} {
		if f.d < 0 {
			l.d.ErrorAt(l.kubeletPath(f.field), "%s must not be negative, got %s", f.field, f.d)
		}
	}
	for _, m := range []struct {
		field  string
		values map[string]string
	}{
		{"systemReserved", cfg.SystemReserved}, {"kubeReserved", cfg.KubeReserved},
		{"evictionHard", cfg.EvictionHard}, {"evictionSoft", cfg.EvictionSoft},
		{"evictionMinimumReclaim", cfg.EvictionMinimumReclaim},
	} {
		for _, k := range sortedKeys(m.values) {
			q, err := resource.ParseQuantity(m.values[k])
			if err != nil {
				continue // not a quantity (a percentage): the field's own validation speaks
			}
			if msg := checkValue(&q, m.values[k]); msg != "" {
				path := l.kubeletPath(m.field)
				if path == "spec.kubelet."+m.field {
					path = strictyaml.Join(path, k)
				}
				l.d.ErrorAt(path, "%s", msg)
			}
		}
	}
	if g := int64(cfg.EvictionMaxPodGracePeriod); g > int64(MaxDuration/time.Second) {
		l.d.ErrorAt(l.kubeletPath("evictionMaxPodGracePeriod"), "evictionMaxPodGracePeriod %d is out of range (at most %d seconds)", g, int64(MaxDuration/time.Second))
	}
}

// kubeletPath is where a kubelet field's error is reported: the inline spec.kubelet when it
// sets the field, else the scenario's kubeletConfigFile line.
func (l *loader) kubeletPath(field string) string {
	if l.node("spec", "kubelet", field) != nil {
		return "spec.kubelet." + field
	}
	if l.node("spec", "kubeletConfigFile") != nil {
		return "spec.kubeletConfigFile"
	}
	return "spec.kubelet"
}

// checkProgramPeriods: a repeat shorter than a millisecond, or a ramp over less, would fire
// events faster than anything on a node changes.
func (l *loader) checkProgramPeriods() {
	check := func(path string, prog api.Program) {
		for i, st := range prog {
			p := strictyaml.Index(path, i)
			if st.Repeat != nil && st.Repeat.Duration < MinPeriod {
				l.d.ErrorAt(p+".repeat", "repeat must be at least %s, got %s", FormatDuration(MinPeriod), st.Repeat.Duration)
			}
			if st.RampTo != nil && st.Over != nil && st.Over.Duration < MinPeriod {
				l.d.ErrorAt(p+".over", "a ramp must last at least %s, got %s", FormatDuration(MinPeriod), st.Over.Duration)
			}
		}
	}
	sp := &l.sc.Spec
	if su := sp.Node.SystemUsage; su != nil {
		check("spec.node.systemUsage.memory", su.Memory)
		check("spec.node.systemUsage.disk", su.Disk)
	}
	for i := range sp.Pods {
		for _, name := range sortedKeys(sp.Pods[i].Behavior) {
			b := sp.Pods[i].Behavior[name]
			bp := strictyaml.Join(strictyaml.Index("spec.pods", i)+".behavior", name)
			l.checkBehaviorPrograms(check, bp, &b)
			for j := range b.Runs {
				l.checkBehaviorPrograms(check, strictyaml.Index(bp+".runs", j), &b.Runs[j])
			}
		}
	}
	for i := range sp.Events {
		e := &sp.Events[i]
		p := strictyaml.Index("spec.events", i)
		if e.SetUsage != nil {
			check(p+".setUsage.memory", e.SetUsage.Memory)
			check(p+".setUsage.disk", e.SetUsage.Disk)
			check(p+".setUsage.pids", e.SetUsage.Pids)
		}
		if e.SetSystemUsage != nil {
			check(p+".setSystemUsage.memory", e.SetSystemUsage.Memory)
			check(p+".setSystemUsage.disk", e.SetSystemUsage.Disk)
		}
	}
}

func (l *loader) checkBehaviorPrograms(check func(string, api.Program), path string, b *api.Behavior) {
	check(path+".memory", b.Memory)
	check(path+".disk", b.Disk)
	check(path+".pids", b.Pids)
	for _, v := range sortedKeys(b.Volumes) {
		check(strictyaml.Join(path+".volumes", v), b.Volumes[v])
	}
}

// checkGraceSeconds bounds the seconds counts that become durations: a grace period of
// 2^63-1 seconds would overflow to a kill after a fraction of a second.
func (l *loader) checkGraceSeconds() {
	maxSecs := int64(MaxDuration / time.Second)
	for i := range l.sc.Spec.Pods {
		e := &l.sc.Spec.Pods[i]
		p := strictyaml.Index("spec.pods", i) + ".pod.spec"
		if g := e.Pod.Spec.TerminationGracePeriodSeconds; g != nil && *g > maxSecs {
			l.d.ErrorAt(p+".terminationGracePeriodSeconds", "terminationGracePeriodSeconds %d is out of range (at most %d, a year)", *g, maxSecs)
		}
		if a := e.Pod.Spec.ActiveDeadlineSeconds; a != nil && *a > maxSecs {
			l.d.ErrorAt(p+".activeDeadlineSeconds", "activeDeadlineSeconds %d is out of range (at most %d, a year)", *a, maxSecs)
		}
	}
	for i := range l.sc.Spec.Events {
		if g := l.sc.Spec.Events[i].GracePeriodSeconds; g != nil && *g > maxSecs {
			l.d.ErrorAt(strictyaml.Index("spec.events", i)+".gracePeriodSeconds", "gracePeriodSeconds %d is out of range (at most %d, a year)", *g, maxSecs)
		}
	}
}

// checkPullTimes keeps every pull finite: size over bandwidth within MaxPullTime, for each
// listed image and for the default size of unlisted ones.
func (l *loader) checkPullTimes() {
	rt := &l.sc.Spec.Runtime
	def := resource.MustParse(api.DefaultPullBandwidth)
	bw := float64(def.Value())
	if rt.PullBandwidth != nil {
		bw = float64(rt.PullBandwidth.Value())
		if bw < 1 {
			l.d.ErrorAt("spec.runtime.pullBandwidth", "pullBandwidth must be at least 1 byte per second")
			return
		}
	}
	limit := MaxPullTime.Seconds()
	for i, img := range rt.Images {
		if img.Size == nil {
			continue
		}
		if secs := float64(img.Size.Value()) / bw; secs > limit || math.IsInf(secs, 0) {
			l.d.ErrorAt(strictyaml.Index("spec.runtime.images", i)+".size",
				"pulling %s (%s) at pullBandwidth %s/s would take %.0fh, longer than the %s limit",
				strconv.Quote(safetext.Escape(img.Name)), img.Size.String(), resource.NewQuantity(int64(bw), resource.BinarySI), secs/3600, FormatDuration(MaxPullTime))
		}
	}
	if secs := float64(api.DefaultImageSizeMiB<<20) / bw; secs > limit {
		l.d.ErrorAt("spec.runtime.pullBandwidth", "pulling an unlisted image (%dMi) at %s/s would take longer than the %s limit",
			api.DefaultImageSizeMiB, resource.NewQuantity(int64(bw), resource.BinarySI), FormatDuration(MaxPullTime))
	}
}

package scenarios

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	kubeletconfigv1beta1 "k8s.io/kubelet/config/v1beta1"

	api "nodesim/api/v1alpha1"
	"nodesim/internal/strictyaml"
	"nodesim/internal/upstream"
	"nodesim/model/eviction"
	"nodesim/model/kubeletconfig"
)

const (
	kubeletAPIVersion = "kubelet.config.k8s.io/v1beta1"
	kubeletKind       = "KubeletConfiguration"
)

// loadKubelet builds the kubelet configuration from kubeletConfigFile and the inline
// spec.kubelet (inline wins field by field), then fills upstream's defaults.
func (l *loader) loadKubelet() {
	cfg := &kubeletconfigv1beta1.KubeletConfiguration{}
	set := map[string]bool{}

	if name := l.sc.Spec.KubeletConfigFile; name != "" {
		if fileCfg, keys, ok := l.loadKubeletFile(name); ok {
			cfg = fileCfg
			for _, k := range keys {
				set[k] = true
			}
		}
	}
	if inline := l.sc.Spec.Kubelet; inline != nil {
		n := l.node("spec", "kubelet")
		for _, k := range mappingKeys(n) {
			set[k] = true
			copyJSONField(cfg, inline, k)
		}
		if inline.APIVersion != "" && inline.APIVersion != kubeletAPIVersion {
			l.d.ErrorAt("spec.kubelet.apiVersion", "apiVersion %q is not supported (want %q)", inline.APIVersion, kubeletAPIVersion)
		}
		if inline.Kind != "" && inline.Kind != kubeletKind {
			l.d.ErrorAt("spec.kubelet.kind", "kind %q is not supported (want %q)", inline.Kind, kubeletKind)
		}
	}
	cgroupV1 := l.sc.Spec.Node.CgroupVersion == api.CgroupV1
	// The gates come first: the kubelet's defaulting reads them (a crash-loop cap is
	// defaulted only under KubeletCrashLoopBackOffMax) and so does its validation.
	l.checkFeatureGates(cfg)
	var gates kubeletconfig.Gates
	if l.out.Gates != nil {
		gates = l.out.Gates
	}
	kubeletconfig.SetDefaults(cfg, cgroupV1, gates)
	l.checkKubelet(cfg)
	l.out.Kubelet = cfg
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	l.out.NotModelled = append(kubeletconfig.NotModelled(keys), kubeletconfig.NotModelledGates(cfg.FeatureGates)...)
}

func (l *loader) loadKubeletFile(name string) (*kubeletconfigv1beta1.KubeletConfiguration, []string, bool) {
	if l.read == nil {
		l.d.ErrorAt("spec.kubeletConfigFile", "cannot read %q: this scenario has no directory to read files from", name)
		return nil, nil, false
	}
	data, err := l.read(name)
	if err != nil {
		l.d.ErrorAt("spec.kubeletConfigFile", "cannot read kubelet config file %q: %v", name, unwrapPathError(err))
		return nil, nil, false
	}
	root, err := strictyaml.ParseDocument(name, data)
	if err != nil {
		l.extraErr(err)
		return nil, nil, false
	}
	d := newDecoder(name)
	cfg := &kubeletconfigv1beta1.KubeletConfiguration{}
	d.Decode(root, "", cfg)
	l.kubeletFile, l.kubeletFileRoot = d, root
	if lookup(root, "apiVersion") == nil {
		d.ErrorAt("", "missing required field \"apiVersion\" (apiVersion: %s)", kubeletAPIVersion)
	} else if cfg.APIVersion != kubeletAPIVersion {
		d.ErrorAt("apiVersion", "apiVersion %q is not supported (want %q)", cfg.APIVersion, kubeletAPIVersion)
	}
	if lookup(root, "kind") == nil {
		d.ErrorAt("", "missing required field \"kind\" (kind: %s)", kubeletKind)
	} else if cfg.Kind != kubeletKind {
		d.ErrorAt("kind", "kind %q is not supported (want %q)", cfg.Kind, kubeletKind)
	}
	// The kubelet decodes its config file strictly first and, when only unknown fields stop
	// it, again leniently: it starts, ignoring them, and logs why. So does nodesim, listing
	// each in the report's warnings.
	var errs []*strictyaml.Error
	unknown := map[string]bool{}
	for _, e := range d.Errors {
		if strings.HasPrefix(e.Msg, "unknown field ") {
			l.out.Warnings = append(l.out.Warnings, e.Error()+": the kubelet decodes the file leniently and ignores it")
			if e.Path == "" { // a top-level key: keep it out of the not-modelled list too
				name := strings.TrimPrefix(e.Msg, "unknown field ")
				if unq, err := strconv.Unquote(strings.Fields(name)[0]); err == nil {
					unknown[unq] = true
				}
			}
			continue
		}
		errs = append(errs, e)
	}
	l.extra = append(l.extra, errs...)
	var keys []string
	for _, k := range mappingKeys(root) {
		if !unknown[k] {
			keys = append(keys, k)
		}
	}
	return cfg, keys, len(errs) == 0
}

func (l *loader) extraErr(err error) {
	switch e := err.(type) {
	case strictyaml.ErrorList:
		l.extra = append(l.extra, e...)
	case *strictyaml.Error:
		l.extra = append(l.extra, e)
	default:
		l.extra = append(l.extra, &strictyaml.Error{Msg: err.Error()})
	}
}

// checkKubelet checks the configuration as the v1.37 kubelet does before it starts
// (kubeletconfig.Validate, each problem at its own field, in the kubelet's words), the
// reserved and eviction maps as the kubelet parses them, and nodesim's own bounds.
func (l *loader) checkKubelet(cfg *kubeletconfigv1beta1.KubeletConfiguration) {
	p := "spec.kubelet"
	if cfg.SyncFrequency.Duration <= 0 {
		// Not a kubelet rule (its loop would spin): a bound of the simulation.
		l.d.ErrorAt(p+".syncFrequency", "syncFrequency must be positive")
	}
	l.checkReserved("systemReserved", cfg.SystemReserved)
	l.checkReserved("kubeReserved", cfg.KubeReserved)
	if l.checkEviction(cfg) {
		if _, err := eviction.ParseThresholdConfig(cfg.EnforceNodeAllocatable, cfg.EvictionHard, cfg.EvictionSoft,
			cfg.EvictionSoftGracePeriod, cfg.EvictionMinimumReclaim); err != nil {
			l.kubeletErrorAt(l.evictionField(err.Error()), "", "%v", err)
		}
	}
	if cfg.EvictionMaxPodGracePeriod < 0 {
		l.d.ErrorAt(p+".evictionMaxPodGracePeriod", "evictionMaxPodGracePeriod must not be negative (upstream kills at once for negative values; give 0 for that)")
	}
	if l.out.Gates == nil {
		// The kubelet stops at its feature gates; checkFeatureGates has said why.
		return
	}
	cgroupV1 := l.sc.Spec.Node.CgroupVersion == api.CgroupV1
	problems := kubeletconfig.Validate(cfg, l.out.Gates, l.out.Gates.FeatureGate(), cgroupV1)
	if len(problems) == 0 {
		// The kubelet parses its TLS settings only once the configuration validated.
		problems = kubeletconfig.CheckTLS(cfg)
	}
	for _, pr := range problems {
		msg := pr.Msg + " (the v1.37 kubelet refuses to start)"
		if pr.Field == "failCgroupV1" && l.kubeletPath("failCgroupV1") == p {
			// Defaulted to true, not written: the node's cgroup version is what to change.
			l.d.ErrorAt("spec.node.cgroupVersion", "%s (failCgroupV1 defaults to true in v1.37; set it to false to run on cgroup v1)", msg)
			continue
		}
		field, key := pr.Field, pr.Key
		if !l.kubeletSets(field) {
			for _, r := range pr.Related {
				if l.kubeletSets(r) {
					field, key = r, ""
					break
				}
			}
		}
		l.kubeletErrorAt(field, key, "%s", msg)
	}
}

// checkFeatureGates answers the config's featureGates as the v1.37 kubelet does at start-up:
// each gate alone first, so that every refusal (unknown or removed gate, a locked gate set
// against its default) is reported at its own key in upstream's words, then all together,
// for what only the combination can break (a gate on whose dependency is off).
func (l *loader) checkFeatureGates(cfg *kubeletconfigv1beta1.KubeletConfiguration) {
	gates, err := upstream.NewKubeletGates()
	if err != nil {
		l.d.ErrorAt("spec.kubelet", "%v", err)
		return
	}
	bad := false
	// When the gates start together, none is checked alone: a gate that alone would break a
	// dependency may be mended by another (ContainerRestartRules off with
	// RestartAllContainersOnContainerExits off).
	alone := sortedKeys(cfg.FeatureGates)
	if gates.CheckAll(cfg.FeatureGates) == nil {
		alone = nil
	}
	for _, gate := range alone {
		if msg := gates.Check(gate, cfg.FeatureGates[gate]); msg != "" {
			hint := ""
			if strings.HasPrefix(msg, "unrecognized") {
				hint = suggestion(gate, gateNames(gates))
			}
			l.kubeletErrorAt("featureGates", gate, "%s%s (the v1.37 kubelet refuses to start)", msg, hint)
			bad = true
		}
	}
	if bad {
		return
	}
	if err := gates.Set(cfg.FeatureGates); err != nil {
		l.kubeletErrorAt("featureGates", "", "%v (the v1.37 kubelet refuses to start)", err)
		return
	}
	l.out.Gates = gates
	l.out.Warnings = append(l.out.Warnings, gates.Warnings...)
}

// gateNames is the names of all the kubelet's gates, in order, for the hint that follows
// an unrecognized one: made only then, since listing the gates (gates.All sorts the
// registry's map) costs more than checking the scenario's few.
func gateNames(gates *upstream.KubeletGates) []string {
	all := gates.All()
	names := make([]string, 0, len(all))
	for _, g := range all {
		names = append(names, g.Name)
	}
	return names
}

// kubeletErrorAt reports an error about a kubelet field, or one key of a map field, where it
// is written: inline in spec.kubelet (which wins), else in the kubeletConfigFile, positioned
// at that file's line and column, else at spec.kubelet.
func (l *loader) kubeletErrorAt(field, key, format string, args ...any) {
	if l.node("spec", "kubelet", field) == nil && l.kubeletFile != nil && lookup(l.kubeletFileRoot, field) != nil {
		path := field
		if key != "" {
			path = joinKey(field, key)
		}
		fd := &strictyaml.Decoder{File: l.kubeletFile.File, Positions: l.kubeletFile.Positions}
		fd.ErrorAt(path, format, args...)
		l.extra = append(l.extra, fd.Errors...)
		return
	}
	if key != "" {
		l.d.ErrorAt(l.kubeletKeyPath(field, key), format, args...)
		return
	}
	l.d.ErrorAt(l.kubeletPath(field), format, args...)
}

// kubeletKeyPath is where an error about one key of a kubelet map field is reported: that
// key inline, else the field or the kubeletConfigFile line.
func (l *loader) kubeletKeyPath(field, key string) string {
	p := l.kubeletPath(field)
	if p == "spec.kubelet."+field {
		return joinKey(p, key)
	}
	return p
}

// checkReserved checks a systemReserved or kubeReserved map as the kubelet parses it at
// start-up (parseResourceList): cpu, memory, ephemeral-storage and pid only, each a
// non-negative quantity; each error at its own key. "1GB" is an error there, not 0.
func (l *loader) checkReserved(field string, m map[string]string) {
	for _, k := range sortedKeys(m) {
		switch k {
		case "cpu", "memory", "ephemeral-storage", "pid":
			q, err := resource.ParseQuantity(m[k])
			if err != nil {
				l.kubeletErrorAt(field, k, "failed to parse quantity %q for %q resource: %v", m[k], k, err)
			} else if q.Sign() < 0 {
				l.kubeletErrorAt(field, k, "resource quantity for %q cannot be negative: %v", k, m[k])
			}
		default:
			l.kubeletErrorAt(field, k, "cannot reserve %q resource", k)
		}
	}
}

// checkEviction checks the eviction maps entry by entry, so that each error sits at its own
// map and key (upstream reports one error of the lot): a statement of evictionHard or
// evictionSoft, a soft threshold without its grace period, a grace period, a minimum
// reclaim. It reports whether every entry was valid on its own.
func (l *loader) checkEviction(cfg *kubeletconfigv1beta1.KubeletConfiguration) bool {
	ok := true
	bad := func(field, key string, format string, args ...any) {
		l.kubeletErrorAt(field, key, format, args...)
		ok = false
	}
	one := func(k, v string) map[string]string { return map[string]string{k: v} }
	for _, k := range sortedKeys(cfg.EvictionHard) {
		if _, err := eviction.ParseThresholdConfig(nil, one(k, cfg.EvictionHard[k]), nil, nil, nil); err != nil {
			bad("evictionHard", k, "%v", err)
		}
	}
	for _, k := range sortedKeys(cfg.EvictionSoft) {
		if _, err := eviction.ParseThresholdConfig(nil, nil, one(k, cfg.EvictionSoft[k]), one(k, "1m"), nil); err != nil {
			bad("evictionSoft", k, "%v", err)
		} else if _, has := cfg.EvictionSoftGracePeriod[k]; !has {
			bad("evictionSoft", k, "grace period must be specified for the soft eviction threshold %v", k)
		}
	}
	for _, k := range sortedKeys(cfg.EvictionSoftGracePeriod) {
		if _, err := eviction.ParseThresholdConfig(nil, nil, nil, one(k, cfg.EvictionSoftGracePeriod[k]), nil); err != nil {
			bad("evictionSoftGracePeriod", k, "%v", err)
		}
	}
	for _, k := range sortedKeys(cfg.EvictionMinimumReclaim) {
		if _, err := eviction.ParseThresholdConfig(nil, nil, nil, nil, one(k, cfg.EvictionMinimumReclaim[k])); err != nil {
			bad("evictionMinimumReclaim", k, "%v", err)
		}
	}
	return ok
}

// evictionField guesses which eviction field an error is about, for its position.
func (l *loader) evictionField(msg string) string {
	switch {
	case strings.Contains(msg, "grace period"):
		return "evictionSoftGracePeriod"
	case strings.Contains(msg, "minimum reclaim"):
		return "evictionMinimumReclaim"
	case l.kubeletSets("evictionSoft") && !l.kubeletSets("evictionHard") && !strings.Contains(msg, "hard"):
		return "evictionSoft"
	}
	return "evictionHard"
}

// kubeletSets reports whether the scenario sets a kubelet field, inline or in its file.
func (l *loader) kubeletSets(field string) bool {
	return l.node("spec", "kubelet", field) != nil || l.kubeletFileRoot != nil && lookup(l.kubeletFileRoot, field) != nil
}

func suggestion(got string, allowed []string) string {
	if s := strictyaml.Suggest(got, allowed); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// mappingKeys lists a mapping node's keys in order.
func mappingKeys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}

// copyJSONField copies the field whose JSON name is name from src to dst (same struct type),
// looking through inline embedded structs.
func copyJSONField(dst, src any, name string) {
	dv, sv := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	copyField(dv, sv, name)
}

func copyField(dv, sv reflect.Value, name string) bool {
	t := dv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("json"), ",")
		if f.Anonymous && (tag[0] == "" || len(tag) > 1 && tag[1] == "inline") {
			if copyField(dv.Field(i), sv.Field(i), name) {
				return true
			}
			continue
		}
		if tag[0] == name {
			dv.Field(i).Set(sv.Field(i))
			return true
		}
	}
	return false
}

// joinKey is the path of one entry of a kubelet field: a list index (registerWithTaints[0]),
// a map key (evictionHard["memory.available"]) or a struct field (memorySwap.swapBehavior).
func joinKey(field, key string) string {
	if i, err := strconv.Atoi(key); err == nil && i >= 0 {
		return strictyaml.Index(field, i)
	}
	return strictyaml.Join(field, key)
}

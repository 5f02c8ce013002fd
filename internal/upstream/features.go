package upstream

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"

	// The kubelet's feature-gate registry: importing it registers every v1.37 gate.
	_ "k8s.io/kubernetes/pkg/features"
)

// KubeletGates is one run's copy of the v1.37 kubelet's feature gates: the registry
// k8s.io/kubernetes registers (its own gates, client-go's and zpages'), plus the logging
// gates the kubelet adds at start-up. Each run gets its own copy; the process-wide registry
// is only read.
type KubeletGates struct {
	fg featuregate.MutableVersionedFeatureGate
	// Warnings are what the kubelet logs when the config sets a deprecated or GA gate.
	Warnings []string
}

// NewKubeletGates copies the registry. It fails only if the registry cannot be built, which
// would be a bug.
func NewKubeletGates() (*KubeletGates, error) {
	fg := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	if err := logsapi.AddFeatureGates(fg); err != nil {
		return nil, fmt.Errorf("kubelet feature gates: %w", err)
	}
	return &KubeletGates{fg: fg}, nil
}

// Check says what the kubelet says of setting one gate alone: "" when it accepts it, else
// its error ("unrecognized feature gate: X", "cannot set feature gate X to false, feature is
// locked to true"). The copy it tries on is thrown away.
func (g *KubeletGates) Check(name string, value bool) string {
	trial := g.fg.DeepCopy()
	if err := setFromMap(trial, logr.Discard(), map[string]bool{name: value}); err != nil {
		return sorted(err).Error()
	}
	return ""
}

// CheckAll says what the kubelet says of the whole featureGates map, on a copy that is thrown
// away: nil when it starts with them.
func (g *KubeletGates) CheckAll(m map[string]bool) error {
	if err := setFromMap(g.fg.DeepCopy(), logr.Discard(), m); err != nil {
		return sorted(err)
	}
	return nil
}

// Set applies a config's featureGates as the kubelet does at start-up (SetFromMap),
// keeping the warnings it would log. Errors that involve several gates (a gate enabled
// whose dependency is disabled) come back sorted, so the same config gives the same words.
func (g *KubeletGates) Set(m map[string]bool) error {
	sink := &warnSink{}
	if err := setFromMap(g.fg, logr.New(sink), m); err != nil {
		return sorted(err)
	}
	sort.Strings(sink.warnings)
	g.Warnings = sink.warnings
	return nil
}

// sorted renders an aggregate of errors in a fixed order: the registry builds it by ranging
// over a map.
func sorted(err error) error {
	agg, ok := err.(interface{ Errors() []error })
	if !ok {
		return err
	}
	var msgs []string
	for _, e := range agg.Errors() {
		msgs = append(msgs, e.Error())
	}
	sort.Strings(msgs)
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// warnSink keeps the warnings the registry logs while gates are set ("setting deprecated
// feature gate", "setting GA feature gate"), as "Gate=value: message".
type warnSink struct{ warnings []string }

func (w *warnSink) Init(logr.RuntimeInfo)  {}
func (w *warnSink) Enabled(level int) bool { return level == 0 }
func (w *warnSink) Info(_ int, msg string, kv ...any) {
	var gate, value any
	for i := 0; i+1 < len(kv); i += 2 {
		switch kv[i] {
		case "featureGate":
			gate = kv[i+1]
		case "value":
			value = kv[i+1]
		}
	}
	w.warnings = append(w.warnings, fmt.Sprintf("featureGates %v=%v: %s", gate, value, strings.TrimPrefix(msg, "Warning: ")))
}
func (w *warnSink) Error(error, string, ...any)    {}
func (w *warnSink) WithValues(...any) logr.LogSink { return w }
func (w *warnSink) WithName(string) logr.LogSink   { return w }

// FeatureGate is the run's gates as upstream's own validators (logging, tracing) take them.
func (g *KubeletGates) FeatureGate() featuregate.FeatureGate { return g.fg }

// Enabled reports whether a gate is on for this run.
func (g *KubeletGates) Enabled(name string) bool { return g.fg.Enabled(featuregate.Feature(name)) }

// Gate is one registered gate as the v1.37 kubelet knows it.
type Gate struct {
	Name          string
	Stage         string // ALPHA, BETA, GA, DEPRECATED
	Default       bool
	LockToDefault bool
}

// All lists every gate the kubelet accepts, by name (AllAlpha and AllBeta included).
func (g *KubeletGates) All() []Gate {
	var out []Gate
	for name, spec := range g.fg.GetAll() {
		stage := string(spec.PreRelease)
		if stage == "" {
			stage = "GA"
		}
		out = append(out, Gate{Name: string(name), Stage: stage, Default: spec.Default, LockToDefault: spec.LockToDefault})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// setFromMap is the gate's SetFromMap with a logger of ours: the kubelet's own logs its
// deprecation warnings to stderr, which is nodesim's output.
func setFromMap(fg featuregate.MutableVersionedFeatureGate, logger logr.Logger, m map[string]bool) error {
	withLogger, ok := fg.(interface {
		SetFromMapWithLogger(logr.Logger, map[string]bool) error
	})
	if !ok {
		return fmt.Errorf("kubelet feature gates: the registry cannot take a logger")
	}
	return withLogger.SetFromMapWithLogger(logger, m)
}

package v1alpha1

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"

	"nodesim/internal/strictyaml"
)

// Duration is a Go duration written as in Kubernetes manifests: "500ms", "90s", "5m".
// A bare 0 is accepted for "no time".
type Duration struct{ time.Duration }

// D makes a Duration.
func D(d time.Duration) Duration { return Duration{d} }

// UnmarshalYAMLNode parses and checks the duration, reporting errors at its position.
func (d *Duration) UnmarshalYAMLNode(dec *strictyaml.Decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int") {
		dec.Errorf(n, path, "expected a duration such as 500ms, 90s or 5m")
		return
	}
	if n.ShortTag() == "!!int" {
		if n.Value != "0" {
			dec.Errorf(n, path, "duration %s has no unit (write %ss, or 500ms, 5m)", n.Value, n.Value)
			return
		}
		d.Duration = 0
		return
	}
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		dec.Errorf(n, path, "invalid duration %q (use a Go duration such as 500ms, 90s, 5m, 1h30m)", n.Value)
		return
	}
	if v < 0 {
		dec.Errorf(n, path, "duration %q must not be negative", n.Value)
		return
	}
	d.Duration = v
}

// MarshalJSON writes the duration as Go prints it.
func (d Duration) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(d.String())), nil }

// Window is a closed time window [From, To], written [from, to].
type Window struct {
	From, To Duration
	Set      bool
}

// UnmarshalYAMLNode parses a two-element sequence of durations.
func (w *Window) UnmarshalYAMLNode(dec *strictyaml.Decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.SequenceNode || len(n.Content) != 2 {
		dec.Errorf(n, path, "expected a window [from, to], e.g. [0s, 10m]")
		return
	}
	before := len(dec.Errors)
	w.From.UnmarshalYAMLNode(dec, n.Content[0], strictyaml.Index(path, 0))
	w.To.UnmarshalYAMLNode(dec, n.Content[1], strictyaml.Index(path, 1))
	if len(dec.Errors) > before {
		return
	}
	if w.To.Duration < w.From.Duration {
		dec.Errorf(n, path, "window ends (%s) before it starts (%s)", w.To.Duration, w.From.Duration)
		return
	}
	w.Set = true
}

// Contains reports whether t is in the window (always true for an unset window).
func (w Window) Contains(t time.Duration) bool {
	return !w.Set || (t >= w.From.Duration && t <= w.To.Duration)
}

// Program is a usage program: steps over time since the process started (memory, disk,
// volume writes, PIDs, or the node's system usage). A bare quantity is a one-step program
// that sets that value from the start.
type Program []Step

// Step is one step of a usage program. Exactly one of Set, RampTo and Repeat is given.
type Step struct {
	// At is when the step begins, since the process started; without it the step follows
	// the previous one (after its Over, for a ramp).
	At *Duration `json:"at,omitempty"`
	// Set jumps to a value.
	Set *resource.Quantity `json:"set,omitempty"`
	// RampTo changes linearly to a value Over a span.
	RampTo *resource.Quantity `json:"rampTo,omitempty"`
	Over   *Duration          `json:"over,omitempty"`
	// Repeat, as the last step, starts the program again every Repeat.
	Repeat *Duration `json:"repeat,omitempty"`
	// Noise adds seeded jitter of up to this fraction around the value.
	Noise *Percent `json:"noise,omitempty"`
}

// UnmarshalYAMLNode accepts a list of steps or a bare quantity.
func (p *Program) UnmarshalYAMLNode(dec *strictyaml.Decoder, n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		var q resource.Quantity
		dec.Decode(n, path, &q)
		*p = Program{{Set: &q}}
		return
	}
	if n.Kind != yaml.SequenceNode {
		dec.Errorf(n, path, "expected a usage program: a list of steps such as [{set: 100Mi}, {at: 1m, rampTo: 1Gi, over: 5m}], or a quantity")
		return
	}
	var steps []Step
	dec.Decode(n, path, &steps)
	for i := range steps {
		st := &steps[i]
		sp := strictyaml.Index(path, i)
		sn := n.Content[i]
		actions := 0
		for _, set := range []bool{st.Set != nil, st.RampTo != nil, st.Repeat != nil} {
			if set {
				actions++
			}
		}
		switch {
		case actions == 0:
			dec.Errorf(sn, sp, "a step needs one of set, rampTo or repeat")
		case actions > 1:
			dec.Errorf(sn, sp, "a step takes only one of set, rampTo or repeat")
		case st.RampTo != nil && st.Over == nil:
			dec.Errorf(sn, sp, "rampTo needs over (how long the ramp takes)")
		case st.Over != nil && st.RampTo == nil:
			dec.Errorf(sn, sp, "over goes with rampTo")
		case st.Repeat != nil && i != len(steps)-1:
			dec.Errorf(sn, sp, "repeat must be the last step")
		case st.Repeat != nil && st.Repeat.Duration <= 0:
			dec.Errorf(sn, sp, "repeat must be a positive duration")
		}
		for _, q := range []*resource.Quantity{st.Set, st.RampTo} {
			if q != nil && q.Sign() < 0 {
				dec.Errorf(sn, sp, "usage %s must not be negative", q.String())
			}
		}
	}
	*p = steps
}

// Percent is a fraction written as "5%".
type Percent float64

// UnmarshalYAMLNode parses "N%" with 0 <= N <= 100.
func (p *Percent) UnmarshalYAMLNode(dec *strictyaml.Decoder, n *yaml.Node, path string) {
	s := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode || !strings.HasSuffix(s, "%") {
		dec.Errorf(n, path, "expected a percentage such as 5%%")
		return
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 || v > 100 {
		dec.Errorf(n, path, "invalid percentage %q (want 0%% to 100%%)", n.Value)
		return
	}
	*p = Percent(v / 100)
}

// String renders the percentage.
func (p Percent) String() string { return fmt.Sprintf("%g%%", float64(p)*100) }

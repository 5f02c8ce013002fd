package reports

import (
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"nodesim/trace"
)

// SignalHeadroom is how close one eviction signal came to its hard threshold during a run:
// the lowest value the eviction manager observed in its passes, when it first observed it,
// the level of the signal's hard threshold, and the margin between the two. It is what the
// kubelet saw, pass by pass (every evictionMonitoringPeriod), not the kernel's continuous
// figure: a dip between two passes that no pass saw is not in it.
type SignalHeadroom struct {
	// Signal is the eviction signal (memory.available, nodefs.available, ...).
	Signal string `json:"signal"`
	// Lowest is the lowest observation: bytes, or a count for inodesFree and pid.available.
	Lowest int64 `json:"lowest"`
	// At is when a pass first observed Lowest, in seconds since the scenario started.
	At float64 `json:"at"`
	// Threshold is the hard threshold's level in the same unit, a percentage resolved
	// against the signal's capacity as the eviction manager resolves it.
	Threshold int64 `json:"threshold"`
	// Above is Lowest minus Threshold: negative when the signal went below its threshold.
	Above int64 `json:"above"`
}

// Headroom returns, for every signal with a hard threshold that an eviction pass observed
// during the run (from time 0), its headroom, in the eviction manager's order of signals
// (memory.available first, then nodefs.available, ...). It is empty when no hard threshold
// is configured or no pass ran.
func Headroom(r *Report) []SignalHeadroom {
	return append([]SignalHeadroom(nil), r.headroom...)
}

// HeadroomOf returns the headroom of one signal, and whether it has one.
func HeadroomOf(r *Report, signal string) (SignalHeadroom, bool) {
	for _, h := range r.headroom {
		if h.Signal == signal {
			return h, true
		}
	}
	return SignalHeadroom{}, false
}

// headroomState follows the eviction passes for Headroom: the hard levels the manager
// recorded, and the lowest observation of each signal so far. Its size is bounded by the
// number of signals.
type headroomState struct {
	levels map[string]int64
	order  []string // signals in the order the manager lists its hard levels
	lowest map[string]lowestObservation
	// prev holds the last pass's "signals" fields ("name=quantity"): a field seen before
	// cannot lower its signal's lowest value, so observe parses only the changed ones.
	prev []string
}

type lowestObservation struct {
	value int64
	at    time.Duration
}

// evictionLevels notes the "hard" attr of a pass, which the manager's first pass carries;
// it is read even before time 0, since the kubelet's eviction manager starts during boot.
func (h *headroomState) evictionLevels(e *trace.Event) {
	hard := e.Attr("hard")
	if hard == "" {
		return
	}
	if h.levels == nil {
		h.levels = map[string]int64{}
	}
	for _, kv := range splitList(hard, ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			continue
		}
		if _, seen := h.levels[k]; !seen {
			h.order = append(h.order, k)
		}
		h.levels[k] = n
	}
}

// observe keeps the lowest value of each signal a pass observed ("signals" attr, quantities
// as the manager printed them); ties keep the earlier pass. It walks the fields in place
// (the same fields as splitList's) and overwrites prev as it goes: prev[i] is read before
// it is written, so it is compared with the last pass's field.
func (h *headroomState) observe(e *trace.Event) {
	sig := e.Attr("signals")
	if sig == "" {
		return
	}
	if h.lowest == nil {
		h.lowest = map[string]lowestObservation{}
	}
	last, n := len(h.prev), 0
	for rest := sig; rest != ""; {
		var kv string
		kv, rest, _ = strings.Cut(rest, ",")
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		i := n
		n++
		if i < last && h.prev[i] == kv {
			continue
		}
		if i < len(h.prev) {
			h.prev[i] = kv
		} else {
			h.prev = append(h.prev, kv)
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		value, ok := quantityValue(v)
		if !ok {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				continue
			}
			value = q.Value()
		}
		if cur, seen := h.lowest[k]; !seen || value < cur.value {
			h.lowest[k] = lowestObservation{value: value, at: e.At}
		}
	}
	h.prev = h.prev[:n]
}

// quantityValue returns resource.ParseQuantity(v).Value() for the forms the eviction
// manager writes its signals in, a whole number with no suffix or with Ki, Mi or Gi,
// without building a Quantity: every pass changes a few of them. ok is false for any other
// form (and for a number too large to shift exactly), which observe hands to
// ParseQuantity; TestQuantityValueIsParseQuantity holds the two to each other.
func quantityValue(v string) (value int64, ok bool) {
	digits, shift := v, 0
	switch {
	case strings.HasSuffix(v, "Ki"):
		digits, shift = v[:len(v)-2], 10
	case strings.HasSuffix(v, "Mi"):
		digits, shift = v[:len(v)-2], 20
	case strings.HasSuffix(v, "Gi"):
		digits, shift = v[:len(v)-2], 30
	}
	if digits == "" || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n > math.MaxInt64>>shift {
		return 0, false
	}
	return n << shift, true
}

// finish lists the signals that have both a hard level and an observation.
func (h *headroomState) finish() []SignalHeadroom {
	var out []SignalHeadroom
	for _, s := range h.order {
		low, ok := h.lowest[s]
		if !ok {
			continue
		}
		level := h.levels[s]
		out = append(out, SignalHeadroom{Signal: s, Lowest: low.value, At: secs(low.at), Threshold: level, Above: low.value - level})
	}
	return out
}

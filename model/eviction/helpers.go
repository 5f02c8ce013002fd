package eviction

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// nodeAllocatableEnforcementKey is the enforceNodeAllocatable entry that makes the kubelet
// enforce allocatable on the kubepods cgroup, and so evict on allocatableMemory.available.
const nodeAllocatableEnforcementKey = "pods"

// ParseThresholdConfig turns the kubelet's eviction settings into thresholds, with
// upstream's validation and error wording:
//
//   - every key must be one of Signals() ("unsupported eviction signal <key>"), in the
//     threshold maps, the grace-period map and the min-reclaim map alike;
//   - a threshold value is a positive quantity or a percentage in [0%, 100%]; exactly
//     "0%" and "100%" drop the statement, which is how a default is switched off;
//   - every soft threshold needs a grace period (negative ones are rejected; "0s" is
//     accepted and makes the threshold behave as hard everywhere);
//   - min-reclaims are non-negative quantities or positive percentages and attach to the
//     hard and the soft threshold of their signal;
//   - when allocatableConfig contains "pods", every memory.available threshold with a zero
//     grace period is copied to allocatableMemory.available (value and min-reclaim kept).
//
// Upstream iterates the maps, so both its result order and which of several bad entries it
// reports are random. nodesim reports errors in a fixed order (hard map, soft map, grace
// periods, min-reclaims; within a map unknown keys first, alphabetically, then the valid
// ones in Signals() order) and returns hard thresholds in Signals() order, then soft ones
// in Signals() order, then the allocatable copies.
func ParseThresholdConfig(allocatableConfig []string, evictionHard, evictionSoft, evictionSoftGracePeriod, evictionMinimumReclaim map[string]string) ([]Threshold, error) {
	hard, err := parseThresholdStatements(evictionHard)
	if err != nil {
		return nil, err
	}
	soft, err := parseThresholdStatements(evictionSoft)
	if err != nil {
		return nil, err
	}
	gracePeriods, err := parseGracePeriods(evictionSoftGracePeriod)
	if err != nil {
		return nil, err
	}
	minReclaims, err := parseMinimumReclaims(evictionMinimumReclaim)
	if err != nil {
		return nil, err
	}
	for i := range soft {
		period, ok := gracePeriods[soft[i].Signal]
		if !ok {
			return nil, fmt.Errorf("grace period must be specified for the soft eviction threshold %v", soft[i].Signal)
		}
		soft[i].GracePeriod = period
	}
	results := make([]Threshold, 0, len(hard)+len(soft))
	results = append(results, hard...)
	results = append(results, soft...)
	for i := range results {
		if mr, ok := minReclaims[results[i].Signal]; ok {
			results[i].MinReclaim = copyValue(&mr)
		}
	}
	for _, key := range allocatableConfig {
		if key == nodeAllocatableEnforcementKey {
			results = addAllocatableThresholds(results)
			break
		}
	}
	return results, nil
}

// addAllocatableThresholds appends an allocatableMemory.available copy of every hard
// memory.available threshold, so that pods are evicted before the kubepods cgroup hits its
// limit (node allocatable enforcement).
func addAllocatableThresholds(thresholds []Threshold) []Threshold {
	out := append([]Threshold{}, thresholds...)
	for _, t := range thresholds {
		if t.Signal == SignalMemoryAvailable && t.IsHard() {
			out = append(out, Threshold{
				Signal:     SignalAllocatableMemoryAvailable,
				Value:      *copyValue(&t.Value),
				MinReclaim: copyValue(t.MinReclaim),
			})
		}
	}
	return out
}

// copyValue deep-copies a threshold value so parsed thresholds share no quantities.
func copyValue(v *ThresholdValue) *ThresholdValue {
	if v == nil {
		return nil
	}
	out := ThresholdValue{Percentage: v.Percentage}
	if v.Quantity != nil {
		q := v.Quantity.DeepCopy()
		out.Quantity = &q
	}
	return &out
}

// orderedKeys is the fixed order in which a statement map is read: unknown keys first
// (sorted), so an unsupported signal is always the error reported, then valid signals in
// Signals() order.
func orderedKeys(statements map[string]string) []string {
	var unknown []string
	for k := range statements {
		if !validSignal(Signal(k)) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	keys := unknown
	for _, s := range Signals() {
		if _, ok := statements[string(s)]; ok {
			keys = append(keys, string(s))
		}
	}
	return keys
}

// parseThresholdStatements parses one threshold map (hard or soft).
func parseThresholdStatements(statements map[string]string) ([]Threshold, error) {
	results := []Threshold{}
	for _, key := range orderedKeys(statements) {
		t, err := parseThresholdStatement(Signal(key), statements[key])
		if err != nil {
			return nil, err
		}
		if t != nil {
			results = append(results, *t)
		}
	}
	return results, nil
}

// parseThresholdStatement parses one "signal < value" statement; nil, nil means the
// statement disables the signal ("0%" or "100%").
func parseThresholdStatement(signal Signal, val string) (*Threshold, error) {
	if !validSignal(signal) {
		return nil, fmt.Errorf("unsupported eviction signal %v", signal)
	}
	if strings.HasSuffix(val, "%") {
		// Only these exact spellings disable; "0.0%" is a real (zero) threshold.
		if val == "0%" || val == "100%" {
			return nil, nil
		}
		p, err := parsePercentage(val)
		if err != nil {
			return nil, err
		}
		if p < 0 {
			return nil, fmt.Errorf("eviction percentage threshold %v must be >= 0%%: %s", signal, val)
		}
		if p > 1 {
			return nil, fmt.Errorf("eviction percentage threshold %v must be <= 100%%: %s", signal, val)
		}
		return &Threshold{Signal: signal, Value: ThresholdValue{Percentage: p}}, nil
	}
	q, err := resource.ParseQuantity(val)
	if err != nil {
		return nil, err
	}
	if q.Sign() <= 0 {
		return nil, fmt.Errorf("eviction threshold %v must be positive: %s", signal, q.String())
	}
	return &Threshold{Signal: signal, Value: ThresholdValue{Quantity: &q}}, nil
}

// parsePercentage reads "12.5%" as the float32 fraction 0.125. The number is parsed at
// 32-bit precision and divided in float32, exactly as upstream, because the resulting
// rounding shows in threshold quantities. Every trailing '%' is stripped, as upstream's
// strings.TrimRight does.
func parsePercentage(input string) (float32, error) {
	v, err := strconv.ParseFloat(strings.TrimRight(input, "%"), 32)
	if err != nil {
		return 0, err
	}
	return float32(v) / 100, nil
}

// parseGracePeriods parses the soft grace-period map. Entries for signals without a soft
// threshold are validated but otherwise unused.
func parseGracePeriods(statements map[string]string) (map[Signal]time.Duration, error) {
	results := map[Signal]time.Duration{}
	for _, key := range orderedKeys(statements) {
		signal := Signal(key)
		if !validSignal(signal) {
			return nil, fmt.Errorf("unsupported eviction signal %v", signal)
		}
		val := statements[key]
		d, err := time.ParseDuration(val)
		if err != nil {
			return nil, err
		}
		if d < 0 {
			return nil, fmt.Errorf("invalid eviction grace period specified: %v, must be a positive value", val)
		}
		results[signal] = d
	}
	return results, nil
}

// parseMinimumReclaims parses the min-reclaim map. Unlike thresholds, "0%" is an error
// here while a zero quantity is accepted.
func parseMinimumReclaims(statements map[string]string) (map[Signal]ThresholdValue, error) {
	results := map[Signal]ThresholdValue{}
	for _, key := range orderedKeys(statements) {
		signal := Signal(key)
		if !validSignal(signal) {
			return nil, fmt.Errorf("unsupported eviction signal %v", signal)
		}
		val := statements[key]
		if strings.HasSuffix(val, "%") {
			p, err := parsePercentage(val)
			if err != nil {
				return nil, err
			}
			if p <= 0 {
				return nil, fmt.Errorf("eviction percentage minimum reclaim %v must be positive: %s", signal, val)
			}
			results[signal] = ThresholdValue{Percentage: p}
			continue
		}
		q, err := resource.ParseQuantity(val)
		if err != nil {
			return nil, err
		}
		if q.Sign() < 0 {
			return nil, fmt.Errorf("negative eviction minimum reclaim specified for %v", signal)
		}
		results[signal] = ThresholdValue{Quantity: &q}
	}
	return results, nil
}

// GetThresholdQuantity is the threshold's quantity against an observation's capacity (see
// thresholdQuantity), as a new Quantity.
func GetThresholdQuantity(value ThresholdValue, capacity *resource.Quantity) *resource.Quantity {
	q := thresholdQuantity(value, capacity)
	return &q
}

// thresholdQuantity is the threshold's quantity against an observation's capacity: the
// literal quantity (a copy), or int64(float64(capacity) * float64(percentage)) truncated
// toward zero. The percentage is the float32 from parsing, widened only here, so "10%" of
// 10Gi is 1073741840 bytes rather than 1073741824. A nil capacity counts as zero. It is a
// value so that a caller that only compares it (the eviction pass tests every threshold on
// each run) keeps it on the stack.
func thresholdQuantity(value ThresholdValue, capacity *resource.Quantity) resource.Quantity {
	if value.Quantity != nil {
		return value.Quantity.DeepCopy()
	}
	var c int64
	if capacity != nil {
		c = capacity.Value()
	}
	return *resource.NewQuantity(int64(float64(c)*float64(value.Percentage)), resource.BinarySI)
}

// ThresholdsMet returns, in input order, the thresholds whose quantity is strictly greater
// than the observed available figure. With enforceMinReclaim the min-reclaim (resolved
// against the same capacity) is added to the threshold first, which is how a threshold
// that has already triggered stays met until enough is reclaimed. A threshold whose signal
// has no observation is not met.
func ThresholdsMet(thresholds []Threshold, observations SignalObservations, enforceMinReclaim bool) []Threshold {
	results := []Threshold{}
	for _, t := range thresholds {
		obs, ok := observations[t.Signal]
		if !ok || obs.Available == nil {
			continue
		}
		q := thresholdQuantity(t.Value, obs.Capacity)
		if enforceMinReclaim && t.MinReclaim != nil {
			q.Add(thresholdQuantity(*t.MinReclaim, obs.Capacity))
		}
		if q.Cmp(*obs.Available) > 0 {
			results = append(results, t)
		}
	}
	return results
}

// sameThreshold is upstream's duplicate test: signal, value and grace period agree;
// min-reclaim is not compared.
func sameThreshold(a, b Threshold) bool {
	return a.Signal == b.Signal && a.GracePeriod == b.GracePeriod && sameValue(a.Value, b.Value)
}

// sameValue compares two values logically: quantities by amount, percentages exactly, and
// a quantity never equals a percentage.
func sameValue(a, b ThresholdValue) bool {
	if a.Quantity != nil || b.Quantity != nil {
		return a.Quantity != nil && b.Quantity != nil && a.Quantity.Cmp(*b.Quantity) == 0
	}
	return a.Percentage == b.Percentage
}

// MergeThresholds appends to a every threshold of b not already present (see
// sameThreshold), keeping order with a first. Duplicates inside a are kept, as upstream.
func MergeThresholds(a, b []Threshold) []Threshold {
	results := append([]Threshold{}, a...)
	for _, t := range b {
		dup := false
		for _, r := range results {
			if sameThreshold(r, t) {
				dup = true
				break
			}
		}
		if !dup {
			results = append(results, t)
		}
	}
	return results
}

// ThresholdsFirstObservedAt stamps each met threshold with when it was first met: its old
// time if it was met last pass too, now otherwise. Thresholds no longer met are dropped, so
// a single pass above a soft threshold restarts its grace period.
func ThresholdsFirstObservedAt(met []Threshold, last ThresholdsObservedAt, now time.Time) ThresholdsObservedAt {
	results := ThresholdsObservedAt{}
	for _, t := range met {
		k := t.Key()
		if at, ok := last[k]; ok {
			results[k] = at
		} else {
			results[k] = now
		}
	}
	return results
}

// ThresholdsMetGracePeriod keeps, in input order, the thresholds recorded in observedAt
// that have been met for at least their grace period (hard thresholds at once). Upstream
// iterates the map itself (random order); nodesim walks the given list instead, skipping
// thresholds absent from the map and repeated keys.
func ThresholdsMetGracePeriod(observedAt ThresholdsObservedAt, thresholds []Threshold, now time.Time) []Threshold {
	results := []Threshold{}
	seen := map[string]bool{}
	for _, t := range thresholds {
		k := t.Key()
		if seen[k] {
			continue
		}
		seen[k] = true
		at, ok := observedAt[k]
		if !ok || now.Sub(at) < t.GracePeriod {
			continue
		}
		results = append(results, t)
	}
	return results
}

// conditionOrder is the fixed order node conditions are reported in (upstream: the order
// thresholds or map entries happen to come in).
func conditionOrder(c corev1.NodeConditionType) int {
	switch c {
	case corev1.NodeMemoryPressure:
		return 0
	case corev1.NodeDiskPressure:
		return 1
	case corev1.NodePIDPressure:
		return 2
	}
	return 3
}

// sortConditions orders conditions MemoryPressure, DiskPressure, PIDPressure, then any
// others alphabetically.
func sortConditions(conds []corev1.NodeConditionType) {
	// The order is total (equal keys are equal conditions), so any sort gives the same
	// result; slices.SortFunc allocates nothing, unlike sort.Slice.
	slices.SortFunc(conds, func(a, b corev1.NodeConditionType) int {
		if c := cmp.Compare(conditionOrder(a), conditionOrder(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}

// NodeConditions is the set of pressure conditions the met thresholds raise, regardless of
// grace period (a soft threshold raises its condition at once), without duplicates, in
// the order MemoryPressure, DiskPressure, PIDPressure.
func NodeConditions(met []Threshold) []corev1.NodeConditionType {
	results := []corev1.NodeConditionType{}
	for _, t := range met {
		c := SignalToNodeCondition(t.Signal)
		if c != "" && !HasNodeCondition(results, c) {
			results = append(results, c)
		}
	}
	sortConditions(results)
	return results
}

// NodeConditionsLastObservedAt stamps the current conditions with now and keeps the last
// time of every condition seen before; entries are never removed.
func NodeConditionsLastObservedAt(conds []corev1.NodeConditionType, last NodeConditionsObservedAt, now time.Time) NodeConditionsObservedAt {
	results := NodeConditionsObservedAt{}
	for _, c := range conds {
		results[c] = now
	}
	for c, at := range last {
		if _, ok := results[c]; !ok {
			results[c] = at
		}
	}
	return results
}

// NodeConditionsObservedSince is the conditions observed within the transition period:
// now - lastObserved < period, strictly, so with the 5m default a condition clears on the
// first pass at least 5m after it was last seen. Fixed order as NodeConditions.
func NodeConditionsObservedSince(observedAt NodeConditionsObservedAt, period time.Duration, now time.Time) []corev1.NodeConditionType {
	results := []corev1.NodeConditionType{}
	for c, at := range observedAt {
		if now.Sub(at) < period {
			results = append(results, c)
		}
	}
	sortConditions(results)
	return results
}

// HasNodeCondition reports whether c is in conds.
func HasNodeCondition(conds []corev1.NodeConditionType, c corev1.NodeConditionType) bool {
	for _, x := range conds {
		if x == c {
			return true
		}
	}
	return false
}

// ThresholdsUpdatedStats keeps, in input order, the thresholds whose signal has an
// observation that is new since the last pass: its time is zero (unknown), or the signal
// was not observed last pass, or its time is strictly after last pass's. This is how the
// manager avoids acting twice on one stale sample. As upstream, a threshold whose signal
// has no observation this pass is dropped.
func ThresholdsUpdatedStats(thresholds []Threshold, observations, lastObservations SignalObservations) []Threshold {
	results := []Threshold{}
	for _, t := range thresholds {
		obs, ok := observations[t.Signal]
		if !ok {
			continue
		}
		prev, seen := lastObservations[t.Signal]
		if !seen || obs.Time.IsZero() || obs.Time.After(prev.Time) {
			results = append(results, t)
		}
	}
	return results
}

// evictionRank orders signals for ByEvictionPriority: memory.available, then
// allocatableMemory.available, then the rest in Signals() order, unknown signals last
// (upstream sorts thresholds without a resource last).
func evictionRank(s Signal) int {
	if i := signalIndex(s); i >= 0 {
		return i
	}
	return len(Signals())
}

// ByEvictionPriority returns the thresholds sorted by which to act on first. Upstream's
// comparator only puts the two memory signals first and is not a strict order over an
// input that came from a map, so the choice among several met thresholds is random there;
// nodesim orders memory.available, allocatableMemory.available, then the other signals in
// Signals() order, hard before soft for one signal, otherwise keeping input order. The
// input is not modified.
func ByEvictionPriority(thresholds []Threshold) []Threshold {
	out := append([]Threshold{}, thresholds...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := evictionRank(out[i].Signal), evictionRank(out[j].Signal)
		if ri != rj {
			return ri < rj
		}
		return out[i].IsHard() && !out[j].IsHard()
	})
	return out
}

package eviction

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The tables below take their inputs and expected outputs from upstream's helpers_test.go
// (TestParseThresholdConfig, TestThresholdsMet, TestPercentageThresholdsMet,
// TestThresholdsUpdatedStats, TestThresholdsFirstObservedAt, TestThresholdsMetGracePeriod,
// TestNodeConditions*, TestHasNodeConditions, TestSortByEvictionPriority,
// TestAddAllocatableThresholds); cases marked "nodesim" cover behaviour upstream does not
// test directly or where nodesim fixes an order upstream leaves random.

func evQ(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

func evQty(s string) ThresholdValue { return ThresholdValue{Quantity: evQ(s)} }

func evPct(p float32) ThresholdValue { return ThresholdValue{Percentage: p} }

func evMR(v ThresholdValue) *ThresholdValue { return &v }

// evKeys renders thresholds for comparison: Key covers signal, value, grace and
// min-reclaim, and the slice keeps the order.
func evKeys(ts []Threshold) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.Key())
	}
	return out
}

func TestParseThresholdConfig(t *testing.T) {
	grace := 30 * time.Second
	mem := SignalMemoryAvailable
	cases := []struct {
		name                              string
		allocatable                       []string
		hard, soft, softGrace, minReclaim map[string]string
		want                              []Threshold
		wantErr                           string
	}{
		{name: "no values", want: []Threshold{}},
		{
			name:        "all memory eviction values",
			allocatable: []string{"pods"},
			hard:        map[string]string{"memory.available": "150Mi"},
			soft:        map[string]string{"memory.available": "300Mi"},
			softGrace:   map[string]string{"memory.available": "30s"},
			minReclaim:  map[string]string{"memory.available": "0"},
			want: []Threshold{
				{Signal: mem, Value: evQty("150Mi"), MinReclaim: evMR(evQty("0"))},
				{Signal: mem, Value: evQty("300Mi"), GracePeriod: grace, MinReclaim: evMR(evQty("0"))},
				{Signal: SignalAllocatableMemoryAvailable, Value: evQty("150Mi"), MinReclaim: evMR(evQty("0"))},
			},
		},
		{
			name:       "all memory eviction values in percentages",
			hard:       map[string]string{"memory.available": "10%"},
			soft:       map[string]string{"memory.available": "30%"},
			softGrace:  map[string]string{"memory.available": "30s"},
			minReclaim: map[string]string{"memory.available": "5%"},
			want: []Threshold{
				{Signal: mem, Value: evPct(0.1), MinReclaim: evMR(evPct(0.05))},
				{Signal: mem, Value: evPct(0.3), GracePeriod: grace, MinReclaim: evMR(evPct(0.05))},
			},
		},
		{
			name:       "disk eviction values",
			hard:       map[string]string{"imagefs.available": "150Mi", "nodefs.available": "100Mi"},
			soft:       map[string]string{"imagefs.available": "300Mi", "nodefs.available": "200Mi"},
			softGrace:  map[string]string{"imagefs.available": "30s", "nodefs.available": "30s"},
			minReclaim: map[string]string{"imagefs.available": "2Gi", "nodefs.available": "1Gi"},
			want: []Threshold{
				{Signal: SignalNodeFsAvailable, Value: evQty("100Mi"), MinReclaim: evMR(evQty("1Gi"))},
				{Signal: SignalImageFsAvailable, Value: evQty("150Mi"), MinReclaim: evMR(evQty("2Gi"))},
				{Signal: SignalNodeFsAvailable, Value: evQty("200Mi"), GracePeriod: grace, MinReclaim: evMR(evQty("1Gi"))},
				{Signal: SignalImageFsAvailable, Value: evQty("300Mi"), GracePeriod: grace, MinReclaim: evMR(evQty("2Gi"))},
			},
		},
		{
			name:       "disk eviction values in percentages",
			hard:       map[string]string{"imagefs.available": "15%", "nodefs.available": "10.5%"},
			soft:       map[string]string{"imagefs.available": "30%", "nodefs.available": "20.5%"},
			softGrace:  map[string]string{"imagefs.available": "30s", "nodefs.available": "30s"},
			minReclaim: map[string]string{"imagefs.available": "10%", "nodefs.available": "5%"},
			want: []Threshold{
				{Signal: SignalNodeFsAvailable, Value: evPct(0.105), MinReclaim: evMR(evPct(0.05))},
				{Signal: SignalImageFsAvailable, Value: evPct(0.15), MinReclaim: evMR(evPct(0.1))},
				{Signal: SignalNodeFsAvailable, Value: evPct(0.205), GracePeriod: grace, MinReclaim: evMR(evPct(0.05))},
				{Signal: SignalImageFsAvailable, Value: evPct(0.3), GracePeriod: grace, MinReclaim: evMR(evPct(0.1))},
			},
		},
		{
			name:       "inode eviction values",
			hard:       map[string]string{"imagefs.inodesFree": "150Mi", "nodefs.inodesFree": "100Mi"},
			soft:       map[string]string{"imagefs.inodesFree": "300Mi", "nodefs.inodesFree": "200Mi"},
			softGrace:  map[string]string{"imagefs.inodesFree": "30s", "nodefs.inodesFree": "30s"},
			minReclaim: map[string]string{"imagefs.inodesFree": "2Gi", "nodefs.inodesFree": "1Gi"},
			want: []Threshold{
				{Signal: SignalNodeFsInodesFree, Value: evQty("100Mi"), MinReclaim: evMR(evQty("1Gi"))},
				{Signal: SignalImageFsInodesFree, Value: evQty("150Mi"), MinReclaim: evMR(evQty("2Gi"))},
				{Signal: SignalNodeFsInodesFree, Value: evQty("200Mi"), GracePeriod: grace, MinReclaim: evMR(evQty("1Gi"))},
				{Signal: SignalImageFsInodesFree, Value: evQty("300Mi"), GracePeriod: grace, MinReclaim: evMR(evQty("2Gi"))},
			},
		},
		{
			name: "disable via 0%",
			hard: map[string]string{"memory.available": "0%"},
			soft: map[string]string{"memory.available": "0%"},
			want: []Threshold{},
		},
		{
			name: "disable via 100%",
			hard: map[string]string{"memory.available": "100%"},
			soft: map[string]string{"memory.available": "100%"},
			want: []Threshold{},
		},
		{name: "invalid-signal", hard: map[string]string{"mem.available": "150Mi"}, wantErr: "unsupported eviction signal mem.available"},
		{name: "hard-signal-negative", hard: map[string]string{"memory.available": "-150Mi"}, wantErr: "eviction threshold memory.available must be positive: -150Mi"},
		{name: "hard-signal-negative-percentage", hard: map[string]string{"memory.available": "-15%"}, wantErr: "eviction percentage threshold memory.available must be >= 0%: -15%"},
		{name: "hard-signal-percentage-greater-than-100%", hard: map[string]string{"memory.available": "150%"}, wantErr: "eviction percentage threshold memory.available must be <= 100%: 150%"},
		{name: "soft-signal-negative", soft: map[string]string{"memory.available": "-150Mi"}, wantErr: "eviction threshold memory.available must be positive: -150Mi"},
		{name: "valid-and-invalid-signal", hard: map[string]string{"memory.available": "150Mi", "invalid.foo": "150Mi"}, wantErr: "unsupported eviction signal invalid.foo"},
		{name: "soft-no-grace-period", soft: map[string]string{"memory.available": "150Mi"}, wantErr: "grace period must be specified for the soft eviction threshold memory.available"},
		{
			name:      "soft-negative-grace-period",
			soft:      map[string]string{"memory.available": "150Mi"},
			softGrace: map[string]string{"memory.available": "-30s"},
			wantErr:   "invalid eviction grace period specified: -30s, must be a positive value",
		},
		{name: "negative-reclaim", minReclaim: map[string]string{"memory.available": "-300Mi"}, wantErr: "negative eviction minimum reclaim specified for memory.available"},
		// nodesim: further upstream rules from parseThresholdStatement and friends.
		{name: "nodesim: zero quantity is not positive", hard: map[string]string{"memory.available": "0"}, wantErr: "eviction threshold memory.available must be positive: 0"},
		{name: "nodesim: 0% min-reclaim is an error", minReclaim: map[string]string{"nodefs.available": "0%"}, wantErr: "eviction percentage minimum reclaim nodefs.available must be positive: 0%"},
		{name: "nodesim: unknown grace-period key", softGrace: map[string]string{"swap.available": "1m"}, wantErr: "unsupported eviction signal swap.available"},
		{name: "nodesim: unknown min-reclaim key", minReclaim: map[string]string{"memory.free": "1Gi"}, wantErr: "unsupported eviction signal memory.free"},
		{
			name: "nodesim: 0.0% is a real zero threshold, not a disable",
			hard: map[string]string{"nodefs.available": "0.0%"},
			want: []Threshold{{Signal: SignalNodeFsAvailable, Value: evPct(0)}},
		},
		{
			name:      "nodesim: grace period without a soft threshold is ignored",
			hard:      map[string]string{"pid.available": "1000"},
			softGrace: map[string]string{"memory.available": "1m"},
			want:      []Threshold{{Signal: SignalPIDAvailable, Value: evQty("1000")}},
		},
		{
			name:        "nodesim: soft threshold with 0s grace is copied to allocatable like a hard one",
			allocatable: []string{"pods"},
			soft:        map[string]string{"memory.available": "200Mi"},
			softGrace:   map[string]string{"memory.available": "0s"},
			want: []Threshold{
				{Signal: mem, Value: evQty("200Mi")},
				{Signal: SignalAllocatableMemoryAvailable, Value: evQty("200Mi")},
			},
		},
		{
			name:        "nodesim: soft thresholds with a grace period are not copied",
			allocatable: []string{"system-reserved", "pods"},
			hard:        map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"},
			soft:        map[string]string{"memory.available": "500Mi"},
			softGrace:   map[string]string{"memory.available": "1m30s"},
			want: []Threshold{
				{Signal: mem, Value: evQty("100Mi")},
				{Signal: SignalNodeFsAvailable, Value: evPct(0.1)},
				{Signal: mem, Value: evQty("500Mi"), GracePeriod: 90 * time.Second},
				{Signal: SignalAllocatableMemoryAvailable, Value: evQty("100Mi")},
			},
		},
		{
			name:        "nodesim: no copies without the pods enforcement key",
			allocatable: []string{"system-reserved"},
			hard:        map[string]string{"memory.available": "100Mi"},
			want:        []Threshold{{Signal: mem, Value: evQty("100Mi")}},
		},
		{
			name: "nodesim: the Linux defaults, in Signals() order",
			hard: map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%"},
			want: []Threshold{
				{Signal: mem, Value: evQty("100Mi")},
				{Signal: SignalNodeFsAvailable, Value: evPct(0.1)},
				{Signal: SignalNodeFsInodesFree, Value: evPct(0.05)},
				{Signal: SignalImageFsAvailable, Value: evPct(0.15)},
				{Signal: SignalImageFsInodesFree, Value: evPct(0.05)},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseThresholdConfig(tc.allocatable, tc.hard, tc.soft, tc.softGrace, tc.minReclaim)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				if got != nil {
					t.Fatalf("thresholds = %v on error, want nil", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if g, w := evKeys(got), evKeys(tc.want); !reflect.DeepEqual(g, w) {
				t.Fatalf("thresholds\n got %q\nwant %q", g, w)
			}
		})
	}
}

func TestParseThresholdConfigSharesNoQuantities(t *testing.T) {
	got, err := ParseThresholdConfig([]string{"pods"}, map[string]string{"memory.available": "100Mi"}, nil, nil, map[string]string{"memory.available": "50Mi"})
	if err != nil || len(got) != 2 {
		t.Fatalf("got %v, %v", got, err)
	}
	got[0].Value.Quantity.Add(resource.MustParse("1Gi"))
	got[0].MinReclaim.Quantity.Add(resource.MustParse("1Gi"))
	if got[1].Value.Quantity.String() != "100Mi" || got[1].MinReclaim.Quantity.String() != "50Mi" {
		t.Fatalf("allocatable copy shares quantities with its source: %v", got[1])
	}
}

func TestGetThresholdQuantity(t *testing.T) {
	cases := []struct {
		name     string
		value    ThresholdValue
		capacity *resource.Quantity
		want     int64
	}{
		{"literal quantity", evQty("100Mi"), evQ("1Gi"), 100 << 20},
		{"literal quantity ignores capacity", evQty("1Gi"), nil, 1 << 30},
		// float32(0.1) is slightly above 0.1, so 10% of 10Gi is 16 bytes more than a tenth.
		{"10% of 10Gi uses float32", evPct(0.1), evQ("10Gi"), 1073741840},
		{"5% of 1Mi truncates", evPct(0.05), evQ("1Mi"), 52428},
		{"10% of 1000Mi", evPct(0.1), evQ("1000Mi"), 104857601},
		{"15% of 100Gi", evPct(0.15), evQ("100Gi"), 16106128000},
		{"20.5% of 1000Gi", evPct(0.205), evQ("1000Gi"), 220117072000},
		{"0.5% of pid_max", evPct(0.005), evQ("255816"), 1279},
		{"nil capacity counts as zero", evPct(0.5), nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.value
			if tc.value.Percentage != 0 {
				// Parse the way ParseThresholdConfig does, to pin the float32 path.
				p, err := parsePercentage(strconvPercent(tc.value.Percentage))
				if err != nil {
					t.Fatal(err)
				}
				v.Percentage = p
			}
			if got := GetThresholdQuantity(v, tc.capacity).Value(); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
	// The literal is copied: changing the result leaves the threshold alone.
	v := evQty("100Mi")
	GetThresholdQuantity(v, nil).Add(resource.MustParse("1Mi"))
	if v.Quantity.String() != "100Mi" {
		t.Fatalf("threshold quantity modified: %v", v.Quantity)
	}
}

// strconvPercent turns a fraction back into the flag text ("10%") for the table above.
func strconvPercent(p float32) string { return evPct(p).String() }

func TestParsePercentage(t *testing.T) {
	cases := []struct {
		in      string
		want    float32
		wantErr bool
	}{
		{"blah", 0, true},
		{"25.5%", 0.255, false},
		{"foo%", 0, true},
		{"12%345", 0, true},
		{"10%%", 0.1, false}, // nodesim: every trailing '%' is stripped, as upstream
	}
	for _, tc := range cases {
		got, err := parsePercentage(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parsePercentage(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestThresholdsMet(t *testing.T) {
	hard := Threshold{Signal: SignalMemoryAvailable, Value: evQty("1Gi"), MinReclaim: evMR(evQty("500Mi"))}
	noReclaim := Threshold{Signal: SignalMemoryAvailable, Value: evQty("1Gi")}
	pctMem := Threshold{Signal: SignalMemoryAvailable, Value: evPct(0.2), MinReclaim: evMR(evPct(0.05))}
	pctDisk := Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0.3)}
	zero := Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0)}
	obs := func(pairs ...any) SignalObservations {
		out := SignalObservations{}
		for i := 0; i < len(pairs); i += 3 {
			o := SignalObservation{Available: evQ(pairs[i+1].(string))}
			if c := pairs[i+2].(string); c != "" {
				o.Capacity = evQ(c)
			}
			out[pairs[i].(Signal)] = o
		}
		return out
	}
	cases := []struct {
		name       string
		enforce    bool
		thresholds []Threshold
		obs        SignalObservations
		want       []Threshold
	}{
		{"empty", false, []Threshold{}, SignalObservations{}, []Threshold{}},
		{"threshold-met-memory", false, []Threshold{hard}, obs(SignalMemoryAvailable, "500Mi", ""), []Threshold{hard}},
		{"threshold-not-met", false, []Threshold{hard}, obs(SignalMemoryAvailable, "2Gi", ""), []Threshold{}},
		{"threshold-met-with-min-reclaim", true, []Threshold{hard}, obs(SignalMemoryAvailable, "1.05Gi", ""), []Threshold{hard}},
		{"threshold-not-met-with-min-reclaim", true, []Threshold{hard}, obs(SignalMemoryAvailable, "2Gi", ""), []Threshold{}},
		// upstream TestPercentageThresholdsMet
		{"BothMet", false, []Threshold{pctMem, pctDisk}, obs(SignalMemoryAvailable, "100Mi", "1000Mi", SignalNodeFsAvailable, "100Gi", "1000Gi"), []Threshold{pctMem, pctDisk}},
		{"NoneMet", false, []Threshold{pctMem, pctDisk}, obs(SignalMemoryAvailable, "300Mi", "1000Mi", SignalNodeFsAvailable, "400Gi", "1000Gi"), []Threshold{}},
		{"DiskMet", false, []Threshold{pctMem, pctDisk}, obs(SignalMemoryAvailable, "300Mi", "1000Mi", SignalNodeFsAvailable, "100Gi", "1000Gi"), []Threshold{pctDisk}},
		{"MemoryMet", false, []Threshold{pctMem, pctDisk}, obs(SignalMemoryAvailable, "100Mi", "1000Mi", SignalNodeFsAvailable, "400Gi", "1000Gi"), []Threshold{pctMem}},
		{"MemoryMetWithMinReclaim", true, []Threshold{pctMem, pctDisk}, obs(SignalMemoryAvailable, "225Mi", "1000Mi"), []Threshold{pctMem}},
		{"MemoryNotMetWithMinReclaim", true, []Threshold{pctMem, pctDisk}, obs(SignalMemoryAvailable, "300Mi", "1000Mi"), []Threshold{}},
		// nodesim
		{"nodesim: available equal to the threshold is not met", false, []Threshold{hard}, obs(SignalMemoryAvailable, "1Gi", ""), []Threshold{}},
		{"nodesim: one byte below is met", false, []Threshold{hard}, obs(SignalMemoryAvailable, "1073741823", ""), []Threshold{hard}},
		{"nodesim: min-reclaim ignored unless enforced", false, []Threshold{hard}, obs(SignalMemoryAvailable, "1.05Gi", ""), []Threshold{}},
		{"nodesim: enforce without a min-reclaim", true, []Threshold{noReclaim}, obs(SignalMemoryAvailable, "1.05Gi", ""), []Threshold{}},
		{"nodesim: no observation is not met", false, []Threshold{pctDisk}, obs(SignalMemoryAvailable, "0", "1Gi"), []Threshold{}},
		{"nodesim: a 0% threshold is met only below zero", false, []Threshold{zero}, obs(SignalNodeFsAvailable, "0", "1Gi"), []Threshold{}},
		{"nodesim: negative available meets a 0% threshold", false, []Threshold{zero}, obs(SignalNodeFsAvailable, "-1Mi", "1Gi"), []Threshold{zero}},
		{"nodesim: input order kept", false, []Threshold{pctDisk, pctMem}, obs(SignalMemoryAvailable, "100Mi", "1000Mi", SignalNodeFsAvailable, "100Gi", "1000Gi"), []Threshold{pctDisk, pctMem}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ThresholdsMet(tc.thresholds, tc.obs, tc.enforce)
			if g, w := evKeys(got), evKeys(tc.want); !reflect.DeepEqual(g, w) {
				t.Fatalf("got %q, want %q", g, w)
			}
		})
	}
}

func TestThresholdsUpdatedStats(t *testing.T) {
	updated := Threshold{Signal: SignalMemoryAvailable}
	t0 := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := time.Date(2016, 1, 1, 0, 1, 0, 0, time.UTC)
	at := func(tm time.Time) SignalObservations {
		return SignalObservations{SignalMemoryAvailable: {Time: tm}}
	}
	cases := []struct {
		name       string
		thresholds []Threshold
		obs, last  SignalObservations
		want       []Threshold
	}{
		{"empty", []Threshold{}, SignalObservations{}, SignalObservations{}, []Threshold{}},
		{"no-time", []Threshold{updated}, SignalObservations{SignalMemoryAvailable: {}}, SignalObservations{}, []Threshold{updated}},
		{"no-last-observation", []Threshold{updated}, at(t0), SignalObservations{}, []Threshold{updated}},
		{"time-machine", []Threshold{updated}, at(t0), at(t1), []Threshold{}},
		{"same-observation", []Threshold{updated}, at(t0), at(t0), []Threshold{}},
		{"new-observation", []Threshold{updated}, at(t1), at(t0), []Threshold{updated}},
		{"nodesim: zero time beats an older last observation", []Threshold{updated}, at(time.Time{}), at(t1), []Threshold{updated}},
		{"nodesim: no current observation drops the threshold", []Threshold{updated}, SignalObservations{}, at(t0), []Threshold{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ThresholdsUpdatedStats(tc.thresholds, tc.obs, tc.last)
			if g, w := evKeys(got), evKeys(tc.want); !reflect.DeepEqual(g, w) {
				t.Fatalf("got %q, want %q", g, w)
			}
		})
	}
}

func TestThresholdsFirstObservedAt(t *testing.T) {
	hard := Threshold{Signal: SignalMemoryAvailable, Value: evQty("1Gi")}
	other := Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0.1)}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	old := now.Add(-time.Minute)
	cases := []struct {
		name       string
		thresholds []Threshold
		last       ThresholdsObservedAt
		want       ThresholdsObservedAt
	}{
		{"empty", []Threshold{}, ThresholdsObservedAt{}, ThresholdsObservedAt{}},
		{"no-previous-observation", []Threshold{hard}, ThresholdsObservedAt{}, ThresholdsObservedAt{hard.Key(): now}},
		{"previous-observation", []Threshold{hard}, ThresholdsObservedAt{hard.Key(): old}, ThresholdsObservedAt{hard.Key(): old}},
		{"nodesim: thresholds no longer met are forgotten", []Threshold{other}, ThresholdsObservedAt{hard.Key(): old}, ThresholdsObservedAt{other.Key(): now}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ThresholdsFirstObservedAt(tc.thresholds, tc.last, now); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestThresholdsMetGracePeriod(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	hard := Threshold{Signal: SignalMemoryAvailable, Value: evQty("1Gi")}
	soft := Threshold{Signal: SignalMemoryAvailable, Value: evQty("2Gi"), GracePeriod: time.Minute}
	old := now.Add(-2 * time.Minute)
	cases := []struct {
		name       string
		observedAt ThresholdsObservedAt
		thresholds []Threshold
		want       []Threshold
	}{
		{"empty", ThresholdsObservedAt{}, nil, []Threshold{}},
		{"hard-threshold-met", ThresholdsObservedAt{hard.Key(): now}, []Threshold{hard}, []Threshold{hard}},
		{"soft-threshold-not-met", ThresholdsObservedAt{soft.Key(): now}, []Threshold{soft}, []Threshold{}},
		{"soft-threshold-met", ThresholdsObservedAt{soft.Key(): old}, []Threshold{soft}, []Threshold{soft}},
		{"nodesim: exactly the grace period is enough", ThresholdsObservedAt{soft.Key(): now.Add(-time.Minute)}, []Threshold{soft}, []Threshold{soft}},
		{"nodesim: one nanosecond short", ThresholdsObservedAt{soft.Key(): now.Add(-time.Minute + 1)}, []Threshold{soft}, []Threshold{}},
		{"nodesim: not recorded means not met", ThresholdsObservedAt{hard.Key(): now}, []Threshold{soft, hard}, []Threshold{hard}},
		{"nodesim: input order, duplicates once", ThresholdsObservedAt{hard.Key(): old, soft.Key(): old}, []Threshold{soft, hard, soft}, []Threshold{soft, hard}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ThresholdsMetGracePeriod(tc.observedAt, tc.thresholds, now)
			if g, w := evKeys(got), evKeys(tc.want); !reflect.DeepEqual(g, w) {
				t.Fatalf("got %q, want %q", g, w)
			}
		})
	}
}

func TestNodeConditions(t *testing.T) {
	cases := []struct {
		name   string
		inputs []Threshold
		want   []corev1.NodeConditionType
	}{
		{"empty-list", []Threshold{}, []corev1.NodeConditionType{}},
		{"memory.available", []Threshold{{Signal: SignalMemoryAvailable}}, []corev1.NodeConditionType{corev1.NodeMemoryPressure}},
		{"nodesim: fixed order, no duplicates", []Threshold{
			{Signal: SignalPIDAvailable}, {Signal: SignalImageFsInodesFree}, {Signal: SignalAllocatableMemoryAvailable},
			{Signal: SignalNodeFsAvailable}, {Signal: SignalMemoryAvailable},
		}, []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure}},
		{"nodesim: containerfs raises DiskPressure", []Threshold{{Signal: SignalContainerFsAvailable}}, []corev1.NodeConditionType{corev1.NodeDiskPressure}},
		{"nodesim: unknown signals raise nothing", []Threshold{{Signal: "swap.available"}}, []corev1.NodeConditionType{}},
	}
	for _, tc := range cases {
		if got := NodeConditions(tc.inputs); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNodeConditionsLastObservedAt(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	old := now.Add(-time.Minute)
	cases := []struct {
		name  string
		conds []corev1.NodeConditionType
		last  NodeConditionsObservedAt
		want  NodeConditionsObservedAt
	}{
		{"no-previous-observation", []corev1.NodeConditionType{corev1.NodeMemoryPressure}, NodeConditionsObservedAt{}, NodeConditionsObservedAt{corev1.NodeMemoryPressure: now}},
		{"previous-observation", []corev1.NodeConditionType{corev1.NodeMemoryPressure}, NodeConditionsObservedAt{corev1.NodeMemoryPressure: old}, NodeConditionsObservedAt{corev1.NodeMemoryPressure: now}},
		{"old-observation", []corev1.NodeConditionType{}, NodeConditionsObservedAt{corev1.NodeMemoryPressure: old}, NodeConditionsObservedAt{corev1.NodeMemoryPressure: old}},
	}
	for _, tc := range cases {
		if got := NodeConditionsLastObservedAt(tc.conds, tc.last, now); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNodeConditionsObservedSince(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	observed := now.Add(-time.Minute)
	cases := []struct {
		name       string
		observedAt NodeConditionsObservedAt
		period     time.Duration
		want       []corev1.NodeConditionType
	}{
		{"in-period", NodeConditionsObservedAt{corev1.NodeMemoryPressure: observed}, 2 * time.Minute, []corev1.NodeConditionType{corev1.NodeMemoryPressure}},
		{"out-of-period", NodeConditionsObservedAt{corev1.NodeMemoryPressure: observed}, 30 * time.Second, []corev1.NodeConditionType{}},
		{"nodesim: exactly the period has passed", NodeConditionsObservedAt{corev1.NodeMemoryPressure: observed}, time.Minute, []corev1.NodeConditionType{}},
		{"nodesim: fixed order", NodeConditionsObservedAt{
			corev1.NodePIDPressure: now, corev1.NodeDiskPressure: now, corev1.NodeMemoryPressure: observed,
		}, 5 * time.Minute, []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure}},
	}
	for _, tc := range cases {
		if got := NodeConditionsObservedSince(tc.observedAt, tc.period, now); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestHasNodeCondition(t *testing.T) {
	cases := []struct {
		name   string
		inputs []corev1.NodeConditionType
		item   corev1.NodeConditionType
		want   bool
	}{
		{"has-condition", []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeDiskPressure, corev1.NodeMemoryPressure}, corev1.NodeMemoryPressure, true},
		{"does-not-have-condition", []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeDiskPressure}, corev1.NodeMemoryPressure, false},
	}
	for _, tc := range cases {
		if got := HasNodeCondition(tc.inputs, tc.item); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMergeThresholds(t *testing.T) {
	a := Threshold{Signal: SignalMemoryAvailable, Value: evQty("1Gi"), MinReclaim: evMR(evQty("500Mi"))}
	aSameValue := Threshold{Signal: SignalMemoryAvailable, Value: evQty("1024Mi")}
	aSoft := Threshold{Signal: SignalMemoryAvailable, Value: evQty("1Gi"), GracePeriod: time.Minute}
	pct := Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0.1)}
	pctOther := Threshold{Signal: SignalNodeFsAvailable, Value: evPct(0.2)}
	cases := []struct {
		name string
		a, b []Threshold
		want []Threshold
	}{
		{"both empty", nil, nil, []Threshold{}},
		{"min-reclaim is not compared; quantities compare by value", []Threshold{a}, []Threshold{aSameValue}, []Threshold{a}},
		{"grace period is compared", []Threshold{a}, []Threshold{aSoft}, []Threshold{a, aSoft}},
		{"percentages compared exactly", []Threshold{pct}, []Threshold{pctOther, pct}, []Threshold{pct, pctOther}},
		{"duplicates within b collapse", nil, []Threshold{pct, pct}, []Threshold{pct}},
	}
	for _, tc := range cases {
		got := MergeThresholds(tc.a, tc.b)
		if g, w := evKeys(got), evKeys(tc.want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %q, want %q", tc.name, g, w)
		}
	}
}

func TestByEvictionPriority(t *testing.T) {
	sig := func(ss ...Signal) []Threshold {
		out := []Threshold{}
		for _, s := range ss {
			out = append(out, Threshold{Signal: s})
		}
		return out
	}
	soft := func(s Signal) Threshold { return Threshold{Signal: s, GracePeriod: time.Minute} }
	cases := []struct {
		name string
		in   []Threshold
		want []Threshold
	}{
		{"empty threshold list", []Threshold{}, []Threshold{}},
		{"memory first", sig(SignalNodeFsAvailable, SignalPIDAvailable, SignalMemoryAvailable), sig(SignalMemoryAvailable, SignalNodeFsAvailable, SignalPIDAvailable)},
		{"allocatable memory first", sig(SignalNodeFsAvailable, SignalPIDAvailable, SignalAllocatableMemoryAvailable), sig(SignalAllocatableMemoryAvailable, SignalNodeFsAvailable, SignalPIDAvailable)},
		{"nodesim: memory before allocatable, disks in Signals() order", sig(SignalPIDAvailable, SignalImageFsAvailable, SignalAllocatableMemoryAvailable, SignalNodeFsInodesFree, SignalMemoryAvailable, SignalNodeFsAvailable),
			sig(SignalMemoryAvailable, SignalAllocatableMemoryAvailable, SignalNodeFsAvailable, SignalNodeFsInodesFree, SignalImageFsAvailable, SignalPIDAvailable)},
		{"nodesim: hard before soft for one signal", []Threshold{soft(SignalMemoryAvailable), {Signal: SignalNodeFsAvailable}, {Signal: SignalMemoryAvailable}},
			[]Threshold{{Signal: SignalMemoryAvailable}, soft(SignalMemoryAvailable), {Signal: SignalNodeFsAvailable}}},
		{"nodesim: unknown signals last", sig("swap.available", SignalPIDAvailable), sig(SignalPIDAvailable, "swap.available")},
	}
	for _, tc := range cases {
		in := append([]Threshold{}, tc.in...)
		got := ByEvictionPriority(tc.in)
		if g, w := evKeys(got), evKeys(tc.want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %q, want %q", tc.name, g, w)
		}
		if !reflect.DeepEqual(evKeys(in), evKeys(tc.in)) {
			t.Errorf("%s: input modified", tc.name)
		}
	}
}

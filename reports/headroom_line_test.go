package reports

import "testing"

func TestHeadroomLineRendering(t *testing.T) {
	const mi = 1 << 20
	for _, c := range []struct {
		h    SignalHeadroom
		want string
	}{
		// The example: 412Mi lowest, 200Mi threshold, 212Mi above, at 8700s = 2h25m.
		{SignalHeadroom{Signal: "memory.available", Lowest: 412 * mi, At: 8700, Threshold: 200 * mi, Above: 212 * mi},
			"lowest memory.available 412Mi at 2h25m, 212Mi above the hard threshold (200Mi)"},
		{SignalHeadroom{Signal: "memory.available", Lowest: 100 * mi, At: 61.5, Threshold: 100 * mi},
			"lowest memory.available 100Mi at 1m1.5s, at the hard threshold (100Mi)"},
		// 10% of 100Gi is 10Gi; 8Gi lowest is 2Gi below it; all three are whole in Gi.
		{SignalHeadroom{Signal: "nodefs.available", Lowest: 8 << 30, At: 3600, Threshold: 10 << 30, Above: -2 << 30},
			"lowest nodefs.available 8Gi at 1h, 2Gi below the hard threshold (10Gi)"},
		// Counts stay plain numbers.
		{SignalHeadroom{Signal: "pid.available", Lowest: 1500, At: 90, Threshold: 1000, Above: 500},
			"lowest pid.available 1500 at 1m30s, 500 above the hard threshold (1000)"},
		{SignalHeadroom{Signal: "nodefs.inodesFree", Lowest: 52429, At: 0, Threshold: 52428, Above: 1},
			"lowest nodefs.inodesFree 52429 at 0s, 1 above the hard threshold (52428)"},
	} {
		if got := HeadroomLine(c.h); got != c.want {
			t.Errorf("HeadroomLine(%+v)\n got %q\nwant %q", c.h, got, c.want)
		}
	}
}

package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"nodesim/trace"
)

func stats(at time.Duration, name, pod string, attrs ...string) trace.Event {
	e := ev(at, kindStats, pod, attrs...)
	e.Name = name
	return e
}

// One row per second, values carried forward from the last sample as of that second, the
// boot's values starting row 0, and a terminated pod's cells empty from then on.
func TestTimelineFromTrace(t *testing.T) {
	tr := []trace.Event{
		ev(-800*ms, kindNodeCondition, "", "type", "Ready", "status", "True"),
		stats(-200*ms, "node", "", "memoryWorkingSet", "1000", "memoryAvailable", "7000", "nodefsUsed", "50", "pidsUsed", "9"),
		stats(1500*ms, "node", "", "memoryWorkingSet", "1500", "memoryAvailable", "6500", "nodefsUsed", "50", "pidsUsed", "10"),
		stats(1500*ms, "pod", "default/a", "memory", "500", "disk", "0", "pids", "1"),
		ev(2*time.Second, kindNodeCondition, "", "type", "MemoryPressure", "status", "True"),
		stats(3*time.Second, "pod", "default/b", "memory", "300", "disk", "4096", "pids", "2"),
		stats(3*time.Second, "pod", "default/zzz", "memory", "1"), // not a scenario pod: no column
		named(ev(4*time.Second, kindWorkerState, "default/a"), "terminated", ""),
		ev(4500*ms, kindNodeCondition, "", "type", "Ready", "status", "False"),
	}
	var b bytes.Buffer
	w := NewTimelineWriter(&b, []string{"default/a", "default/b"})
	for i := range tr {
		w.Record(&tr[i])
	}
	if err := w.Finish(5500 * ms); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"time,node_memory_working_set_bytes,node_memory_available_bytes,nodefs_used_bytes,pids_used,ready,memory_pressure,disk_pressure,pid_pressure," +
			"default/a memory_bytes,default/a disk_bytes,default/a pids,default/b memory_bytes,default/b disk_bytes,default/b pids",
		"0,1000,7000,50,9,1,0,0,0,,,,,,",
		"1,1000,7000,50,9,1,0,0,0,,,,,,",
		"2,1500,6500,50,10,1,1,0,0,500,0,1,,,",
		"3,1500,6500,50,10,1,1,0,0,500,0,1,300,4096,2",
		"4,1500,6500,50,10,1,1,0,0,,,,300,4096,2",
		"5,1500,6500,50,10,0,1,0,0,,,,300,4096,2",
	}, "\n") + "\n"
	if b.String() != want {
		t.Errorf("timeline.csv\n got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A run without any stats still has its rows (conditions only), and an event at an exact
// second counts for that second's row.
func TestTimelineWithoutStats(t *testing.T) {
	tr := []trace.Event{ev(2*time.Second, kindNodeCondition, "", "type", "Ready", "status", "True")}
	var b bytes.Buffer
	w := NewTimelineWriter(&b, nil)
	for i := range tr {
		w.Record(&tr[i])
	}
	if err := w.Finish(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 || lines[2] != "1,,,,,0,0,0,0" || lines[3] != "2,,,,,1,0,0,0" {
		t.Errorf("timeline.csv:\n%s", b.String())
	}
}

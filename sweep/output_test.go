package sweep

import (
	"encoding/csv"
	"encoding/xml"
	"strings"
	"testing"

	"nodesim/reports"
)

// A result written by hand: two settings, two seeds, one run failing two expectations.
func handResult() *Result {
	at := func(x float64) *float64 { return &x }
	outs := []Outcome{
		{Row: 0, Values: []string{"a|b"}, Seed: 1, Expectations: 2, FirstPressure: at(60), PressureCondition: "DiskPressure",
			Headroom: []reports.SignalHeadroom{{Signal: "nodefs.available", Lowest: 5 << 30, At: 60, Threshold: 4 << 30, Above: 1 << 30}}},
		{Row: 0, Values: []string{"a|b"}, Seed: 2, Expectations: 2, FirstPressure: at(90), PressureCondition: "DiskPressure",
			Headroom: []reports.SignalHeadroom{{Signal: "nodefs.available", Lowest: 3 << 30, At: 75, Threshold: 4 << 30, Above: -(1 << 30)}}},
		{Row: 1, Values: []string{"<x>"}, Seed: 1, Expectations: 2, Evicted: []string{"default/p"}, FirstEviction: at(120),
			Failed: []Failure{{Expect: `count evictions <= 0 & "more"`, Detail: "observed 1\x1b[2J"}, {Expect: "phase default/p is Running", Detail: "observed Failed"}}},
		{Row: 1, Values: []string{"<x>"}, Seed: 2, Expectations: 2},
	}
	res := &Result{Scenario: "s", Paths: []string{"spec.x"}, Seeds: []uint64{1, 2}, Outcomes: outs}
	summarize(res, outs)
	return res
}

func TestSummarizeByHand(t *testing.T) {
	res := handResult()
	r0, r1 := res.Rows[0], res.Rows[1]
	// Row 0: pressure at 60s and 90s, mean 75s; the lowest nodefs headroom is seed 2's, 1Gi below.
	if r0.FirstPressure != (Timing{Runs: 2, Spread: Spread{60, 75, 90}}) || r0.PressureConditions["DiskPressure"] != 2 {
		t.Errorf("row 0 pressure %+v %v", r0.FirstPressure, r0.PressureConditions)
	}
	if len(r0.Headroom) != 1 || r0.Headroom[0].Seed != 2 || r0.Headroom[0].Above != -(1<<30) {
		t.Errorf("row 0 headroom %+v", r0.Headroom)
	}
	// Row 1: one eviction in one of two runs: mean 0.5; one run failing two expectations.
	if r1.FirstEviction != (Timing{Runs: 1, Spread: Spread{120, 120, 120}}) || r1.Evictions != (Spread{0, 0.5, 1}) || r1.AllPassed != 1 {
		t.Errorf("row 1 %+v", r1)
	}
	if res.Runs != 4 || res.Passed != 3 || len(res.FailedRuns()) != 1 || res.FailedRuns()[0] != "<x>, seed 1" {
		t.Errorf("runs %d passed %d failed %v", res.Runs, res.Passed, res.FailedRuns())
	}
}

func TestOutputsByHand(t *testing.T) {
	res := handResult()
	var b strings.Builder
	if err := Write(&b, res, "table"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DiskPressure 1m15s (1m0s..1m30s)", "3Gi at 1m15s (threshold -1Gi, seed 2)", "2m0s in 1/2 runs", "3 of 4 runs passed every expectation"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}

	b.Reset()
	if err := Write(&b, res, "markdown"); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if !strings.Contains(md, `| a\|b |`) || !strings.Contains(md, "| &lt;x&gt; |") || strings.Contains(md, "\x1b") {
		t.Errorf("markdown cells not escaped:\n%s", md)
	}

	b.Reset()
	if err := Write(&b, res, "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("csv: %v, %d records\n%s", err, len(recs), b.String())
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for name, want := range map[string]string{"spec.x": "a|b", "first_pressure_s_mean": "75", "nodefs_available_above_threshold_bytes": "-1073741824",
		"nodefs_available_seed": "2", "memory_available_lowest_bytes": "", "first_pressure_conditions": "DiskPressure=2"} {
		if got := recs[1][col[name]]; got != want {
			t.Errorf("csv %s = %q, want %q", name, got, want)
		}
	}
	if got := recs[2][col["failed_expectations"]]; got != `count evictions <= 0 & "more"=1;phase default/p is Running=1` {
		t.Errorf("csv failed_expectations = %q", got)
	}
	if err := Write(&b, res, "html"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

func TestJUnitByHand(t *testing.T) {
	data, err := JUnit(handResult(), func(v []string, seed uint64) string { return "reproduce: " + v[0] })
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Cases []struct {
				Name     string `xml:"name,attr"`
				Failures []struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	// Four runs, one failed, with two failures.
	if doc.Tests != 4 || doc.Failures != 1 || len(doc.Suite.Cases) != 4 {
		t.Fatalf("%+v", doc)
	}
	c := doc.Suite.Cases[2]
	if c.Name != "spec.x=<x> seed=1" || len(c.Failures) != 2 ||
		c.Failures[0].Text != "expectation failed: count evictions <= 0 & \"more\": observed 1\uFFFD[2J\nreproduce: <x>" {
		t.Errorf("failed case %+v", c)
	}
}

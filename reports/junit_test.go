package reports

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestJUnit(t *testing.T) {
	r := &Report{Scenario: "s", Seed: 3, Duration: 60, Reproduce: "reproduce: nodesim run s.yaml --seed 3",
		Expectations: []ExpectationResult{
			{Expect: "restarts default/a in [1, 2]", Pass: true, Detail: "observed 1"},
			{Expect: `phase default/b is Succeeded <"quoted"> & more`, Detail: "observed Running"},
			{Expect: "count evictions <= 0", Pass: true, Detail: "observed 0"},
		}}
	data, err := JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(data, &suite); err != nil {
		t.Fatalf("invalid XML: %v\n%s", err, data)
	}
	if suite.Name != "nodesim.s" || suite.Tests != 3 || suite.Failures != 1 || len(suite.Cases) != 3 {
		t.Fatalf("suite %+v", suite)
	}
	for i, c := range suite.Cases {
		if failed := c.Failure != nil; failed != (i == 1) {
			t.Errorf("case %d %q: failed=%v", i, c.Name, failed)
		}
	}
	f := suite.Cases[1]
	if f.Name != `expect[1]: phase default/b is Succeeded <"quoted"> & more` || f.Failure.Message != "observed Running" ||
		!strings.Contains(f.Failure.Text, "reproduce: nodesim run s.yaml --seed 3") {
		t.Errorf("failed case %+v", f)
	}
}

package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
)

// junit.xml is for CI systems (GitLab, Jenkins, GitHub test reporters): the run is one test
// suite and each expectation one test case, so a failed expectation shows up as a failed
// test with its detail, beside the others that passed.

type junitSuite struct {
	XMLName    xml.Name        `xml:"testsuite"`
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit renders the report's expectation verdicts as a JUnit XML test suite. Test cases are
// named expect[i] after their place in the scenario's expect list, so that each maps back to
// its YAML entry.
func JUnit(r *Report) ([]byte, error) {
	s := junitSuite{Name: "nodesim." + r.Scenario, Tests: len(r.Expectations), Cases: []junitCase{},
		Properties: []junitProperty{
			{Name: "scenario", Value: r.Scenario},
			{Name: "seed", Value: strconv.FormatUint(r.Seed, 10)},
			{Name: "duration", Value: strconv.FormatFloat(r.Duration, 'f', -1, 64)},
			{Name: "reproduce", Value: r.Reproduce},
		}}
	for i, e := range r.Expectations {
		c := junitCase{Name: fmt.Sprintf("expect[%d]: %s", i, e.Expect), Classname: "nodesim." + r.Scenario}
		if e.Pass {
			c.SystemOut = e.Detail
		} else {
			s.Failures++
			c.Failure = &junitFailure{Message: e.Detail, Type: "ExpectationFailed",
				Text: fmt.Sprintf("expectation failed: %s: %s\n%s", e.Expect, e.Detail, r.Reproduce)}
		}
		s.Cases = append(s.Cases, c)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encoding junit.xml: %w", err)
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}

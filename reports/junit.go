package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
)

// junit.xml is for CI systems (GitLab, Jenkins, GitHub test reporters): the run is one test
// suite and each expectation one test case, so a failed expectation shows up as a failed
// test with its detail, beside the others that passed. The element types below are the
// JUnit schema's, shared with a sweep's JUnit (one case per run).

// JUnitSuites is a <testsuites> document.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is a <testsuite>.
type JUnitSuite struct {
	XMLName    xml.Name        `xml:"testsuite"`
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []JUnitProperty `xml:"properties>property,omitempty"`
	Cases      []JUnitCase     `xml:"testcase"`
}

// JUnitProperty is one <property> of a suite.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is a <testcase>, failed when it holds a <failure>.
type JUnitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []JUnitFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

// JUnitFailure is a <failure>: a failed expectation.
type JUnitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// EncodeJUnit writes a JUnit document (a JUnitSuite or JUnitSuites) as the files nodesim
// writes are: the XML header, two-space indentation, a final newline.
func EncodeJUnit(doc any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}

// JUnit renders the report's expectation verdicts as a JUnit XML test suite. Test cases are
// named expect[i] after their place in the scenario's expect list, so that each maps back to
// its YAML entry.
func JUnit(r *Report) ([]byte, error) {
	s := JUnitSuite{Name: "nodesim." + r.Scenario, Tests: len(r.Expectations), Cases: []JUnitCase{},
		Properties: []JUnitProperty{
			{Name: "scenario", Value: r.Scenario},
			{Name: "seed", Value: strconv.FormatUint(r.Seed, 10)},
			{Name: "duration", Value: strconv.FormatFloat(r.Duration, 'f', -1, 64)},
			{Name: "reproduce", Value: r.Reproduce},
		}}
	for i, e := range r.Expectations {
		c := JUnitCase{Name: fmt.Sprintf("expect[%d]: %s", i, e.Expect), Classname: "nodesim." + r.Scenario}
		if e.Pass {
			c.SystemOut = e.Detail
		} else {
			s.Failures++
			c.Failures = []JUnitFailure{{Message: e.Detail, Type: "ExpectationFailed",
				Text: fmt.Sprintf("expectation failed: %s: %s\n%s", e.Expect, e.Detail, r.Reproduce)}}
		}
		s.Cases = append(s.Cases, c)
	}
	out, err := EncodeJUnit(s)
	if err != nil {
		return nil, fmt.Errorf("encoding junit.xml: %w", err)
	}
	return out, nil
}

package sweep

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// A sweep's JUnit XML follows reports.JUnit's conventions (a suite named nodesim.<scenario>,
// properties naming the scenario, failures of type ExpectationFailed whose message is the
// expectation's detail and whose text ends with the command that reproduces the run), with
// one test case per run: a setting × a seed. Each failed expectation of the run is one
// <failure> of its case, so a CI system lists the run as failed with every reason.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
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
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit renders a sweep's runs as JUnit XML. reproduce gives, for a run's values and seed,
// the command line that runs it alone.
func JUnit(res *Result, reproduce func(values []string, seed uint64) string) ([]byte, error) {
	class := "nodesim." + res.Scenario
	s := junitSuite{Name: class + ".sweep", Tests: len(res.Outcomes), Cases: []junitCase{},
		Properties: []junitProperty{{Name: "scenario", Value: res.Scenario}}}
	for i, p := range res.Paths {
		s.Properties = append(s.Properties, junitProperty{Name: fmt.Sprintf("set[%d]", i), Value: p})
	}
	var seeds []string
	for _, sd := range res.Seeds {
		seeds = append(seeds, strconv.FormatUint(sd, 10))
	}
	s.Properties = append(s.Properties, junitProperty{Name: "seeds", Value: strings.Join(seeds, ",")})
	for _, o := range res.Outcomes {
		var setting []string
		for i, v := range o.Values {
			setting = append(setting, res.Paths[i]+"="+v)
		}
		c := junitCase{Name: fmt.Sprintf("%s seed=%d", strings.Join(setting, " "), o.Seed), Classname: class}
		repro := reproduce(o.Values, o.Seed)
		if o.Passed() {
			c.SystemOut = fmt.Sprintf("%d of %d expectations held\n%s", o.Expectations, o.Expectations, repro)
		} else {
			s.Failures++
			for _, f := range o.Failed {
				c.Failures = append(c.Failures, junitFailure{Message: f.Detail, Type: "ExpectationFailed",
					Text: fmt.Sprintf("expectation failed: %s: %s\n%s", f.Expect, f.Detail, repro)})
			}
		}
		s.Cases = append(s.Cases, c)
	}
	all := junitSuites{Name: class, Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return nil, fmt.Errorf("encoding the sweep's JUnit XML: %w", err)
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}

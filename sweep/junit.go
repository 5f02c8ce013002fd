package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"nodesim/reports"
)

// A sweep's JUnit XML follows reports.JUnit's conventions (a suite named nodesim.<scenario>,
// properties naming the scenario, failures of type ExpectationFailed whose message is the
// expectation's detail and whose text ends with the command that reproduces the run), with
// one test case per run: a setting × a seed. Each failed expectation of the run is one
// <failure> of its case, so a CI system lists the run as failed with every reason.

// JUnit renders a sweep's runs as JUnit XML. reproduce gives, for a run's values and seed,
// the command line that runs it alone.
func JUnit(res *Result, reproduce func(values []string, seed uint64) string) ([]byte, error) {
	class := "nodesim." + res.Scenario
	s := reports.JUnitSuite{Name: class + ".sweep", Tests: len(res.Outcomes), Cases: []reports.JUnitCase{},
		Properties: []reports.JUnitProperty{{Name: "scenario", Value: res.Scenario}}}
	for i, p := range res.Paths {
		s.Properties = append(s.Properties, reports.JUnitProperty{Name: fmt.Sprintf("set[%d]", i), Value: p})
	}
	var seeds []string
	for _, sd := range res.Seeds {
		seeds = append(seeds, strconv.FormatUint(sd, 10))
	}
	s.Properties = append(s.Properties, reports.JUnitProperty{Name: "seeds", Value: strings.Join(seeds, ",")})
	for _, o := range res.Outcomes {
		var setting []string
		for i, v := range o.Values {
			setting = append(setting, res.Paths[i]+"="+v)
		}
		c := reports.JUnitCase{Name: fmt.Sprintf("%s seed=%d", strings.Join(setting, " "), o.Seed), Classname: class}
		repro := reproduce(o.Values, o.Seed)
		if o.Passed() {
			c.SystemOut = fmt.Sprintf("%d of %d expectations held\n%s", o.Expectations, o.Expectations, repro)
		} else {
			s.Failures++
			for _, f := range o.Failed {
				c.Failures = append(c.Failures, reports.JUnitFailure{Message: f.Detail, Type: "ExpectationFailed",
					Text: fmt.Sprintf("expectation failed: %s: %s\n%s", f.Expect, f.Detail, repro)})
			}
		}
		s.Cases = append(s.Cases, c)
	}
	all := reports.JUnitSuites{Name: class, Tests: s.Tests, Failures: s.Failures, Suites: []reports.JUnitSuite{s}}
	out, err := reports.EncodeJUnit(all)
	if err != nil {
		return nil, fmt.Errorf("encoding the sweep's JUnit XML: %w", err)
	}
	return out, nil
}

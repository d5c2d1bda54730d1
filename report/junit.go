package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/lockstep-sim/lockstep/scenarios"
)

// JUnit writes the check results as JUnit XML: one test suite per failure
// mode, one test case per implementation; a case fails when the invariants
// that broke differ from the expected ones, is an error when its run failed
// (its implementation panicked, a server refused the run), and is skipped
// when it could not run (on real servers: too few servers, no replica).
func JUnit(w io.Writer, results []scenarios.Result) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	}
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Error     *failure `xml:"error,omitempty"`
		Skipped   *skipped `xml:"skipped,omitempty"`
	}
	type testsuite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Errors   int        `xml:"errors,attr,omitempty"`
		Skipped  int        `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	type testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr,omitempty"`
		Skipped  int         `xml:"skipped,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	all := testsuites{Name: "lockstep check"}
	for _, r := range results {
		if n := len(all.Suites); n == 0 || all.Suites[n-1].Name != r.Scenario {
			all.Suites = append(all.Suites, testsuite{Name: r.Scenario})
		}
		s := &all.Suites[len(all.Suites)-1]
		c := testcase{Name: r.Impl, Classname: "lockstep." + r.Scenario}
		switch {
		case r.Error != "":
			c.Error = &failure{Message: r.Error, Type: "run failed", Body: r.Scenario + " × " + r.Impl + ": " + r.Error + "\n"}
			s.Errors++
			all.Errors++
		case r.Skipped != "":
			c.Skipped = &skipped{Message: r.Skipped}
			s.Skipped++
			all.Skipped++
		case r.Untrusted:
			// Neither a pass nor a failure: a run whose verdict may be off.
			c.Skipped = &skipped{Message: fmt.Sprintf("untrusted: the run kept to its clock only within %s, more than its %s margins", r.Drift, r.Margin)}
			s.Skipped++
			all.Skipped++
		case !r.Pass:
			msg := fmt.Sprintf("expected %s to break, got %s", list(r.Expected), list(r.Broken))
			var body strings.Builder
			fmt.Fprintf(&body, "%s × %s\nexpected broken: %s\nactually broken: %s\n", r.Scenario, r.Impl, list(r.Expected), list(r.Broken))
			for _, v := range r.Verdicts {
				if v.Broken {
					fmt.Fprintf(&body, "  %s broke at step %d (t=%s): %s\n", v.Invariant, v.Step, v.T, v.Reason.EN)
				}
			}
			body.WriteString("replay: lockstep play " + r.Scenario + " --impl " + r.Impl + "\n")
			c.Failure = &failure{Message: msg, Type: "unmet expectation", Body: body.String()}
			s.Failures++
			all.Failures++
		}
		s.Tests++
		all.Tests++
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"

	"github.com/agent-oracle/oracle/oracle"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr,omitempty"` // seconds; unknown in a merged report
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",cdata"`
}

// WriteJUnit writes the report as JUnit XML, one test suite per
// environment and one test case per case: changed, missing, obsolete and
// nondeterministic cases are failures, errors are errors. Failures suggest
// cmds.
func JUnit(w io.Writer, r *oracle.Report, cmds Commands) error {
	out := junitSuites{Name: "oracle check"}
	index := map[string]int{}
	for _, c := range r.Cases {
		i, ok := index[c.Env]
		if !ok {
			i = len(out.Suites)
			index[c.Env] = i
			out.Suites = append(out.Suites, junitSuite{Name: c.Env})
		}
		s := &out.Suites[i]
		tc := junitCase{Classname: c.Env + "." + c.Agent, Name: c.Task}
		if c.Elapsed > 0 {
			tc.Time = fmt.Sprintf("%.3f", c.Elapsed.Seconds())
		}
		switch c.Status {
		case oracle.StatusUnchanged:
		case oracle.StatusError:
			tc.Error = &junitProblem{Message: c.Error, Type: string(c.Status)}
			s.Errors++
		default:
			msg := string(c.Status)
			if note := caseNote(c, cmds); note != "" {
				msg += ": " + note
			}
			var body bytes.Buffer
			writeCase(&body, Colors{}, c, 1000, cmds)
			// The message says what the case's summary line says: the body
			// starts with the diff.
			_, diff, _ := bytes.Cut(body.Bytes(), []byte("\n"))
			tc.Failure = &junitProblem{Message: msg, Type: string(c.Status), Body: string(diff)}
			s.Failures++
		}
		s.Tests++
		s.Cases = append(s.Cases, tc)
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

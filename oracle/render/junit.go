package render

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/internal/spool"
	"github.com/agent-oracle/oracle/oracle/report"
)

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

// JUnit writes the report as JUnit XML, one test suite per environment
// (in the order the environments first come) and one test case per case:
// changed, missing, obsolete and nondeterministic cases are failures,
// errors are errors. Failures suggest o.Commands.
func JUnit(w io.Writer, r *report.Report, o Options) error {
	// the cases of each environment together, in their order
	first := map[string]int{}
	for i, c := range r.Cases {
		if _, ok := first[c.Env]; !ok {
			first[c.Env] = i
		}
	}
	cases := slices.Clone(r.Cases)
	slices.SortStableFunc(cases, func(a, b *report.Case) int { return first[a.Env] - first[b.Env] })
	j := newJUnitWriter(o)
	defer j.Close()
	for _, c := range cases {
		if err := j.Case(c); err != nil {
			return err
		}
	}
	return j.Finish(w, r)
}

// junitWriter writes a JUnit report from its cases one at a time: Case
// writes each case's <testcase> element to a spool as the case comes, and
// Finish, once the suites' counts are known, writes the document with the
// elements read back from the spool. The cases of one environment must come
// together, as they do in key order.
type junitWriter struct {
	o      Options
	spool  *spool.Spool
	suites []junitSuiteHead
	buf    bytes.Buffer
}

func newJUnitWriter(o Options) Writer { return &junitWriter{o: o, spool: spool.New()} }

// junitSuiteHead is a test suite's attributes and how many bytes of the
// spool its test cases take.
type junitSuiteHead struct {
	name                    string
	tests, failures, errors int
	size                    int64
}

// Case writes the test case of c to the spool.
func (j *junitWriter) Case(c *report.Case) error {
	n := len(j.suites)
	if n == 0 || j.suites[n-1].name != c.Env {
		for _, s := range j.suites {
			if s.name == c.Env {
				return fmt.Errorf("junit report: the cases of %s do not come together", c.Env)
			}
		}
		j.suites = append(j.suites, junitSuiteHead{name: c.Env})
		n++
	}
	s := &j.suites[n-1]
	tc := junitCaseOf(c, j.o)
	switch {
	case tc.Error != nil:
		s.errors++
	case tc.Failure != nil:
		s.failures++
	}
	s.tests++
	// the element as the whole document's encoder writes it, at the depth
	// of a test case
	j.buf.Reset()
	j.buf.WriteByte('\n')
	enc := xml.NewEncoder(&j.buf)
	enc.Indent(junitCaseIndent, "  ")
	if err := enc.EncodeElement(tc, xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("junit report: %w", err)
	}
	element := j.buf.Bytes()
	s.size += int64(len(element))
	_, err := j.spool.Write(element)
	return err
}

// junitCaseOf is the test case of c: changed, missing, obsolete and
// nondeterministic cases are failures, errors are errors.
//
// Every string goes through safe, and the diff is the text report's (whose
// outside strings went through safe): XML 1.0 forbids the control
// characters but tab, newline and carriage return, U+FFFE, U+FFFF and
// unpaired surrogates (bytes that are not UTF-8), and safe writes each of
// them as its escape, so the document is well-formed whatever the bytes
// and each replaced character is marked where it was. xmlChars is the net
// under the diff.
func junitCaseOf(c *report.Case, o Options) junitCase {
	tc := junitCase{Classname: safe(c.Env + "." + c.Agent), Name: safe(c.Task)}
	if c.Elapsed > 0 {
		tc.Time = fmt.Sprintf("%.3f", c.Elapsed.Seconds())
	}
	switch c.Status {
	case report.StatusUnchanged:
	case report.StatusError:
		tc.Error = &junitProblem{Message: safe(c.Error), Type: safe(string(c.Status))}
	default:
		msg := safe(string(c.Status))
		if note := withRedactedNote(caseNote(c, o.Commands), c); note != "" {
			msg += ": " + safe(note)
		}
		var body bytes.Buffer
		writeCase(&body, c, Options{Program: o.Program, Commands: o.Commands, MaxValue: 1000}, nil)
		// The message says what the case's summary line says: the body
		// starts with the diff.
		_, diff, _ := bytes.Cut(body.Bytes(), []byte("\n"))
		tc.Failure = &junitProblem{Message: msg, Type: safe(string(c.Status)), Body: xmlChars(string(diff))}
	}
	return tc
}

// junitCaseIndent is the indentation of a test case element: two levels.
const junitCaseIndent = "    "

// Finish writes the report to w, the test case elements read back from the
// spool.
func (j *junitWriter) Finish(w io.Writer, r *report.Report) error {
	elements, err := j.spool.Reader()
	if err != nil {
		return err
	}
	var tests, failures, errs int
	for _, s := range j.suites {
		tests, failures, errs = tests+s.tests, failures+s.failures, errs+s.errors
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(xml.Header)
	bw.WriteString("<testsuites")
	junitAttrs(bw, j.o.program()+" check", tests, failures, errs)
	for _, s := range j.suites {
		bw.WriteString("\n  <testsuite")
		junitAttrs(bw, s.name, s.tests, s.failures, s.errors)
		if _, err := io.CopyN(bw, elements, s.size); err != nil {
			return fmt.Errorf("junit report: %w", err)
		}
		junitGate(bw, r, s.name) // distribution.go
		bw.WriteString("\n  </testsuite>")
	}
	if len(j.suites) > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString("</testsuites>\n")
	return bw.Flush()
}

func (j *junitWriter) Close() { j.spool.Close() }

// junitAttrs writes the attributes of a suite and the end of its start
// tag, escaped as encoding/xml escapes them.
func junitAttrs(w *bufio.Writer, name string, tests, failures, errs int) {
	w.WriteString(` name="`)
	xml.EscapeText(w, []byte(safe(name)))
	fmt.Fprintf(w, `" tests="%d" failures="%d" errors="%d">`, tests, failures, errs)
}

// xmlChars writes each character of s that XML 1.0 forbids as safe writes
// it, keeping tab, newline and carriage return.
func xmlChars(s string) string {
	ok := true
	for _, r := range s {
		if r == utf8.RuneError || !xmlChar(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			_, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(safe(s[i : i+n]))
		case xmlChar(r):
			b.WriteRune(r)
		default:
			b.WriteString(safe(string(r)))
		}
	}
	return b.String()
}

// xmlChar reports whether r is a Char of XML 1.0.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

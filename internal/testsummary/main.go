// Command testsummary runs go test -json with the arguments it is given and
// prints what go test prints without -v (a line a package, the output of
// each failed test, build errors), then every skipped test with its reason,
// grouped by reason, so that a run says what it did not test and why. It
// exits with go test's status. make test runs the tests through it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

func main() {
	cmd := exec.Command("go", append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stderr = os.Stderr
	events, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	summary, readErr := summarize(events, os.Stdout, modulePath())
	err = cmd.Wait()
	fmt.Print(summary)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil || readErr != nil:
		fmt.Fprintln(os.Stderr, "testsummary:", errors.Join(err, readErr))
		os.Exit(2)
	}
}

// event is one line of go test -json (see go doc test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// skip is a skipped test and the reason it gave.
type skip struct {
	pkg, test, reason string
}

// modulePath is the path of the module in the current folder, "" outside
// one; the summary names packages relative to it.
func modulePath() string {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(data)) {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(path), `"`)
		}
	}
	return ""
}

// summarize reads the events of go test -json from r, writes what go test
// writes without -v to w as the events come, and returns the skipped tests
// grouped by reason, to be printed at the end; packages are named relative
// to the module.
func summarize(r io.Reader, w io.Writer, module string) (string, error) {
	outputs := map[[2]string][]string{} // a running test's output lines
	var running [][2]string             // the tests with output, in order
	var skips []skip
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64<<10), 16<<20)
	for lines.Scan() {
		var e event
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			fmt.Fprintln(w, lines.Text()) // not an event: go test's own words
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "output" && e.Test == "":
			if e.Output != "PASS\n" {
				fmt.Fprint(w, e.Output)
			}
		case e.Action == "output":
			if _, ok := outputs[key]; !ok {
				running = append(running, key)
			}
			outputs[key] = append(outputs[key], e.Output)
		case e.Action == "fail" && e.Test != "":
			fmt.Fprint(w, strings.Join(outputs[key], ""))
			delete(outputs, key)
		case e.Action == "skip" && e.Test != "":
			skips = append(skips, skip{pkg: e.Package, test: e.Test, reason: reasonOf(outputs[key])})
			delete(outputs, key)
		case e.Action == "pass" && e.Test != "":
			delete(outputs, key)
		}
	}
	// a test that never ended (its package crashed or timed out): what it
	// wrote says why
	for _, key := range running {
		fmt.Fprint(w, strings.Join(outputs[key], ""))
	}
	return skipSummary(skips, module), lines.Err()
}

// reasonOf is the reason a skipped test gave: the last line it logged
// before its "--- SKIP" line, without the file and line that log it.
func reasonOf(output []string) string {
	for _, line := range slices.Backward(output) {
		line = strings.TrimPrefix(strings.TrimSpace(line), "> ") // a script's line
		if line == "" || strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "=== ") {
			continue
		}
		if at, rest, ok := strings.Cut(line, ": "); ok && strings.Contains(at, ".go:") && !strings.Contains(at, " ") {
			return rest
		}
		return line
	}
	return "no reason given"
}

// skipSummary lists the skipped tests, one line a reason: how many skipped
// for it, then the tests.
func skipSummary(skips []skip, module string) string {
	if len(skips) == 0 {
		return ""
	}
	var reasons []string
	tests := map[string][]string{}
	for _, s := range skips {
		if _, seen := tests[s.reason]; !seen {
			reasons = append(reasons, s.reason)
		}
		pkg := s.pkg
		if rel, ok := strings.CutPrefix(pkg, module+"/"); ok && module != "" {
			pkg = rel
		}
		tests[s.reason] = append(tests[s.reason], pkg+" "+s.test)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "skipped: %d %s\n", len(skips), plural(len(skips), "test", "tests"))
	for _, r := range reasons {
		fmt.Fprintf(&b, "  %s (%s)\n", r, strings.Join(tests[r], ", "))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

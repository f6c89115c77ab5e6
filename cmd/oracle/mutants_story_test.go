//go:build unix

package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-oracle/oracle/fixtures/crm"
	"github.com/agent-oracle/oracle/oracle/change"
	"github.com/agent-oracle/oracle/oracle/report"
)

// TestMutantsSayWhichChecksMovedFirst: for each crm mutant of
// docs/mutants.md, checked against the committed baselines, a reviewer
// reading any one surface (the terminal, the job summary in Markdown, the
// HTML report, oracle review) sees in its first lines which checks moved
// and why (their label and the words of their detail that changed), before
// any artifact diff. Which checks moved is read from the JSON report's
// story, the same model every surface renders; a mutant whose checks did
// not move leads with its diff.
func TestMutantsSayWhichChecksMovedFirst(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var moved atomic.Int64
	t.Cleanup(func() {
		t.Logf("%d changed cases of the mutants have checks that moved", moved.Load())
		if moved.Load() < 4 {
			t.Errorf("only %d changed cases of the mutants have checks that moved", moved.Load())
		}
	})
	for _, m := range crm.Mutants() {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := copySuite(root, dir); err != nil {
				t.Fatal(err)
			}
			run := func(args ...string) string {
				cmd := oracleCmd(dir, append([]string{"check", "--env", "crm"}, args...)...)
				cmd.Env = append(cmd.Env, "ORACLE_MUTANT="+m.Name)
				out, _ := cmd.Output()
				return string(out)
			}
			// the terminal's report, with the cases kept for review; the
			// JSON report, with the folder's job summary and HTML page
			text := run("--pending")
			out := filepath.Join(t.TempDir(), "report")
			var rep report.Report
			if err := json.Unmarshal([]byte(run("--json", "--report-dir", out)), &rep); err != nil {
				t.Fatal(err)
			}
			md, page := readFile(t, filepath.Join(out, "report.md")), readFile(t, filepath.Join(out, "index.html"))
			review := reviewAll(t, dir, m.Name)
			flagged := 0
			for _, cr := range rep.Cases {
				if cr.Status != report.StatusChanged {
					continue
				}
				if cr.Agent == "solver" {
					flagged++ // Flagged names the solver's tasks
				}
				if cr.Story.Empty() {
					// no check moved: the diff comes first
					after := linesAfter(t, text, "changed          "+cr.Case+"  ", 1)
					if !regexp.MustCompile(`^    (result|state-diff|calls)\.json$`).MatchString(after[0]) {
						t.Errorf("%s: the text report's line after the headline is %q, not a file's diff", cr.Case, after[0])
					}
					continue
				}
				moved.Add(1)
				n := 1 + len(cr.Story.Checks)
				terminal := linesAfter(t, text, "changed          "+cr.Case+"  ", n)
				reviewed := linesAfter(t, review, "changed          "+cr.Case+"  ", n)
				row := lineWith(t, md, "| <code>"+mdName(cr.Case)+"</code> |")
				section := sectionOf(t, page, cr.Case)
				for _, surface := range []struct {
					name  string
					lines []string
				}{{"text", terminal}, {"review", reviewed}} {
					if surface.lines[0] != "    checks:" {
						t.Errorf("%s, %s: the first line after the headline is %q, not the checks", cr.Case, surface.name, surface.lines[0])
					}
				}
				for i, ch := range cr.Story.Checks {
					inserted := insertedWords(ch)
					for _, s := range []struct{ name, where, label, words string }{
						{"text", terminal[1+i], `"` + ch.Label + `"`, "{+" + inserted + "+}"},
						{"review", reviewed[1+i], `"` + ch.Label + `"`, "{+" + inserted + "+}"},
						{"markdown", row, mdName(ch.Label), "<ins>" + mdName(inserted) + "</ins>"},
						{"html", section, html.EscapeString(ch.Label), "<ins>" + html.EscapeString(inserted) + "</ins>"},
					} {
						if !strings.Contains(s.where, s.label) || !strings.Contains(s.where, ch.What()) || !strings.Contains(s.where, s.words) {
							t.Errorf("%s, %s: the first lines do not say check %s %s with %s:\n%s", cr.Case, s.name, s.label, ch.What(), s.words, s.where)
						}
					}
				}
				if i := strings.Index(md, row); i < 0 || strings.Count(md[:i], "\n") > 12 {
					t.Errorf("%s: the job summary's row is not in its first lines", cr.Case)
				}
			}
			if flagged != len(m.Flagged) {
				t.Errorf("%d changed cases of the solver, want %d (%v)", flagged, len(m.Flagged), m.Flagged)
			}
		})
	}
}

// insertedWords are the words a check's detail gained, as the word diff
// marks them.
func insertedWords(ch change.CheckChange) string {
	for _, s := range ch.Words {
		if s.Op == change.Inserted {
			return s.Text
		}
	}
	return ch.NewDetail
}

// mdName is s as the Markdown report escapes it (the few marks the crm
// names and details hold).
func mdName(s string) string {
	return strings.NewReplacer("_", "&#95;", "%", "%", "#", "&#35;", "&", "&#38;", "(", "(").Replace(s)
}

// linesAfter returns the n lines after the line of out that starts with
// prefix.
func linesAfter(t *testing.T, out, prefix string, n int) []string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) && i+n < len(lines) {
			return lines[i+1 : i+1+n]
		}
	}
	t.Fatalf("no line %q followed by %d lines in:\n%s", prefix, n, out)
	return nil
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func lineWith(t *testing.T, out, s string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line with %q in:\n%s", s, out)
	return ""
}

// sectionOf is the HTML report's section of a case from its heading to
// its first artifact diff: what a reader sees first.
func sectionOf(t *testing.T, page, name string) string {
	t.Helper()
	start := strings.Index(page, "<h2><code>"+name+"</code>")
	if start < 0 {
		t.Fatalf("no section for %s", name)
	}
	rest := page[start:]
	end := strings.Index(rest, "<h3><code>")
	if end < 0 || !strings.Contains(rest[:end], "<h3>checks that moved</h3>") {
		t.Fatalf("the section of %s does not start with the checks that moved:\n%.2000s", name, rest)
	}
	return rest[:end]
}

// reviewAll runs oracle review on a pseudo-terminal, skipping every
// pending case, and returns what the terminal showed.
func reviewAll(t *testing.T, dir, mutant string) string {
	t.Helper()
	cmd := oracleCmd(dir, "review")
	cmd.Env = append(cmd.Env, "ORACLE_MUTANT="+mutant)
	return strings.ReplaceAll(startOnTerminal(t, cmd).answerEach("s"), "\r\n", "\n")
}

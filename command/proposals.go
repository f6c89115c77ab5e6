package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/redact"
	"github.com/agent-oracle/oracle/oracle"
)

// printProposals prints, for each environment with refused cases, the
// redaction rules record proposes to make their runs agree, ready to paste
// where the environment declares its rules, or that no rule can. project
// is the project's folder, where a manifest to make is said to be missing.
func printProposals(w io.Writer, s *style, rep *oracle.RecordReport, project string) {
	type envProposal struct {
		name     string
		rules    []redact.Rule
		unstable []string // cases no redaction makes agree
		graded   []string // of them, those whose runs differ in what grades, with the places
		manifest string
		inCode   bool
	}
	var envs []*envProposal
	for _, rc := range rep.Cases {
		p := rc.Proposal
		if p == nil {
			continue
		}
		name, _, _ := strings.Cut(rc.Case, "/")
		i := slices.IndexFunc(envs, func(e *envProposal) bool { return e.name == name })
		if i < 0 {
			i = len(envs)
			envs = append(envs, &envProposal{name: name, manifest: p.Manifest, inCode: p.InCode})
		}
		e := envs[i]
		if !p.Stable {
			if len(p.Graded) > 0 {
				e.graded = append(e.graded, fmt.Sprintf("%s (result.json %s)", rc.Case, strings.Join(p.Graded, ", ")))
			}
			if p.Shape || len(p.Graded) == 0 {
				e.unstable = append(e.unstable, rc.Case)
			}
			continue
		}
		for _, r := range p.Rules {
			if !slices.ContainsFunc(e.rules, func(have redact.Rule) bool { return sameRule(have, r) }) {
				e.rules = append(e.rules, r)
			}
		}
	}
	for _, e := range envs {
		fmt.Fprintln(w)
		if len(e.unstable) > 0 {
			fmt.Fprintf(w, "%s: no redaction makes the runs agree (%s): they differ in their shape, not only in values; fix the environment, or stop freezing the artifact (the manifest's \"baselines\"; docs/redaction.md)\n",
				s.Bad(e.name), strings.Join(e.unstable, ", "))
		}
		if len(e.graded) > 0 {
			fmt.Fprintf(w, "%s: the runs differ in what grades the rollout, which no redaction may hide: %s; the environment is nondeterministic (fix it) or the agent is a model's (record it as a distribution with record --runs N)\n",
				s.Bad(e.name), safe(strings.Join(e.graded, "; ")))
		}
		if len(e.rules) == 0 {
			continue
		}
		where := fmt.Sprintf("the \"redact\" list of %s", e.manifest)
		if _, err := os.Lstat(filepath.Join(project, filepath.FromSlash(e.manifest))); errors.Is(err, fs.ErrNotExist) {
			where += ` (a file to make, with "name", "entrypoint" and "tools" besides: docs/redaction.md)`
		}
		if e.inCode {
			where = "the Redact list of " + e.name + "'s Definition"
		}
		fmt.Fprintf(w, "%s: the runs agree with these redactions; nothing is applied. Read them first (a value that differs between runs may be one the gate should check), then add them to %s:\n",
			s.Bold(e.name), where)
		if e.inCode {
			for _, r := range e.rules {
				fmt.Fprintf(w, "\t%s,\n", goRule(r))
			}
			continue
		}
		data, err := canon.Marshal(e.rules)
		if err != nil {
			fmt.Fprintf(w, "(the rules cannot be written: %v)\n", err)
			continue
		}
		for line := range strings.Lines(string(data)) {
			io.WriteString(w, canon.Visible(strings.TrimSuffix(line, "\n"))+"\n")
		}
	}
}

// sameRule reports whether two rules are the same entry.
func sameRule(a, b redact.Rule) bool {
	return a.Artifact == b.Artifact && a.Path == b.Path && a.Pattern == b.Pattern &&
		(a.Replace == nil) == (b.Replace == nil) && (a.Replace == nil || *a.Replace == *b.Replace)
}

// goRule writes a rule as the Go that declares it in a Definition.
func goRule(r redact.Rule) string {
	if r.Pattern == "" {
		return fmt.Sprintf("env.RedactWhole(%s, %s)", strconv.Quote(r.Artifact), strconv.Quote(r.Path))
	}
	replace := redact.DefaultReplace
	if r.Replace != nil {
		replace = *r.Replace
	}
	return fmt.Sprintf("env.RedactMatch(%s, %s, %s, %s)", strconv.Quote(r.Artifact), strconv.Quote(r.Path), goString(r.Pattern), strconv.Quote(replace))
}

// goString quotes s as Go source, in backquotes when it has backslashes
// and can be.
func goString(s string) string {
	if strings.Contains(s, `\`) && strconv.CanBackquote(s) && canon.Visible(s) == s {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

package oracle

import (
	"bytes"
	"path/filepath"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/redact"
)

// Proposal is what record proposes for a case it refused because its runs
// differ: the redaction rules that would make them agree, to be read and
// then added to the environment's list by hand. Nothing is applied.
type Proposal struct {
	// Rules are the rules to add, in the order of the case's files and of
	// the places the runs first differ at; for a value a verifier quotes
	// in a check's detail, a rule for /checks/*/detail.
	Rules []redact.Rule `json:"rules"`
	// Stable reports whether the runs agree once the rules are added. It
	// is false when they differ in their shape (a value only one has, an
	// array of another length) too high up for a rule to keep the rest,
	// the whole artifact included: then no redaction helps, and the
	// environment is the place to fix (or the artifact is not to be
	// frozen, see the manifest's "baselines"). Rules are then only those
	// that keep something.
	Stable bool `json:"stable"`
	// Manifest is the environment's manifest in the project, whose
	// "redact" list the rules go in; unless InCode: the environment
	// declares its rules in code, and they go in its Definition's Redact.
	Manifest string `json:"manifest"`
	InCode   bool   `json:"inCode,omitempty"`
	// Graded are the places of result.json where the runs differ that
	// grade the rollout (redact.Graded: the verdict, the reward, the
	// checks' outcomes…), which no rule may hide: no rule is proposed for
	// them, and Stable is false. The environment is nondeterministic, or
	// the agent a model's (record it as a distribution).
	Graded []string `json:"graded,omitempty"`
	// Shape reports whether the runs differ in their shape (a value only
	// one has, an array of another length) too high up for any rule.
	Shape bool `json:"shape,omitempty"`
}

// propose proposes the rules that would make the two runs of a refused
// case (fresh.Raw and fresh.Diverged, as written) agree, over every file
// the case freezes, with the case's own rules applied first.
func propose(c Case, fresh *freshRuns) *Proposal {
	p := &Proposal{Rules: []redact.Rule{}, Stable: true, Manifest: filepath.ToSlash(env.ManifestPath(c.Key.Env))}
	if r, ok := c.Env.(env.RedactingEnvironment); ok && len(r.Redactions()) > 0 {
		p.InCode = true
	}
	for _, name := range c.files() {
		first, later := fresh.Raw.File(name), fresh.Diverged.File(name)
		if bytes.Equal(first, later) {
			continue
		}
		got, err := c.Redact.Propose(artifactOf(name), first, later)
		if err != nil {
			p.Stable, p.Shape = false, true // a run without the file, or one the rules cannot redact
			continue
		}
		p.Stable = p.Stable && got.Stable
		p.Rules = append(p.Rules, got.Rules...)
		p.Graded = append(p.Graded, got.Graded...)
		p.Shape = p.Shape || got.Shape || !got.Stable && len(got.Graded) == 0
	}
	return p
}

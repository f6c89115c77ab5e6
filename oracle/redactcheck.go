package oracle

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
)

// RedactionFindings checks the redaction rules of the environment e in the
// project at projectDir, for validate, against what the environment
// freezes and the baselines store holds of it:
//
//	redact_invalid     the rules cannot be used: declared both in the
//	                   manifest and in code, or refused (error)
//	redact_not_frozen  a rule names an artifact the environment does not
//	                   freeze (its manifest's "baselines"), so it does
//	                   nothing (warning)
//	redact_unused      a rule's path selects nothing in the artifacts of
//	                   the environment's baselines, a typo until shown
//	                   otherwise (warning); a rule is judged only by
//	                   baselines that hold the artifact it names, so before
//	                   the first record there is nothing to judge it by
//
// A manifest that cannot be read is validate's manifest_invalid, not one of
// these; a baseline that cannot be read or redacted is check's to report.
func RedactionFindings(projectDir string, e env.Environment, store *baseline.Store) []env.Finding {
	m, err := env.LoadManifest(projectDir, e.Name())
	switch {
	case errors.Is(err, env.ErrNoManifest):
		m = env.Manifest{}
	case err != nil:
		return nil
	}
	rules, err := envRules(e, m)
	if err != nil {
		return []env.Finding{{Level: env.LevelError, Code: "redact_invalid", Message: err.Error()}}
	}
	if rules.IsZero() {
		return nil
	}
	files, err := baseline.FilesFor(m.Baselines)
	if err != nil {
		return nil
	}
	var out []env.Finding
	for i, r := range rules.List() {
		if !slices.Contains(files, r.Artifact+".json") {
			frozen := make([]string, len(files))
			for j, f := range files {
				frozen[j] = artifactOf(f)
			}
			out = append(out, env.Finding{Level: env.LevelWarning, Code: "redact_not_frozen", Message: fmt.Sprintf(
				"%s names %s, which %s does not freeze (the \"baselines\" of %s: %s), so it redacts nothing; remove the rule, or add %s to \"baselines\"",
				rules.Name(i), r.Artifact, e.Name(), filepath.ToSlash(env.ManifestPath(e.Name())), strings.Join(frozen, ", "), r.Artifact)})
		}
	}
	tally := rules.Tally()
	for k, err := range store.Keys() {
		if err != nil {
			break // the store is check's to report
		}
		if k.Env != e.Name() {
			continue
		}
		entry, err := store.Read(k)
		if err != nil {
			continue
		}
		for _, name := range files {
			art := artifactOf(name)
			if !rules.Has(art) {
				continue
			}
			if res, err := rules.Apply(art, entry.File(name)); err == nil {
				tally.Add(art, res)
			}
		}
	}
	for _, w := range tally.Warnings() {
		out = append(out, env.Finding{Level: env.LevelWarning, Code: "redact_unused", Message: w})
	}
	return out
}

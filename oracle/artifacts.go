package oracle

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/redact"
)

// FreezeFiles sets what each selected case freezes and compares, as the
// cases are made: its artifact files (Case.Files) and the rules that
// redact them first (Case.Redact). The files are the artifacts of override
// when it is not nil (record and check --artifacts), otherwise the
// "baselines" of the case's environment manifest in the project at
// projectDir, otherwise all of baseline.Files; the rules are those of
// EnvFrozen. An environment with no manifest freezes everything; a manifest
// that cannot be read or names an unknown artifact, and redactions declared
// twice, are errors.
//
// A baseline file of an artifact a case does not freeze is left alone:
// check does not compare it and record neither writes nor removes it.
func (s *Selected) FreezeFiles(projectDir string, override []string) error {
	var files []string
	if override != nil {
		var err error
		if files, err = baseline.FilesFor(override); err != nil {
			return fmt.Errorf("artifacts: %w", err)
		}
	}
	byEnv := make(map[string]Frozen, len(s.envs))
	for _, e := range s.envs {
		f, err := EnvFrozen(projectDir, e)
		if err != nil {
			return err
		}
		if override != nil {
			f.Files = files
		}
		byEnv[e.Name()] = f
	}
	all := s.Cases.All
	s.Cases.All = func(yield func(Case) bool) {
		for c := range all {
			f := byEnv[c.Key.Env]
			c.Files, c.Redact = f.Files, f.Redact
			if !yield(c) {
				return
			}
		}
	}
	return nil
}

// Frozen is what the cases of one environment freeze and compare.
type Frozen struct {
	// Files are the artifact files, a subset of baseline.Files in its order.
	Files []string
	// Redact are the rules that redact the artifacts before they are
	// frozen or compared; the zero Rules redacts nothing.
	Redact redact.Rules
}

// EnvFrozen returns what the cases of the environment e freeze in the
// project at projectDir: the files the "baselines" of its manifest names
// (all of baseline.Files when it has no manifest or no such list), and the
// redaction rules of the "redact" list of its manifest or, for an
// environment that declares them in code, of its Redactions
// (env.RedactingEnvironment). Rules declared in both places are an error
// naming both: one environment, one list.
func EnvFrozen(projectDir string, e env.Environment) (Frozen, error) {
	var m env.Manifest
	loaded, err := env.LoadManifest(projectDir, e.Name())
	switch {
	case errors.Is(err, env.ErrNoManifest):
	case err != nil:
		return Frozen{}, err
	default:
		m = loaded
	}
	files, err := baseline.FilesFor(m.Baselines)
	if err != nil {
		return Frozen{}, fmt.Errorf("%s: baselines %w", filepath.ToSlash(env.ManifestPath(e.Name())), err)
	}
	rules, err := envRules(e, m)
	if err != nil {
		return Frozen{}, err
	}
	return Frozen{Files: files, Redact: rules}, nil
}

// envRules returns the redaction rules of e, whose manifest in the project
// is m (the zero Manifest when it has none).
func envRules(e env.Environment, m env.Manifest) (redact.Rules, error) {
	var list []env.Redaction
	if r, ok := e.(env.RedactingEnvironment); ok {
		list = r.Redactions()
	}
	if len(list) == 0 {
		rules, err := redact.New(m.Redact...)
		if err != nil {
			return redact.Rules{}, fmt.Errorf("%s: %w", filepath.ToSlash(env.ManifestPath(e.Name())), err)
		}
		return rules, nil
	}
	if len(m.Redact) > 0 {
		return redact.Rules{}, fmt.Errorf("%s: redact: environment %s also declares its redactions in code (Definition.Redact); declare them in one place: remove the manifest's list or the code's",
			filepath.ToSlash(env.ManifestPath(e.Name())), e.Name())
	}
	rules, err := redact.New(list...)
	if err != nil {
		return redact.Rules{}, fmt.Errorf("environment %s: %w", e.Name(), err)
	}
	return rules, nil
}

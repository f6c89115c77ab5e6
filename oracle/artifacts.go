package oracle

import (
	"errors"
	"fmt"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
)

// FreezeFiles sets the artifact files each selected case freezes and
// compares (Case.Files), as the cases are made: the artifacts of override
// when it is not nil (record and check --artifacts), otherwise the
// "baselines" of the case's environment manifest in the project at
// projectDir, otherwise all of baseline.Files. An environment with no
// manifest freezes everything; a manifest that cannot be read or names an
// unknown artifact is an error.
//
// A baseline file of an artifact a case does not freeze is left alone:
// check does not compare it and record neither writes nor removes it.
func (s *Selected) FreezeFiles(projectDir string, override []string) error {
	files, err := envFiles(projectDir, s.envs, override)
	if err != nil {
		return err
	}
	all := s.Cases.All
	s.Cases.All = func(yield func(Case) bool) {
		for c := range all {
			c.Files = files[c.Key.Env]
			if !yield(c) {
				return
			}
		}
	}
	return nil
}

// envFiles returns the artifact files of each environment of names, as
// Selected.FreezeFiles sets them.
func envFiles(projectDir string, names []string, override []string) (map[string][]string, error) {
	byEnv := make(map[string][]string, len(names))
	if override != nil {
		files, err := baseline.FilesFor(override)
		if err != nil {
			return nil, fmt.Errorf("artifacts: %w", err)
		}
		for _, name := range names {
			byEnv[name] = files
		}
		return byEnv, nil
	}
	for _, name := range names {
		files, err := EnvFiles(projectDir, name)
		if err != nil {
			return nil, err
		}
		byEnv[name] = files
	}
	return byEnv, nil
}

// EnvFiles returns the artifact files the environment name freezes in the
// project at projectDir: the "baselines" of its manifest, or all of
// baseline.Files when it has no manifest.
func EnvFiles(projectDir, name string) ([]string, error) {
	m, err := env.LoadManifest(projectDir, name)
	switch {
	case errors.Is(err, env.ErrNoManifest):
		return baseline.Files, nil
	case err != nil:
		return nil, err
	}
	files, err := baseline.FilesFor(m.Baselines)
	if err != nil {
		return nil, fmt.Errorf("%s: baselines %w", env.ManifestPath(name), err)
	}
	return files, nil
}

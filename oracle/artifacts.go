package oracle

import (
	"errors"
	"fmt"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
)

// FreezeFiles sets the artifact files each case freezes and compares
// (Case.Files): the artifacts of override when it is not nil (record and
// check --artifacts), otherwise the "baselines" of the case's environment
// manifest in the project at projectDir, otherwise all of baseline.Files.
// An environment with no manifest freezes everything; a manifest that
// cannot be read or names an unknown artifact is an error.
//
// A baseline file of an artifact a case does not freeze is left alone:
// check does not compare it and record neither writes nor removes it.
func FreezeFiles(projectDir string, cases []Case, override []string) error {
	if override != nil {
		files, err := baseline.FilesFor(override)
		if err != nil {
			return fmt.Errorf("artifacts: %w", err)
		}
		for i := range cases {
			cases[i].Files = files
		}
		return nil
	}
	byEnv := map[string][]string{}
	for i := range cases {
		name := cases[i].Key.Env
		files, ok := byEnv[name]
		if !ok {
			var err error
			if files, err = EnvFiles(projectDir, name); err != nil {
				return err
			}
			byEnv[name] = files
		}
		cases[i].Files = files
	}
	return nil
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

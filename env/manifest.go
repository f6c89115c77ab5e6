package env

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agent-oracle/oracle/internal/redact"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// ManifestFile is the name of an environment's manifest.
const ManifestFile = "silo.environment.json"

// ManifestPath returns where the manifest of the environment called name
// lives, relative to the project root: .silo/environments/<name>/silo.environment.json.
func ManifestPath(name string) string {
	return filepath.Join(".silo", "environments", name, ManifestFile)
}

// Manifest is an environment's silo.environment.json, with Silo's fields.
//
// Which host loads the environment is decided by its entrypoint's
// extension (EntrypointLang). A module (.ts, .mts, .js, .mjs for the Node
// host, .py for the Python host) is, as for Silo, relative to the
// environment's folder, .silo/environments/<name>/ ("./index.ts"), and the
// environment is served by that host process (package env/host). Anything
// else is the folder of the environment's Go package, relative to the
// project root (the folder holding .silo/): "fixtures/crm", "envs/billing".
// The scaffolding commands write tasks/*.json and Go files there. The
// field keeps its name so that the file stays Silo's.
//
// The entrypoint rule: a non-empty, slash-separated, relative path that stays
// inside the project. After cleaning ("./envs/x/" is "envs/x") it must not be
// "..", start with "../" (for a module: leave the project from the
// environment's folder), start with "/", contain a backslash or a volume
// name ("C:"), or hold control characters. "." (the project root itself) is
// allowed for a Go package.
//
// Baselines, oracle's own field, lists the artifacts the environment's cases
// freeze and compare (names of BaselineArtifacts, e.g. ["result",
// "state-diff"] for an environment whose read tools return listings too
// large to freeze); absent or null means all of them.
//
// Agents, oracle's own field, declares the environment's regression agents
// by name: {"solver": "module:../../../tests/crm-solver.agent.ts"}, each
// value an agent reference (a module:PATH, exec:COMMAND or replay:PATH, a
// registered Go agent's name, a model agent such as openai:MODEL). Their
// cases are keyed by the name (crm/solver/TASK-001). For an environment of
// Go they add to the regression agents it was built with. Paths of
// module: and replay: references are relative to the environment's folder
// (see DeclaredAgents).
//
// Redact, oracle's own field, lists the environment's volatile fields: the
// rules that redact them from its artifacts before they are frozen or
// compared (docs/redaction.md); absent or null means none.
type Manifest struct {
	Name            string            `json:"name"`
	Template        string            `json:"template"`
	TemplateVersion string            `json:"templateVersion"`
	Entrypoint      string            `json:"entrypoint"`
	Tools           []string          `json:"tools"`
	Baselines       []string          `json:"baselines,omitempty"`
	Agents          map[string]string `json:"agents,omitempty"`

	// Redact is checked as redact.ParseRules checks a list, strictly.
	Redact []Redaction `json:"redact,omitempty"`
}

// ParseManifest reads a manifest strictly: unknown fields, a second JSON
// value, a name that fails CheckName, an entrypoint that breaks the rule of
// Manifest, baselines that fail CheckBaselines and a redact list that
// redact.ParseRules refuses are errors; path is used in messages, a
// redact error as path: redact[2].pattern: …. Tools is never nil in
// what it returns.
func ParseManifest(path string, data []byte) (Manifest, error) {
	var m Manifest
	if err := checkExactKeys(data, m); err != nil {
		return Manifest{}, fmt.Errorf("%s: not a valid manifest: %w", path, err)
	}
	if err := checkRedact(data); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%s: not a valid manifest: %w", path, err)
	}
	if dec.More() {
		return Manifest{}, fmt.Errorf("%s: not a valid manifest: more than one JSON value", path)
	}
	if err := CheckName(m.Name); err != nil {
		return Manifest{}, fmt.Errorf("%s: name: %w", path, err)
	}
	if m.Entrypoint == "" {
		return Manifest{}, fmt.Errorf("%s: missing entrypoint; set it to the environment's module (./index.ts, ./env.py), relative to its folder, or to the folder of its Go package, relative to the project root", path)
	}
	clean, err := cleanEntrypoint(m.Entrypoint, EntrypointLang(m.Entrypoint) != "")
	if err != nil {
		return Manifest{}, fmt.Errorf("%s: entrypoint: %w", path, err)
	}
	m.Entrypoint = clean
	if err := checkAgents(m.Agents); err != nil {
		return Manifest{}, fmt.Errorf("%s: agents: %w", path, err)
	}
	if m.Baselines != nil {
		if err := CheckBaselines(m.Baselines); err != nil {
			return Manifest{}, fmt.Errorf("%s: baselines %w", path, err)
		}
	}
	if m.Tools == nil {
		m.Tools = []string{}
	}
	return m, nil
}

// checkRedact checks the "redact" list of a manifest's JSON, when it has
// one, as redact.ParseRules does (strictly: unknown keys, keys in another
// letter case or given twice, patterns that do not compile, an empty list),
// and returns its error as it words it. A manifest that is not an object is
// left to the decoder.
func checkRedact(data []byte) error {
	var fields struct {
		Redact json.RawMessage `json:"redact"`
	}
	if json.Unmarshal(data, &fields) != nil || fields.Redact == nil || string(fields.Redact) == "null" {
		return nil
	}
	_, err := redact.ParseRules(fields.Redact)
	return err
}

// cleanEntrypoint applies the entrypoint rule and returns the cleaned path;
// module says that p is relative to the environment's folder, three levels
// below the project root.
func cleanEntrypoint(p string, module bool) (string, error) {
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return "", fmt.Errorf("%q must not contain control characters", p)
		}
	}
	switch {
	case strings.Contains(p, `\`):
		return "", fmt.Errorf("%q must use forward slashes", p)
	case strings.HasPrefix(p, "/") || filepath.VolumeName(p) != "" || hasDriveLetter(p):
		return "", fmt.Errorf("%q must be relative to the project root", p)
	}
	clean := path.Clean(p)
	if module {
		if inProject := path.Clean(".silo/environments/x/" + clean); inProject == ".." || strings.HasPrefix(inProject, "../") || clean == "." {
			return "", fmt.Errorf("%q leaves the project; keep the environment's module inside the project", p)
		}
		return clean, nil
	}
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%q leaves the project; keep the environment's package inside the project", p)
	}
	return clean, nil
}

// hasDriveLetter reports whether p starts like a Windows path ("C:"), on any
// system, so that a manifest means the same everywhere.
func hasDriveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// ErrNoManifest matches (errors.Is) the error LoadManifest returns when the
// environment has no manifest in the project.
var ErrNoManifest = &Error{Code: "manifest_not_found"}

// LoadManifest reads the manifest of the environment called name from the
// project at projectDir. Its name must match the folder it is in. A missing
// file is an error matching ErrNoManifest.
func LoadManifest(projectDir, name string) (Manifest, error) {
	if err := CheckName(name); err != nil {
		return Manifest{}, fmt.Errorf("environment name: %w", err)
	}
	rel := ManifestPath(name)
	path := filepath.Join(projectDir, rel)
	if err := safeio.CheckChain(projectDir, path); err != nil {
		return Manifest{}, fmt.Errorf("read manifest: %w", err)
	}
	data, err := safeio.ReadNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, &Error{Code: ErrNoManifest.Code, Err: err,
			Message: fmt.Sprintf("no manifest %s; run oracle init %s or create the manifest", filepath.ToSlash(rel), name)}
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("read manifest: %w", err)
	}
	m, err := ParseManifest(filepath.ToSlash(rel), data)
	if err != nil {
		return Manifest{}, err
	}
	if m.Name != name {
		return Manifest{}, fmt.Errorf("%s: name %q does not match its folder %q; make them the same", filepath.ToSlash(rel), m.Name, name)
	}
	return m, nil
}

// Dir returns the folder of the environment's package on disk, given the
// project root: for a module entrypoint, the environment's folder
// .silo/environments/<name>, which holds its tasks.
func (m Manifest) Dir(projectDir string) string {
	if m.Module() {
		return filepath.Join(projectDir, ".silo", "environments", m.Name)
	}
	return filepath.Join(projectDir, filepath.FromSlash(m.Entrypoint))
}

// Module reports whether the entrypoint is a module that a host loads (see
// EntrypointLang), not a Go package.
func (m Manifest) Module() bool { return EntrypointLang(m.Entrypoint) != "" }

// EntrypointFile returns the module file of a module entrypoint, given the
// project root.
func (m Manifest) EntrypointFile(projectDir string) string {
	return filepath.Join(m.Dir(projectDir), filepath.FromSlash(m.Entrypoint))
}

// Folders returns the folders that hold the environment's code and data:
// its package's folder, or for a module its folder and the module's.
func (m Manifest) Folders(projectDir string) []string {
	if !m.Module() {
		return []string{m.Dir(projectDir)}
	}
	dirs := []string{m.Dir(projectDir)}
	if code := filepath.Dir(m.EntrypointFile(projectDir)); code != dirs[0] {
		dirs = append(dirs, code)
	}
	return dirs
}

// Hosts that load module entrypoints, by EntrypointLang.
const (
	LangNode   = "node"
	LangPython = "python"
)

// EntrypointLang returns the host that loads an entrypoint, by its
// extension: LangNode for .ts, .mts, .js and .mjs, LangPython for .py, and
// "" for anything else, the folder of a Go package.
func EntrypointLang(entrypoint string) string {
	switch strings.ToLower(path.Ext(entrypoint)) {
	case ".ts", ".mts", ".js", ".mjs":
		return LangNode
	case ".py":
		return LangPython
	}
	return ""
}

// ManifestNames lists the environments the project at projectDir names:
// the folders under .silo/environments that hold a manifest (a regular
// file, not followed through a symlink), sorted.
func ManifestNames(projectDir string) []string {
	root := filepath.Join(projectDir, ".silo", "environments")
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if info, err := os.Lstat(filepath.Join(root, e.Name(), ManifestFile)); err == nil && info.Mode().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names
}

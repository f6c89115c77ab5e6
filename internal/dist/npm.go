package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// npmScope is the scope of oracle's npm packages.
const npmScope = "@agent-oracle"

// npmMain is the main package's name: the one a project installs.
const npmMain = npmScope + "/oracle"

// launcher is the main package's bin: it runs the binary of the platform
// package npm installed beside it.
//
//go:embed npm/oracle.js
var launcher []byte

// packageJSON is the fields of a package.json that oracle's packages use,
// in npm's usual order.
type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	Repository           string            `json:"repository"`
	Homepage             string            `json:"homepage,omitempty"`
	Keywords             []string          `json:"keywords,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Files                []string          `json:"files"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
}

const repository = "https://github.com/agent-oracle/oracle"

// writeNPM writes the main package and one package a target under dir,
// each a folder npm pack and npm publish take as it is. bin holds the
// targets' binaries.
func writeNPM(dir, bin, version string, targets []Target) error {
	optional := map[string]string{}
	for _, t := range targets {
		pkg := filepath.Join(dir, t.NPMFolder())
		manifest := packageJSON{
			Name:            t.NPMName(),
			Version:         version,
			Description:     fmt.Sprintf("The oracle binary for %s %s; install %s, which picks it.", t.NPMOS, t.NPMCPU, npmMain),
			Repository:      repository,
			Files:           []string{"bin"},
			OS:              []string{t.NPMOS},
			CPU:             []string{t.NPMCPU},
			PreferUnplugged: true,
		}
		data, err := os.ReadFile(filepath.Join(bin, t.BinaryName()))
		if err != nil {
			return err
		}
		if err := writePackage(pkg, manifest, map[string]fileBody{"bin/" + t.Exe(): {data, 0o755}}); err != nil {
			return err
		}
		optional[t.NPMName()] = version
	}
	manifest := packageJSON{
		Name:                 npmMain,
		Version:              version,
		Description:          "oracle: frozen baselines and the CI gate for agent evaluation environments (the original runner's projects included)",
		Repository:           repository,
		Keywords:             []string{"agents", "evaluation", "regression", "baseline", "silo"},
		Bin:                  map[string]string{"oracle": "bin/oracle.js"},
		Files:                []string{"bin"},
		Engines:              map[string]string{"node": ">=18"},
		OptionalDependencies: optional,
	}
	script := bytes.ReplaceAll(launcher, []byte("__PLATFORMS__"), platformsJSON(targets))
	return writePackage(filepath.Join(dir, "oracle"), manifest, map[string]fileBody{"bin/oracle.js": {script, 0o755}})
}

// platformsJSON is the launcher's table from Node's "platform arch" to the
// package and the binary's path in it.
func platformsJSON(targets []Target) []byte {
	table := map[string][2]string{}
	for _, t := range targets {
		table[t.NPMOS+" "+t.NPMCPU] = [2]string{t.NPMName(), "bin/" + t.Exe()}
	}
	data, _ := json.Marshal(table) // a map of strings always marshals
	return data
}

type fileBody struct {
	data []byte
	mode os.FileMode
}

// writePackage writes a package folder: package.json, a README and files.
func writePackage(dir string, manifest packageJSON, files map[string]fileBody) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(manifest); err != nil {
		return err
	}
	files["package.json"] = fileBody{buf.Bytes(), 0o644}
	files["README.md"] = fileBody{[]byte(packageReadme(manifest)), 0o644}
	for name, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.data, f.mode); err != nil {
			return err
		}
		// WriteFile's mode is masked by the umask; the package's is not.
		if err := os.Chmod(path, f.mode); err != nil {
			return err
		}
	}
	return nil
}

func packageReadme(m packageJSON) string {
	if m.Name != npmMain {
		return fmt.Sprintf("# %s\n\n%s\n", m.Name, m.Description)
	}
	return strings.Join([]string{
		"# " + m.Name,
		"",
		m.Description + ".",
		"",
		"```sh",
		"npm install --save-dev " + npmMain,
		"npx oracle record   # freeze the current behaviour of every case as baselines",
		"npx oracle check    # the CI gate: exit 0 all unchanged, 1 behaviour changed, 2 trouble",
		"```",
		"",
		"The package runs the oracle binary of your platform, which npm installs as one of its optional",
		"dependencies (" + npmScope + "/oracle-OS-CPU); nothing is downloaded at install time and no install script",
		"runs. `ORACLE_BINARY_PATH` names another binary to run instead. Documentation: " + repository,
		"",
	}, "\n")
}

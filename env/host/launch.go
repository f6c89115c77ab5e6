package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// needsTSX reports whether a Node module is TypeScript.
func needsTSX(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".ts" || ext == ".mts"
}

// MinNode is the oldest Node major version the Node host runs on; the
// host checks the Node it runs on (a node --version before every start
// would cost as much again as the check of a short environment).
const MinNode = 20

var nodeFound struct {
	once sync.Once
	path string
	err  error
}

// nodePath returns the node to run: $ORACLE_NODE, or node on PATH.
func nodePath() (string, error) {
	nodeFound.once.Do(func() {
		nodeFound.path, nodeFound.err = findNode()
	})
	return nodeFound.path, nodeFound.err
}

func findNode() (string, error) {
	name := os.Getenv("ORACLE_NODE")
	if name == "" {
		name = "node"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("node is not installed (no %s on PATH); install Node %d or newer, or set ORACLE_NODE to its path", name, MinNode)
	}
	return path, nil
}

// pythonPath returns the Python to run: $ORACLE_PYTHON, or python3 on PATH.
func pythonPath() (string, error) {
	name := os.Getenv("ORACLE_PYTHON")
	if name == "" {
		name = "python3"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("python3 is not installed (no %s on PATH); install Python 3, or set ORACLE_PYTHON to its path", name)
	}
	return path, nil
}

// ErrNoTSX matches the error of a TypeScript module where no tsx is found.
var ErrNoTSX = errors.New("tsx not found")

// findTSX returns the file of tsx's ESM API (tsx/esm/api) that loads
// TypeScript for a module in folder: the tsx package of $ORACLE_TSX (its
// folder, or a node_modules folder holding it), or else the nearest
// node_modules/tsx in folder or a folder above it up to the project's
// folder root, as Node resolves packages: never one above the project,
// which anyone who can write there could have planted.
func findTSX(folder, root string) (string, error) {
	if given := os.Getenv("ORACLE_TSX"); given != "" {
		for _, dir := range []string{given, filepath.Join(given, "tsx"), filepath.Join(given, "node_modules", "tsx")} {
			if api, ok := tsxAPI(dir); ok {
				return api, nil
			}
		}
		return "", fmt.Errorf("%w: ORACLE_TSX=%s is not the folder of a tsx package (one holding package.json of tsx); point it at node_modules/tsx", ErrNoTSX, given)
	}
	abs, err := filepath.Abs(folder)
	if err != nil {
		return "", err
	}
	for d := abs; within(d, root); d = filepath.Dir(d) {
		if api, ok := tsxAPI(filepath.Join(d, "node_modules", "tsx")); ok {
			return api, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fmt.Errorf("%w for %s: TypeScript loads through tsx; install it in the project (npm install --save-dev tsx) or set ORACLE_TSX to the folder of a tsx package", ErrNoTSX, folder)
}

// tsxAPI returns the ESM API file of the tsx package in dir.
func tsxAPI(dir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", false
	}
	var pkg struct {
		Name    string                     `json:"name"`
		Exports map[string]json.RawMessage `json:"exports"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Name != "tsx" {
		return "", false
	}
	rel := "./dist/esm/api/index.mjs"
	if raw, ok := pkg.Exports["./esm/api"]; ok {
		var target struct {
			Import json.RawMessage `json:"import"`
		}
		var s string
		if json.Unmarshal(raw, &target) == nil && len(target.Import) > 0 {
			var cond struct {
				Default string `json:"default"`
			}
			if json.Unmarshal(target.Import, &s) == nil {
				rel = s
			} else if json.Unmarshal(target.Import, &cond) == nil && cond.Default != "" {
				rel = cond.Default
			}
		}
	}
	api := filepath.Join(dir, filepath.FromSlash(rel))
	if info, err := os.Stat(api); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	return api, true
}

// nodeCommand is the argv of a Node host for the environment module entry
// (or, with entry "", one that runs agent modules only) called name in the
// project at root (""; none); tsx is the tsx API file, or "".
func nodeCommand(name, entry, tsx, root string) ([]string, error) {
	node, err := nodePath()
	if err != nil {
		return nil, err
	}
	dir, err := scriptDir()
	if err != nil {
		return nil, err
	}
	argv := []string{node, filepath.Join(dir, "node", "host.mjs"), "--name", name,
		"--hooks", filepath.Join(dir, "node", "hooks.mjs"), "--silo", filepath.Join(dir, "node", "silo", "index.mjs"),
		"--cjs", filepath.Join(dir, "node", "cjs.mjs"), "--min-node", strconv.Itoa(MinNode)}
	if cache := hostCache(); cache != "" {
		argv = append(argv, "--cache", cache)
	}
	if entry != "" {
		argv = append(argv, "--env", entry)
	}
	if tsx != "" {
		argv = append(argv, "--tsx", tsx)
	}
	if root != "" {
		argv = append(argv, "--root", root)
	}
	return argv, nil
}

// pythonCommand is the argv of a Python host for the module entry (or,
// with entry "", one that runs agent modules only).
func pythonCommand(name, entry string) ([]string, error) {
	python, err := pythonPath()
	if err != nil {
		return nil, err
	}
	dir, err := scriptDir()
	if err != nil {
		return nil, err
	}
	// -u: unbuffered; -B: no __pycache__ written into the project; -I:
	// isolated, no PYTHON* variable, no user site-packages, and no folder
	// put first on sys.path before the standard library is imported
	argv := []string{python, "-u", "-B", "-I", filepath.Join(dir, "python", "host.py"), "--name", name}
	if entry != "" {
		argv = append(argv, "--env", entry)
	}
	return argv, nil
}

// checkModule checks that path is a regular file, for a clear error before
// a host is started for it.
func checkModule(path string) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no file %s", path)
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	}
	if bytes.ContainsAny([]byte(path), "\x00\n") {
		return fmt.Errorf("%q is not a usable path", path)
	}
	return nil
}

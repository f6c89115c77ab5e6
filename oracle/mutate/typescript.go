package mutate

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

//go:embed typescript/mutants.cjs
var typescriptMutants string

// typescriptMutator is the mutator of TypeScript and JavaScript files: the
// TypeScript compiler API (createSourceFile) of a typescript package, run
// by node. The package is $ORACLE_TYPESCRIPT (its folder, or a
// node_modules folder holding it), else the nearest
// node_modules/typescript in the environment's folder or above, else the
// one beside the tsx package of $ORACLE_TSX.
func typescriptMutator(folder string) (func(context.Context, string, []byte) ([]edit, error), error) {
	if _, err := exec.LookPath("node"); err != nil {
		return nil, fmt.Errorf("no_node: mutants of a TypeScript environment are made with the TypeScript compiler API, run by node, and node is not on PATH; install Node 20 or newer")
	}
	api, err := findTypeScript(folder)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, file string, src []byte) ([]edit, error) {
		return runMutator(ctx, src, "node", "-e", typescriptMutants, api, filepath.Base(file))
	}, nil
}

// findTypeScript returns the file of the compiler API (lib/typescript.js)
// of the typescript package found for folder.
func findTypeScript(folder string) (string, error) {
	var dirs []string
	if given := os.Getenv("ORACLE_TYPESCRIPT"); given != "" {
		dirs = append(dirs, given, filepath.Join(given, "typescript"), filepath.Join(given, "node_modules", "typescript"))
	} else {
		if abs, err := filepath.Abs(folder); err == nil {
			for d := abs; ; d = filepath.Dir(d) {
				dirs = append(dirs, filepath.Join(d, "node_modules", "typescript"))
				if filepath.Dir(d) == d {
					break
				}
			}
		}
		if tsx := os.Getenv("ORACLE_TSX"); tsx != "" {
			dirs = append(dirs, filepath.Join(filepath.Dir(filepath.Clean(tsx)), "typescript"), filepath.Join(tsx, "node_modules", "typescript"))
		}
	}
	var noAPI string
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var pkg struct{ Name, Version string }
		if json.Unmarshal(data, &pkg) != nil || pkg.Name != "typescript" {
			continue
		}
		api := filepath.Join(dir, "lib", "typescript.js")
		if info, err := os.Stat(api); err == nil && info.Mode().IsRegular() {
			return api, nil
		}
		noAPI = fmt.Sprintf("typescript %s in %s has no compiler API (lib/typescript.js: TypeScript 7 moved it); ", pkg.Version, dir)
	}
	return "", fmt.Errorf("no_typescript: %smutants of a TypeScript environment are made with the TypeScript compiler API; install typescript 5 beside the environment (npm install --save-dev typescript@5) or set ORACLE_TYPESCRIPT to the folder of a typescript package", noAPI)
}

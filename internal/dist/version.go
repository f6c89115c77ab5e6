package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// modulePath is the module the release is built from.
const modulePath = "github.com/agent-oracle/oracle"

// versionVar is the variable the build stamps.
const versionVar = modulePath + "/command.Version"

// moduleRoot is the folder of the go.mod above the current folder.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no_module: no go.mod here or above; run dist from oracle's checkout (make dist)")
		}
		dir = parent
	}
}

// sourceVersion is the value of command.Version in the source, read with
// go/parser so that dist needs nothing built.
func sourceVersion(root string) (string, error) {
	path := filepath.Join(root, "command", "version.go")
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return "", fmt.Errorf("read the source's version: %w", err)
	}
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gen.Specs {
			vs, ok := spec.(*ast.ValueSpec)
			if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "Version" || len(vs.Values) != 1 {
				continue
			}
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				return strconv.Unquote(lit.Value)
			}
		}
	}
	return "", fmt.Errorf("read the source's version: %s declares no Version string; pass -version", path)
}

// semver is the versions a release may carry: npm's semver, with the
// prereleases PEP 440 can say too.
var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-(alpha|beta|rc)\.(0|[1-9][0-9]*))?$`)

// pythonVersion is version as PEP 440 spells it (1.2.0-rc.1 → 1.2.0rc1),
// or an error naming what a release version may be.
func pythonVersion(version string) (string, error) {
	m := semver.FindStringSubmatch(version)
	if m == nil {
		return "", fmt.Errorf("bad_version: %q is not a release version; use MAJOR.MINOR.PATCH, optionally with -alpha.N, -beta.N or -rc.N", version)
	}
	v := m[1] + "." + m[2] + "." + m[3]
	switch m[4] {
	case "alpha":
		v += "a" + m[5]
	case "beta":
		v += "b" + m[5]
	case "rc":
		v += "rc" + m[5]
	}
	return v, nil
}

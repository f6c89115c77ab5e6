package scaffold

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// OracleModule is the module path of oracle, which a project requires.
const OracleModule = "github.com/agent-oracle/oracle"

// Binary describes the main package of a project's own oracle binary.
type Binary struct {
	Program  string // the binary's name, e.g. helpdesk-oracle
	Import   string // import path of the first environment package
	Package  string // that package's name
	Builtins bool   // also serve oracle's built-in demo environments
}

// reservedInMain are the names main.go already uses.
var reservedInMain = map[string]bool{"os": true, "command": true, "env": true, "fixtures": true, "main": true, "version": true, "environments": true, "build": true, "envs": true, "builtins": true, "e": true, "err": true}

// importSpec returns the import line of an environment package in main.go
// and the name it is referred to by, aliased where it would collide.
func importSpec(path, pkg string) (spec, ref string) {
	if reservedInMain[pkg] {
		return fmt.Sprintf("%senv %q", pkg, path), pkg + "env"
	}
	return strconv.Quote(path), pkg
}

// MainFile returns cmd/<Program>/main.go: a main calling command.Main with
// the environment, named and versioned as the project's.
func MainFile(b Binary) (File, error) {
	spec, ref := importSpec(b.Import, b.Package)
	src, err := render("main.go.tmpl", map[string]any{"Program": b.Program, "Import": spec, "Ref": ref, "Builtins": b.Builtins})
	return File{Path: "cmd/" + b.Program + "/main.go", Data: src}, err
}

// Register returns main.go's source with the environment package at
// importPath added to its environments list, or an error when the file
// has no such list (it was not written by oracle init). It returns src
// unchanged when the package is already imported.
func Register(src []byte, importPath, pkg string) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "main.go", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("read main.go: %w", err)
	}
	var imports *ast.GenDecl
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Lparen.IsValid() {
			imports = g
		}
	}
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == importPath {
			return src, nil
		}
	}
	var list *ast.CompositeLit
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "environments" || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if cl, ok := n.(*ast.CompositeLit); ok && list == nil {
				if at, ok := cl.Type.(*ast.ArrayType); ok {
					if _, ok := at.Elt.(*ast.FuncType); ok {
						list = cl
					}
				}
			}
			return list == nil
		})
	}
	if imports == nil || list == nil {
		return nil, fmt.Errorf("main.go has no environments list of constructors, as oracle init writes")
	}
	spec, ref := importSpec(importPath, pkg)
	at := func(p token.Pos) int { return fset.Position(p).Offset }
	// Insert at the later offset first, so the earlier one stays right.
	var b bytes.Buffer
	entry, imp := at(list.Rbrace), at(imports.Rparen)
	b.Write(src[:imp])
	b.WriteString("\t" + spec + "\n")
	b.Write(src[imp:entry])
	b.WriteString("\t" + ref + ".New,\n")
	b.Write(src[entry:])
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("register %s in main.go: %w", pkg, err)
	}
	return out, nil
}

// modulePath is what a module path may look like.
var modulePath = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~-]*(/[A-Za-z0-9._~-]+)*$`)

// CheckModulePath reports whether path can be a module path.
func CheckModulePath(path string) error {
	if !modulePath.MatchString(path) || strings.Contains(path, "..") {
		return fmt.Errorf("%q is not a Go module path; use letters, digits and . _ ~ - separated by /, e.g. example.com/helpdesk", path)
	}
	return nil
}

// GoMod returns a go.mod for a new project module that requires oracle.
// When oracle is a local checkout (oraclePath, an absolute folder, with its
// go.mod oracleGoMod), a replace directive points at it and oracle's own
// requirements are listed too, so that with oracle's go.sum beside it the
// project builds without a network.
func GoMod(module, version, oraclePath string, oracleGoMod []byte) File {
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\n\ngo 1.26\n\nrequire %s v%s\n", module, OracleModule, version)
	if oraclePath != "" {
		if reqs := requirements(oracleGoMod); len(reqs) > 0 {
			b.WriteString("\nrequire (\n")
			for _, r := range reqs {
				fmt.Fprintf(&b, "\t%s // indirect\n", r)
			}
			b.WriteString(")\n")
		}
		fmt.Fprintf(&b, "\n// oracle is not published yet: build it from a local checkout.\nreplace %s => %s\n", OracleModule, quoteModPath(oraclePath))
	}
	return File{Path: "go.mod", Data: []byte(b.String())}
}

// requirements returns the "path version" pairs a go.mod requires.
func requirements(gomod []byte) []string {
	var out []string
	block := false
	for _, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case block && fields[0] == ")":
			block = false
		case block && len(fields) == 2:
			out = append(out, fields[0]+" "+fields[1])
		case fields[0] == "require" && len(fields) == 2 && fields[1] == "(":
			block = true
		case fields[0] == "require" && len(fields) == 3:
			out = append(out, fields[1]+" "+fields[2])
		}
	}
	return out
}

// quoteModPath quotes a file path for go.mod when it needs it.
func quoteModPath(p string) string {
	if strings.ContainsAny(p, " \t\"'`\\()") || p == "" {
		return strconv.Quote(p)
	}
	return p
}

// GitIgnore and GitAttributes are the lines a project's .gitignore and
// .gitattributes need: runs, pending artifacts and the store's lock stay
// out of git, and git never rewrites the line endings of JSON artifacts.
var (
	GitIgnore     = []string{".silo/runs/", ".silo/pending/", ".silo/baselines/.lock"}
	GitAttributes = []string{"*.json -text"}
)

// WithLines returns old with each of lines appended that it lacks, and
// whether it changed.
func WithLines(old []byte, lines []string) ([]byte, bool) {
	have := map[string]bool{}
	for _, l := range strings.Split(string(old), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	out := append([]byte(nil), old...)
	changed := false
	for _, l := range lines {
		if have[l] {
			continue
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, l+"\n"...)
		changed = true
	}
	return out, changed
}

// Readme returns a README stub for the project with the two commands.
func Readme(project, program string) (File, error) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, "README.md.tmpl", map[string]string{"Project": project, "Program": program}); err != nil {
		return File{}, fmt.Errorf("scaffold README.md: %w", err)
	}
	return File{Path: "README.md", Data: buf.Bytes()}, nil
}

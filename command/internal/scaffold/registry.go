package scaffold

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// RegistryFile is the generated file that lists a package's tools and
// verifiers.
const RegistryFile = "registry.go"

// envImport is the import path of the authoring contract.
const envImport = "github.com/agent-oracle/oracle/env"

// Registry is what Scan found in a package's source.
type Registry struct {
	Package   string
	Tools     []string // constructors of tools, in file order
	Verifiers []string // constructors of verifiers, in file order
	// Funcs maps every top-level function name to its file, so that a new
	// constructor does not collide with an existing one.
	Funcs map[string]string
}

// Scan reads the Go files of one package folder (registry.go, test files
// and anything that is not a .go file are skipped) and finds the tool and
// verifier constructors: top-level functions without parameters returning
// env.Tool[State] or env.Verifier[State]. Files are read in path order.
func Scan(files []File) (*Registry, error) {
	sorted := append([]File(nil), files...)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	r := &Registry{Tools: []string{}, Verifiers: []string{}, Funcs: map[string]string{}}
	fset := token.NewFileSet()
	for _, f := range sorted {
		if !strings.HasSuffix(f.Path, ".go") || strings.HasSuffix(f.Path, "_test.go") || f.Path == RegistryFile {
			continue
		}
		file, err := parser.ParseFile(fset, f.Path, f.Data, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w; fix it so the registry can be generated", f.Path, err)
		}
		if r.Package == "" {
			r.Package = file.Name.Name
		} else if file.Name.Name != r.Package {
			return nil, fmt.Errorf("%s is package %s, not %s; one folder holds one package", f.Path, file.Name.Name, r.Package)
		}
		envName := importName(file)
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			r.Funcs[fn.Name.Name] = f.Path
			switch constructorOf(fn, envName) {
			case "Tool":
				r.Tools = append(r.Tools, fn.Name.Name)
			case "Verifier":
				r.Verifiers = append(r.Verifiers, fn.Name.Name)
			}
		}
	}
	if r.Package == "" {
		return nil, fmt.Errorf("no Go source found; scaffold the environment with oracle init first")
	}
	return r, nil
}

// File renders registry.go.
func (r *Registry) File() (File, error) {
	src, err := render("registry.go.tmpl", r)
	return File{Path: RegistryFile, Data: src}, err
}

// importName is the name under which file imports package env, or "" when
// it does not.
func importName(file *ast.File) string {
	for _, imp := range file.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err != nil || p != envImport {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return "env"
	}
	return ""
}

// constructorOf returns "Tool" or "Verifier" when fn takes nothing and
// returns env.Tool[State] or env.Verifier[State], and "" otherwise.
func constructorOf(fn *ast.FuncDecl, envName string) string {
	t := fn.Type
	if envName == "" || t.TypeParams != nil || len(t.Params.List) > 0 || t.Results == nil ||
		len(t.Results.List) != 1 || len(t.Results.List[0].Names) > 1 {
		return ""
	}
	idx, ok := t.Results.List[0].Type.(*ast.IndexExpr)
	if !ok {
		return ""
	}
	sel, ok := idx.X.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || pkg.Name != envName {
		return ""
	}
	if state, ok := idx.Index.(*ast.Ident); !ok || state.Name != "State" {
		return ""
	}
	switch sel.Sel.Name {
	case "Tool", "Verifier":
		return sel.Sel.Name
	}
	return ""
}

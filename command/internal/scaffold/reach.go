package scaffold

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
)

// Constructor is a tool or verifier constructor of a package.
type Constructor struct {
	Name string // the function, e.g. listItemsTool
	Kind string // "tool" or "verifier"
	File string // the file declaring it
}

// Unreached returns the tool and verifier constructors of a package (as
// Scan finds them) that no code of the package names, registry.go
// included: tools and verifiers the environment never serves. Test files
// do not count as reaching a constructor.
func Unreached(files []File) ([]Constructor, error) {
	reg, err := Scan(files)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".go") || strings.HasSuffix(f.Path, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f.Path, f.Data, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if fn, ok := n.(*ast.FuncDecl); ok {
				// The declaration's own name is not a use, nor is a call
				// of itself; anything else its body names is.
				if fn.Body != nil {
					ast.Inspect(fn.Body, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok && id.Name != fn.Name.Name {
							used[id.Name] = true
						}
						return true
					})
				}
				return false
			}
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name] = true
			}
			return true
		})
	}
	var out []Constructor
	for _, x := range []struct {
		kind  string
		names []string
	}{{"tool", reg.Tools}, {"verifier", reg.Verifiers}} {
		for _, name := range x.names {
			if !used[name] {
				out = append(out, Constructor{Name: name, Kind: x.kind, File: reg.Funcs[name]})
			}
		}
	}
	slices.SortFunc(out, func(a, b Constructor) int { return strings.Compare(a.File+a.Name, b.File+b.Name) })
	return out, nil
}

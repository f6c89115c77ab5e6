package mutate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strconv"
	"strings"
)

// GoMutants lists the mutants of one Go source file, whose text is src
// and whose project-relative path is rel, made with go/ast: each edit
// replaces the span of one node (or one operator token) by text go/printer
// prints for the mutated node.
func GoMutants(rel string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", rel, err)
	}
	g := &goGen{fset: fset, src: src, skip: map[ast.Node]bool{}}
	g.walk(f)
	var out []Mutant
	seen := map[string]bool{}
	for _, e := range g.edits {
		mutated := append(append(append([]byte{}, src[:e.start]...), e.repl...), src[e.end:]...)
		if _, err := parser.ParseFile(token.NewFileSet(), rel, mutated, parser.SkipObjectResolution); err != nil {
			continue // an edit that does not parse is no mutant
		}
		m := newMutant(rel, src, e)
		if !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
	}
	sortMutants(out)
	return out, nil
}

type goGen struct {
	fset  *token.FileSet
	src   []byte
	edits []edit
	// skip are literals no edit may touch: import paths, struct tags,
	// case values (a duplicate case does not compile)
	skip map[ast.Node]bool
	// results are the result types of the functions being walked, the
	// innermost last
	results [][]ast.Expr
}

func (g *goGen) off(p token.Pos) int { return g.fset.Position(p).Offset }

func (g *goGen) add(op string, from, to token.Pos, repl string) {
	g.edits = append(g.edits, edit{op: op, start: g.off(from), end: g.off(to), repl: repl})
}

func (g *goGen) text(n ast.Node) string { return string(g.src[g.off(n.Pos()):g.off(n.End())]) }

// print prints a node the way gofmt would.
func (g *goGen) print(n any) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, g.fset, n); err != nil {
		return ""
	}
	return b.String()
}

func (g *goGen) walk(f *ast.File) {
	for _, imp := range f.Imports {
		g.skip[imp.Path] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			if n.Tok == token.IMPORT {
				return false
			}
		case *ast.FuncDecl:
			if n.Body == nil {
				return false
			}
			g.function(n.Type, n.Body)
			return false
		}
		g.mark(n)
		g.node(n)
		return true
	})
}

// mark notes the literals under n that no edit may touch: struct tags,
// case values (a duplicate case does not compile) and descriptions.
func (g *goGen) mark(n ast.Node) {
	skipLits := func(e ast.Node) {
		ast.Inspect(e, func(m ast.Node) bool {
			if l, ok := m.(*ast.BasicLit); ok {
				g.skip[l] = true
			}
			return true
		})
	}
	switch n := n.(type) {
	case *ast.Field:
		if n.Tag != nil {
			g.skip[n.Tag] = true
		}
	case *ast.CaseClause:
		for _, e := range n.List {
			skipLits(e)
		}
	case *ast.KeyValueExpr:
		var key string
		switch k := n.Key.(type) {
		case *ast.Ident:
			key = k.Name
		case *ast.BasicLit:
			key, _ = strconv.Unquote(k.Value)
		}
		// a tool's or a schema's description reaches the agent's tool
		// list, which no artifact records: emptying it says nothing
		// about the gate
		if strings.EqualFold(key, "description") {
			skipLits(n.Value)
		}
	}
}

// function walks a function body with its result types known.
func (g *goGen) function(t *ast.FuncType, body *ast.BlockStmt) {
	var results []ast.Expr
	if t.Results != nil {
		for _, fld := range t.Results.List {
			for range max(1, len(fld.Names)) {
				results = append(results, fld.Type)
			}
		}
	}
	g.results = append(g.results, results)
	ast.Inspect(body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok {
			g.node(lit)
			g.function(lit.Type, lit.Body)
			return false
		}
		g.mark(n)
		g.node(n)
		return true
	})
	g.results = g.results[:len(g.results)-1]
}

var (
	boundary   = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}
	negated    = map[token.Token]token.Token{token.EQL: token.NEQ, token.NEQ: token.EQL}
	arithmetic = map[token.Token]token.Token{token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL}
	logical    = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}
	// opAssign are the assignments that write through an operator
	opAssign = map[token.Token]bool{token.ADD_ASSIGN: true, token.SUB_ASSIGN: true, token.MUL_ASSIGN: true, token.QUO_ASSIGN: true}
)

// node adds the mutants of one node.
func (g *goGen) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		for _, tab := range []struct {
			op string
			to map[token.Token]token.Token
		}{{OpBoundary, boundary}, {OpNegate, negated}, {OpArithmetic, arithmetic}, {OpLogical, logical}} {
			if to, ok := tab.to[n.Op]; ok {
				if tab.op == OpArithmetic && n.Op == token.ADD && (isString(n.X) || isString(n.Y)) {
					continue // concatenation
				}
				g.add(tab.op, n.OpPos, n.OpPos+token.Pos(len(n.Op.String())), to.String())
			}
		}
	case *ast.IfStmt:
		if u, ok := n.Cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
			g.add(OpNegate, n.Cond.Pos(), n.Cond.End(), g.text(u.X))
		} else {
			g.add(OpNegate, n.Cond.Pos(), n.Cond.End(), "!("+g.text(n.Cond)+")")
		}
	case *ast.BasicLit:
		if g.skip[n] {
			return
		}
		switch n.Kind {
		case token.INT:
			if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil && !strings.ContainsAny(n.Value, "xXoObB_") {
				g.add(OpConstant, n.Pos(), n.End(), strconv.FormatInt(v+1, 10))
			}
		case token.STRING:
			if v, err := strconv.Unquote(n.Value); err == nil && v != "" {
				g.add(OpEmptyText, n.Pos(), n.End(), `""`)
			}
		}
	case *ast.ReturnStmt:
		g.returnZero(n)
	case *ast.AssignStmt:
		if len(n.Lhs) != 1 || len(n.Rhs) != 1 || !writesState(n.Lhs[0]) {
			return
		}
		if n.Tok == token.ASSIGN || opAssign[n.Tok] {
			g.add(OpNoWrite, n.Pos(), n.End(), "_ = "+g.text(n.Rhs[0]))
		}
	case *ast.IncDecStmt:
		if writesState(n.X) {
			g.add(OpNoWrite, n.Pos(), n.End(), "")
		}
	case *ast.CallExpr:
		g.comparator(n)
	}
}

// isString reports whether e is a string literal.
func isString(e ast.Expr) bool {
	l, ok := e.(*ast.BasicLit)
	return ok && l.Kind == token.STRING
}

// writesState reports whether assigning to e writes through a value
// (a field, an element, a pointer) rather than to a local variable.
func writesState(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr, *ast.StarExpr:
		return true
	case *ast.IndexExpr:
		_ = e
		return true
	}
	return false
}

// returnZero replaces the first returned value that is not an error by
// its type's zero.
func (g *goGen) returnZero(r *ast.ReturnStmt) {
	if len(g.results) == 0 {
		return
	}
	types := g.results[len(g.results)-1]
	if len(r.Results) != len(types) {
		return
	}
	for i, res := range r.Results {
		if id, ok := types[i].(*ast.Ident); ok && id.Name == "error" {
			continue
		}
		zero := zeroOf(types[i], g)
		if zero == "" || g.text(res) == zero {
			return
		}
		if id, ok := res.(*ast.Ident); ok && id.Name == "nil" {
			return
		}
		g.add(OpReturnZero, res.Pos(), res.End(), zero)
		return
	}
}

// zeroOf is the Go text of the zero value of the type t.
func zeroOf(t ast.Expr, g *goGen) string {
	switch t := t.(type) {
	case *ast.Ident:
		switch t.Name {
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
			"float32", "float64", "byte", "rune", "uintptr":
			return "0"
		case "string":
			return `""`
		case "bool":
			return "false"
		case "any":
			return "nil"
		}
	case *ast.StarExpr, *ast.MapType, *ast.FuncType, *ast.InterfaceType, *ast.ChanType:
		return "nil"
	case *ast.ArrayType:
		if t.Len == nil {
			return "nil"
		}
	case *ast.Ellipsis:
		return ""
	}
	return "*new(" + g.print(t) + ")"
}

// comparator reverses a sort's comparison: the parameters of the function
// literal given to sort.Slice, sort.SliceStable, slices.SortFunc or
// slices.SortStableFunc swapped, or the arguments of cmp.Compare and
// strings.Compare.
func (g *goGen) comparator(call *ast.CallExpr) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return
	}
	switch pkg.Name + "." + sel.Sel.Name {
	case "cmp.Compare", "strings.Compare":
		if len(call.Args) == 2 {
			g.add(OpSortOrder, call.Args[0].Pos(), call.Args[1].End(), g.text(call.Args[1])+", "+g.text(call.Args[0]))
		}
	case "sort.Slice", "sort.SliceStable", "slices.SortFunc", "slices.SortStableFunc":
		if len(call.Args) != 2 {
			return
		}
		lit, ok := call.Args[1].(*ast.FuncLit)
		if !ok {
			return
		}
		var names []*ast.Ident
		for _, f := range lit.Type.Params.List {
			names = append(names, f.Names...)
		}
		if len(names) != 2 || names[0].Name == "_" || names[1].Name == "_" {
			return
		}
		var fields []string
		for _, f := range lit.Type.Params.List {
			var ns []string
			for _, n := range f.Names {
				other := names[0]
				if n == names[0] {
					other = names[1]
				}
				ns = append(ns, other.Name)
			}
			fields = append(fields, strings.Join(ns, ", ")+" "+g.print(f.Type))
		}
		g.add(OpSortOrder, lit.Type.Params.Pos(), lit.Type.Params.End(), "("+strings.Join(fields, ", ")+")")
	}
}

package scaffold

import (
	"fmt"
	"go/build"
	"go/token"
	"io"
	"regexp"
	"strings"
	"unicode"

	"github.com/agent-oracle/oracle/env"
)

var (
	packageName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	toolName    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	verifierID  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
)

// CheckPackageName reports whether name can name both an environment and
// its Go package: lower-case letters, digits and underscores, starting with
// a letter, not a Go keyword, not main.
func CheckPackageName(name string) error {
	if err := env.CheckName(name); err != nil {
		return err
	}
	switch {
	case !packageName.MatchString(name):
		return fmt.Errorf("%q is not a Go package name; use lower-case letters, digits and underscores, starting with a letter", name)
	case token.IsKeyword(name) || name == "main":
		return fmt.Errorf("%q is reserved in Go; choose another name", name)
	}
	return checkFileName(name + ".go")
}

// CheckToolName reports whether name can name a tool: lower-case snake_case
// of at most 64 characters, as model providers accept for tool names.
func CheckToolName(name string) error {
	if !toolName.MatchString(name) {
		return fmt.Errorf("%q is not a tool name; use lower-case letters, digits and underscores, starting with a letter (list_invoices)", name)
	}
	return checkFileName(ToolFile(name))
}

// CheckVerifierID reports whether id can name a verifier whose Go file and
// constructor derive from it: letters, digits, '-' and '_', starting with a
// letter (VER-007).
func CheckVerifierID(id string) error {
	if !verifierID.MatchString(id) {
		return fmt.Errorf("%q is not a verifier id; use letters, digits, '-' and '_', starting with a letter (VER-007)", id)
	}
	return checkFileName(VerifierFile(id))
}

// ToolFile is the file of the tool called name: tool_<name>.go.
func ToolFile(name string) string { return "tool_" + name + ".go" }

// ToolIdent is the constructor of the tool called name: list_invoices gives
// listInvoicesTool.
func ToolIdent(name string) string { return ident(name) + "Tool" }

// VerifierFile is the file of the verifier id: VER-007 gives
// verifier_ver_007.go.
func VerifierFile(id string) string {
	return "verifier_" + strings.ToLower(strings.ReplaceAll(id, "-", "_")) + ".go"
}

// VerifierIdent is the constructor of the verifier id: VER-007 gives
// ver007Verifier.
func VerifierIdent(id string) string { return ident(id) + "Verifier" }

// ident turns a name into a lower camel-case Go identifier: its words, split
// at '-' and '_', the first in lower case and the others capitalised.
func ident(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' })
	var b strings.Builder
	for i, w := range words {
		w = strings.ToLower(w)
		if i > 0 {
			r := []rune(w)
			r[0] = unicode.ToUpper(r[0])
			w = string(r)
		}
		b.WriteString(w)
	}
	return b.String()
}

// checkFileName refuses a Go file name that the go command would build only
// on some systems (a _linux or _amd64 suffix) or treat as a test.
func checkFileName(name string) error {
	if strings.HasSuffix(name, "_test.go") {
		return fmt.Errorf("%s would be a test file; choose a name that does not end in _test", name)
	}
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = "none", "none"
	ctx.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("package p\n")), nil }
	if ok, err := ctx.MatchFile(".", name); err != nil || !ok {
		return fmt.Errorf("%s would build only on some systems (its name ends in an OS or architecture); choose another name", name)
	}
	return nil
}

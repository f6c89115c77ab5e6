package scaffold

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnreached(t *testing.T) {
	files := []File{
		{"a.go", []byte("package desk\n\nimport \"github.com/agent-oracle/oracle/env\"\n\n" +
			"func usedTool() env.Tool[State] { return env.Tool[State]{} }\n" +
			"func lostTool() env.Tool[State] { return lostTool() }\n" + // calling itself is no use
			"func handVerifier() env.Verifier[State] { return env.Verifier[State]{} }\n" +
			"func lostVerifier() env.Verifier[State] { return env.Verifier[State]{} }\n" +
			"func list() []env.Verifier[State] { return []env.Verifier[State]{handVerifier()} }\n")},
		{RegistryFile, []byte("package desk\n\nfunc tools() []env.Tool[State] { return []env.Tool[State]{usedTool()} }\n")},
		{"a_test.go", []byte("package desk\n\nvar _ = lostVerifier\n")},
	}
	got, err := Unreached(files)
	if err != nil {
		t.Fatal(err)
	}
	want := []Constructor{{"lostTool", "tool", "a.go"}, {"lostVerifier", "verifier", "a.go"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unreached (-want +got):\n%s", diff)
	}
}

func TestRegister(t *testing.T) {
	main, err := MainFile(Binary{Program: "desk-oracle", Import: "example.com/p/envs/desk", Package: "desk"})
	if err != nil {
		t.Fatal(err)
	}
	src, err := Register(main.Data, "example.com/p/envs/env", "env")
	if err != nil {
		t.Fatal(err)
	}
	for _, needle := range []string{"\tenvenv \"example.com/p/envs/env\"\n", "\t\tdesk.New,\n\t\tenvenv.New,\n"} {
		if !strings.Contains(string(src), needle) {
			t.Errorf("registered main.go lacks %q:\n%s", needle, src)
		}
	}
	again, err := Register(src, "example.com/p/envs/env", "env")
	if err != nil || string(again) != string(src) {
		t.Errorf("registering twice changed main.go (%v)", err)
	}
	if _, err := Register([]byte("package main\n\nimport (\n\t\"os\"\n)\n\nfunc main() { os.Exit(0) }\n"), "x/y", "y"); err == nil {
		t.Error("Register of a main.go without an environments list succeeded")
	}
}

func TestWithLines(t *testing.T) {
	tests := []struct{ old, want string }{
		{"", "a\nb\n"},
		{"a", "a\nb\n"},
		{"b\n a \n", "b\n a \n"},
		{"x\n", "x\na\nb\n"},
	}
	for _, tt := range tests {
		got, changed := WithLines([]byte(tt.old), []string{"a", "b"})
		if string(got) != tt.want || changed != (tt.old != tt.want) {
			t.Errorf("WithLines(%q) = %q, %v; want %q", tt.old, got, changed, tt.want)
		}
	}
}

func TestGoMod(t *testing.T) {
	oracle := "module github.com/agent-oracle/oracle\n\ngo 1.26\n\nrequire (\n\tgithub.com/a/b v1.0.0\n\tgithub.com/c/d v0.2.0 // indirect\n)\n\nrequire github.com/e/f v1.1.0\n"
	got := string(GoMod("example.com/p", "0.1.0", "/src/my oracle", []byte(oracle)).Data)
	want := "module example.com/p\n\ngo 1.26\n\nrequire github.com/agent-oracle/oracle v0.1.0\n\nrequire (\n" +
		"\tgithub.com/a/b v1.0.0 // indirect\n\tgithub.com/c/d v0.2.0 // indirect\n\tgithub.com/e/f v1.1.0 // indirect\n)\n\n" +
		"// oracle is not published yet: build it from a local checkout.\nreplace github.com/agent-oracle/oracle => \"/src/my oracle\"\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("go.mod (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"bad name", "../x", "/abs", "a//b", ""} {
		if CheckModulePath(bad) == nil {
			t.Errorf("CheckModulePath(%q) = nil", bad)
		}
	}
}

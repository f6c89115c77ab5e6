package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

// needBwrap skips the test when bubblewrap does not work here.
func needBwrap(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("a sandboxed rollout is slow; go test -short leaves it out")
	}
	if _, err := BwrapStatus(); err != nil {
		t.Skipf("the sandbox needs bubblewrap: %v; install the bubblewrap package", err)
	}
}

// sandboxProject makes a project with a baseline, an environment's folder and an
// agent outside it, and returns its root.
func sandboxProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, data := range map[string]string{
		".silo/baselines/toy/a/T-1.result.json":      `{}`,
		".silo/environments/toy/" + env.ManifestFile: `{"name":"toy","template":"toy","templateVersion":"0.1.0","entrypoint":"envs/toy","tools":[]}`,
		"envs/toy/verifiers.go":                      "package toy\n",
		"envs/toy/candidates/T-1.json":               "[]\n",
		"agents/agent.py":                            "print()\n",
		"agents/venv/bin/python":                     "",
	} {
		writeTestFile(t, filepath.Join(root, name), data)
	}
	return root
}

func writeTestFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestPlanBwrapRefuses: nothing bound into the sandbox is or holds .silo or
// an environment's folder, however it is named; a project that holds the
// system cannot be hidden.
func TestPlanBwrapRefuses(t *testing.T) {
	root := sandboxProject(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(root, ".silo"), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		s       Sandbox
		command string
		want    string
	}{
		{"the project is /", Sandbox{Project: "/"}, "true", "the project folder / holds /bin"},
		{"the project is /usr", Sandbox{Project: "/usr"}, "true", "holds /usr"},
		{"a baseline in the command", Sandbox{Project: root}, "cat " + filepath.Join(root, ".silo/baselines/toy/a/T-1.result.json"), "which an agent may never see"},
		{"a quoted verifier in the command", Sandbox{Project: root}, `python3 "` + filepath.Join(root, "envs/toy/verifiers.go") + `"`, "envs/toy, which an agent may never see"},
		{"a candidate", Sandbox{Project: root}, "x " + filepath.Join(root, "envs/toy/candidates/T-1.json"), "envs/toy, which"},
		{"--agent-ro the project", Sandbox{Project: root, ReadOnly: []string{root}}, "true", "holds " + filepath.Join(root, ".silo")},
		{"--agent-ro an environment", Sandbox{Project: root, ReadOnly: []string{filepath.Join(root, "envs")}}, "true", "holds " + filepath.Join(root, "envs/toy")},
		{"--agent-ro a link to .silo", Sandbox{Project: root, ReadOnly: []string{link}}, "true", "is or holds " + filepath.Join(root, ".silo")},
		{"--agent-ro a path that is not there", Sandbox{Project: root, ReadOnly: []string{filepath.Join(root, "nothing")}}, "true", "give a path that exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := planBwrap(tt.s, tt.command, []string{"PATH=/usr/bin:/bin"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// TestPlanBwrapBinds: the project, the home, /tmp and /run are hidden; what
// the command names in them, the PATH folders in them (exactly those, and
// for shims their version manager's root) and --agent-ro are bound
// read-only.
func TestPlanBwrapBinds(t *testing.T) {
	root := sandboxProject(t)
	home := t.TempDir()
	writeTestFile(t, filepath.Join(home, ".pyenv", "shims", "python3"), "#!/bin/sh\n")
	t.Setenv("HOME", home)
	agent := filepath.Join(root, "agents", "agent.py")
	venv := filepath.Join(root, "agents", "venv")
	p, err := planBwrap(Sandbox{Project: root, ReadOnly: []string{venv}}, "python3 '"+agent+"' --flag", []string{"PATH=" + filepath.Join(home, ".pyenv", "shims") + ":/usr/bin"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"/tmp", home, root} {
		if !hidden(p.hide, h) {
			t.Errorf("%s is not hidden; hidden: %v", h, p.hide)
		}
	}
	var ro []string
	for _, b := range p.ro {
		ro = append(ro, b.dst)
	}
	// a folder of shims: the version manager's root that holds it
	want := []string{filepath.Join(home, ".pyenv", "shims"), filepath.Join(home, ".pyenv"), agent, venv}
	for _, w := range want {
		if !slices.Contains(ro, w) {
			t.Errorf("%s is not bound; bound: %v", w, ro)
		}
	}
	args := strings.Join(p.args("/w", "/h", 5, false), " ")
	for _, w := range []string{"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop ALL", "--proc /proc", "--tmpfs /tmp", "--remount-ro /run", "--bind /h /h", "--chdir /w"} {
		if !strings.Contains(args, w) {
			t.Errorf("bwrap's arguments lack %q: %s", w, args)
		}
	}
	if strings.Contains(args, "--share-net") {
		t.Error("the network is on without Net")
	}
	p.net = true
	if args := strings.Join(p.args("/w", "/h", 5, false), " "); !strings.Contains(args, "--unshare-all --share-net") {
		t.Errorf("Net does not share the network: %s", args)
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"python3 /a/b.py", []string{"python3", "/a/b.py"}},
		{`python3 '/a b/c.py' "/d \"e\"" f\ g`, []string{"python3", "/a b/c.py", `/d "e"`, "f g"}},
		{"cd /x&&./run;echo|cat>/out", []string{"cd", "/x", "./run", "echo", "cat", "/out"}},
		{"a'b'\"c\"d", []string{"abcd"}},
		{"''", []string{""}},
		{"unclosed 'quote", []string{"unclosed", "quote"}},
		{"  \t\n", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, shellWords(tt.in)); diff != "" {
			t.Errorf("shellWords(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzShellWords(f *testing.F) {
	for _, s := range []string{"python3 /a/b.py", `a "b\"c" 'd'\ e`, "x;y|z", `"unclosed`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := shellWords(s)
		// a command without quotes or backslashes splits as fields do
		if !strings.ContainsAny(s, `'"\`) {
			want := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t\n;&|<>()", r) })
			if diff := cmp.Diff(want, words, cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })); len(want)+len(words) > 0 && diff != "" {
				t.Errorf("shellWords(%q) (-fields +got):\n%s", s, diff)
			}
		}
	})
}

// TestPlanBwrapPathSpellings: however PATH spells the home (a trailing
// slash, "..", ".", a doubled slash, a symlink to it), the home is not
// bound, nor a folder above a PATH folder (~/.cargo for ~/.cargo/bin), nor
// another user's home or a whole hidden place; the PATH folders inside are
// bound exactly, at their real path and the one PATH names.
func TestPlanBwrapPathSpellings(t *testing.T) {
	home := t.TempDir()
	for _, f := range []string{".ssh/id_rsa", ".cargo/credentials.toml", ".cargo/bin/cargo", "bin/tool", "tools/real/bin/x", "shims/python3"} {
		writeTestFile(t, filepath.Join(home, f), "secret\n")
	}
	links := t.TempDir()
	for name, target := range map[string]string{"home": home, "cargo": filepath.Join(home, ".cargo"), "bin": filepath.Join(home, "tools", "real", "bin")} {
		if err := os.Symlink(target, filepath.Join(links, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, "tools", "real", "bin"), filepath.Join(home, "linked-bin")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	path := strings.Join([]string{
		home + "/", home + "/bin/..", home + "/.", home + "//", home + "/.cargo/bin/../..", filepath.Join(links, "home"),
		filepath.Join(links, "home") + "/", filepath.Join(links, "cargo", "bin"),
		home + "/.cargo/bin", home + "//bin/", home + "/linked-bin", "/tmp", "/var", "/run/", "/home", "/home/someone", "/", "relative/bin",
		home + "/shims", // a folder of shims right in the home: its parent, the home, is not bound
	}, ":")
	p, err := planBwrap(Sandbox{}, "true", []string{"PATH=" + path + ":/usr/bin"})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(home, ".cargo", "credentials.toml")} {
		for _, b := range p.ro {
			if within(secret, b.src) || within(secret, b.dst) {
				t.Errorf("%s is bound on %s: %s is in sight", b.src, b.dst, secret)
			}
		}
	}
	var dsts []string
	for _, b := range p.ro {
		dsts = append(dsts, b.dst)
		if slices.Contains(p.hide, b.dst) || slices.Contains(p.hide, b.src) {
			t.Errorf("a whole hidden place is bound: %v", b)
		}
	}
	for _, want := range []string{filepath.Join(home, ".cargo", "bin"), filepath.Join(home, "bin"), filepath.Join(home, "tools", "real", "bin"), filepath.Join(home, "linked-bin")} {
		if !slices.Contains(dsts, want) {
			t.Errorf("the PATH folder %s is not bound; bound: %v", want, dsts)
		}
	}
	for _, h := range []string{home, "/tmp", "/run"} {
		if !hidden(p.hide, h) {
			t.Errorf("%s is not hidden: %v", h, p.hide)
		}
	}
}

package mutate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goSample = `package p

import (
	"cmp"
	"slices"
	"strings"
)

type S struct {
	N    int ` + "`json:\"n\"`" + `
	Seen map[string]bool
}

func f(s *S, a, b int, xs []string) (int, error) {
	if a < b && b >= 3 {
		s.N = a + b*2
	}
	s.N++
	switch a {
	case 1:
		return 0, nil
	}
	slices.SortFunc(xs, func(x, y string) int { return cmp.Compare(x, y) })
	return s.N, nil
}

func name(s string) string { return strings.TrimSpace(s) + "!" }
`

// TestGoMutants: each operator where it applies, and nowhere else: not
// in imports, struct tags or case values.
func TestGoMutants(t *testing.T) {
	ms, err := GoMutants("p/p.go", []byte(goSample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Operator+" "+m.Change())
	}
	want := []string{
		"negate `a < b && b >= 3` → `!(a < b && b >= 3)`",
		"boundary `<` → `<=`",
		"logical `&&` → `||`",
		"boundary `>=` → `>`",
		"constant `3` → `4`",
		"no-write `s.N = a + b*2` → `_ = a + b*2`",
		"arithmetic `+` → `-`",
		"arithmetic `*` → `/`",
		"constant `2` → `3`",
		"no-write removed `s.N++`",
		"constant `0` → `1`",
		"sort-order `(x, y string)` → `(y, x string)`",
		"return-zero `cmp.Compare(x, y)` → `0`",
		"sort-order `x, y` → `y, x`",
		"return-zero `s.N` → `0`",
		"return-zero `strings.TrimSpace(s) + \"!\"` → `\"\"`",
		"empty-string `\"!\"` → `\"\"`",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mutants (-want +got):\n%s", diff)
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.ID] {
			t.Errorf("id %s twice", m.ID)
		}
		seen[m.ID] = true
		if !strings.HasPrefix(m.ID, "p/p.go:") {
			t.Errorf("id %s does not start with its file", m.ID)
		}
	}
	// the ids do not depend on the other mutants or the order of listing
	again, _ := GoMutants("p/p.go", []byte(goSample))
	if diff := cmp.Diff(ms, again); diff != "" {
		t.Errorf("a second listing differs:\n%s", diff)
	}
}

// TestDiffApplies: every mutant's diff applies with patch -p1 and gives
// the mutated file.
func TestDiffApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("needs patch(1):", err)
	}
	ms, err := GoMutants("p/p.go", []byte(goSample))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		dir := t.TempDir()
		file := filepath.Join(dir, "p", "p.go")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(goSample), 0o644); err != nil {
			t.Fatal(err)
		}
		diff, err := m.Diff([]byte(goSample))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("patch", "-p1", "--quiet")
		cmd.Dir, cmd.Stdin = dir, strings.NewReader(diff)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: patch: %v\n%s\n%s", m.ID, err, out, diff)
		}
		got, _ := os.ReadFile(file)
		want, _ := m.Apply([]byte(goSample))
		if string(got) != string(want) {
			t.Errorf("%s: patched file differs from the mutant", m.ID)
		}
	}
}

func TestDiffShape(t *testing.T) {
	src := []byte("a\nb\nc\nd\ne\nf\ng\nh\n")
	m := newMutant("x.txt", src, edit{op: OpEmptyText, start: 8, end: 9, repl: "E"})
	got, err := m.Diff(src)
	if err != nil {
		t.Fatal(err)
	}
	want := "--- a/x.txt\n+++ b/x.txt\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
	if _, err := m.Apply([]byte("changed")); err == nil {
		t.Error("a mutant applied to another text")
	}
}

func TestSample(t *testing.T) {
	var ms []Mutant
	for i := range 50 {
		ms = append(ms, Mutant{ID: string(rune('a' + i)), Start: i})
	}
	a, b, c := Sample(ms, 10, 7), Sample(ms, 10, 7), Sample(ms, 10, 8)
	if len(a) != 10 || cmp.Diff(a, b) != "" {
		t.Fatalf("the same seed gave %d and %d mutants, or others", len(a), len(b))
	}
	if cmp.Diff(a, c) == "" {
		t.Error("another seed gave the same sample")
	}
	for i := 1; i < len(a); i++ {
		if a[i-1].Start >= a[i].Start {
			t.Error("the sample is out of order")
		}
	}
	if len(Sample(ms, 0, 1)) != 50 || len(Sample(ms, 60, 1)) != 50 {
		t.Error("--max 0 or above the count did not keep every mutant")
	}
}

func TestChangedLines(t *testing.T) {
	diff := "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -3 +3 @@\n-a\n+b\n@@ -10,0 +11,2 @@\n+c\n+d\n@@ -20,2 +22,0 @@\n-e\n-f\n" +
		"diff --git a/gone.go b/gone.go\n--- a/gone.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
	got, err := parseChangedLines([]byte(diff))
	if err != nil {
		t.Fatal(err)
	}
	want := Lines{"x.go": {3: true, 11: true, 12: true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	if _, err := parseChangedLines([]byte("+++ b/x.go\n@@ bad @@\n")); err == nil {
		t.Error("a bad hunk header was read")
	}
}

func TestCoverage(t *testing.T) {
	profile := "mode: set\nm/p/a.go:3.10,5.2 2 1\nm/p/a.go:6.1,8.2 1 0\nm/other/b.go:1.1,2.2 1 1\n"
	cov, err := parseGoProfile([]byte(profile), map[string]string{"m/p/a.go": "p/a.go"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line, col      int
		covered, known bool
	}{{4, 1, true, true}, {3, 10, true, true}, {3, 9, false, false}, {7, 3, false, true}, {9, 1, false, false}} {
		c, k := cov.Covers("p/a.go", tc.line, tc.col)
		if c != tc.covered || k != tc.known {
			t.Errorf("%d:%d: covered %v known %v, want %v %v", tc.line, tc.col, c, k, tc.covered, tc.known)
		}
	}
	if _, ok := cov["other/b.go"]; ok {
		t.Error("a file of another package was read")
	}
}

func TestSkippedFile(t *testing.T) {
	for name, want := range map[string]bool{
		"tools.go": false, "logic.go": false, "verifiers.go": true, "verifier_ver_001.go": true, "solver.go": true,
		"solver_views.go": true, "mutants.go": true, "x_test.go": true, "solver.agent.ts": true, "test_env.py": true, "env.py": false,
	} {
		if got := skippedFile(name, nil); got != want {
			t.Errorf("%s: skipped %v, want %v", name, got, want)
		}
	}
	if !skippedFile("stumbler.go", []byte("// oracle:mutate-skip\npackage crm\n")) {
		t.Error("a file marked oracle:mutate-skip was kept")
	}
}

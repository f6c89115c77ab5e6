package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/oracle"
)

// BenchmarkDiffTrees is `oracle diff` of two baseline trees of 1,000 cases
// (three artifact files each, about 2 KiB a file), 1% of the files changed.
func BenchmarkDiffTrees(b *testing.B) {
	const cases = 1000
	a, c := b.TempDir(), b.TempDir()
	for i := range cases {
		for j, name := range []string{"result.json", "state-diff.json", "calls.json"} {
			file := filepath.Join("synth", "solver", fmt.Sprintf("TASK-%05d.%s", i, name))
			body := artifact(i, j, 0)
			other := body
			if (i*3+j)%100 == 0 {
				other = artifact(i, j, 1)
			}
			for _, x := range []struct{ root, body string }{{a, body}, {c, other}} {
				path := filepath.Join(x.root, file)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(x.body), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	defer measureCPU(b)()
	for b.Loop() {
		diffs, err := oracle.DiffPaths(a, c, false)
		if err != nil {
			b.Fatal(err)
		}
		if len(diffs) != cases*3/100 {
			b.Fatalf("%d files differ, want %d", len(diffs), cases*3/100)
		}
	}
}

// artifact is a JSON object of about 2 KiB for case i, file j, version v.
func artifact(i, j, v int) string {
	var s strings.Builder
	fmt.Fprintf(&s, "{\n  \"case\": %d,\n  \"file\": %d,\n  \"entities\": [", i, j)
	for k := range 20 {
		if k > 0 {
			s.WriteString(",")
		}
		fmt.Fprintf(&s, "\n    {\"id\": \"E-%03d\", \"status\": \"open\", \"owner\": \"rep-%d\", \"amount\": %d}", k, k%7, k*100+v*(k%2))
	}
	s.WriteString("\n  ]\n}\n")
	return s.String()
}

package baseline

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLockLargeStore takes and releases the lock of a store of 10,000
// cases (three files each), as every record does first.
func BenchmarkLockLargeStore(b *testing.B) {
	s := &Store{Root: b.TempDir()}
	for i := range 10_000 {
		dir := filepath.Join(s.Root, "synth", "solver", fmt.Sprintf("TASK-%06d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for _, name := range Files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		unlock, err := s.Lock()
		if err != nil {
			b.Fatal(err)
		}
		if err := unlock(); err != nil {
			b.Fatal(err)
		}
	}
}

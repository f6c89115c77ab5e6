//go:build unix

package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMutateInterrupted stops oracle mutate with SIGINT and with SIGTERM
// once it has finished a mutant: it exits 2 within seconds, its mutants'
// copies of the project are gone from TMPDIR, and the project is byte for
// byte as it was. The environment is the Python tickets fixture, whose
// mutants need no build.
func TestMutateInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs mutants of a Python environment")
	}
	for _, bin := range []string{"python3", "node"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("needs %s: %v", bin, err)
		}
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			if err := os.CopyFS(filepath.Join(dir, ".silo", "environments", "tickets"), os.DirFS(filepath.Join("..", "..", "fixtures", "py", "tickets"))); err != nil {
				t.Fatal(err)
			}
			oracle := func(args ...string) *exec.Cmd {
				cmd := exec.Command(os.Args[0], append([]string{"oracle", "-C", dir}, args...)...)
				cmd.Env = append(os.Environ(), runMainEnv+"=1", "NO_COLOR=1", "TMPDIR="+tmp)
				return cmd
			}
			if out, err := oracle("record").CombinedOutput(); err != nil {
				t.Fatalf("record: %v\n%s", err, out)
			}
			before := treeSum(t, dir)
			cmd := oracle("mutate", "--jobs", "1")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var seen strings.Builder
			lines := bufio.NewScanner(io.TeeReader(stderr, &seen))
			for lines.Scan() && !strings.HasPrefix(lines.Text(), "mutate: 1/") {
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go io.Copy(io.Discard, stderr)
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("mutate still runs 30s after %v", sig)
			}
			if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 {
				t.Errorf("after %v: %v, want exit status 2; stderr:\n%s", sig, err, seen.String())
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("mutate took %v to stop after %v", d, sig)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "oracle-mutate-*")); len(left) > 0 {
				t.Errorf("after %v the temporary folders remain: %v", sig, left)
			}
			if after := treeSum(t, dir); after != before {
				t.Errorf("after %v the project changed", sig)
			}
		})
	}
}

// treeSum is a digest of every path, mode and content under dir.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, info.Mode())
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

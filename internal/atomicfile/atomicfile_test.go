package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, base, outside string) (path string)
		hook  func(f *os.File, data []byte) (int, error)
		err   string
		// want is the bytes path holds afterwards; outside must still hold "outside"
		want string
	}{
		{
			name:  "new file in new folders",
			setup: func(t *testing.T, base, _ string) string { return filepath.Join(base, "a", "b", "f.json") },
			want:  "new",
		},
		{
			name: "replaces an old file",
			setup: func(t *testing.T, base, _ string) string {
				p := filepath.Join(base, "f.json")
				mustWrite(t, p, "old")
				return p
			},
			want: "new",
		},
		{
			name: "a symlink at the path is refused",
			setup: func(t *testing.T, base, outside string) string {
				p := filepath.Join(base, "f.json")
				mustLink(t, filepath.Join(outside, "target"), p)
				return p
			},
			err: "is a symlink",
		},
		{
			name: "a symlinked folder is refused",
			setup: func(t *testing.T, base, outside string) string {
				mustLink(t, outside, filepath.Join(base, "dir"))
				return filepath.Join(base, "dir", "target")
			},
			err: "symlink",
		},
		{
			name: "a failed write leaves the old bytes and no temporary file",
			setup: func(t *testing.T, base, _ string) string {
				p := filepath.Join(base, "f.json")
				mustWrite(t, p, "old")
				return p
			},
			hook: func(f *os.File, data []byte) (int, error) {
				if f == nil { // (WriteFrom: the first piece is written)
					return 0, errors.New("no space left on device")
				}
				n, _ := f.Write(data[:1])
				return n, errors.New("no space left on device")
			},
			err:  "no space left",
			want: "old",
		},
	}
	// WriteFrom writes what a function writes, in two pieces; the hook's
	// failure is the function's, after the first piece
	writeFrom := func(w Writer, path string, data []byte) error {
		hook := w.WriteHook
		w.WriteHook = nil
		return w.WriteFrom(path, func(out io.Writer) error {
			if _, err := out.Write(data[:1]); err != nil {
				return err
			}
			if hook != nil {
				_, err := hook(nil, data)
				return err
			}
			_, err := out.Write(data[1:])
			return err
		})
	}
	for _, tt := range tests {
		for via, write := range map[string]func(w Writer, path string, data []byte) error{"Write": Writer.Write, "WriteFrom": writeFrom} {
			t.Run(tt.name+"/"+via, func(t *testing.T) {
				base, outside := t.TempDir(), t.TempDir()
				mustWrite(t, filepath.Join(outside, "target"), "outside")
				path := tt.setup(t, base, outside)
				err := write(Writer{Base: base, WriteHook: tt.hook}, path, []byte("new"))
				if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
					t.Fatalf("%s = %v, want error %q", via, err, tt.err)
				}
				if got, _ := os.ReadFile(filepath.Join(outside, "target")); string(got) != "outside" {
					t.Errorf("the file outside holds %q", got)
				}
				if tt.want != "" {
					if got, _ := os.ReadFile(path); string(got) != tt.want {
						t.Errorf("%s holds %q, want %q", path, got, tt.want)
					}
					entries, _ := os.ReadDir(filepath.Dir(path))
					for _, e := range entries {
						if strings.Contains(e.Name(), ".tmp-") {
							t.Errorf("temporary file left: %s", e.Name())
						}
					}
				}
			})
		}
	}
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks: %v", err)
	}
}

// A temporary file is a new file: one already at the name WriteTempIn
// would take next (a writer killed earlier whose process id came back) is
// left as it is, and the next name is taken. Its mode is 0644 whatever the
// umask.
func TestWriteTempTakesAFreeName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	next := filepath.Join(dir, ".f.json.tmp-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(tempCount.Load()+1, 10))
	mustWrite(t, next, "left by a killed writer")
	name, err := Writer{Base: dir}.WriteTempIn(path, []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	if name == next {
		t.Fatalf("WriteTempIn took %s, which was there", name)
	}
	if got, _ := os.ReadFile(next); string(got) != "left by a killed writer" {
		t.Errorf("the file at the taken name holds %q", got)
	}
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); string(got) != "new" || info.Mode().Perm() != 0o644 {
		t.Errorf("%s holds %q with mode %v", name, got, info.Mode().Perm())
	}
}

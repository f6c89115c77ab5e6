//go:build unix

package baseline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// A distribution's file that is a symlink, or a folder on its way that is
// one, is refused by every reader and writer, naming it.
func TestStatsFollowNoSymlink(t *testing.T) {
	s, outside := hostileProject(t)
	secret := filepath.Join(outside, "secret.json")
	path := s.Path(key, StatsFile)
	if err := os.Symlink(secret, path); err != nil {
		t.Fatal(err)
	}
	_, err := s.ReadStats(key)
	wantNamed(t, err, path, safeio.ErrSymlink)
	_, err = s.Reader().ReadStats(key)
	wantNamed(t, err, path, safeio.ErrSymlink)
	_, err = s.KindOf(key)
	wantNamed(t, err, path, safeio.ErrSymlink)
	// writing the byte-for-byte kind would remove it: refused before
	// anything is written, and the file outside is untouched
	before, _ := os.ReadFile(s.Path(key, "result.json"))
	_, err = s.Write(key, Entry{Result: []byte("{\"n\": 1}\n")})
	wantNamed(t, err, path, safeio.ErrSymlink)
	if after, _ := os.ReadFile(s.Path(key, "result.json")); string(after) != string(before) {
		t.Errorf("result.json was written: %q", after)
	}
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("the file outside: %v", err)
	}
	os.Remove(path)
	replaceWithSymlink(t, filepath.Join(s.Root, key.Env, key.Agent), filepath.Join(outside, "crm"))
	_, err = s.KindOf(key)
	wantNamed(t, err, filepath.Join(s.Root, key.Env, key.Agent), safeio.ErrSymlink)
}

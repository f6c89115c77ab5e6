package host

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// scripts are the hosts that ship with oracle: node/ (host.mjs, its hooks
// and the @burn0/silo it supplies) and python/ (host.py and oracle_env.py).
//
//go:embed node/host.mjs node/hooks.mjs node/cjs.mjs node/silo/index.mjs node/silo/index.d.ts node/silo/package.json python/host.py python/oracle_env.py
var scripts embed.FS

var installed struct {
	once   sync.Once
	dir    string
	cached bool // dir is in the user's cache, and lasts
	err    error
}

// scriptDir returns the folder the embedded hosts are written to, once per
// process: a folder of the user's cache named by their content
// (<cache>/oracle/hosts/<hash>), private to the user, written once and
// checked on every start, or a fresh temporary folder where there is no
// cache.
func scriptDir() (string, error) {
	installed.once.Do(func() {
		installed.dir, installed.cached, installed.err = install()
	})
	return installed.dir, installed.err
}

// hostCache returns the folder where the hosts keep what makes their next
// start cheaper (cache/ beside the scripts, so a new version of them
// starts afresh), or "" where the scripts are not in the user's cache.
func hostCache() string {
	dir, err := scriptDir()
	if err != nil || !installed.cached {
		return ""
	}
	return filepath.Join(dir, "cache")
}

func install() (string, bool, error) {
	files, sum, err := scriptFiles()
	if err != nil {
		return "", false, err
	}
	if cache, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(cache, "oracle", "hosts", sum[:16])
		if err := writeScripts(dir, files); err == nil && checkPrivate(cache, dir, files) == nil {
			return dir, true, nil
		}
	}
	dir, err := os.MkdirTemp("", "oracle-hosts-")
	if err != nil {
		return "", false, fmt.Errorf("write the environment hosts: %w; set TMPDIR to a writable folder", err)
	}
	if err := writeScripts(dir, files); err != nil {
		return "", false, fmt.Errorf("write the environment hosts: %w", err)
	}
	return dir, false, nil
}

// scriptFiles returns the embedded files by path and the hash of them all.
func scriptFiles() (map[string][]byte, string, error) {
	files := map[string][]byte{}
	var names []string
	err := fs.WalkDir(scripts, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := scripts.ReadFile(p)
		files[p] = data
		names = append(names, p)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return files, hex.EncodeToString(h.Sum(nil)), nil
}

// checkPrivate checks that what a host executes from dir, in the user's
// cache folder cache, is the user's alone: dir and the folders between
// the cache and it owned by the user and written by no one else, no link
// among them, and dir holding exactly files (and the hosts' cache/
// folder), each a regular file of the user's that no one else may write.
// Where it is not (a shared cache, a file planted beside the scripts,
// such as a json.py the Python host would import), the hosts run from a
// fresh temporary folder instead.
func checkPrivate(cache, dir string, files map[string][]byte) error {
	rel, err := filepath.Rel(cache, dir)
	if err != nil {
		return err
	}
	at := cache
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, part)
		if err := private(at, true); err != nil {
			return err
		}
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		r, _ := filepath.Rel(dir, p)
		r = filepath.ToSlash(r)
		switch {
		case r == "cache" || strings.HasPrefix(r, "cache/"):
			if d.IsDir() {
				return private(p, true)
			}
			return nil // the hosts' records, data they check as they read
		case d.IsDir():
			return private(p, true)
		case files[r] == nil:
			return fmt.Errorf("%s is not a file of the hosts", p)
		}
		return private(p, false)
	})
}

// private checks that path is a folder (or a regular file) of the user's,
// reached as itself, that no one else may write.
func private(path string, folder bool) error {
	info, err := os.Lstat(path)
	switch {
	case err != nil:
		return err
	case folder && !info.IsDir(), !folder && !info.Mode().IsRegular():
		return fmt.Errorf("%s is a link or not a %s", path, map[bool]string{true: "folder", false: "regular file"}[folder])
	case info.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s may be written by others (mode %v)", path, info.Mode().Perm())
	case !ownedByUser(info):
		return fmt.Errorf("%s is not the user's", path)
	}
	return nil
}

// writeScripts makes dir hold exactly files' bytes: a file that is missing
// or differs is written again (to a temporary name, then renamed).
func writeScripts(dir string, files map[string][]byte) error {
	for p, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			if info, err := os.Lstat(path); err == nil && info.Mode().IsRegular() {
				continue
			}
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(data)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), path); err != nil {
			os.Remove(tmp.Name())
			return err
		}
	}
	return nil
}

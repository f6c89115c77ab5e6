package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/internal/safeio"
)

// NoBaselineHash is the hash of a case that has no baseline: none of its
// files exists.
const NoBaselineHash = "none"

// hashPrefix starts every other hash: the algorithm, so that a reader
// tells a hash of another kind from a changed baseline.
const hashPrefix = "sha256:"

// HashEntry is the hash of a baseline's bytes: sha256 over each file the
// entry holds, in a fixed order (Files, then StatsFile), each given with
// its name and length, so that no two entries share a hash by moving bytes
// from one file to another; NoBaselineHash when it holds no file. A check
// records it for each case, and accept compares it with the store's
// (Store.Hash) before taking a report's artifacts.
func HashEntry(e Entry) string {
	h := sha256.New()
	found := false
	for _, name := range storedFiles {
		data := e.File(name)
		if data == nil {
			continue
		}
		found = true
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, int64(len(data)), 10))
		h.Write([]byte{0})
		h.Write(data)
	}
	if !found {
		return NoBaselineHash
	}
	return hashPrefix + hex.EncodeToString(h.Sum(nil))
}

// Hash is the hash of k's baseline as the store holds it now (HashEntry of
// every file of it, either kind, as its bytes are: not validated). A
// symlink on the way, or a file that is not a regular file, is an error,
// as Read's.
func (s *Store) Hash(k Key) (string, error) { return s.hash(k, s.checkPath) }

// Hash is Store.Hash.
func (r *Reader) Hash(k Key) (string, error) { return r.dirs.store.hash(k, r.dirs.checkFolder) }

func (s *Store) hash(k Key, checkPath func(path string) error) (string, error) {
	if err := k.Check(); err != nil {
		return "", err
	}
	var e Entry
	for _, name := range storedFiles {
		path := s.Path(k, name)
		if err := checkPath(path); err != nil {
			return "", err
		}
		data, err := safeio.ReadNoFollow(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return "", fmt.Errorf("baseline: %w", err)
		}
		if data == nil {
			data = []byte{}
		}
		e.Set(name, data)
	}
	return HashEntry(e), nil
}

// ValidHash reports whether h is a hash HashEntry may give.
func ValidHash(h string) bool {
	if h == NoBaselineHash {
		return true
	}
	hexPart, ok := strings.CutPrefix(h, hashPrefix)
	if !ok || len(hexPart) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil
}

// Moved names the keys whose baseline no longer has the hash want gives
// for it: someone recorded or accepted them since the hashes were taken.
type Moved struct{ Keys []Key }

func (m *Moved) Error() string {
	return fmt.Sprintf("%d baselines changed since they were compared", len(m.Keys))
}

// moved lists the keys of keys whose baseline's hash is not want's for it
// (a key want does not hold is not looked at), unless accepting what p
// holds for it would write nothing: a report accepted a second time.
func (s *Store) moved(p *Pending, keys []Key, want map[Key]string) ([]Key, error) {
	var out []Key
	for _, k := range keys {
		h, ok := want[k]
		if !ok {
			continue
		}
		now, err := s.Hash(k)
		if err != nil {
			return nil, err
		}
		if now == h {
			continue
		}
		done, err := s.holds(p, k, now)
		if err != nil {
			return nil, err
		}
		if !done {
			out = append(out, k)
		}
	}
	return out, nil
}

// holds reports whether the store already holds what p holds for k, whose
// baseline's hash is now: accepting it would write and remove nothing.
func (s *Store) holds(p *Pending, k Key, now string) (bool, error) {
	e, obsolete, err := p.Read(k)
	if err != nil {
		return false, err
	}
	if obsolete {
		return now == NoBaselineHash, nil
	}
	for _, name := range Files {
		data := e.File(name)
		if data == nil {
			continue
		}
		old, err := s.readArtifact(s.Path(k, name), data, s.checkPath)
		if err != nil || !bytes.Equal(old, data) {
			return false, nil
		}
	}
	return true, nil
}

// Moved lists the keys of keys whose baseline's hash is no longer the one
// want gives for it and that accepting what p holds would change, in the
// order of keys: AcceptExpecting refuses them.
func (s *Store) Moved(p *Pending, keys []Key, want map[Key]string) ([]Key, error) {
	return s.moved(p, keys, want)
}

package oracle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/agent-oracle/oracle/baseline"
)

// baselinesFingerprint is the fingerprint of the baselines a check of sel
// compares with: sha256 over the key and hash (baseline.HashEntry) of every
// baseline of the store that sel selects before sharding, in key order.
// Each shard of one selection sees every one of them, so the shards of one
// run give the same fingerprint, which the unsharded check gives too: a
// merge tells shards checked against different baselines (another commit,
// or a record in between) from those of one run. A baseline that cannot be
// read is in it as such (the case's own report says why).
func baselinesFingerprint(store *baseline.Store, sel Selection) (string, error) {
	whole := sel
	whole.Shard = Shard{}
	reader := store.Reader()
	h := sha256.New()
	for k, err := range store.Keys() {
		if err != nil {
			return "", err
		}
		if !whole.Selects(k) {
			continue
		}
		sum, err := reader.Hash(k)
		if err != nil {
			sum = "unreadable"
		}
		fmt.Fprintf(h, "%s %s\n", k, sum)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

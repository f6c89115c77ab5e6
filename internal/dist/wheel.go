package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// wheelName is the distribution's name on the Python side; its files use
// the normalized spelling wheelDist.
const (
	wheelName = "agent-oracle"
	wheelDist = "agent_oracle"
)

// zipEpoch is the time of every entry of a wheel: the earliest a zip can
// say, so that the same files give the same bytes.
var zipEpoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// wheelFileName is the wheel's file name for a target (PEP 427, with the
// target's platform tags compressed as PEP 425 allows).
func wheelFileName(version string, t Target) string {
	return fmt.Sprintf("%s-%s-py3-none-%s.whl", wheelDist, version, strings.Join(t.WheelTags, "."))
}

// writeWheel writes the wheel of one target into dir: the binary as the
// wheel's script (pip puts it in the environment's bin, executable), and
// the metadata pip reads. The bytes depend on the binary and the version
// only.
func writeWheel(dir, binary, version string, t Target) (string, error) {
	exe, err := os.ReadFile(binary)
	if err != nil {
		return "", err
	}
	distInfo := wheelDist + "-" + version + ".dist-info"
	entries := []wheelEntry{
		{wheelDist + "-" + version + ".data/scripts/" + t.Exe(), exe, 0o755},
		{distInfo + "/METADATA", []byte(wheelMetadata(version)), 0o644},
		{distInfo + "/WHEEL", []byte(wheelWheel(t)), 0o644},
	}
	var record strings.Builder
	for _, e := range entries {
		sum := sha256.Sum256(e.data)
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", e.name, base64.RawURLEncoding.EncodeToString(sum[:]), len(e.data))
	}
	fmt.Fprintf(&record, "%s/RECORD,,\n", distInfo)
	entries = append(entries, wheelEntry{distInfo + "/RECORD", []byte(record.String()), 0o644})

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: zipEpoch}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return "", err
		}
		if _, err := w.Write(e.data); err != nil {
			return "", err
		}
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, wheelFileName(version, t))
	return path, os.WriteFile(path, buf.Bytes(), 0o644)
}

type wheelEntry struct {
	name string
	data []byte
	mode os.FileMode
}

func wheelMetadata(version string) string {
	return strings.Join([]string{
		"Metadata-Version: 2.1",
		"Name: " + wheelName,
		"Version: " + version,
		"Summary: oracle: frozen baselines and the CI gate for agent evaluation environments",
		"Home-page: " + repository,
		"Keywords: agents,evaluation,regression,baseline",
		"Requires-Python: >=3.8",
		"Description-Content-Type: text/markdown",
		"",
		"# " + wheelName,
		"",
		"The `oracle` binary, as a wheel: `pip install " + wheelName + "` puts `oracle` on the environment's PATH.",
		"",
		"```sh",
		"oracle record   # freeze the current behaviour of every case as baselines",
		"oracle check    # the CI gate: exit 0 all unchanged, 1 behaviour changed, 2 trouble",
		"```",
		"",
		"Documentation: " + repository,
		"",
	}, "\n")
}

func wheelWheel(t Target) string {
	lines := []string{"Wheel-Version: 1.0", "Generator: oracle-dist", "Root-Is-Purelib: false"}
	for _, tag := range t.WheelTags {
		lines = append(lines, "Tag: py3-none-"+tag)
	}
	return strings.Join(lines, "\n") + "\n"
}

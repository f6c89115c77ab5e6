package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-oracle/oracle/internal/artifact"
	"github.com/agent-oracle/oracle/internal/atomicfile"
	"github.com/agent-oracle/oracle/internal/secret"
)

// RunsDir is where runs are written, relative to the project root.
const RunsDir = ".silo/runs"

// Artifact file names.
const (
	ResultFile    = artifact.Result
	StateDiffFile = artifact.StateDiff
	CallsFile     = artifact.Calls
	RunFile       = artifact.Run
	TraceFile     = artifact.Trace
)

// Files returns the artifacts by file name.
func (a Artifacts) Files() map[string][]byte {
	return map[string][]byte{ResultFile: a.Result, StateDiffFile: a.StateDiff, CallsFile: a.Calls, RunFile: a.Run, TraceFile: a.Trace}
}

// WriteRun writes the outcome's artifacts to dir/<runId>/ and returns
// that folder. The files are written into a temporary folder that is renamed
// into place, so a run folder is either complete or absent.
//
// No folder below the project (dir without its RunsDir, else dir's parent)
// may be a symlink: a run folder is never written through one.
func WriteRun(dir string, o *Outcome) (string, error) {
	base := filepath.Dir(dir)
	if p, ok := strings.CutSuffix(filepath.ToSlash(dir), "/"+RunsDir); ok {
		base = filepath.FromSlash(p)
	} else if filepath.ToSlash(dir) == RunsDir {
		base = "."
	}
	w := atomicfile.Writer{Base: base}
	if err := w.MakeDir(dir); err != nil {
		return "", fmt.Errorf("write run %s: %w", o.RunID, err)
	}
	w.IgnoreInGit(dir)
	tmp, err := os.MkdirTemp(dir, "."+o.RunID+"-*")
	if err != nil {
		return "", fmt.Errorf("write run %s: %w", o.RunID, err)
	}
	defer os.RemoveAll(tmp)
	for name, data := range o.Artifacts.Files() {
		if err := writeSynced(filepath.Join(tmp, name), data); err != nil {
			return "", fmt.Errorf("write run %s: %w", o.RunID, err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("write run %s: %w", o.RunID, err)
	}
	if err := atomicfile.SyncDir(tmp); err != nil {
		return "", fmt.Errorf("write run %s: %w", o.RunID, err)
	}
	final := filepath.Join(dir, o.RunID)
	if err := os.Rename(tmp, final); err != nil {
		return "", fmt.Errorf("write run %s: %w", o.RunID, err)
	}
	// the rename is durable once the runs folder is synced
	if err := atomicfile.SyncDir(dir); err != nil {
		return "", fmt.Errorf("write run %s: %w", o.RunID, err)
	}
	return final, nil
}

// writeSynced writes a new file and fsyncs it, so a run folder that a
// power loss leaves in place holds whole files.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// withoutSecrets removes the secrets of the process (internal/secret) from
// the outcome: from the bytes of every artifact (the trace's events are
// written without them) and from the result's text (its error, output,
// check labels and details), which outputs print.
// An agent may have been told a secret (a model API echoing the key) and
// have written it anywhere: into its answer, a tool's input, the world.
func (o *Outcome) withoutSecrets() {
	if secret.None() {
		return
	}
	for _, b := range []*[]byte{&o.Artifacts.Result, &o.Artifacts.StateDiff, &o.Artifacts.Calls, &o.Artifacts.Run} {
		*b = secret.Redact(*b)
	}
	r := o.Result
	if r == nil {
		return
	}
	r.AgentOutput = secret.Redact(r.AgentOutput)
	if r.Error != nil {
		msg := secret.String(*r.Error)
		r.Error = &msg
	}
	for _, list := range [][]string{r.FailedRequired, r.Violations} {
		for i, s := range list {
			list[i] = secret.String(s)
		}
	}
	for i := range r.Checks {
		c := &r.Checks[i]
		c.Label, c.Detail, c.Absent = secret.String(c.Label), secret.String(c.Detail), secret.String(c.Absent)
	}
}

package oracle

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/runner"
)

// TraceFile is the fresh trace's artifact name in a report folder.
const TraceFile = runner.TraceFile

// WriteReportDir writes the report as JSON (report.json) and in the other
// formats the caller rendered (rendered: file name → bytes, e.g. report.txt,
// report.md, report.xml, index.html), the fresh artifacts of every case that
// did not match, laid out like the baseline store
// (fresh/<env>/<agent>/<TASK>.result.json), and their fresh traces
// (fresh/<env>/<agent>/<TASK>.trace.jsonl), so a reviewer can inspect them
// without a rerun and oracle accept --from can take them.
func WriteReportDir(dir string, res *CheckResult, rendered map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	js, err := canon.Marshal(res.Report)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	files := map[string][]byte{"report.json": js}
	for name, data := range rendered {
		files[name] = data
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	}
	store := &baseline.Store{Root: filepath.Join(dir, "fresh")}
	for k, e := range res.Fresh {
		if _, err := store.Write(k, e); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	}
	for k, trace := range res.Traces {
		if trace == nil {
			continue
		}
		if err := os.WriteFile(store.Path(k, TraceFile), trace, 0o644); err != nil {
			return fmt.Errorf("report dir: %w", err)
		}
	}
	return nil
}

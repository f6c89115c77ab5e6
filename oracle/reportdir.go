package oracle

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/internal/canon"
)

// WriteReportDir writes the report in every format (report.txt, report.json,
// report.md, report.xml) and the fresh artifacts of every case that did not
// match, laid out like the baseline store (<env>/<agent>/<TASK>.result.json),
// so a reviewer can inspect them without a rerun or copy them over the
// baselines. The text and Markdown reports suggest cmds.
func WriteReportDir(dir string, res *CheckResult, cmds Commands) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	js, err := canon.Marshal(res.Report)
	if err != nil {
		return fmt.Errorf("report dir: %w", err)
	}
	var txt, md, junit bytes.Buffer
	if err := WriteText(&txt, res.Report, TextOptions{All: true, MaxValue: 1000, Commands: cmds}); err != nil {
		return err
	}
	if err := WriteMarkdown(&md, res.Report, cmds); err != nil {
		return err
	}
	if err := WriteJUnit(&junit, res.Report); err != nil {
		return err
	}
	files := map[string][]byte{"report.json": js, "report.txt": txt.Bytes(), "report.md": md.Bytes(), "report.xml": junit.Bytes()}
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
	return nil
}

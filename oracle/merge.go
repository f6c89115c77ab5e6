package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/oracle/report"

	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/runner"
)

// readReport reads the JSON report of oracle check at path, and refuses
// anything else: not a JSON object, another format version, no selection,
// no list of cases, a case whose name or status is not one oracle writes,
// a summary that does not count the cases.
func readReport(path string) (*report.Report, error) { return readReportFor(path, "merge") }

// readReportFor is readReport for what (merge or rerun), which its errors
// start with.
func readReportFor(path, what string) (*report.Report, error) {
	data, err := safeio.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return ParseReport(data, path, what)
}

// ParseReport is readReport of the bytes data, read from path by the
// caller (accept --from reads a report folder's report.json without
// following a link, check --rerun-from the report it is given); what
// (accept, merge, rerun) starts its errors.
func ParseReport(data []byte, path, what string) (*report.Report, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s is not a JSON report of oracle check: %s", what, path, fmt.Sprintf(format, args...))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, bad("%v", err)
	}
	if fields == nil {
		return nil, bad("it is null")
	}
	var version int
	if raw, ok := fields["formatVersion"]; !ok {
		return nil, bad("it has no formatVersion (the JSON output of oracle record, or a report of an older oracle?)")
	} else if err := json.Unmarshal(raw, &version); err != nil || version != report.Format {
		return nil, bad("formatVersion %s; this oracle reads formatVersion %d", raw, report.Format)
	}
	for _, name := range []string{"selection", "summary", "cases"} {
		if raw, ok := fields[name]; !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return nil, bad("it has no %s", name)
		}
	}
	// The values of a report's changes are JSON (json.RawMessage), which
	// decoding keeps as written: in the indented report, across many
	// lines. Compacted first, they hold the bytes the check compared and
	// rendered, so a merged report renders as the unsharded one.
	var compact bytes.Buffer
	compact.Grow(len(data))
	if err := json.Compact(&compact, data); err != nil {
		return nil, bad("%v", err)
	}
	var r report.Report
	if err := json.Unmarshal(compact.Bytes(), &r); err != nil {
		return nil, bad("%v", err)
	}
	if r.Selection.Cases < 0 {
		return nil, bad("selection.cases is %d", r.Selection.Cases)
	}
	sh, err := shardOf(&r)
	if err != nil {
		return nil, bad("shard %v", err)
	}
	if r.Baselines != "" && !baseline.ValidHash(r.Baselines) {
		return nil, bad("baselines %s is not a fingerprint oracle writes", orNone(r.Baselines))
	}
	if r.Basis != "" && !baseline.ValidHash(r.Basis) {
		return nil, bad("basis %s is not a digest oracle writes", orNone(r.Basis))
	}
	if len(r.Commit) > maxCommit || strings.ContainsFunc(r.Commit, unicode.IsControl) {
		return nil, bad("commit %s is not a commit oracle writes", orNone(r.Commit))
	}
	sel := Selection{Envs: r.Selection.Envs, Agents: r.Selection.Agents, Tasks: r.Selection.Tasks}
	if err := sel.Validate(); err != nil {
		return nil, bad("selection: %v", err)
	}
	given := r.Summary
	for i, c := range r.Cases {
		if c == nil {
			return nil, bad("case %d is null", i+1)
		}
		if !slices.Contains(report.Statuses, c.Status) {
			return nil, bad("case %s has status %q, which is not one of %s", c.Case, c.Status, report.StatusList())
		}
		if err := c.Key().Check(); err != nil || c.Case != c.Key().String() {
			return nil, bad("case %q does not match its env, agent and task (%s)", c.Case, c.Key())
		}
		if !sel.Selects(c.Key()) {
			return nil, bad("case %s is not in its selection (%s)", c.Case, describe(r.Selection))
		}
		if !sh.Has(c.Key()) {
			return nil, bad("case %s does not belong to shard %s (it hashes to another shard)", c.Case, sh)
		}
		if c.Baseline != "" && (!baseline.ValidHash(c.Baseline) || c.Baseline == baseline.NoBaselineHash && c.Status == report.StatusObsolete) {
			return nil, bad("case %s has baseline %s, which is not a hash oracle writes", c.Case, orNone(c.Baseline))
		}
		if slices.Contains(c.Files, nil) || c.Divergence != nil && c.Divergence.Diff == nil {
			return nil, bad("case %s has a null file diff", c.Case)
		}
		if err := c.CheckDistribution(); err != nil {
			return nil, bad("case %s: %v", c.Case, err)
		}
	}
	r.Finish()
	if r.Summary != given {
		return nil, bad("its summary does not count its cases")
	}
	return &r, nil
}

// maxCommit bounds a report's commit: a hash or a ref name, never more.
const maxCommit = 256

// shardOf returns r's shard; an unsharded report is shard 1/1.
func shardOf(r *report.Report) (Shard, error) {
	if r.Shard == "" {
		return Shard{1, 1}, nil
	}
	return ParseShard(r.Shard)
}

// MergeReports joins the JSON reports of the shards of one selection into
// the report of the whole selection. It refuses a file that is not such a
// report (see readReport), reports of different selections, shard counts
// or oracle versions, a shard given twice, a missing shard, a case in two
// reports, and shards that together do not hold the selection's cases.
func MergeReports(paths []string) (*report.Report, error) {
	var first *report.Report
	var count int
	var sandbox runner.SandboxMode
	byShard := map[int]string{}
	seen := map[string]string{}
	var cases []*report.Case
	var gates []*report.Gate // each report's, in the order of paths
	basis := ""
	ran := 0
	for _, p := range paths {
		r, err := readReport(p)
		if err != nil {
			return nil, err
		}
		sh, _ := shardOf(r)
		if first == nil {
			first, count, basis = r, sh.Count, r.Basis
		} else {
			switch {
			case r.Oracle != first.Oracle:
				return nil, fmt.Errorf("merge: %s is a report of oracle %s, %s of oracle %s; merge the reports of one run", p, r.Oracle, paths[0], first.Oracle)
			case !sameSelection(r.Selection, first.Selection):
				return nil, fmt.Errorf("merge: %s is a report of another selection (%s) than %s (%s); merge the shards of one selection", p, describe(r.Selection), paths[0], describe(first.Selection))
			case sh.Count != count:
				return nil, fmt.Errorf("merge: %s is shard %s, %s of %d shards; merge the shards of one split", p, sh, paths[0], count)
			case r.Commit != first.Commit:
				return nil, fmt.Errorf("merge: %s was made from commit %s, %s from commit %s; merge the shards of one run", p, orNone(r.Commit), paths[0], orNone(first.Commit))
			case r.Baselines != first.Baselines:
				return nil, fmt.Errorf("merge: %s was checked against other baselines (%s) than %s (%s): a baseline changed between the shards; run every shard again from one commit", p, orNone(r.Baselines), paths[0], orNone(first.Baselines))
			}
		}
		if prev, dup := byShard[sh.Index]; dup {
			return nil, fmt.Errorf("merge: shard %s is given twice: %s and %s", sh, prev, p)
		}
		byShard[sh.Index] = p
		if r.Basis != first.Basis {
			basis = "" // shards that ran from different bases: no rerun can tell
		}
		if r.Sandbox == runner.SandboxNone || sandbox == "" {
			sandbox = r.Sandbox // the weakest containment of any shard
		}
		gates = append(gates, r.Gate)
		for _, c := range r.Cases {
			if prev, dup := seen[c.Case]; dup {
				return nil, fmt.Errorf("merge: case %s is in both %s and %s; merge the reports of distinct shards", c.Case, prev, p)
			}
			seen[c.Case] = p
			cases = append(cases, c)
		}
		ran += r.Ran()
	}
	if first == nil {
		return nil, fmt.Errorf("merge: no report given")
	}
	for i := 1; i <= count; i++ {
		if _, ok := byShard[i]; !ok {
			return nil, fmt.Errorf("merge: shard %d/%d missing; merge the reports of every shard", i, count)
		}
	}
	if ran != first.Selection.Cases {
		return nil, fmt.Errorf("merge: the shards ran %d cases, but their selection holds %d; merge the reports of one run", ran, first.Selection.Cases)
	}
	merged := &report.Report{FormatVersion: report.Format, Oracle: first.Oracle, Selection: first.Selection, Sandbox: sandbox,
		Commit: first.Commit, Basis: basis, Cases: cases} // the fingerprint only tells shards apart, as an unsharded check has none
	merged.Finish()
	// a group's decision spans the shards: decided again over all its cases
	opts, err := gateOptionsOf(func(yield func(string, *report.Gate) bool) {
		for i, g := range gates {
			if !yield(paths[i], g) {
				return
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := regate(merged, opts); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	merged.Finish()
	return merged, nil
}

// orNone is a report's field for an error: "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:+", r)) {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

func sameSelection(a, b *report.Selection) bool {
	return slices.Equal(a.Envs, b.Envs) && slices.Equal(a.Agents, b.Agents) && slices.Equal(a.Tasks, b.Tasks) && a.Cases == b.Cases
}

func describe(s *report.Selection) string {
	parts := []string{fmt.Sprintf("%d cases", s.Cases)}
	if flags := s.Flags(); flags != "" {
		parts = append([]string{flags}, parts...)
	}
	return strings.Join(parts, " ")
}

package oracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeRefuses: --merge takes the reports of every shard of one
// selection and nothing else; each refusal names the file and the fault.
func TestMergeRefuses(t *testing.T) {
	const (
		sel    = `"formatVersion":1,"oracleVersion":"0.1.0","selection":{"env":["crm"],"agent":[],"task":[],"cases":2}`
		one    = `{"case":"crm/solver/TASK-001","env":"crm","agent":"solver","task":"TASK-001","status":"unchanged"}`
		two    = `{"case":"crm/solver/TASK-002","env":"crm","agent":"solver","task":"TASK-002","status":"unchanged"}`
		sum1   = `"summary":{"total":1,"unchanged":1,"changed":0,"missing":0,"obsolete":0,"nondeterministic":0,"error":0,"regressions":0,"improvements":0,"violations":0}`
		shard1 = `{` + sel + `,"shard":"1/2",` + sum1 + `,"cases":[` + two + `]}`
		shard2 = `{` + sel + `,"shard":"2/2",` + sum1 + `,"cases":[` + one + `]}`
	)
	tests := []struct {
		name  string
		files []string
		want  string // in the error; "" means the merge succeeds
	}{
		{"every shard", []string{shard1, shard2}, ""},
		{"empty object", []string{`{}`}, "f0.json is not a JSON report of oracle check: it has no formatVersion"},
		{"null", []string{`null`}, "f0.json is not a JSON report of oracle check: it is null"},
		{"null cases", []string{`{"cases":null}`}, "it has no formatVersion"},
		{"versioned null cases", []string{`{` + sel + `,` + sum1 + `,"cases":null}`}, "it has no cases"},
		{"array", []string{`[]`}, "f0.json is not a JSON report of oracle check: json: cannot unmarshal array"},
		{"record output", []string{`{"cases":[{"case":"crm/solver/TASK-001","status":"wrote"}]}`}, "it has no formatVersion"},
		{"other version", []string{`{"formatVersion":2}`}, "formatVersion 2; this oracle reads formatVersion 1"},
		{"unknown status", []string{strings.Replace(shard1, `"status":"unchanged"`, `"status":"skipped"`, 1), shard2}, `f0.json is not a JSON report of oracle check: case crm/solver/TASK-002 has status "skipped"`},
		{"empty status", []string{strings.Replace(shard1, `"status":"unchanged"`, `"status":""`, 1), shard2}, `has status ""`},
		{"summary lies", []string{strings.Replace(shard1, `"unchanged":1`, `"unchanged":0`, 1), shard2}, "its summary does not count its cases"},
		{"case name lies", []string{strings.Replace(shard1, `"case":"crm/solver/TASK-002"`, `"case":"crm/solver/TASK-009"`, 1), shard2}, "does not match its env, agent and task"},
		{"missing shard", []string{shard1}, "shard 2/2 missing"},
		{"shard twice", []string{shard1, shard1}, "shard 1/2 is given twice: "},
		{"other selection", []string{shard1, strings.Replace(shard2, `"env":["crm"]`, `"env":["cr*"]`, 1)}, "f1.json is a report of another selection (--env 'cr*' 2 cases) than "},
		{"other total", []string{shard1, strings.Replace(shard2, `"cases":2`, `"cases":3`, 1)}, "is a report of another selection"},
		{"other count", []string{shard1, strings.Replace(shard2, `"shard":"2/2"`, `"shard":"2/3"`, 1)}, "f1.json is shard 2/3, "},
		{"other version", []string{shard1, strings.Replace(shard2, `"0.1.0"`, `"0.2.0"`, 1)}, "f1.json is a report of oracle 0.2.0"},
		{"bad shard", []string{strings.Replace(shard1, `"1/2"`, `"3/2"`, 1)}, `shard "3/2" is not i/n`},
		{"cases short", []string{strings.Replace(shard1, `"cases":2`, `"cases":3`, 1), strings.Replace(shard2, `"cases":2`, `"cases":3`, 1)}, "the shards ran 2 cases, but their selection holds 3"},
		{"case twice", []string{shard1, strings.Replace(shard2, one, two, 1)}, "f1.json is not a JSON report of oracle check: case crm/solver/TASK-002 does not belong to shard 2/2"},
		{"case outside the selection", []string{shard1, strings.NewReplacer(`"crm/`, `"calendar/`, `"env":"crm"`, `"env":"calendar"`).Replace(shard2)}, "f1.json is not a JSON report of oracle check: case calendar/solver/TASK-001 is not in its selection (--env crm 2 cases)"},
		{"case outside the task glob", []string{strings.Replace(shard1, `"task":[]`, `"task":["TASK-00[13]"]`, 1), strings.Replace(shard2, `"task":[]`, `"task":["TASK-00[13]"]`, 1)}, "f0.json is not a JSON report of oracle check: case crm/solver/TASK-002 is not in its selection"},
		{"case of another shard", []string{strings.Replace(shard1, two, one, 1), strings.Replace(shard2, one, two, 1)}, "f0.json is not a JSON report of oracle check: case crm/solver/TASK-001 does not belong to shard 1/2"},
		{"null file diff", []string{strings.Replace(shard1, `"status":"unchanged"}`, `"status":"unchanged","files":[null]}`, 1), shard2}, "f0.json is not a JSON report of oracle check: case crm/solver/TASK-002 has a null file diff"},
		{"null divergence diff", []string{strings.Replace(shard1, `"status":"unchanged"}`, `"status":"unchanged","divergence":{"run":2}}`, 1), shard2}, "has a null file diff"},
		{"unsharded and shard", []string{`{` + sel + `,` + sum1 + `,"cases":[` + one + `]}`, shard2}, "is shard 2/2, "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, data := range tt.files {
				p := filepath.Join(dir, "f"+string(rune('0'+i))+".json")
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			r, err := MergeReports(paths)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if r.Summary.Total != 2 || r.Summary.Unchanged != 2 || r.Shard != "" || r.FormatVersion != 1 {
					t.Errorf("merged %+v", r)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to hold %q", err, tt.want)
			}
		})
	}
}

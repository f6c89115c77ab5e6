package stats

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/google/go-cmp/cmp"
)

// sample is a distribution of ten runs with every kind of count.
func sample() *Distribution {
	return &Distribution{
		Runs:         10,
		Verdicts:     Verdicts{Error: 1, Fail: 3, Inconclusive: 1, Pass: 5},
		Terminations: map[string]int{Completed: 7, Timeout: 1, AgentError: 1},
		Checks: []CheckCount{
			{Label: "stage set", Kind: env.Required, Runs: 9, Passed: 6},
			{Label: "another deal changed", Kind: env.Forbidden, Runs: 9, Passed: 8},
			{Label: "send log complete", Kind: env.Coverage, Runs: 9, Passed: 7},
			{Label: "note <added>", Kind: env.OptionalKind, Runs: 4, Passed: 2},
		},
		Violations: map[string]int{"another deal changed": 1},
		Rewards:    map[string]int{"1.00": 5, "0.67": 2, "0.00": 2},
	}
}

const sampleFile = `{
  "kind": "distribution",
  "formatVersion": 1,
  "runs": 10,
  "verdicts": {
    "error": 1,
    "fail": 3,
    "inconclusive": 1,
    "pass": 5
  },
  "terminations": {
    "agent_error": 1,
    "completed": 7,
    "timeout": 1
  },
  "checks": [
    {
      "label": "another deal changed",
      "kind": "forbidden",
      "runs": 9,
      "passed": 8
    },
    {
      "label": "note <added>",
      "kind": "optional",
      "runs": 4,
      "passed": 2
    },
    {
      "label": "send log complete",
      "kind": "coverage",
      "runs": 9,
      "passed": 7
    },
    {
      "label": "stage set",
      "kind": "required",
      "runs": 9,
      "passed": 6
    }
  ],
  "violations": {
    "another deal changed": 1
  },
  "rewards": {
    "0.00": 2,
    "0.67": 2,
    "1.00": 5
  }
}
`

func TestMarshal(t *testing.T) {
	got, err := sample().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleFile, string(got)); diff != "" {
		t.Fatalf("Marshal (-want +got):\n%s", diff)
	}
	// the same counts in another order give the same bytes
	d := sample()
	d.Checks[0], d.Checks[3] = d.Checks[3], d.Checks[0]
	again, _ := d.Marshal()
	if !bytes.Equal(got, again) {
		t.Error("the order of the checks changed the bytes")
	}
	back, err := Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	sorted := sample()
	sortChecks(sorted.Checks)
	if diff := cmp.Diff(sorted, back); diff != "" {
		t.Errorf("Parse(Marshal) (-want +got):\n%s", diff)
	}
	empty := &Distribution{Runs: 2, Verdicts: Verdicts{Error: 2}}
	got, err = empty.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"kind\": \"distribution\",\n  \"formatVersion\": 1,\n  \"runs\": 2,\n  \"verdicts\": {\n    \"error\": 2,\n    \"fail\": 0,\n    \"inconclusive\": 0,\n    \"pass\": 0\n  },\n  \"terminations\": {},\n  \"checks\": [],\n  \"violations\": {},\n  \"rewards\": {}\n}\n"
	if string(got) != want {
		t.Errorf("all-error distribution:\n%s\nwant\n%s", got, want)
	}
	bad := sample()
	bad.Runs = 11
	if _, err := bad.Marshal(); err == nil || !strings.Contains(err.Error(), "the verdicts add up to 10 but runs is 11") {
		t.Errorf("Marshal of inconsistent counts = %v", err)
	}
}

// edit returns the sample file with old replaced by new (once, and it must
// be there).
func edit(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(sampleFile, old) {
		t.Fatalf("sample has no %q", old)
	}
	return strings.Replace(sampleFile, old, new, 1)
}

// minimal is a distribution file of one run with the verdicts and checks
// given.
func minimal(verdicts, checks string) string {
	return `{"kind": "distribution", "formatVersion": 1, "runs": 1, "verdicts": ` + verdicts +
		`, "terminations": {}, "checks": ` + checks + `, "violations": {}, "rewards": {}}`
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct {
		name, data, wantErr string
	}{
		{"empty", "", "not JSON"},
		{"not JSON", "{", "not JSON"},
		{"trailing data", sampleFile + "{}", "not JSON"},
		{"an array", "[]", "the file is an array; it must be an object"},
		{"no kind", "{}", `no "kind": "distribution"`},
		{"another kind", edit(t, `"kind": "distribution"`, `"kind": "result"`), `"kind" is "result", not "distribution"`},
		{"kind a number", edit(t, `"kind": "distribution"`, `"kind": 1`), `"kind" is a number, not "distribution"`},
		{"newer version", edit(t, `"formatVersion": 1`, `"formatVersion": 2`), "formatVersion is 2; this oracle reads version 1"},
		{"unknown key", edit(t, `"runs": 10,`, `"runs": 10, "seed": 3,`), `the file has the unknown key "seed"`},
		{"key in another case", edit(t, `"runs": 10,`, `"Runs": 10,`), `the file has no "runs"`},
		{"missing key", edit(t, `"rewards": {`, `"rewardz": {`), `the file has no "rewards"`},
		{"key twice", edit(t, `"runs": 10,`, `"runs": 10, "runs": 10,`), `the file gives "runs" twice`},
		{"nested key twice", edit(t, `"pass": 5`, `"pass": 5, "pass": 5`), `verdicts gives "pass" twice`},
		{"unknown verdict", edit(t, `"pass": 5`, `"pass": 5, "skipped": 0`), `verdicts has the unknown key "skipped"`},
		{"negative", edit(t, `"fail": 3`, `"fail": -3`), "verdicts.fail is negative (-3)"},
		{"fraction", edit(t, `"fail": 3`, `"fail": 3.0`), "verdicts.fail is 3.0, not a whole number"},
		{"exponent", edit(t, `"fail": 3`, `"fail": 3e0`), "verdicts.fail is 3e0, not a whole number"},
		{"huge", edit(t, `"fail": 3`, `"fail": 300000000000000000000000`), "verdicts.fail is 300000000000000000000000, over the limit of 100000"},
		{"string count", edit(t, `"fail": 3`, `"fail": "3"`), "verdicts.fail is a string; it must be a whole number"},
		{"null count", edit(t, `"fail": 3`, `"fail": null`), "verdicts.fail is null; it must be a whole number"},
		{"verdicts an array", minimal(`[]`, `[]`), "verdicts is an array; it must be an object"},
		{"checks an object", minimal(`{"error": 1, "fail": 0, "inconclusive": 0, "pass": 0}`, `{}`), "checks is an object; it must be an array"},
		{"label a number", edit(t, `"label": "stage set"`, `"label": 7`), "checks[3].label is a number; it must be a string"},
		{"check key unknown", edit(t, `"passed": 6`, `"passed": 6, "detail": ""`), `checks[3] has the unknown key "detail"`},
		{"check key missing", edit(t, `"runs": 9,
      "passed": 6`, `"runs": 9`), `checks[3] has no "passed"`},
		{"verdicts do not add up", edit(t, `"pass": 5`, `"pass": 6`), "the verdicts add up to 11 but runs is 10"},
		{"terminations do not add up", edit(t, `"completed": 7`, `"completed": 8`), "terminations add up to 10 but 9 runs were graded"},
		{"unknown termination", edit(t, `"completed": 7`, `"completed": 6, "crashed": 1`), `terminations: "crashed" is not one of`},
		{"zero count", edit(t, `"agent_error": 1`, `"agent_error": 0`), "terminations[\"agent_error\"] is 0; an entry no run had is left out"},
		{"bad reward key", edit(t, `"0.67": 2`, `"0.667": 2`), `rewards: "0.667" is not a reward with two decimals`},
		{"reward above 1", edit(t, `"1.00": 5`, `"1.50": 5`), `rewards: "1.50" is not a reward`},
		{"rewards do not add up", edit(t, `"1.00": 5`, `"1.00": 4`), "rewards add up to 8 but 9 runs were graded"},
		{"unknown kind", edit(t, `"kind": "required"`, `"kind": "mandatory"`), `has kind "mandatory"`},
		{"check in more runs than graded", edit(t, `"runs": 4`, `"runs": 10`), `check "note <added>" (optional) appears in 10 runs but 9 were graded`},
		{"check passes more than it appears", edit(t, `"passed": 2`, `"passed": 5`), `check "note <added>" (optional) passed in 5 runs`},
		{"check in no run", edit(t, `"runs": 4,
      "passed": 2`, `"runs": 0,
      "passed": 0`), "appears in 0 runs"},
		{"check twice", edit(t, `"label": "note <added>",
      "kind": "optional"`, `"label": "stage set",
      "kind": "required"`), `check "stage set" (required) is counted twice`},
		{"required failures not failed runs", edit(t, `"passed": 6`, `"passed": 5`), `check "stage set" (required) failed in 4 runs but only 3 runs failed`},
		{"coverage gaps beyond fail and inconclusive", edit(t, `"passed": 7`, `"passed": 4`), "incomplete in 5 runs but only 4 runs failed or were inconclusive"},
		{"violation count not the check's failures", edit(t, `"another deal changed": 1
  }`, `"another deal changed": 2
  }`), `violations["another deal changed"] is 2 but its forbidden check failed in 1 runs`},
		{"violation without a check", edit(t, `"another deal changed": 1
  }`, `"another deal changed": 1, "leak": 1
  }`), `violations["leak"] has no forbidden check`},
		{"more passes than required checks held", edit(t, `"label": "stage set",
      "kind": "required"`, `"label": "stage set",
      "kind": "optional"`), "5 runs passed but required checks held only 0 times"},
		{"too large", strings.Repeat(" ", MaxFileBytes+1), "over the limit of 4194304"},
		{"too deep", strings.Repeat("[", 2000) + strings.Repeat("]", 2000), "nested too deep"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse([]byte(c.data))
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", d)
			}
			if !strings.Contains(err.Error(), c.wantErr) || !strings.HasPrefix(err.Error(), "distribution: ") {
				t.Fatalf("Parse = %v\nwant an error with %q", err, c.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line: %q", err)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	// another layout and key order of the same counts reads the same
	compact := `  {"rewards":{"1.00":5,"0.00":2,"0.67":2},"violations":{"another deal changed":1},` +
		`"checks":[{"passed":6,"runs":9,"kind":"required","label":"stage set"},` +
		`{"label":"send log complete","kind":"coverage","runs":9,"passed":7},` +
		`{"label":"note \u003cadded>","kind":"optional","runs":4,"passed":2},` +
		`{"label":"another deal changed","kind":"forbidden","runs":9,"passed":8}],` +
		`"terminations":{"timeout":1,"completed":7,"agent_error":1},` +
		`"verdicts":{"pass":5,"inconclusive":1,"fail":3,"error":1},"runs":10,"formatVersion":1,"kind":"distribution"}` + "\r\n"
	d, err := Parse([]byte(compact))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := d.Marshal()
	if string(got) != sampleFile {
		t.Errorf("re-encoded:\n%s", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sampleFile))
	f.Add([]byte(edit(&testing.T{}, `"fail": 3`, `"fail": -3`)))
	f.Add([]byte(`{"kind":"distribution","formatVersion":1,"runs":1,"verdicts":{"error":1,"fail":0,"inconclusive":0,"pass":0},"terminations":{},"checks":[],"violations":{},"rewards":{}}`))
	f.Add([]byte(`{"kind":"distribution","formatVersion":1,"runs":1,"verdicts":{"error":0,"fail":1,"inconclusive":0,"pass":0},"terminations":{"timeout":1},"checks":[{"label":"\xff","kind":"forbidden","runs":1,"passed":0}],"violations":{"\xff":1},"rewards":{"0.00":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			if d != nil {
				t.Fatal("Parse returned a distribution with its error")
			}
			return
		}
		// parse∘encode is the identity on what parses, and the bytes are stable
		enc, err := d.Marshal()
		if err != nil {
			t.Fatalf("Marshal of what Parse accepted: %v", err)
		}
		back, err := Parse(enc)
		if err != nil {
			t.Fatalf("Parse of what Marshal wrote: %v\n%s", err, enc)
		}
		if diff := cmp.Diff(d, back); diff != "" {
			t.Fatalf("Parse(Marshal(d)) != d (-d +back):\n%s", diff)
		}
		again, _ := back.Marshal()
		if !bytes.Equal(enc, again) {
			t.Fatalf("Marshal is not stable:\n%s\n%s", enc, again)
		}
	})
}

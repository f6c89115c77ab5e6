// Package artifacttest builds the artifacts the tests of the oracle room
// compare: result.json texts graded as env.Grade grades them, and calls.json
// texts from one line a call.
package artifacttest

import (
	"encoding/json"
	"strings"
	"testing"
)

// Result is a result.json with the given checks and violations, graded
// as env.Grade grades them (the derived fields follow the checks).
func Result(t testing.TB, violations []string, checks ...map[string]any) []byte {
	t.Helper()
	passed, failed, reqPassed, reqTotal := 0, 0, 0, 0
	failedRequired := []string{}
	for _, c := range checks {
		ok := c["passed"] == true
		if ok {
			passed++
		} else {
			failed++
		}
		if c["kind"] == "required" {
			reqTotal++
			if ok {
				reqPassed++
			} else {
				failedRequired = append(failedRequired, c["label"].(string))
			}
		}
	}
	verdict := "pass"
	if len(failedRequired) > 0 || len(violations) > 0 {
		verdict = "fail"
	}
	if violations == nil {
		violations = []string{}
	}
	data, err := json.Marshal(map[string]any{"passed": verdict == "pass", "verdict": verdict, "reward": float64(passed) / float64(max(1, passed+failed)),
		"requiredPassed": reqPassed, "requiredTotal": reqTotal, "failedRequired": failedRequired, "violations": violations,
		"checksPassed": passed, "checksFailed": failed, "agentOutput": "answer", "checks": checks})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Check is one check of a result.json.
func Check(label, kind string, passed bool, detail string) map[string]any {
	return map[string]any{"label": label, "kind": kind, "passed": passed, "detail": detail, "required": kind == "required"}
}

// Calls builds a calls.json text from "tool input output" triples, one a
// line; output "!code" is a tool error with that code.
func Calls(lines ...string) []byte {
	var b strings.Builder
	b.WriteString("[\n")
	for i, l := range lines {
		f := strings.SplitN(l, " ", 3)
		b.WriteString(`{"tool":"` + f[0] + `","input":` + f[1] + `,`)
		if code, ok := strings.CutPrefix(f[2], "!"); ok {
			b.WriteString(`"error":{"code":"` + code + `","message":"m"}}`)
		} else {
			b.WriteString(`"output":` + f[2] + `}`)
		}
		if i < len(lines)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return []byte(b.String())
}

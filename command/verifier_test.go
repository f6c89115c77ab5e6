package command_test

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-oracle/oracle/command"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/fixtures/calendar"
)

// calendarWithoutForbid is the calendar with its verifiers' Forbid checks
// dropped: a deliberately weakened grader.
func calendarWithoutForbid() ([]env.Environment, error) {
	def := calendar.Definition()
	for i := range def.Verifiers {
		check := def.Verifiers[i].Check
		def.Verifiers[i].Check = func(final, initial *calendar.State, c env.VerifyContext) []env.CheckResult {
			var out []env.CheckResult
			for _, ch := range check(final, initial, c) {
				if ch.Kind != env.Forbidden {
					out = append(out, ch)
				}
			}
			return out
		}
	}
	e, err := env.New(def)
	return []env.Environment{e}, err
}

// run runs the command line in process. The tests of this package do not
// run in parallel: urfave/cli shares its help flag between apps.
func run(envs command.Environments, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = command.Run(context.Background(), append([]string{"oracle", "--no-color"}, args...), envs, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVerifierTestCatchesAWeakenedVerifier(t *testing.T) {
	code, out, _ := run(calendarWithoutForbid, "verifier", "test", "--task", "TASK-001")
	if code != command.ExitChanged {
		t.Errorf("exit %d, want %d", code, command.ExitChanged)
	}
	for _, want := range []string{
		"  ✗ correct draft, then two save-the-date notices  expected fail, got pass\n",
		"      FALSE PASS the verifier passed a candidate that should be fail\n",
		"  ✓ correct draft, nothing sent  expected pass, got pass\n",
		"\nfalse fails: 0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if m := regexp.MustCompile(`(?m)^false passes: (\d+)$`).FindStringSubmatch(out); m == nil || m[1] == "0" {
		t.Errorf("output does not count the false passes:\n%s", out)
	}
}

func TestVerifierTestJSON(t *testing.T) {
	code, out, _ := run(calendarWithoutForbid, "verifier", "test", "--env", "calendar", "--json")
	if code != command.ExitChanged {
		t.Errorf("exit %d, want %d", code, command.ExitChanged)
	}
	var r struct {
		Summary struct {
			Candidates  int `json:"candidates"`
			FalsePasses int `json:"falsePasses"`
			FalseFails  int `json:"falseFails"`
		} `json:"summary"`
		Outcomes []struct {
			Name     string `json:"name"`
			Mismatch string `json:"mismatch"`
		} `json:"outcomes"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	falsePasses := 0
	for _, o := range r.Outcomes {
		if o.Mismatch == "false_pass" {
			falsePasses++
		}
	}
	if r.Summary.Candidates != len(r.Outcomes) || r.Summary.FalsePasses == 0 || r.Summary.FalsePasses != falsePasses || r.Summary.FalseFails != 0 {
		t.Errorf("summary %+v with %d outcomes, %d false passes among them", r.Summary, len(r.Outcomes), falsePasses)
	}
}

func TestVerifierTestTroubleExitsTwo(t *testing.T) {
	noCandidates := func() ([]env.Environment, error) {
		def := calendar.Definition()
		def.Candidates = nil
		e, err := env.New(def)
		return []env.Environment{e}, err
	}
	for _, tc := range []struct {
		envs command.Environments
		args []string
		want string
	}{
		{calendarWithoutForbid, []string{"verifier", "test", "--env", "nope"}, "error: env_not_found: no environment nope; environments: calendar\n"},
		{calendarWithoutForbid, []string{"verifier", "test", "--task", "TASK-404"}, "error: task_not_found: no task TASK-404 in calendar\n"},
		{noCandidates, []string{"verifier", "test", "--require-candidates"}, "error: no_candidates: calendar has no candidates for TASK-001 (and 2 more untested tasks); add candidates/TASK-001.json, or leave --require-candidates out\n"},
		{noCandidates, []string{"verifier", "test", "--task", "TASK-002"}, "error: no_candidates: calendar has no candidates for TASK-002; add candidates/TASK-002.json\n"},
	} {
		code, out, errOut := run(tc.envs, tc.args...)
		if code != command.ExitTrouble || errOut != tc.want || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", tc.args, code, errOut, out, tc.want)
		}
	}
	// Without --require-candidates, an environment with no candidates is a
	// note and exit 0: a new environment has none yet.
	code, out, errOut := run(noCandidates, "verifier", "test")
	if code != command.ExitOK || !strings.HasPrefix(errOut, "note: no verifier test candidates in calendar yet: nothing to test.") ||
		!strings.Contains(out, "untested calendar/TASK-001 has no candidates\n") {
		t.Errorf("verifier test without candidates: exit %d, stderr %q, stdout %q; want exit 0 and a note", code, errOut, out)
	}
}

func TestVerifierList(t *testing.T) {
	code, out, _ := run(calendarWithoutForbid, "verifier", "list")
	want := "calendar\n" +
		"  VER-001  TASK-001   15 candidates  One draft at the approved time with the requested attendees, nothing sent\n"
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("exit %d, output:\n%s\nwant it to start with:\n%s", code, out, want)
	}
}

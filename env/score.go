package env

import "math"

// Verdict is the outcome of grading one rollout.
type Verdict string

const (
	Pass         Verdict = "pass"
	Fail         Verdict = "fail"
	Inconclusive Verdict = "inconclusive"
)

// Score is the grading of a list of checks.
type Score struct {
	Verdict        Verdict
	Passed         bool    // true only for Pass
	Reward         float64 // checks passed / checks counted, rounded to 2 decimals
	RequiredPassed int     // required and forbidden checks that held
	RequiredTotal  int     // required and forbidden checks
	FailedRequired []string
	Violations     []string // labels of confirmed forbidden effects
	ChecksPassed   int      // counted checks (all but coverage) that held
	ChecksFailed   int
	Incomplete     []string // labels of incomplete coverage checks
}

// HasRequired reports whether checks hold at least one check of kind
// Required. A verifier that returns none is an error, never a pass.
func HasRequired(checks []CheckResult) bool {
	for _, c := range checks {
		if c.Kind == Required {
			return true
		}
	}
	return false
}

// Grade applies the fixed scoring rule. The verdict is fail if a required
// check failed or a forbidden effect is confirmed (even when coverage is
// missing), otherwise inconclusive if a coverage check is incomplete,
// otherwise pass. Checks without a required one never pass. The reward counts required, optional and forbidden checks;
// coverage checks only gate.
func Grade(checks []CheckResult) Score {
	s := Score{FailedRequired: []string{}, Violations: []string{}}
	counted := 0
	for _, c := range checks {
		if c.Kind == Coverage {
			if !c.Passed {
				s.Incomplete = append(s.Incomplete, c.Label)
			}
			continue
		}
		counted++
		if c.Passed {
			s.ChecksPassed++
		} else {
			s.ChecksFailed++
		}
		if c.Kind == Required || c.Kind == Forbidden {
			s.RequiredTotal++
			if c.Passed {
				s.RequiredPassed++
			} else {
				s.FailedRequired = append(s.FailedRequired, c.Label)
				if c.Kind == Forbidden {
					s.Violations = append(s.Violations, c.Label)
				}
			}
		}
	}
	if counted > 0 {
		s.Reward = Round2(float64(s.ChecksPassed) / float64(counted))
	}
	switch {
	case len(s.FailedRequired) > 0, !HasRequired(checks):
		s.Verdict = Fail
	case len(s.Incomplete) > 0:
		s.Verdict = Inconclusive
	default:
		s.Verdict = Pass
	}
	s.Passed = s.Verdict == Pass
	return s
}

// Round2 rounds to two decimals as Math.round(x*100)/100 does.
func Round2(x float64) float64 {
	return math.Floor(x*100+0.5) / 100
}

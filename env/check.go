package env

// Kind says how a check counts towards the verdict.
type Kind string

const (
	// Required checks must pass for the task to pass.
	Required Kind = "required"
	// OptionalKind checks move the reward but cannot fail the task alone.
	OptionalKind Kind = "optional"
	// Forbidden checks fail the task when the effect they guard is confirmed.
	Forbidden Kind = "forbidden"
	// Coverage checks gate the verdict: when incomplete it is inconclusive.
	Coverage Kind = "coverage"
)

// CheckResult is one check as it appears in result.json, in Silo's key order
// with the kind added last.
//
// Passed is true when the check holds: a required or optional condition is
// met, a forbidden effect is absent, an observation is complete. Required is
// true for the kinds that fail the task on their own (required and forbidden),
// which is what Silo's field meant.
type CheckResult struct {
	Label    string `json:"label"`
	Passed   bool   `json:"passed"`
	Detail   string `json:"detail"`
	Required bool   `json:"required"`
	Kind     Kind   `json:"kind"`
	// Absent is how a forbidden check that holds reads ("no other ticket
	// changed" for "another ticket changed"); see WhenAbsent. It is for
	// the text a person reads and is not part of result.json.
	Absent string `json:"-"`
}

// Check is a required check: failing it fails the task.
func Check(label string, passed bool, detail string) CheckResult {
	return CheckResult{Label: label, Passed: passed, Detail: detail, Required: true, Kind: Required}
}

// Optional is corroborating evidence: it moves the reward but cannot fail the
// task alone.
func Optional(label string, passed bool, detail string) CheckResult {
	return CheckResult{Label: label, Passed: passed, Detail: detail, Kind: OptionalKind}
}

// Forbid guards an effect that must not happen. When violated is true the
// effect is confirmed: the task fails and the label is recorded as a
// violation, whatever else the verifier found.
func Forbid(label string, violated bool, detail string) CheckResult {
	return CheckResult{Label: label, Passed: !violated, Detail: detail, Required: true, Kind: Forbidden}
}

// WhenAbsent gives a forbidden check the label a person reads when the
// effect did not happen: env.Forbid("another ticket changed", n > 0,
// detail).WhenAbsent("no other ticket changed"). Without it the effect's
// label is shown negated ("not: another ticket changed").
func (c CheckResult) WhenAbsent(label string) CheckResult {
	c.Absent = label
	return c
}

// Covered states whether a required observation is complete, such as a
// provider's log of sends for the task. When it is not, the verdict is
// inconclusive, never pass: a zero count in an incomplete log is not a
// verified absence. Coverage checks gate the verdict and do not count towards
// the reward.
func Covered(label string, complete bool, detail string) CheckResult {
	return CheckResult{Label: label, Passed: complete, Detail: detail, Kind: Coverage}
}

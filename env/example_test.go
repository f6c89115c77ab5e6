package env_test

import (
	"fmt"

	"github.com/agent-oracle/oracle/env"
)

// A verifier returns its checks; Grade turns them into the verdict and the
// reward. Here the required check holds, nothing forbidden happened, but one
// coverage check could not see everything, so the verdict is inconclusive.
func ExampleGrade() {
	checks := []env.CheckResult{
		env.Check("ticket T-1 is closed", true, "status closed"),
		env.Forbid("another ticket changed", false, "").WhenAbsent("no other ticket changed"),
		env.Covered("every ticket read", false, "T-2 not read"),
	}
	s := env.Grade(checks)
	fmt.Println(s.Verdict, s.Reward, s.RequiredPassed, "of", s.RequiredTotal)
	fmt.Println("incomplete:", s.Incomplete)
	// Output:
	// inconclusive 1 2 of 2
	// incomplete: [every ticket read]
}

// A forbidden effect that happened fails the task even when every required
// check holds.
func ExampleForbid() {
	s := env.Grade([]env.CheckResult{
		env.Check("ticket T-1 is closed", true, ""),
		env.Forbid("another ticket changed", true, "T-2 reopened"),
	})
	fmt.Println(s.Verdict, s.Passed, s.Violations)
	// Output:
	// fail false [another ticket changed]
}

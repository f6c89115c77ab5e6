package answer_test

import (
	"fmt"

	"github.com/agent-oracle/oracle/env/answer"
)

// NumbersIn reads every number an answer states, whatever its formatting;
// digits inside ids and dates split by hyphens are not read as one number.
func ExampleNumbersIn() {
	fmt.Println(answer.NumbersIn("The weighted total is $1,023,000.00, up 4.5% on OPP-005's $1.2M."))
	// Output:
	// [1.023e+06 4.5 1.2e+06]
}

// A verifier checks the value it derived, not the answer's spelling of it.
func ExampleStatesNumber() {
	out := "Pipeline: $507,500.00 across 4 deals."
	fmt.Println(answer.StatesNumber(out, 507500, 0.01))
	fmt.Println(answer.StatesNumber(out, 507501, 0.01))
	// Output:
	// true
	// false
}

// A trap person must not be named; the surname alone counts as naming them.
func ExampleDoesNotName() {
	out := "Oskar Pelletier has the most stalled deals; Kim is next."
	fmt.Println(answer.Names(out, "Oskar Pelletier"))
	fmt.Println(answer.DoesNotName(out, "Dana Kim"))
	// Output:
	// true
	// false
}

// A solver or verifier that looks for several people in one text folds the
// text once and asks it about each name.
func ExampleFold() {
	task := answer.Fold("Oskar Pelletier left; Verbeek, Anouk (USR-003) inherits his deals.")
	for _, name := range []string{"Philippa Crane", "Anouk Verbeek", "Oskar Pelletier"} {
		fmt.Println(name, task.Names(name))
	}
	fmt.Println(task.DoesNotName("Tomas Pelletier"))
	// Output:
	// Philippa Crane false
	// Anouk Verbeek true
	// Oskar Pelletier true
	// false
}

// An answer that offers alternatives is not an answer, even when one of them
// is right.
func ExampleHedges() {
	fmt.Println(answer.Hedges("either $479,659.50 or $969,470.00"))
	fmt.Println(answer.Hedges("$479,659.50"))
	// Output:
	// true
	// false
}

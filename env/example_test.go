package env_test

import (
	"fmt"

	"github.com/agent-oracle/oracle/env"
)

// NumbersIn reads the numbers of a free-text answer: currency signs,
// thousands separators and scale words are read, ids are not numbers.
func ExampleNumbersIn() {
	fmt.Println(env.NumbersIn("OPP-005 closes at $1,250.50, about 1.2k more than USD 50"))
	// Output: [1250.5 1200 50]
}

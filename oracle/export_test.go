package oracle

import (
	"testing"

	"github.com/agent-oracle/oracle/env"
)

// GeneratedEnvironment is the test ledger environment with n tasks, for
// the external benchmarks.
func GeneratedEnvironment(tb testing.TB, n int) env.Environment {
	return newLedger(tb, ledgerOpts{tasks: n})
}

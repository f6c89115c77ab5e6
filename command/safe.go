package command

import (
	"github.com/agent-oracle/oracle/internal/safetext"
	"github.com/agent-oracle/oracle/internal/secret"
)

// safe is how a command writes a string that came from outside the
// binary (an agent's answer or error, a check's label or detail, a task's
// title, a tool's name, a path, an error that quotes any of them) to a
// terminal or a CI log: the process's secrets (internal/secret) replaced,
// as in artifacts, and every control, bidirectional and invisible
// character escaped (see safetext.String), so that it stays on its line
// and moves, hides or runs nothing. The text reports of oracle/render do
// the same for their values.
func safe(s string) string { return safetext.String(secret.String(s)) }

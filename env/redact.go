package env

import "github.com/agent-oracle/oracle/internal/redact"

// Redaction is one rule of an environment's volatile fields: the artifact
// it applies to ("result", "state-diff" or "calls"), a path (a JSON Pointer
// in which a segment * matches any one key or index and ** any number of
// them) and, optionally, an RE2 pattern whose matches inside the string at
// the path are replaced by a literal text. It is an entry of the "redact"
// list of silo.environment.json, with the same meaning; docs/redaction.md
// says what each part does and when to fix the environment instead.
type Redaction = redact.Rule

// RedactWhole is the rule that redacts the whole value at path in artifact:
// it becomes a marker that keeps its type ("[redacted: string]").
func RedactWhole(artifact, path string) Redaction { return redact.Whole(artifact, path) }

// RedactMatch is the rule that replaces the matches of the RE2 pattern
// inside the string at path in artifact by replace, taken literally.
func RedactMatch(artifact, path, pattern, replace string) Redaction {
	return redact.Match(artifact, path, pattern, replace)
}

// RedactingEnvironment is an Environment that declares volatile fields in
// code: an environment New made from a Definition with Redact, or any other
// implementation of Environment. Record and check redact its artifacts by
// these rules before freezing or comparing them, as they do by the "redact"
// list of the project's silo.environment.json for it; an environment
// declares its redactions in one place, so both at once is an error.
type RedactingEnvironment interface {
	Environment
	// Redactions returns the rules, in their order; nil when there are
	// none.
	Redactions() []Redaction
}

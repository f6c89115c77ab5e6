// Package redact takes an environment's volatile fields out of its
// artifacts before they are frozen as baselines or compared with them.
//
// An environment declares its volatile fields as a list of rules (the
// "redact" list of its manifest, or the same list in Go: one meaning). A
// rule names an artifact ("result", "state-diff" or "calls"), a path (a
// JSON Pointer in which a segment * matches any one key or index and **
// any number of them, zero included) and optionally an RE2 pattern with a
// literal replace text. Without a pattern the whole value at the path
// becomes a marker that keeps its type ("[redacted: string]",
// "[redacted: number]", …), so a field that changes type or disappears is
// still a change; with one, only the pattern's matches inside a string
// value are replaced.
//
// Apply redacts one artifact and lists what it redacted; Compare and
// CompareBaseline tell the differences that lie only in redacted places
// from those outside them, and name the rule behind a difference a changed
// rule made; Propose suggests the rules that would make differing runs
// agree, as JSON text to paste into a manifest. Redaction is bounded by
// safeio's limits, deterministic, keeps numbers as written and keys in
// their order, and is idempotent: redacting a redacted artifact gives the
// same bytes.
package redact

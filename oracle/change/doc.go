// Package change is the model of a change between a frozen artifact and a
// fresh one, as every report shows it: the semantic diff of a file
// (DiffFile: RFC 6902 paths, old and new values, long strings as word
// spans, state-diff members matched by id and field changes by path, the
// calls of calls.json aligned as a sequence, check labels beside
// /checks/N, invisible differences such as CRLF, a byte-order mark or key
// order named with their path), the tool calls that newly fail
// (CallErrorChanges), and a changed case's story: the checks that moved
// and why, new violations, and the result.json fields its headline already
// says (StoryOf, Fold). A flipped verdict is a Label: regression or
// improvement.
//
// It reads artifacts' bytes only: the engine (package oracle) decides which
// files to compare, and the renderers (oracle/render) show what it found.
package change

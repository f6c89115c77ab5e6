// Package mutate measures the gate on an environment's own code: it makes
// behaviour mutants of the environment's tools, state and helpers (never
// its tasks, data, verifiers or solvers) with the language's own parser,
// runs each one the way oracle check runs the environment, against the
// committed baselines, in an overlay or a copy that never touches the
// project, and says per mutant whether the verifiers caught it, whether
// the baselines did (and through which artifacts), or whether it survived.
//
// A Mutant is one edit of one source file, with a stable id (file, line,
// column, operator, a digest of the edit) and a unified diff that applies
// with patch -p1 at the project root. A Target knows one language: how to
// list mutants, how to make the project's check see a mutant, and, where it
// can, which cases execute a line. Run drives a Target through the cases
// and makes a Report, which renders as text, JSON or Markdown.
package mutate

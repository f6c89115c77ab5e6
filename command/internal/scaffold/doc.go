// Package scaffold writes the Go source of new environments, tools and
// verifiers from text templates, and the registry that lists them.
//
// Everything here is a pure function from names to file contents: the
// command line decides where the files go and refuses to overwrite. Go
// files come out gofmt-formatted. The registry (registry.go, marked as
// generated) is derived from the package's source: every top-level function
// that takes nothing and returns env.Tool[State] is a tool, every one that
// returns env.Verifier[State] is a verifier, in file-name order and then in
// the order they are declared. So adding a tool or a verifier is adding a
// file and regenerating the registry, and a file on disk is registered only
// once the registry names it.
package scaffold

package env

// Terms are the names an environment's author knows its parts by, which
// validate's findings use: a Go Definition's NewState (or Seed) and a
// tool's InputSchema, a module's createState and inputSchema.
type Terms struct {
	// State is what makes a task's initial state.
	State string
	// Schema is a tool's input schema.
	Schema string
}

// GoTerms are the terms of an environment built with New.
var GoTerms = Terms{State: "NewState (or Seed)", Schema: "InputSchema"}

// Authored is an Environment whose author knows its parts by other names
// than a Go Definition's (an environment served by a host in another
// language); validate words its findings in them. An Environment that does
// not implement it is spoken of in GoTerms.
type Authored interface {
	Terms() Terms
}

// termsOf returns the terms e's findings are worded in.
func termsOf(e Environment) Terms {
	if a, ok := e.(Authored); ok {
		return a.Terms()
	}
	return GoTerms
}

package report

// Redacted is what the rules of a case's environment redacted in its
// fresh artifacts: how many values, how many of them the runs held
// differently (what the redaction hid from the comparison), and, for check
// --show-redacted, which.
type Redacted struct {
	// Values counts the values the rules redacted in the first run's
	// artifacts.
	Values int `json:"values"`
	// Differ counts the redacted values that a later run held otherwise
	// before redaction. Nil when the case ran once: against a baseline,
	// which holds the redacted values, what each was is not known. Being
	// volatile, it may differ from one check to the next.
	Differ *int `json:"differ,omitempty"`
	// Shown lists the redacted values, in the order of the files and of
	// each file, when the check was asked to show them
	// (Options.ShowRedacted); at most maxShownValues, More counts the rest.
	// A report folder never holds them: they are the values the
	// environment declared volatile.
	Shown []RedactedValue `json:"shown,omitempty"`
	More  int             `json:"more,omitempty"`
}

// RedactedValue is one redacted value of a case, as check --show-redacted
// shows it. Values are JSON text, cut at maxShownText characters (an …
// then ends them).
type RedactedValue struct {
	File    string `json:"file"`
	Pointer string `json:"pointer"`
	// Rules are the rules that redacted it, by index in the environment's
	// list (redact[2]).
	Rules []int `json:"rules"`
	// First is the value in the first run; Later, when a later run held it
	// otherwise, the value there; Value is what both are redacted to.
	First string `json:"first"`
	Later string `json:"later,omitempty"`
	Value string `json:"value"`
}

// Unshown returns c without the redacted values it shows, for a file of a
// report folder: c itself when it shows none.
func (c *Case) Unshown() *Case {
	if c.Redacted == nil || c.Redacted.Shown == nil {
		return c
	}
	cp, r := *c, *c.Redacted
	r.Shown, r.More = nil, 0
	cp.Redacted = &r
	return &cp
}

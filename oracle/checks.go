package oracle

// CheckState is one check of a changed case as the baseline and the fresh
// run grade it, matched by label.
type CheckState struct {
	Label string `json:"label"`
	Kind  string `json:"kind,omitempty"`
	// Was and Now say whether the check passed in the baseline and in the
	// fresh run; nil when that side has no check of this label.
	Was *bool `json:"was,omitempty"`
	Now *bool `json:"now,omitempty"`
}

// checkStates lists the checks of two result.json texts by label: the
// fresh run's in order, then those only the baseline has.
func checkStates(old, fresh []byte) []CheckState {
	before, _ := resultChecks(old)
	after, _ := resultChecks(fresh)
	var out []CheckState
	index := map[string]int{}
	for _, c := range after {
		if _, dup := index[c.Label]; dup {
			continue
		}
		index[c.Label] = len(out)
		out = append(out, CheckState{Label: c.Label, Kind: c.Kind, Now: c.Passed})
	}
	for _, c := range before {
		i, ok := index[c.Label]
		if !ok {
			index[c.Label] = len(out)
			out = append(out, CheckState{Label: c.Label, Kind: c.Kind, Was: c.Passed})
			continue
		}
		if out[i].Was == nil {
			out[i].Was = c.Passed
		}
	}
	return out
}

package change

// CheckStates lists the checks of two result.json texts by label (their
// label, kind and whether each side passed them): the fresh run's in
// order, then those only the baseline has.
func CheckStates(old, fresh []byte) []CheckChange {
	before, _ := resultChecks(old)
	after, _ := resultChecks(fresh)
	var out []CheckChange
	index := map[string]int{}
	for _, c := range after {
		if _, dup := index[c.Label]; dup {
			continue
		}
		index[c.Label] = len(out)
		out = append(out, CheckChange{Label: c.Label, Kind: c.Kind, Now: c.Passed})
	}
	for _, c := range before {
		i, ok := index[c.Label]
		if !ok {
			index[c.Label] = len(out)
			out = append(out, CheckChange{Label: c.Label, Kind: c.Kind, Was: c.Passed})
			continue
		}
		if out[i].Was == nil {
			out[i].Was = c.Passed
		}
	}
	return out
}

package env

import (
	"bytes"
	"fmt"
)

// states opens every task's world twice and compares the initial states.
func (v *validation) states(e Environment, tasks []Task) {
	state := termsOf(e).State
	for _, t := range tasks {
		first, err := openInitial(e, t, state)
		if err != nil {
			v.add(LevelError, "state_invalid", "task %s: %v; %s must return a state that marshals to a JSON object", t.ID, err, state)
			continue
		}
		second, err := openInitial(e, t, state)
		if err != nil {
			v.add(LevelError, "state_nondeterministic", "task %s: %s worked once and then failed: %v; build the state from the task alone", t.ID, state, err)
			continue
		}
		if at := firstDifference(first, second); at >= 0 {
			v.add(LevelError, "state_nondeterministic", "task %s: two calls of %s gave different states (first difference at byte %d: %s, then %s); keep the clock in the state and seed randomness from the task",
				t.ID, state, at, excerpt(first, at), excerpt(second, at))
		}
	}
}

// openInitial opens a world for t and returns its initial state, turning a
// panic of what makes the state (named state) into an error.
func openInitial(e Environment, t Task, state string) (initial []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s panicked: %v", state, r)
		}
	}()
	w, err := e.Open(t)
	if err != nil {
		return nil, err
	}
	return w.Initial(), nil
}

// firstDifference returns the offset of the first byte where a and b
// differ, or -1 when they are equal.
func firstDifference(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// excerpt quotes a few bytes of data around offset at.
func excerpt(data []byte, at int) string {
	start, end := max(at-20, 0), min(at+20, len(data))
	return fmt.Sprintf("%q", data[start:end])
}

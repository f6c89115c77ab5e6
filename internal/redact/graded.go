package redact

import (
	"fmt"
	"strings"
)

// What a rule may never reach. A redaction is for a volatile value that
// says nothing of the grade (a time, an id, a temporary path); a rule that
// reached the grade would let a pass → fail change agree with its baseline
// and the gate pass unseen. So a rule whose path can select, or select a
// value above or inside, any place of result.json that grades the rollout
// (Graded) is refused with the reason, whatever its pattern, and so is a
// rule whose path names no key or index at all ("", /*, /**): its reach
// would be the whole artifact, leaving nothing in it to compare.

// Graded are the places of result.json that grade a rollout: the verdict
// and what it is made of, the reward, the termination, and each check's
// outcome. * is any index.
var Graded = []string{
	"/passed", "/verdict", "/reward", "/infrastructure", "/terminationReason",
	"/requiredPassed", "/requiredTotal", "/failedRequired", "/failedRequired/*", "/violations", "/violations/*",
	"/checksPassed", "/checksFailed",
	"/checks/*/passed", "/checks/*/required", "/checks/*/kind",
}

// graded is Graded parsed.
var graded = func() []gradedPlace {
	out := make([]gradedPlace, len(Graded))
	for i, p := range Graded {
		segs, err := parseSelector(p)
		if err != nil {
			panic(err) // not reached: the places are valid pointers
		}
		out[i] = gradedPlace{path: p, segs: segs}
	}
	return out
}()

type gradedPlace struct {
	path string
	segs []segment
}

// checkReach refuses a rule whose reach is unbounded or covers what grades
// (see Graded); the error is the path's.
func checkReach(artifact string, segs []segment) error {
	if !bounded(segs) {
		return fmt.Errorf("%s names no key or index, so it would redact the whole %s artifact and leave nothing in it to compare; name the field that varies (such as /**/createdAt)", quote(pathOf(segs)), artifact)
	}
	if hit := gradedBy(artifact, segs); len(hit) > 0 {
		return fmt.Errorf("%s reaches %s, which grade%s the rollout: a redacted grade would let a pass → fail change agree with its baseline; what grades is never redacted (a verdict that varies is a nondeterministic environment or a model agent: fix the environment, or record the case as a distribution with record --runs N)",
			quote(pathOf(segs)), strings.Join(hit, ", "), map[bool]string{true: "", false: "s"}[len(hit) > 1])
	}
	return nil
}

// bounded reports whether a path names a key or an index.
func bounded(segs []segment) bool {
	for _, s := range segs {
		if s.kind == segLit {
			return true
		}
	}
	return false
}

// gradedBy lists the places of Graded a path in artifact reaches.
func gradedBy(name string, segs []segment) []string {
	if name != Result {
		return nil
	}
	var hit []string
	for _, g := range graded {
		if reaches(segs, g.segs) {
			hit = append(hit, g.path)
		}
	}
	return hit
}

// reaches reports whether a path that sel selects is the place target or
// lies above it. A * of target is any index.
func reaches(sel, target []segment) bool {
	switch {
	case len(sel) == 0:
		return true // at the target or above it
	case len(target) == 0:
		return false // below it: nothing is (what grades holds no object)
	case sel[0].kind == segMany:
		return reaches(sel[1:], target) || reaches(sel, target[1:])
	case target[0].kind == segOne: // an index
		if sel[0].kind == segOne || isIndex(sel[0].text) {
			return reaches(sel[1:], target[1:])
		}
	case sel[0].kind == segOne || sel[0].text == target[0].text:
		return reaches(sel[1:], target[1:])
	}
	return false
}

func isIndex(key string) bool {
	return key != "" && strings.Trim(key, "0123456789") == ""
}

// pathOf writes segs as the path a rule gives.
func pathOf(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		switch s.kind {
		case segOne:
			b.WriteByte('*')
		case segMany:
			b.WriteString("**")
		default:
			b.WriteString(selectorKey(s.text))
		}
	}
	return b.String()
}

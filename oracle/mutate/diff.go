package mutate

import (
	"fmt"
	"strings"
)

// Diff returns the mutant's edit of src as a unified diff with three lines
// of context, its paths a/FILE and b/FILE, so that patch -p1 at the project
// root applies it.
func (m Mutant) Diff(src []byte) (string, error) {
	mutated, err := m.Apply(src)
	if err != nil {
		return "", err
	}
	old, neu := splitLines(string(src)), splitLines(string(mutated))
	// the lines the edit touches: everything between the common head and
	// the common tail
	head := 0
	for head < len(old) && head < len(neu) && old[head] == neu[head] {
		head++
	}
	tail := 0
	for tail < len(old)-head && tail < len(neu)-head && old[len(old)-1-tail] == neu[len(neu)-1-tail] {
		tail++
	}
	const context = 3
	from := max(0, head-context)
	oldEnd := min(len(old), len(old)-tail+context)
	newEnd := min(len(neu), len(neu)-tail+context)
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", m.File, m.File)
	fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(from, oldEnd-from), hunkRange(from, newEnd-from))
	write := func(prefix string, lines []string) {
		for _, l := range lines {
			b.WriteString(prefix)
			if text, ok := strings.CutSuffix(l, "\n"); ok {
				b.WriteString(text)
				b.WriteByte('\n')
			} else {
				b.WriteString(l)
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	write(" ", old[from:head])
	write("-", old[head:len(old)-tail])
	write("+", neu[head:len(neu)-tail])
	write(" ", old[len(old)-tail:oldEnd])
	return b.String(), nil
}

// hunkRange is a hunk header's start,count for count lines from the
// 0-based line from.
func hunkRange(from, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", from)
	}
	if count == 1 {
		return fmt.Sprintf("%d", from+1)
	}
	return fmt.Sprintf("%d,%d", from+1, count)
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

package mutate

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// ChangedLines are the lines of files (slash, project-relative) that
// differ in the project's work tree from the git ref: git diff's new-side
// lines, with no context.
func ChangedLines(ctx context.Context, project, ref string, files []string) (Lines, error) {
	args := append([]string{"-C", project, "diff", "--no-color", "--no-ext-diff", "--unified=0", "--relative", ref, "--"}, files...)
	cmd := exec.CommandContext(ctx, "git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("--since %s: git diff: %s; give a ref git knows in %s (fetch it first in CI)", ref, firstLine(stderr.String()+" "+err.Error()), project)
	}
	return parseChangedLines(out)
}

// parseChangedLines reads the new-side lines of a unified diff.
func parseChangedLines(diff []byte) (Lines, error) {
	lines := Lines{}
	var file string
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/")
			if file == "/dev/null" {
				file = ""
			}
		case strings.HasPrefix(l, "@@ ") && file != "":
			// @@ -a,b +c,d @@
			f := strings.Fields(l)
			if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
				return nil, fmt.Errorf("git diff: a hunk header %q", l)
			}
			start, count, ok := strings.Cut(f[2][1:], ",")
			n := 1
			if ok {
				var err error
				if n, err = strconv.Atoi(count); err != nil {
					return nil, fmt.Errorf("git diff: a hunk header %q", l)
				}
			}
			s, err := strconv.Atoi(start)
			if err != nil {
				return nil, fmt.Errorf("git diff: a hunk header %q", l)
			}
			if lines[file] == nil {
				lines[file] = map[int]bool{}
			}
			for i := range n {
				lines[file][s+i] = true
			}
		}
	}
	return lines, sc.Err()
}

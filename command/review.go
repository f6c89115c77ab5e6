package command

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/agent-oracle/oracle/oracle/render"
	"github.com/agent-oracle/oracle/oracle/report"
	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"
)

// pendingWriter keeps the fresh artifacts of each checked case that did
// not match in the project's .silo/pending (a removal for an obsolete one),
// and drops what was pending for the cases that now match or could not
// run, case by case as the check hands them on.
type pendingWriter struct {
	c     *cli.Context
	tasks []string // --task
	p     *baseline.Pending
	n     int
	dist  distGroups // never pending (distpending.go)
}

func newPendingWriter(c *cli.Context, tasks []string) (*pendingWriter, error) {
	dir, err := project(c)
	if err != nil {
		return nil, err
	}
	return &pendingWriter{c: c, tasks: tasks, p: baseline.OpenPending(dir)}, nil
}

// add keeps what is pending of the case cr, whose fresh artifacts kept
// holds when it did not match.
func (w *pendingWriter) add(cr *report.Case, kept *oracle.Kept) error {
	k := cr.Key()
	switch {
	case w.dist.add(cr):
		return w.p.Remove(k)
	case (cr.Status == report.StatusChanged || cr.Status == report.StatusMissing) && kept != nil:
		w.n++
		return w.p.Write(k, kept.Entry)
	case cr.Status == report.StatusObsolete:
		w.n++
		return w.p.MarkObsolete(k)
	}
	return w.p.Remove(k)
}

// done says what is pending.
func (w *pendingWriter) done() {
	if w.n > 0 {
		fmt.Fprintf(w.c.App.ErrWriter, "pending: %s in %s; %s review, accept or reject them\n", plural(w.n, "case"), baseline.PendingDir, w.c.App.Name)
	}
	w.dist.print(w.c.App.ErrWriter, w.c.App.Name, "not pending: ", w.tasks)
}

// acceptSource is where accept takes its artifacts: the project's
// .silo/pending (own), or the fresh/ folder of a report folder given with
// --from, whose JSON report (report) says which baseline each case was
// compared with.
type acceptSource struct {
	p      *baseline.Pending
	own    bool
	dir    string         // the report folder, as --from gives it
	report *report.Report // its report.json
}

// pendingSource opens where accept takes its artifacts. A report folder
// must be one: the folder --from names holds report.json (a regular file,
// no link, of this oracle's format version) beside fresh/; a bare fresh/
// folder, or a folder with no report, is refused naming the folder to
// give instead.
func pendingSource(c *cli.Context, from string) (*acceptSource, error) {
	if from == "" {
		dir, err := pendingProject(c)
		if err != nil {
			return nil, err
		}
		return &acceptSource{p: baseline.OpenPending(dir), own: true}, nil
	}
	info, err := os.Stat(from)
	if err != nil || !info.IsDir() {
		return nil, usageError("--from %s: no such report folder; give the folder of %s check --report-dir (downloaded from CI)", from, c.App.Name)
	}
	file := filepath.Join(from, reportJSON())
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		parent := filepath.Dir(filepath.Clean(from))
		if filepath.Base(filepath.Clean(from)) == oracle.FreshDir {
			if _, err := os.Lstat(filepath.Join(parent, reportJSON())); err == nil {
				return nil, usageError("--from %s is the %s/ folder of a report folder; give the report folder itself: --from %s", from, oracle.FreshDir, parent)
			}
		}
		return nil, usageError("--from %s holds no %s, so it is no report folder of %s check --report-dir; give that folder itself (the one holding %s and %s/)", from, reportJSON(), c.App.Name, reportJSON(), oracle.FreshDir)
	}
	data, err := safeio.ReadNoFollow(file)
	if err != nil {
		if errors.Is(err, safeio.ErrSymlink) {
			return nil, fmt.Errorf("accept: %s is a symlink; a report folder is read without following a link: download the folder again", file)
		}
		return nil, fmt.Errorf("accept: %w; download the report folder again", err)
	}
	r, err := oracle.ParseReport(data, file, "accept")
	if err != nil {
		return nil, fmt.Errorf("%w; give the report folder of a check by this oracle, or run the check again", err)
	}
	// a fresh/ that is a symlink is taken too, and refused when read: no
	// symlink inside the report folder is followed
	return &acceptSource{p: baseline.NewReportPending(filepath.Join(from, oracle.FreshDir)), dir: from, report: r}, nil
}

// compared is the hash of the baseline the report compared each of keys
// with (all of them are pending in its fresh/). A key the report does not
// list, or lists without a hash (a report of an older oracle), is an
// error: its artifacts cannot be told to be of the baseline there now.
func (s *acceptSource) compared(c *cli.Context, keys []baseline.Key) (map[baseline.Key]string, error) {
	byCase := make(map[string]*report.Case, len(s.report.Cases))
	for _, cr := range s.report.Cases {
		byCase[cr.Case] = cr
	}
	want := make(map[baseline.Key]string, len(keys))
	file := filepath.Join(s.dir, reportJSON())
	for _, k := range keys {
		cr := byCase[k.String()]
		switch {
		case cr == nil:
			return nil, fmt.Errorf("accept: %s holds artifacts of %s, which %s does not list: the folder was changed after its check; nothing was accepted; run %s check --report-dir again", s.p.Root(), k, file, c.App.Name)
		case cr.Baseline == "":
			return nil, fmt.Errorf("accept: %s does not say which baseline %s was compared with (a report of an older oracle?); nothing was accepted; run %s check --report-dir again and accept from its folder", file, k, c.App.Name)
		}
		want[k] = cr.Baseline
	}
	return want, nil
}

// refuseMoved refuses the whole call when the baseline of a case of keys
// is no longer the one the report compared it with (recorded or accepted
// since): nothing is accepted, each is named on stderr (in text), and the
// error names the fix, a new check.
func (s *acceptSource) refuseMoved(c *cli.Context, json bool, moved []baseline.Key) error {
	if len(moved) == 0 {
		return nil
	}
	if !json {
		for _, k := range moved {
			fmt.Fprintf(c.App.ErrWriter, "refused   %s: its baseline changed since the check that made %s\n", k, s.dir)
		}
	}
	const shown = 3
	names := make([]string, 0, shown)
	for _, k := range moved[:min(shown, len(moved))] {
		names = append(names, k.String())
	}
	list := strings.Join(names, ", ")
	if len(moved) > shown {
		list += fmt.Sprintf(" and %d more", len(moved)-shown)
	}
	return &env.Error{Code: codeStale, Message: fmt.Sprintf(
		"%s changed since %s was made (recorded or accepted in between): %s; nothing was accepted; run %s check --report-dir again (in CI, run the job again) and accept from the new report folder",
		plural(len(moved), "baseline"), s.dir, list, c.App.Name)}
}

// projectPending opens the project's .silo/pending and lists what the
// command's CASE-GLOB arguments select of it.
func projectPending(c *cli.Context) (string, *baseline.Pending, []baseline.Key, error) {
	dir, err := pendingProject(c)
	if err != nil {
		return "", nil, nil, err
	}
	p := baseline.OpenPending(dir)
	keys, err := pendingKeys(p, c.Args().Slice())
	return dir, p, keys, withDistributionHint(c, err)
}

// pendingKeys lists what p holds that the globs match (all when none is
// given); a glob that matches nothing is a usage error.
func pendingKeys(p *baseline.Pending, globs []string) ([]baseline.Key, error) {
	keys, err := p.List()
	if err != nil {
		return nil, err
	}
	if len(globs) == 0 {
		return keys, nil
	}
	var out []baseline.Key
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return nil, usageError("case pattern %q: %v", g, err)
		}
		matched := false
		for _, k := range keys {
			if ok, _ := path.Match(g, k.String()); ok {
				matched = true
				if !containsKey(out, k) {
					out = append(out, k)
				}
			}
		}
		if !matched {
			return nil, usageError(nothingPendingMatches+" %q (pending: %s)", g, keyList(keys))
		}
	}
	return out, nil
}

func containsKey(keys []baseline.Key, k baseline.Key) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

func keyList(keys []baseline.Key) string {
	if len(keys) == 0 {
		return "none"
	}
	var s []string
	for _, k := range keys {
		s = append(s, k.String())
	}
	return strings.Join(s, ", ")
}

// checkCaseSet refuses pending artifacts that are not for the project's
// current cases: artifacts for a key that is no case, or a removal of a
// key that is a case again.
func checkCaseSet(c *cli.Context, envs Environments, p *baseline.Pending, keys []baseline.Key) error {
	selected, _, err := selectCases(c, envs, oracle.Selection{}, nil)
	if err != nil {
		return err
	}
	known := map[baseline.Key]bool{}
	for cs := range selected.Cases.All {
		known[cs.Key] = true
	}
	for _, k := range keys {
		_, obsolete, err := p.Read(k)
		if err != nil {
			return err
		}
		switch {
		case obsolete && known[k]:
			return fmt.Errorf("%s in %s removes the baseline of %s, which is a case of this project; run %s check again", k.Task+baseline.ObsoleteSuffix, p.Root(), k, c.App.Name)
		case !obsolete && !known[k]:
			return fmt.Errorf("%s in %s is not a case of this project (no environment, agent or task of that name here); nothing was accepted", k, p.Root())
		}
	}
	return nil
}

func rejectCommand() *cli.Command {
	return &cli.Command{
		Name:      "reject",
		Usage:     "drop pending artifacts",
		ArgsUsage: "[CASE-GLOB...]",
		Description: "Removes the pending artifacts of the cases matching each CASE-GLOB (all when none is given)\n" +
			"from .silo/pending. The baselines are not touched.\n" +
			"Exit status: 0 rejected (or nothing pending); 2 trouble.",
		Action: func(c *cli.Context) error {
			_, p, keys, err := projectPending(c)
			if err != nil {
				return err
			}
			s := newStyle(c, c.App.Writer)
			for _, k := range keys {
				if err := p.Remove(k); err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "%s %s\n", s.Warn(fmt.Sprintf("%-9s", "rejected")), k)
			}
			if len(keys) == 0 {
				fmt.Fprintf(c.App.Writer, "nothing pending in %s\n", p.Root())
				return nil
			}
			fmt.Fprintf(c.App.Writer, "%d rejected\n", len(keys))
			return nil
		},
	}
}

func reviewCommand(envs Environments) *cli.Command {
	return &cli.Command{
		Name:      "review",
		Usage:     "accept, reject or skip each pending case on a terminal",
		ArgsUsage: "[CASE-GLOB...]",
		Description: "Shows each pending case of .silo/pending (PROGRAM check --pending) one at a time as check does:\n" +
			"the verdicts and the reward old → new, the checks that moved and why, its new tool errors, then its\n" +
			"diff against the baseline. Then a key (no Enter needed):\n" +
			"a accept, r reject, s skip, A accept this and all remaining, q quit. Accepting a regression\n" +
			"(a verdict that goes from pass to something else) asks again, and only y accepts it; with A\n" +
			"too. Pending cases that already equal their baseline are dropped first, each named. A\n" +
			"summary ends it.\n" +
			"Needs a terminal on stdin; scripts use PROGRAM accept and PROGRAM reject.\n" +
			"Exit status: 0 done; 2 trouble.",
		Action: func(c *cli.Context) error {
			in, ok := c.App.Reader.(*os.File)
			if !ok || !(isatty.IsTerminal(in.Fd()) || isatty.IsCygwinTerminal(in.Fd())) {
				return usageError("review asks on a terminal, and stdin is not one; in scripts use %s accept or %s reject", c.App.Name, c.App.Name)
			}
			dir, p, keys, err := projectPending(c)
			if err != nil {
				return err
			}
			if len(keys) == 0 {
				printNothingPending(c, p)
				return nil
			}
			if err := checkCaseSet(c, envs, p, keys); err != nil {
				return err
			}
			return review(c, in, openStore(c, dir), p, keys)
		},
	}
}

// review drops the pending cases that already equal their baseline,
// saying so, then asks about each other key in turn. Accepting a
// regression asks a second time.
func review(c *cli.Context, in io.Reader, store *baseline.Store, p *baseline.Pending, keys []baseline.Key) error {
	w := c.App.Writer
	s := newStyle(c, w)
	typed := newAnswers(c.Context, in, w)
	defer typed.close()
	type pendingReview struct {
		cr     *report.Case
		change verdictChange
	}
	var todo []pendingReview
	dropped := 0
	for _, k := range keys {
		cr, change, same, err := pendingCase(store, p, k)
		if err != nil {
			return err
		}
		if !same {
			todo = append(todo, pendingReview{cr, change})
			continue
		}
		if err := p.Remove(k); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s %s: what was pending already is the baseline\n", s.Dim(fmt.Sprintf("%-9s", "dropped")), k)
		dropped++
	}
	var accepted, rejected, skipped int
	summary := func() {
		fmt.Fprintf(w, "\n%d accepted, %d rejected, %d skipped (still pending)", accepted, rejected, skipped)
		if dropped > 0 {
			fmt.Fprintf(w, ", %d dropped (already the baseline)", dropped)
		}
		fmt.Fprintln(w)
	}
	all := false
	for i, pr := range todo {
		cr, change := pr.cr, pr.change
		k := cr.Key()
		fmt.Fprintf(w, "\n%s\n", s.Bold(fmt.Sprintf("[%d/%d]", i+1, len(todo))))
		var buf bytes.Buffer
		one := &report.Report{Cases: []*report.Case{cr}}
		_ = render.Text(&buf, one, render.Options{Program: c.App.Name, Colors: s.colors(), All: true})
		// the case and its diff, without the one-case summary line
		text := strings.TrimRight(buf.String(), "\n")
		if i := strings.LastIndex(text, "\n\n"); i >= 0 {
			text = text[:i]
		}
		fmt.Fprintln(w, text)
		answer := "a"
		if !all {
			var err error
			answer, err = ask(w, typed)
			if err != nil {
				return err
			}
		}
		switch answer {
		case "A":
			all = true
			fallthrough
		case "a":
			if change.regression() {
				ok, err := confirmRegression(w, s, typed, k, change)
				if err != nil {
					return err
				}
				if !ok {
					fmt.Fprintf(w, "%s %s: the regression was not confirmed\n", s.Dim(fmt.Sprintf("%-9s", "skipped")), k)
					skipped++
					continue
				}
			}
			acc, err := store.Accept(p, []baseline.Key{k})
			if err != nil {
				return err
			}
			if err := p.Remove(k); err != nil {
				return err
			}
			printAccepted(w, s, withVerdicts(acc, map[baseline.Key]verdictChange{k: change}))
			accepted++
		case "r":
			if err := p.Remove(k); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s %s\n", s.Warn(fmt.Sprintf("%-9s", "rejected")), k)
			rejected++
		case "s":
			fmt.Fprintf(w, "%s %s\n", s.Dim(fmt.Sprintf("%-9s", "skipped")), k)
			skipped++
		case "q":
			skipped += len(todo) - i
			summary()
			return nil
		}
	}
	summary()
	return nil
}

// confirmRegression asks a second time before a regression is accepted:
// only y (on a terminal, the key; otherwise y or yes and Enter) accepts
// it; anything else, or the end of input, keeps it pending.
func confirmRegression(w io.Writer, s *style, keys *answers, k baseline.Key, v verdictChange) (bool, error) {
	fmt.Fprintf(w, "%s: its verdict goes from %s to %s. Accept this regression? [y/N]: ",
		s.Bad(k.String()+" is a regression"), verdictName(v.OldVerdict), verdictName(v.NewVerdict))
	answer, err := keys.next()
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	keys.echo(answer)
	if err != nil && !keys.keys {
		fmt.Fprintln(w)
	}
	switch strings.ToLower(answer) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// ask reads an answer: a, r, s, A or q, asking again on anything else;
// on a terminal, Enter and spaces are ignored.
func ask(w io.Writer, keys *answers) (string, error) {
	for {
		fmt.Fprint(w, "accept? [a]ccept [r]eject [s]kip [A]ccept all remaining [q]uit: ")
		answer, err := keys.next()
		for err == nil && keys.blank(answer) {
			answer, err = keys.next()
		}
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(w)
			return "q", nil
		}
		if err != nil {
			return "", err
		}
		keys.echo(answer)
		switch answer {
		case "a", "r", "s", "A", "q":
			return answer, nil
		}
		fmt.Fprintf(w, "%q is not one of a, r, s, A, q\n", answer)
	}
}

// pendingCase compares what is pending for k with its baseline, and says
// what accepting it does to its verdict; same is set when accepting it
// would change nothing: the pending artifacts are the baseline's bytes, or
// a pending removal's baseline is already gone.
func pendingCase(store *baseline.Store, p *baseline.Pending, k baseline.Key) (cr *report.Case, change verdictChange, same bool, err error) {
	fresh, obsolete, err := p.Read(k)
	if err != nil {
		return nil, verdictChange{}, false, err
	}
	frozen, err := store.Read(k)
	switch {
	case errors.Is(err, baseline.ErrNotFound):
		return oracle.Compare(k, nil, fresh, obsolete), verdictChange{}, obsolete, nil
	case err != nil:
		return nil, verdictChange{}, false, err
	}
	cr = oracle.Compare(k, &frozen, fresh, obsolete)
	if !obsolete {
		change.OldVerdict, change.NewVerdict, change.Label = oracle.VerdictChange(frozen.Result, fresh.Result)
	}
	return cr, change, cr.Status == report.StatusUnchanged, nil
}

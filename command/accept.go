package command

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/baseline"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/oracle"
	"github.com/urfave/cli/v2"
)

// verdictChange is what accepting a case does to its verdict: the
// baseline's and the pending one's, and the label when it flips.
type verdictChange struct {
	Label      oracle.Label `json:"label,omitempty"`
	OldVerdict env.Verdict  `json:"oldVerdict,omitempty"`
	NewVerdict env.Verdict  `json:"newVerdict,omitempty"`
}

// regression reports whether accepting turns a passing case into one that
// does not pass.
func (v verdictChange) regression() bool { return v.Label == oracle.LabelRegression }

// note is what an accepted line says of the change: "; regression: pass →
// fail", or nothing when the verdict did not flip.
func (v verdictChange) note() string {
	if v.Label == "" {
		return ""
	}
	return fmt.Sprintf("; %s: %s → %s", v.Label, verdictName(v.OldVerdict), verdictName(v.NewVerdict))
}

// verdictName is a verdict for a terminal: the verdicts a result.json may
// hold as they are, anything else (a pending folder is outside input)
// quoted, so that no control character reaches the terminal.
func verdictName(v env.Verdict) string {
	switch v {
	case env.Pass, env.Fail, env.Inconclusive:
		return string(v)
	case "":
		return "none"
	}
	return strconv.QuoteToGraphic(string(v))
}

// verdictChanges reads the verdict each key's baseline and pending
// result.json hold. An obsolete case changes no verdict.
func verdictChanges(store *baseline.Store, p *baseline.Pending, keys []baseline.Key) (map[baseline.Key]verdictChange, error) {
	out := make(map[baseline.Key]verdictChange, len(keys))
	for _, k := range keys {
		fresh, obsolete, err := p.Read(k)
		if err != nil {
			return nil, err
		}
		if obsolete {
			continue
		}
		frozen, err := store.Read(k)
		switch {
		case errors.Is(err, baseline.ErrNotFound):
			frozen = baseline.Entry{}
		case err != nil:
			return nil, err
		}
		var v verdictChange
		v.OldVerdict, v.NewVerdict, v.Label = oracle.VerdictChange(frozen.Result, fresh.Result)
		out[k] = v
	}
	return out, nil
}

// refuseRegressions refuses the whole call when a case of keys is a
// regression and the command was not given --allow-regressions: nothing is
// accepted, each regression is named on stderr (in text), and the error
// names the flag.
func (o *acceptOptions) refuseRegressions(c *cli.Context, keys []baseline.Key, changes map[baseline.Key]verdictChange) error {
	if o.AllowRegressions {
		return nil
	}
	var regs []string
	for _, k := range keys {
		v := changes[k]
		if !v.regression() {
			continue
		}
		name := fmt.Sprintf("%s (%s → %s)", k, verdictName(v.OldVerdict), verdictName(v.NewVerdict))
		regs = append(regs, name)
		if !o.JSON {
			fmt.Fprintf(c.App.ErrWriter, "refused   %s: regression, the verdict goes from pass to %s\n", k, verdictName(v.NewVerdict))
		}
	}
	if len(regs) == 0 {
		return nil
	}
	const shown = 3
	list := strings.Join(regs[:min(shown, len(regs))], ", ")
	if len(regs) > shown {
		list += fmt.Sprintf(" and %d more", len(regs)-shown)
	}
	them := "them"
	if len(regs) == 1 {
		them = "it"
	}
	return &env.Error{Code: codeRegression, Message: fmt.Sprintf(
		"%s would stop passing: %s; nothing was accepted; accept %s deliberately with --allow-regressions, or name only the other cases",
		plural(len(regs), "case"), list, them)}
}

// acceptedCase is one accepted line: what was written and what it does to
// the verdict.
type acceptedCase struct {
	baseline.Accepted
	verdictChange
}

func printAccepted(w io.Writer, s *style, acc []acceptedCase) {
	for _, a := range acc {
		what := ""
		switch {
		case a.Obsolete:
			what = "removed its baseline (no case any more)"
		case len(a.Wrote) == 0:
			what = "the baseline already held these bytes"
		default:
			what = "wrote " + strings.Join(a.Wrote, ", ")
		}
		note := a.note()
		if a.regression() {
			note = s.Bad(note)
		}
		fmt.Fprintf(w, "%s %s: %s%s\n", s.Good(fmt.Sprintf("%-9s", "accepted")), a.Case, what, note)
	}
}

// withVerdicts pairs what Accept did with each case's verdict change.
func withVerdicts(acc []baseline.Accepted, changes map[baseline.Key]verdictChange) []acceptedCase {
	out := make([]acceptedCase, len(acc))
	for i, a := range acc {
		out[i] = acceptedCase{a, changes[a.Key]}
	}
	return out
}

// acceptOptions are accept's flags.
type acceptOptions struct {
	flags
	From             string
	AllowRegressions bool
	JSON             bool
}

func acceptCommand(envs Environments) *cli.Command {
	o := &acceptOptions{}
	o.String(&o.From, &cli.StringFlag{Name: "from", Usage: "take the fresh artifacts of the report folder `DIR` (check --report-dir)"})
	o.Bool(&o.AllowRegressions, &cli.BoolFlag{Name: "allow-regressions", Usage: "also accept cases whose verdict goes from pass to something else"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print what was accepted as JSON"})
	return &cli.Command{
		Name:      "accept",
		Usage:     "make pending artifacts the baselines",
		ArgsUsage: "[CASE-GLOB...]",
		Description: "Writes the pending artifacts of the cases matching each CASE-GLOB (env/agent/task, e.g.\n" +
			"'crm/*/TASK-00?'; all when none is given) into .silo/baselines, through the store's lock and\n" +
			"atomic writer: a missing case gets its baseline, a changed one its new artifacts, and an obsolete\n" +
			"one loses its baseline. Pending artifacts come from .silo/pending (PROGRAM check --pending), or with\n" +
			"--from from a report folder of PROGRAM check --report-dir, e.g. downloaded from CI, without a rerun:\n" +
			"the folder itself, holding report.json and fresh/. Each must be for a case of this project, and its\n" +
			"baseline the one the report compared it with: a case recorded or accepted since is refused, the\n" +
			"whole call with it (run the check again). An artifact that is not pending (check --artifacts)\n" +
			"leaves the baseline's file as it is. Each accepted line says when the case's verdict flips\n" +
			"(regression: pass → fail, improvement: fail → pass). A regression is accepted only with\n" +
			"--allow-regressions: without it, accept refuses the whole call, names each regression and\n" +
			"writes nothing. Accepted cases are removed from .silo/pending, with --from too (the report\n" +
			"folder is left as it is). Accepting stops at the first case it cannot write.\n" +
			"Exit status: 0 accepted (or nothing pending); 2 trouble (a regression refused included).",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c, envs) },
	}
}

// run accepts the pending cases the arguments select.
func (o *acceptOptions) run(c *cli.Context, envs Environments) error {
	src, err := pendingSource(c, o.From)
	if err != nil {
		return err
	}
	p, own := src.p, src.own
	keys, err := pendingKeys(p, c.Args().Slice())
	if err != nil {
		return withDistributionHint(c, err)
	}
	if len(keys) > 0 {
		if err := checkCaseSet(c, envs, p, keys); err != nil {
			return err
		}
	}
	dir, err := project(c)
	if err != nil {
		return err
	}
	store := openStore(c, dir)
	var want map[baseline.Key]string // the baselines the report compared with
	if !own && len(keys) > 0 {
		if want, err = src.compared(c, keys); err != nil {
			return err
		}
		moved, err := store.Moved(p, keys, want)
		if err != nil {
			return err
		}
		if err := src.refuseMoved(c, o.JSON, moved); err != nil {
			return err
		}
	}
	changes, err := verdictChanges(store, p, keys)
	if err != nil {
		return err
	}
	if err := o.refuseRegressions(c, keys, changes); err != nil {
		return err
	}
	// what the project holds pending for the cases --from accepts, looked
	// at before anything is written (a symlink there is trouble)
	var local *baseline.Pending
	var stale []baseline.Key
	if !own && len(keys) > 0 {
		local = baseline.OpenPending(dir)
		held, err := local.List()
		if err != nil {
			return err
		}
		for _, k := range keys {
			if containsKey(held, k) {
				stale = append(stale, k)
			}
		}
	}
	acc, err := store.AcceptExpecting(p, keys, want)
	if m, ok := errors.AsType[*baseline.Moved](err); ok {
		// recorded while accept looked: still nothing written
		return src.refuseMoved(c, o.JSON, m.Keys)
	}
	var dists distGroups // of the report, never in its fresh artifacts
	if !own {
		dists = reportDistributions(src.report)
		dists.print(c.App.ErrWriter, c.App.Name, "not accepted: ", nil)
	}
	var dropped []string
	for _, a := range acc {
		switch {
		case own:
			if rmErr := p.Remove(a.Key); rmErr != nil && err == nil {
				err = rmErr
			}
		case containsKey(stale, a.Key):
			if rmErr := local.Remove(a.Key); rmErr != nil {
				if err == nil {
					err = rmErr
				}
				continue
			}
			dropped = append(dropped, a.Case)
		}
	}
	out := withVerdicts(acc, changes)
	if o.JSON {
		v := map[string]any{"formatVersion": 1, "accepted": nonNil(out)}
		if !own {
			v["droppedPending"] = nonNil(dropped)
		}
		if jerr := writeJSON(c.App.Writer, v); jerr != nil && err == nil {
			err = jerr
		}
		return err
	}
	s := newStyle(c, c.App.Writer)
	printAccepted(c.App.Writer, s, out)
	for _, name := range dropped {
		fmt.Fprintf(c.App.Writer, "%s %s: its entry in %s (now accepted from %s)\n", s.Dim(fmt.Sprintf("%-9s", "dropped")), name, baseline.PendingDir, o.From)
	}
	switch {
	case len(keys) == 0 && own:
		printNothingPending(c, p)
	case len(keys) == 0 && len(dists) > 0:
		fmt.Fprintf(c.App.Writer, "nothing accepted from %s\n", o.From)
	case len(keys) == 0:
		fmt.Fprintf(c.App.Writer, "nothing to accept in %s (every case of that check matched)\n", o.From)
	default:
		fmt.Fprintf(c.App.Writer, "%d accepted%s\n", len(acc), regressionCount(out))
	}
	return err
}

// regressionCount is the summary's note of the regressions accepted.
func regressionCount(acc []acceptedCase) string {
	n := 0
	for _, a := range acc {
		if a.regression() {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s)", plural(n, "regression"))
}

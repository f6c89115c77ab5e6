package mutate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Config is one run of mutate.
type Config struct {
	// Project is the project root (absolute): the folder holding .silo.
	Project string
	// Env is the environment; Agents and Tasks narrow its cases (globs, as
	// check's --agent and --task).
	Env           string
	Agents, Tasks []string
	// Max, when above 0, runs a sample of at most Max mutants, the same for
	// the same Seed.
	Max  int
	Seed uint64
	// Lines, when not nil, keeps only the mutants on those lines.
	Lines Lines
	// IDs, when not empty, keeps only the mutants whose id matches one of
	// these path.Match patterns.
	IDs []string
	// Jobs is how many mutants are built and checked at once.
	Jobs int
	// Timeout is each mutant's check's time limit; 0 means ten times the
	// unmutated check's time, and at least 30 seconds.
	Timeout time.Duration
	// Progress receives one line per finished mutant; nil for none.
	Progress func(done, total int, counts Counts, left time.Duration)
	// Kept, when not nil, is called with each finished mutant's result
	// and the folder holding its check's fresh artifacts, before the folder
	// is removed.
	Kept func(r *Result, dir string) error
}

// ErrNotClean is the unmutated environment not checking clean.
var ErrNotClean = errors.New("not_clean")

// Run makes the mutants of the target's files, checks the unmutated
// environment, finds what each case executes where the target can tell,
// and runs each mutant. Temporary folders are removed when it returns,
// cancelled or not.
func Run(ctx context.Context, t Target, cfg Config) (*Report, error) {
	started := time.Now()
	total, selected, sources, err := Select(t, cfg)
	if err != nil {
		return nil, err
	}
	if len(selected) == 0 {
		return &Report{Env: cfg.Env, Language: t.Language(), Files: t.Files(), Found: total, Seed: cfg.Seed, Max: cfg.Max}, nil
	}

	tmp, err := os.MkdirTemp("", "oracle-mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	base, coverage, err := t.Base(ctx, mkdir(tmp, "base"))
	if err != nil {
		return nil, fmt.Errorf("the unmutated environment: %w", err)
	}
	cleanStart := time.Now()
	clean, err := base.run(ctx, 0, selectionArgs(cfg.Env, cfg.Agents, cfg.Tasks)...)
	if err != nil {
		return nil, fmt.Errorf("check the unmutated environment: %w", err)
	}
	cleanTime := time.Since(cleanStart)
	if err := cleanCheck(clean); err != nil {
		return nil, err
	}
	cases := make([]Case, len(clean.report.Cases))
	for i, c := range clean.report.Cases {
		cases[i] = c.Case
	}
	covs := map[string]Coverage{}
	if coverage {
		var mu sync.Mutex
		err := parallel(ctx, cfg.Jobs, len(cases), func(i int) error {
			cov, err := t.Coverage(ctx, base, cases[i], mkdir(tmp, fmt.Sprintf("cov%d", i)))
			mu.Lock()
			covs[cases[i].Key] = cov
			mu.Unlock()
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("coverage of the unmutated environment: %w", err)
		}
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = max(30*time.Second, 10*cleanTime)
	}

	rep := &Report{Env: cfg.Env, Language: t.Language(), Files: t.Files(), Cases: cases, Found: total,
		Selected: len(selected), Timeout: timeout, Seed: cfg.Seed, Max: cfg.Max}
	rep.Mutants = make([]Result, len(selected))
	var (
		mu     sync.Mutex
		done   int
		counts Counts
	)
	runStart := time.Now()
	err = parallel(ctx, cfg.Jobs, len(selected), func(i int) error {
		m := selected[i]
		r := &rep.Mutants[i]
		dir := mkdir(tmp, fmt.Sprintf("m%d", i))
		defer os.RemoveAll(dir)
		runMutant(ctx, t, m, sources[m.File], cases, covs, coverage, timeout, cfg.Kept != nil, dir, r)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if cfg.Kept != nil {
			if err := cfg.Kept(r, dir); err != nil {
				return err
			}
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		counts.add(r)
		if cfg.Progress != nil {
			elapsed := time.Since(runStart)
			left := elapsed / time.Duration(done) * time.Duration(len(selected)-done)
			cfg.Progress(done, len(selected), counts, left)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Counts = counts
	rep.Duration = time.Since(started)
	return rep, nil
}

// Select lists the mutants of the target's files and returns how many
// there are, those the configuration selects (Lines, IDs, then the sample
// of Max) and the files' text by name.
func Select(t Target, cfg Config) (found int, selected []Mutant, sources map[string][]byte, err error) {
	all, sources, err := listMutants(cfg.Project, t)
	if err != nil {
		return 0, nil, nil, err
	}
	found = len(all)
	if cfg.Lines != nil {
		all = cfg.Lines.Only(all)
	}
	if len(cfg.IDs) > 0 {
		var keep []Mutant
		for _, m := range all {
			for _, p := range cfg.IDs {
				if ok, _ := path.Match(p, m.ID); ok {
					keep = append(keep, m)
					break
				}
			}
		}
		all = keep
	}
	return found, Sample(all, cfg.Max, cfg.Seed), sources, nil
}

// listMutants reads the target's files and lists their mutants, and
// returns the files' text by name.
func listMutants(project string, t Target) ([]Mutant, map[string][]byte, error) {
	var all []Mutant
	sources := map[string][]byte{}
	for _, f := range t.Files() {
		src, err := os.ReadFile(filepath.Join(project, filepath.FromSlash(f)))
		if err != nil {
			return nil, nil, err
		}
		sources[f] = src
		ms, err := t.Mutants(f, src)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, ms...)
	}
	sortMutants(all)
	return all, sources, nil
}

// cleanCheck refuses an unmutated check that did not pass: mutants of an
// environment whose check already fails say nothing.
func cleanCheck(r *checkRun) error {
	if r.exit == 0 && r.report.Summary.Total > 0 && r.report.Summary.Unchanged == r.report.Summary.Total {
		return nil
	}
	var not []string
	for _, c := range r.report.Cases {
		if c.Status != "unchanged" {
			not = append(not, c.Key+" "+c.Status)
		}
	}
	why := firstLine(r.stderr)
	if e := r.report.Error; e != nil {
		why = e.Code + ": " + firstLine(e.Message)
	}
	if len(not) > 0 {
		if len(not) > 3 {
			not = append(not[:3], fmt.Sprintf("and %d more", len(not)-3))
		}
		why = strings.Join(not, ", ")
	}
	if why == "" {
		why = fmt.Sprintf("exit status %d", r.exit)
	}
	return fmt.Errorf("%w: the unmutated environment does not check clean (%s); run oracle check, and record or fix it first", ErrNotClean, why)
}

// runMutant runs one mutant and fills in its result.
func runMutant(ctx context.Context, t Target, m Mutant, src []byte, cases []Case, covs map[string]Coverage, coverage bool, timeout time.Duration, keep bool, dir string, r *Result) {
	start := time.Now()
	defer func() { r.Duration = time.Since(start) }()
	r.Mutant = m
	diff, err := m.Diff(src)
	if err != nil {
		r.Outcome, r.Error = Error, err.Error()
		return
	}
	r.Diff = diff
	run := cases
	if coverage {
		run = nil
		for _, c := range cases {
			covered, known := covs[c.Key].Covers(m.File, m.Line, m.Column)
			if covered || !known {
				run = append(run, c)
			}
			if covered {
				r.CoveredBy = append(r.CoveredBy, c.Key)
			}
		}
		if len(run) == 0 {
			r.Outcome = NoCoverage
			return
		}
	}
	mutated, _ := m.Apply(src)
	checker, err := t.Mutant(ctx, m, mutated, dir)
	if err != nil {
		r.Outcome, r.Error = Error, err.Error()
		return
	}
	checkStart := time.Now()
	args := caseArgs(cases[0].Env, run)
	if keep {
		args = append(args, "--report-dir", filepath.Join(dir, "check"))
	}
	res, err := checker.run(ctx, timeout, args...)
	r.CheckDuration = time.Since(checkStart)
	r.Ran = keys(run)
	switch {
	case errors.Is(err, errTimeout):
		r.Outcome = Timeout
		return
	case err != nil:
		r.Outcome, r.Error = Error, err.Error()
		return
	}
	classify(res, r)
}

// classify reads a mutant's check.
func classify(res *checkRun, r *Result) {
	if res.exit == 2 {
		r.Outcome, r.Error = Error, firstLine(res.stderr)
		if e := res.report.Error; e != nil {
			r.Error = e.Code + ": " + firstLine(e.Message)
		}
		for _, c := range res.report.Cases {
			if c.Status == "error" && c.Error != "" {
				r.Error = c.Key + ": " + firstLine(c.Error)
				break
			}
		}
		if r.Error == "" {
			r.Error = "oracle check exited 2"
		}
		return
	}
	artifacts := map[string]bool{}
	for _, c := range res.report.Cases {
		if c.Status == "unchanged" {
			continue
		}
		r.Changed = append(r.Changed, c.Key)
		if c.OldVerdict == "pass" && c.NewVerdict != "" && c.NewVerdict != "pass" {
			r.Verifiers = true
		}
		if c.Status == "nondeterministic" {
			artifacts["nondeterministic"] = true
		}
		for _, f := range c.Files {
			artifacts[strings.TrimSuffix(f.File, ".json")] = true
		}
	}
	if len(r.Changed) == 0 {
		r.Outcome = Survived
		return
	}
	r.Outcome = Caught
	for a := range artifacts {
		r.Artifacts = append(r.Artifacts, a)
	}
	slices.Sort(r.Artifacts)
}

func keys(cs []Case) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Key
	}
	return out
}

// mkdir makes the folder name in tmp; a failure shows when it is used.
func mkdir(tmp, name string) string {
	dir := filepath.Join(tmp, name)
	_ = os.MkdirAll(dir, 0o700)
	return dir
}

// parallel runs f(0..n-1) on jobs workers and returns the first error;
// no new call starts once one failed or ctx ended.
func parallel(ctx context.Context, jobs, n int, f func(int) error) error {
	jobs = max(1, min(jobs, n))
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
	)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next >= n || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

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

	"github.com/agent-oracle/oracle/command/internal/scaffold"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/atomicfile"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/safeio"
	"github.com/urfave/cli/v2"
)

// initOptions are init's flags.
type initOptions struct {
	flags
	Out, Description, Module, OraclePath string
	WithBuiltins                         bool
	Lang                                 string
}

func initCommand() *cli.Command {
	o := &initOptions{}
	o.String(&o.Out, &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "`folder` of the new package, inside the project and relative to it (default: envs/NAME)"})
	o.String(&o.Description, &cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "what the environment is, one sentence"})
	o.String(&o.Module, &cli.StringFlag{Name: "module", Usage: "module `path` of the go.mod written in a folder that has none (default: the folder's name)"})
	o.String(&o.OraclePath, &cli.StringFlag{Name: "oracle-path", Usage: "a checkout of oracle (`folder`) that the new go.mod replaces the module with, since it is not published yet (default: the checkout init runs in, if any)"})
	o.Bool(&o.WithBuiltins, &cli.BoolFlag{Name: "with-builtins", Usage: "the new binary also serves oracle's built-in demo environments (crm, calendar)"})
	o.String(&o.Lang, &cli.StringFlag{Name: "lang", Value: "go", Usage: "`language` of the environment: go (a package and the project's binary), ts (a TypeScript module in the original runner's contract) or python (a module for the Python host); ts and python need no Go: the stock oracle serves them"})
	return &cli.Command{
		Name:      "init",
		Usage:     "start a project or add an environment to it: a Go package, its manifest and the project's binary (or, with --lang, a TypeScript or Python module)",
		ArgsUsage: "NAME",
		Description: "Writes a Go package that compiles and follows the authoring contract (a small state with a clock,\n" +
			"a read and a write tool, a reference agent solver that answers nothing until written, TASK-001 and\n" +
			"its verifier, which fails on purpose until written) into --out (default envs/NAME), and the manifest\n" +
			".silo/environments/NAME/silo.environment.json.\n" +
			"The first init of a project also writes the project's binary, cmd/NAME-oracle/main.go, serving the\n" +
			"environment (go run ./cmd/NAME-oracle record, then check); later ones register their environment in\n" +
			"it. In a folder with no go.mod it writes one requiring github.com/agent-oracle/oracle: with\n" +
			"--oracle-path, or when run from a checkout of oracle, a replace directive builds oracle from that\n" +
			"checkout and its go.sum is copied, so the project builds without a network; with neither it refuses,\n" +
			"as the module is not published yet and the go.mod could not build. It adds .silo/runs/,\n" +
			".silo/pending/ and the store's lock to .gitignore, '*.json -text' to .gitattributes, and writes a\n" +
			"README.md when there is none, and prints the next commands, to paste where it ran.\n" +
			"With --lang ts or --lang python it writes the environment as a module the stock oracle serves, in\n" +
			".silo/environments/NAME (the manifest, index.ts or env.py, a solver module and TASK-001, whose\n" +
			"verifier fails on purpose until written), and .gitignore and .gitattributes; no Go is involved.\n" +
			"Refuses to overwrite any file; then nothing is written.",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c) },
	}
}

// run writes the new environment and what the project needs around it.
func (o *initOptions) run(c *cli.Context) error {
	args, err := positional(c, program(c, "init"))
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usageError("init takes one environment name, e.g. %s init billing", c.App.Name)
	}
	name := args[0]
	if lang := o.Lang; lang != "go" {
		return o.initForeign(c, lang, name)
	}
	if err := scaffold.CheckPackageName(name); err != nil {
		return usageError("environment name: %v", err)
	}
	project := projectDir(c)
	entry, err := entrypoint(project, o.Out, name)
	if err != nil {
		return err
	}
	files, err := scaffold.Package(name, o.Description)
	if err != nil {
		return err
	}
	manifest, err := canon.Marshal(env.Manifest{Name: name, Template: "blank", TemplateVersion: Version, Entrypoint: entry, Tools: []string{}})
	if err != nil {
		return err
	}
	if _, err := env.ParseManifest(filepath.ToSlash(env.ManifestPath(name)), manifest); err != nil {
		return usageError("--out: %v", err)
	}
	dir := filepath.Join(project, filepath.FromSlash(entry))
	plan := &initPlan{project: project}
	for _, f := range files {
		plan.create(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Data)
	}
	plan.create(filepath.Join(project, env.ManifestPath(name)), manifest)
	if err := plan.projectFiles(c, o, name, entry); err != nil {
		return err
	}
	if err := plan.check(); err != nil {
		return err
	}
	return plan.write(c.App.Writer, c.App.ErrWriter)
}

// initPlan is what init writes: new files, and files it extends (the
// binary's main.go, .gitignore, .gitattributes). Everything is decided and
// checked before anything is written.
type initPlan struct {
	project string
	created []target
	update  []target
	program string   // the binary's folder name under cmd/, once known
	notes   []string // printed on stderr after writing
	next    []string // printed after writing, when there is no program
}

type target struct {
	path string
	data []byte
}

func (p *initPlan) create(path string, data []byte) {
	p.created = append(p.created, target{path, data})
}

// projectFiles plans the project around the new package: go.mod (and
// go.sum) when no module holds the project, the binary or its new
// registration, .gitignore, .gitattributes and README.md.
func (p *initPlan) projectFiles(c *cli.Context, o *initOptions, name, entry string) error {
	abs, err := filepath.Abs(p.project)
	if err != nil {
		return fmt.Errorf("project folder: %w", err)
	}
	modRoot, module, err := findModule(abs)
	if err != nil {
		return err
	}
	if modRoot == "" {
		if module = o.Module; module == "" {
			module = filepath.Base(abs)
		}
		if err := scaffold.CheckModulePath(module); err != nil {
			return usageError("--module: %v", err)
		}
		oracleDir, oracleMod, err := oracleCheckout(o.OraclePath)
		if err != nil {
			return err
		}
		if oracleDir == "" {
			return noCheckoutError(c)
		}
		gomod := scaffold.GoMod(module, Version, oracleDir, oracleMod)
		p.create(filepath.Join(p.project, gomod.Path), gomod.Data)
		if sum, err := readRegular(filepath.Join(oracleDir, "go.sum")); err == nil {
			p.create(filepath.Join(p.project, "go.sum"), sum)
		}
		modRoot = abs
	} else {
		if o.isSet(c, &o.Module) {
			return usageError("--module %s: the project is already in module %s (%s); leave --module out", o.Module, module, filepath.Join(modRoot, "go.mod"))
		}
		if module != scaffold.OracleModule && !requiresOracle(filepath.Join(modRoot, "go.mod")) {
			p.notes = append(p.notes, fmt.Sprintf("note: %s does not require %s yet: run go get %s (or go mod edit -replace %s=/path/to/oracle, then go mod tidy)",
				filepath.Join(modRoot, "go.mod"), scaffold.OracleModule, scaffold.OracleModule, scaffold.OracleModule))
		}
	}
	rel, err := filepath.Rel(modRoot, filepath.Join(abs, filepath.FromSlash(entry)))
	if err != nil {
		return fmt.Errorf("import path: %w", err)
	}
	imp := path.Join(module, filepath.ToSlash(rel))

	mains, _ := filepath.Glob(filepath.Join(p.project, "cmd", "*-oracle", "main.go"))
	switch len(mains) {
	case 0:
		p.program = name + "-oracle"
		f, err := scaffold.MainFile(scaffold.Binary{Program: p.program, Import: imp, Package: name, Builtins: o.WithBuiltins})
		if err != nil {
			return err
		}
		p.create(filepath.Join(p.project, filepath.FromSlash(f.Path)), f.Data)
	case 1:
		p.program = filepath.Base(filepath.Dir(mains[0]))
		old, err := readRegular(mains[0])
		if err != nil {
			return err
		}
		src, err := scaffold.Register(old, imp, name)
		if err != nil {
			return fmt.Errorf("%s: %w; register %s.New in it yourself, or move it away and run init again", shown(p.project, mains[0]), err, name)
		}
		if !bytes.Equal(src, old) {
			p.update = append(p.update, target{mains[0], src})
		}
	default:
		p.notes = append(p.notes, fmt.Sprintf("note: %d binaries under cmd/ (%s); register %s.New (import %q) in the one that should serve it",
			len(mains), strings.Join(shownAll(p.project, mains), ", "), name, imp))
	}
	if err := p.ignoreFiles(); err != nil {
		return err
	}
	readme := filepath.Join(p.project, "README.md")
	if _, err := os.Lstat(readme); errors.Is(err, fs.ErrNotExist) && p.program != "" {
		f, err := scaffold.Readme(filepath.Base(abs), p.program)
		if err != nil {
			return err
		}
		p.create(readme, f.Data)
	}
	return nil
}

// ignoreFiles plans the lines .gitignore and .gitattributes need: run
// folders, pending artifacts and the store's lock ignored, JSON kept as it
// is written.
func (p *initPlan) ignoreFiles() error {
	for _, x := range []struct {
		file  string
		lines []string
	}{{".gitignore", scaffold.GitIgnore}, {".gitattributes", scaffold.GitAttributes}} {
		path := filepath.Join(p.project, x.file)
		old, err := readRegular(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			data, _ := scaffold.WithLines(nil, x.lines)
			p.create(path, data)
		case err != nil:
			return err
		default:
			if data, changed := scaffold.WithLines(old, x.lines); changed {
				p.update = append(p.update, target{path, data})
			}
		}
	}
	return nil
}

// check refuses a new file that exists and a file to extend that is not a
// regular file.
func (p *initPlan) check() error {
	for _, ts := range [][]target{p.created, p.update} {
		for _, t := range ts {
			if err := checkInProject(p.project, t.path); err != nil {
				return fmt.Errorf("%w; nothing was written", err)
			}
		}
	}
	for _, t := range p.created {
		_, err := os.Lstat(t.path)
		if err == nil {
			return existsError("%s is already there; nothing was written. Choose another name or --out, or remove it", shown(p.project, t.path))
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// e.g. a file where a folder on the way must be: found
			// now, before any file is written, not halfway through
			return fmt.Errorf("cannot create %s: %w; nothing was written", shown(p.project, t.path), err)
		}
	}
	for _, t := range p.update {
		if info, err := os.Lstat(t.path); err != nil || !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file; nothing was written", shown(p.project, t.path))
		}
	}
	return nil
}

// write writes the plan and says what it did and what comes next.
func (p *initPlan) write(w, errw io.Writer) error {
	for _, t := range p.created {
		if err := writeNew(p.project, t.path, t.data); err != nil {
			return err
		}
		fmt.Fprintf(w, "Created %s\n", shown(p.project, t.path))
	}
	for _, t := range p.update {
		if err := atomicfile.Write(p.project, t.path, t.data); err != nil {
			return fmt.Errorf("write %s: %w", shown(p.project, t.path), err)
		}
		fmt.Fprintf(w, "Updated %s\n", shown(p.project, t.path))
	}
	if p.program != "" {
		// commands that work pasted where init ran: the project's binary
		// is run from the project's folder
		fmt.Fprintf(w, "\nNext:\n")
		if filepath.Clean(p.project) != "." {
			fmt.Fprintf(w, "  cd %s\n", shellQuote(p.project))
		}
		fmt.Fprintf(w, "  go run ./cmd/%s validate   # check the environments against the authoring contract\n", p.program)
		fmt.Fprintf(w, "  go run ./cmd/%s record     # freeze each task's rollout by solver as a baseline\n", p.program)
		fmt.Fprintf(w, "  go run ./cmd/%s check      # the CI gate: re-run every case and compare\n", p.program)
		fmt.Fprintf(w, "Then write solver.go and the verifiers, and record again. docs/authoring.md of oracle walks through it.\n")
	} else if len(p.next) > 0 {
		fmt.Fprintln(w)
		for _, line := range p.next {
			fmt.Fprintln(w, line)
		}
	}
	for _, n := range p.notes {
		fmt.Fprintln(errw, n)
	}
	return nil
}

// noCheckoutError refuses a go.mod that cannot build: it would require
// oracle's module, which is not published yet, and no checkout of oracle
// is at hand to replace it with (none holds the working folder, and
// --oracle-path was not given). The fix is the command line as it was
// typed with --oracle-path.
func noCheckoutError(c *cli.Context) error {
	again := []string{c.App.Name}
	if args := commandLine(c); args != nil {
		for _, a := range args {
			again = append(again, shellQuote(a))
		}
	} else {
		again = append(again, "init", "NAME")
	}
	again = append(again, "--oracle-path", "/path/to/oracle")
	return usageError("%s is not published yet, and no checkout of it is at hand to build the project with, so the go.mod init would write could not build; "+
		"give the folder of a checkout: %s, or run init from inside one. Nothing was written", scaffold.OracleModule, strings.Join(again, " "))
}

// shellQuote spells s as a word a POSIX shell reads back as s.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// findModule returns the folder of the go.mod holding dir (dir or one of
// its parents) and its module path, or "" when there is none.
func findModule(dir string) (root, module string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := readRegular(filepath.Join(d, "go.mod"))
		if err == nil {
			m := moduleOf(data)
			if m == "" {
				return "", "", fmt.Errorf("%s has no module line; fix it", filepath.Join(d, "go.mod"))
			}
			return d, m, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
		if filepath.Dir(d) == d {
			return "", "", nil
		}
	}
}

// oracleCheckout returns the checkout of oracle a new go.mod replaces the
// module with, and its go.mod: the folder given, or the checkout holding
// the working folder, or none.
func oracleCheckout(given string) (string, []byte, error) {
	if given != "" {
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", nil, fmt.Errorf("--oracle-path: %w", err)
		}
		data, err := readRegular(filepath.Join(abs, "go.mod"))
		if err != nil || moduleOf(data) != scaffold.OracleModule {
			return "", nil, usageError("--oracle-path %s is not a checkout of %s (no go.mod of that module in it)", given, scaffold.OracleModule)
		}
		return abs, data, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", nil, nil
	}
	root, module, err := findModule(wd)
	if err != nil || module != scaffold.OracleModule {
		return "", nil, nil
	}
	data, err := readRegular(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", nil, nil
	}
	return root, data, nil
}

// moduleOf is the module path a go.mod declares.
func moduleOf(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// requiresOracle reports whether the go.mod at path names oracle's module.
func requiresOracle(path string) bool {
	data, err := readRegular(path)
	return err == nil && bytes.Contains(data, []byte(scaffold.OracleModule+" "))
}

// readRegular reads a file that must be a regular file, never following a
// symbolic link, and at most 1 MiB.
func readRegular(path string) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; remove or replace it", path)
	}
	if info.Size() > 1<<20 {
		return nil, fmt.Errorf("%s is larger than 1 MiB", path)
	}
	// (a file swapped for a FIFO since is refused, never waited on)
	data, err := safeio.ReadNoFollow(path)
	if err == nil && len(data) > 1<<20 {
		return nil, fmt.Errorf("%s is larger than 1 MiB", path)
	}
	return data, err
}

func shownAll(project string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = shown(project, p)
	}
	return out
}

// entrypoint returns the package folder relative to the project, slash
// separated, refusing one outside the project.
func entrypoint(project, out, name string) (string, error) {
	if out == "" {
		return path.Join("envs", name), nil
	}
	root, err := filepath.Abs(project)
	if err != nil {
		return "", fmt.Errorf("project folder: %w", err)
	}
	abs := out
	if !filepath.IsAbs(out) {
		abs = filepath.Join(root, out) // relative to the project, as the entrypoint is
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", usageError("--out %s is not a folder inside the project %s; the manifest's entrypoint must stay inside it", out, project)
	}
	return filepath.ToSlash(rel), nil
}

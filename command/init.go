package command

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/agent-oracle/oracle/internal/scaffold"
	"github.com/urfave/cli/v2"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "scaffold a new environment: a Go package and its manifest",
		ArgsUsage: "NAME",
		Description: "Writes a Go package that compiles and follows the authoring contract (a small state with a clock,\n" +
			"a read and a write tool, TASK-001 and its verifier, which fails on purpose until written) into\n" +
			"--out (default envs/NAME), and the manifest .silo/environments/NAME/silo.environment.json.\n" +
			"Refuses to overwrite any file; then nothing is written.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "`folder` of the new package, inside the project and relative to it (default: envs/NAME)"},
			&cli.StringFlag{Name: "description", Aliases: []string{"d"}, Usage: "what the environment is, one sentence"},
		},
		Action: func(c *cli.Context) error {
			args, err := positional(c, "oracle init")
			if err != nil {
				return err
			}
			if len(args) != 1 {
				return usageError("init takes one environment name, e.g. oracle init billing")
			}
			name := args[0]
			if err := scaffold.CheckPackageName(name); err != nil {
				return usageError("environment name: %v", err)
			}
			project := projectDir(c)
			entry, err := entrypoint(project, c.String("out"), name)
			if err != nil {
				return err
			}
			files, err := scaffold.Package(name, c.String("description"))
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
			type target struct {
				path string
				data []byte
			}
			dir := filepath.Join(project, filepath.FromSlash(entry))
			var targets []target
			for _, f := range files {
				targets = append(targets, target{filepath.Join(dir, filepath.FromSlash(f.Path)), f.Data})
			}
			targets = append(targets, target{filepath.Join(project, env.ManifestPath(name)), manifest})
			for _, t := range targets {
				if _, err := os.Lstat(t.path); err == nil {
					return fmt.Errorf("exists: %s is already there; nothing was written. Choose another name or --out, or remove it", shown(project, t.path))
				}
			}
			w := c.App.Writer
			for _, t := range targets {
				if err := writeNew(t.path, t.data); err != nil {
					return err
				}
				fmt.Fprintf(w, "Created %s\n", shown(project, t.path))
			}
			printRegisterSnippet(w, importPath(project, entry), name)
			return nil
		},
	}
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

// importPath guesses the new package's import path from the project's
// go.mod, or leaves a placeholder for the module.
func importPath(project, entry string) string {
	module := "your/module"
	if f, err := os.Open(filepath.Join(project, "go.mod")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
				module = strings.Trim(strings.TrimSpace(rest), `"`)
				break
			}
		}
	}
	return path.Join(module, entry)
}

// printRegisterSnippet says how to serve the new environment from a binary.
func printRegisterSnippet(w io.Writer, importPath, name string) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\nNext: register %s.New in your binary, then run oracle validate --env %s:\n\n", name, name)
	fmt.Fprintf(&b, "\tpackage main\n\n\timport (\n\t\t\"os\"\n\n")
	imports := []string{"github.com/agent-oracle/oracle/command", "github.com/agent-oracle/oracle/env", importPath}
	sort.Strings(imports)
	for _, imp := range imports {
		fmt.Fprintf(&b, "\t\t%q\n", imp)
	}
	fmt.Fprintf(&b, "\t)\n\n")
	fmt.Fprintf(&b, "\tfunc main() {\n\t\tos.Exit(command.Main(os.Args, func() ([]env.Environment, error) {\n")
	fmt.Fprintf(&b, "\t\t\te, err := %s.New()\n\t\t\tif err != nil {\n\t\t\t\treturn nil, err\n\t\t\t}\n", name)
	fmt.Fprintf(&b, "\t\t\treturn []env.Environment{e}, nil\n\t\t}))\n\t}\n")
	fmt.Fprint(w, b.String())
}

package command

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-oracle/oracle/internal/atomicfile"
	"github.com/agent-oracle/oracle/oracle/render/timeline"
	"github.com/agent-oracle/oracle/runner"
	"github.com/urfave/cli/v2"
)

// ViewFile is the page oracle view writes into a run folder when it is
// given neither --out nor --serve on a terminal.
const ViewFile = "view.html"

// viewOptions are view's flags.
type viewOptions struct {
	flags
	Out, Serve string
	JSON       bool // errors as JSON, which Run reads off the command line
}

// viewCommand is oracle view, a run folder or a report's case as a page.
func viewCommand() *cli.Command {
	o := &viewOptions{}
	o.String(&o.Out, &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the page to `FILE` (- for stdout)"})
	o.String(&o.Serve, &cli.StringFlag{Name: "serve", Usage: "serve the page over HTTP on `ADDR`: PORT or HOST:PORT; a bare port or :PORT listens on 127.0.0.1, port 0 is a free one (printed on stderr)"})
	o.Bool(&o.JSON, &cli.BoolFlag{Name: "json", Usage: "print an error as the JSON error object on stdout (the page itself is HTML)"})
	return &cli.Command{
		Name:      "view",
		Usage:     "show a run folder or a case of a report folder as a timeline page",
		ArgsUsage: "RUN-FOLDER | CASE | REPORT-DIR ENV/AGENT/TASK",
		Description: "Makes one self-contained HTML page of a rollout: the task's instruction, then the rollout in order\n" +
			"(each tool call with its input and its output or tool error, a model's requests and responses, the\n" +
			"agent's other events), the agent's answer, the checks, the verdict, reward and termination reason,\n" +
			"and the state diff member by member. The page loads nothing and runs no script.\n" +
			"It takes a run folder (.silo/runs/<runId>, or the run id alone), a case of a check's --report-dir\n" +
			"(DIR/fresh/ENV/AGENT/TASK, or DIR and ENV/AGENT/TASK), or one of their files.\n" +
			"The page goes to --out FILE (- for stdout), or is served on --serve ADDR until interrupted. With\n" +
			"neither, it goes to stdout when stdout is not a terminal; on a terminal it is written to view.html\n" +
			"in the run folder (a case's folder is left alone: give --out or --serve).\n" +
			"Exit status: 0 the page was made, 2 trouble (no such folder, a symlink or FIFO among its files).",
		Flags:  o.list,
		Action: func(c *cli.Context) error { return o.run(c) },
	}
}

// run makes the page and writes or serves it.
func (o *viewOptions) run(c *cli.Context) error {
	out, serve := o.Out, o.Serve
	outGiven, serveGiven := o.isSet(c, &o.Out), o.isSet(c, &o.Serve)
	switch {
	case c.NArg() == 0:
		return usageError("view takes a run folder or a case, e.g. %s view .silo/runs/<runId>", c.App.Name)
	case c.NArg() > 2:
		return usageError("view takes a run folder or a case (or a report folder and a case key), got %d arguments", c.NArg())
	case outGiven && serveGiven:
		return usageError("give --out or --serve, not both")
	}
	var addr serveAddr
	if serveGiven {
		var err error
		if addr, err = parseServeAddr(serve); err != nil {
			return usageError("%v", err)
		}
	}
	src, err := locateView(c)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	rollout, err := timeline.Load(src)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	var page bytes.Buffer
	if err := timeline.Write(&page, rollout, timeline.Options{Program: c.App.Name + " " + c.App.Version}); err != nil {
		return err
	}
	switch {
	case serveGiven:
		return servePage(c, addr, page.Bytes())
	case out == "-" || !outGiven && !isTerminal(c.App.Writer):
		_, err := c.App.Writer.Write(page.Bytes())
		return err
	case !outGiven:
		if src.Folder() == "" {
			return usageError("view: %s is a case, and oracle writes nothing beside a case's files; give --out FILE, --out - (stdout) or --serve PORT", src.Path)
		}
		out = filepath.Join(src.Folder(), ViewFile)
	}
	if err := writePage(out, src, page.Bytes()); err != nil {
		return fmt.Errorf("view: %w", err)
	}
	fmt.Fprintf(c.App.Writer, "page: %s\n", out)
	return nil
}

// locateView finds the rollout the arguments name: one path, or a report
// folder and a case key.
func locateView(c *cli.Context) (*timeline.Source, error) {
	if c.NArg() == 2 {
		return timeline.LocateCase(c.Args().Get(0), c.Args().Get(1))
	}
	return timeline.Locate(c.Args().First(), filepath.Join(projectDir(c), runner.RunsDir))
}

// writePage writes the page to path atomically, never through a symlink,
// never over one of the rollout's own files, and never under a .silo
// folder but in a run folder.
func writePage(path string, src *timeline.Source, page []byte) error {
	if err := checkPageTarget(path, src); err != nil {
		return err
	}
	if err := (atomicfile.Writer{Base: filepath.Dir(path)}).Write(path, page); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s: %v", pe.Path, pe.Err)
		}
		return err
	}
	return nil
}

// checkPageTarget refuses a page written over an artifact of the rollout
// or into the project's store (.silo, but for its runs folder).
func checkPageTarget(path string, src *timeline.Source) error {
	if info, err := os.Stat(path); err == nil {
		for _, p := range src.Paths {
			if other, err := os.Lstat(p); err == nil && os.SameFile(info, other) {
				return fmt.Errorf("%s is %s of the rollout; write the page to a file of its own", path, filepath.Base(p))
			}
		}
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	parts := strings.Split(filepath.ToSlash(abs), "/")
	if i := slices.Index(parts, ".silo"); i >= 0 && (i+1 >= len(parts) || parts[i+1] != "runs") {
		return fmt.Errorf("%s lies in a .silo folder outside its runs, which holds oracle's own files (baselines, pending, traces); write the page elsewhere", path)
	}
	return nil
}

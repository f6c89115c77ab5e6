package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/env"
)

// bwrapBase is the start of every bubblewrap command line: the host's
// filesystem read-only, every namespace new (the network too unless net),
// no capability (a root agent could otherwise unmount what hides the
// project), a session of its own (no input injected into the runner's
// terminal), and death with the runner.
func bwrapBase(net bool) []string {
	args := []string{"--ro-bind", "/", "/", "--unshare-all"}
	if net {
		args = append(args, "--share-net")
	}
	return append(args, "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--proc", "/proc", "--dev", "/dev")
}

// systemDirs are the folders an agent cannot run without: a folder that
// holds one of them is never hidden.
var systemDirs = []string{"/bin", "/etc", "/lib", "/lib32", "/lib64", "/sbin", "/usr"}

// bwrapPlan is what an agent's sandbox mounts over the read-only root: the
// folders hidden by an empty tmpfs, then the host paths bound read-only
// over them.
type bwrapPlan struct {
	net      bool
	hide     []string // shallowest first
	writable []string // hidden folders the agent may write in (its own tmpfs)
	ro       []bind
}

type bind struct{ src, dst string }

// args is the bwrap command line for an agent with the working folder work
// and the home home, both bound writable, up to the command; bwrap writes
// its information on the descriptor infoFD.
func (p *bwrapPlan) args(work, home string, infoFD int) []string {
	args := bwrapBase(p.net)
	for _, h := range p.hide {
		args = append(args, "--tmpfs", h)
	}
	for _, b := range p.ro {
		args = append(args, "--ro-bind", b.src, b.dst)
	}
	for _, h := range p.hide {
		if !slices.Contains(p.writable, h) {
			args = append(args, "--remount-ro", h)
		}
	}
	args = append(args, "--bind", home, home)
	if work != home {
		args = append(args, "--bind", work, work)
	}
	return append(args, "--chdir", work, "--info-fd", strconv.Itoa(infoFD), "--")
}

// planBwrap decides what the agent running command with environ sees.
//
// Hidden, each by an empty tmpfs: /tmp and the temporary folder (other
// agents' folders), /run (the sockets of the host's daemons), the runner's
// home (credentials), and the project (its baselines, verifiers and
// candidates). Bound read-only over them: each file the command names by
// absolute path, the program its first word finds on PATH, each top folder
// of the home that holds a PATH entry (~/.pyenv, ~/.nvm, ~/go: version
// managers keep working), and s.ReadOnly. Nothing bound may be or hold
// the project's .silo or an environment's folder.
func planBwrap(s Sandbox, command string, environ []string) (*bwrapPlan, error) {
	p := &bwrapPlan{net: s.Net}
	var project string
	var protected []string
	if s.Project != "" {
		var err error
		if project, err = realPath(s.Project); err != nil {
			return nil, fmt.Errorf("sandbox: project folder: %w", err)
		}
		if held := holdsSystem(project); held != "" {
			return nil, &ProjectHoldsSystemError{Project: project, Held: held}
		}
		protected = protectedPaths(project)
	}
	tmp := []string{"/tmp"}
	if t, err := realPath(os.TempDir()); err == nil {
		tmp = append(tmp, t)
	}
	var home string
	if h, err := os.UserHomeDir(); err == nil {
		if h, err = realPath(h); err == nil && holdsSystem(h) == "" {
			home = h
		}
	}
	for _, h := range append(tmp, "/run", home, project) {
		if h == "" || holdsSystem(h) != "" {
			continue
		}
		if fi, err := os.Stat(h); err != nil || !fi.IsDir() {
			continue
		}
		p.hide = append(p.hide, h)
	}
	p.hide = outermost(p.hide)
	for _, t := range tmp {
		if slices.Contains(p.hide, t) {
			p.writable = append(p.writable, t)
		}
	}

	add := func(named, real string) {
		p.ro = append(p.ro, bind{real, real})
		if named != real && hidden(p.hide, named) {
			p.ro = append(p.ro, bind{real, named})
		}
	}
	// check refuses a path that is or holds a protected one; what names the
	// path in the error, "" leaves the naming to the caller.
	check := func(what, real string) error {
		for _, q := range protected {
			if within(real, q) || within(q, real) {
				msg := fmt.Sprintf("%s is or holds %s, which an agent may never see (.silo and the environments' folders stay hidden); move it out of there", real, q)
				if what == "" {
					return errors.New(msg)
				}
				return fmt.Errorf("sandbox: %s: %s", what, msg)
			}
		}
		return nil
	}
	path := envValue(environ, "PATH")
	if home != "" {
		for _, dir := range filepath.SplitList(path) {
			if !filepath.IsAbs(dir) || !within(dir, home) || dir == home {
				continue
			}
			rel, _ := filepath.Rel(home, dir)
			top := filepath.Join(home, strings.Split(rel, string(filepath.Separator))[0])
			real, err := realPath(top)
			if err != nil || check("PATH", real) != nil {
				continue
			}
			add(top, real)
		}
	}
	words := shellWords(command)
	for i, w := range words {
		named := w
		if i == 0 && !strings.Contains(w, "/") {
			named = lookPath(w, path)
		}
		if !filepath.IsAbs(named) {
			continue
		}
		real, err := realPath(named)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := check("the command's "+named, real); err != nil {
			return nil, err
		}
		add(named, real)
	}
	for _, ro := range s.ReadOnly {
		abs, err := filepath.Abs(ro)
		if err != nil {
			return nil, &ReadOnlyPathError{Path: ro, Reason: err.Error(), Err: err}
		}
		real, err := realPath(abs)
		if err != nil {
			return nil, &ReadOnlyPathError{Path: ro, Reason: err.Error() + "; give a path that exists", Err: err}
		}
		if err := check("", real); err != nil {
			return nil, &ReadOnlyPathError{Path: ro, Reason: err.Error()}
		}
		add(abs, real)
	}
	if s.Net {
		// a resolv.conf that points into /run, as systemd-resolved's does
		if real, err := realPath("/etc/resolv.conf"); err == nil && hidden(p.hide, real) {
			add(real, real)
		}
	}
	slices.SortStableFunc(p.ro, func(a, b bind) int { return strings.Count(a.dst, "/") - strings.Count(b.dst, "/") })
	p.ro = slices.Compact(p.ro)
	return p, nil
}

// protectedPaths are the parts of the project an agent may never see: .silo
// and the folder of every environment its manifests name. A manifest that
// cannot be read protects the whole project.
func protectedPaths(project string) []string {
	silo := filepath.Join(project, ".silo")
	out := []string{silo}
	dir := filepath.Join(silo, "environments")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out
	}
	if err != nil {
		return []string{project}
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := filepath.Join(dir, e.Name(), env.ManifestFile)
		fi, err := os.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
			return []string{project}
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return []string{project}
		}
		m, err := env.ParseManifest(name, data)
		if err != nil {
			return []string{project}
		}
		for _, folder := range m.Folders(project) {
			if real, err := realPath(folder); err == nil {
				folder = real
			}
			out = append(out, folder)
		}
	}
	return out
}

// realPath is the absolute path of name with every symlink resolved.
func realPath(name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within reports whether path is dir or lies inside it; both are clean
// and absolute.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// hidden reports whether path lies in one of the hidden folders.
func hidden(hide []string, path string) bool {
	return slices.ContainsFunc(hide, func(h string) bool { return within(path, h) })
}

// holdsSystem returns the system folder dir is or holds, "" for none.
func holdsSystem(dir string) string {
	for _, s := range systemDirs {
		if within(s, dir) {
			return s
		}
	}
	return ""
}

// outermost sorts dirs shallowest first and drops those inside another.
func outermost(dirs []string) []string {
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	var out []string
	for _, d := range dirs {
		if !hidden(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// envValue is the value of name in environ, "" when absent.
func envValue(environ []string, name string) string {
	for _, kv := range slices.Backward(environ) {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// lookPath finds the executable file name in the folders of path, as the
// agent's shell would; "" when none.
func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		f := filepath.Join(dir, name)
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return f
		}
	}
	return ""
}

// ReadOnlyPathError is the error of a Sandbox.ReadOnly path the sandbox
// cannot show the agent: one that does not exist, or is or holds what the
// agent may never see.
type ReadOnlyPathError struct {
	Path   string // as given
	Reason string // what is wrong with it and what to do
	Err    error  // the cause, if any
}

func (e *ReadOnlyPathError) Error() string {
	return "sandbox: read-only path " + e.Path + ": " + e.Reason
}

func (e *ReadOnlyPathError) Unwrap() error { return e.Err }

// ProjectHoldsSystemError is the error of a project folder that holds a
// folder the agent needs (a home, /usr): the sandbox hides the project, so
// it would hide that too.
type ProjectHoldsSystemError struct {
	Project, Held string
}

func (e *ProjectHoldsSystemError) Error() string {
	return fmt.Sprintf("sandbox: the project folder %s holds %s; the sandbox hides the project from the agent, so keep the project in a folder of its own", e.Project, e.Held)
}

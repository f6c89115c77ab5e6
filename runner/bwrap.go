package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/safeio"
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

// bwrapAsUser is bwrapBase for a runner that is root, whose agent runs as
// the agent user: bwrap runs as root without a user namespace (in one,
// root mapped to any uid would still be root on the host's files), keeps
// only the capabilities setpriv needs to become the agent user and drop
// them all (setprivArgs), and bwrap to enter the agent user's working
// folder, and sets no_new_privs as always. Nothing of the agent's runs
// before setpriv.
func bwrapAsUser(net bool) []string {
	args := []string{"--ro-bind", "/", "/", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"}
	if !net {
		args = append(args, "--unshare-net")
	}
	return append(args, "--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP", "--cap-add", "CAP_DAC_OVERRIDE",
		"--proc", "/proc", "--dev", "/dev")
}

// setprivArgs starts the agent's shell as the agent user, with no group
// of root's and no capability left, not even in its bounding set.
func setprivArgs() []string {
	return []string{bwrapProbe.setpriv, "--reuid=" + strconv.Itoa(agentUID), "--regid=" + strconv.Itoa(agentGID),
		"--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--"}
}

// The user a sandboxed agent runs as when the runner is root: the
// overflow user, nobody. Mapping root to another uid inside a user
// namespace (bwrap --unshare-user --uid) would not do: the agent would
// still be root to the host's files and read every file root owns
// (/etc/shadow).
const agentUID, agentGID = 65534, 65534

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
// its information on the descriptor infoFD. With asUser the agent runs as
// the unprivileged agent user (see bwrapAsUser).
func (p *bwrapPlan) args(work, home string, infoFD int, asUser bool) []string {
	var args []string
	if asUser {
		args = bwrapAsUser(p.net)
	} else {
		args = bwrapBase(p.net)
	}
	for _, h := range p.hide {
		if asUser && slices.Contains(p.writable, h) {
			// (root's tmpfs is 0755: the agent user's /tmp is everyone's)
			args = append(args, "--perms", "01777")
		}
		args = append(args, "--tmpfs", h)
	}
	if asUser {
		// the folders bwrap makes to bind into take the mode of the
		// host's (0700 under root's temporary folder): the agent user
		// could not reach what is bound in them
		for _, d := range p.mountDirs(work, home) {
			args = append(args, "--perms", "0755", "--dir", d)
		}
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
	args = append(args, "--chdir", work, "--info-fd", strconv.Itoa(infoFD), "--")
	if asUser {
		args = append(args, setprivArgs()...)
	}
	return args
}

// mountDirs are the folders, shallowest first, that hold what is bound
// inside the hidden folders, up to (not including) the hidden folder.
func (p *bwrapPlan) mountDirs(work, home string) []string {
	var out []string
	dsts := []string{work, home}
	for _, b := range p.ro {
		dsts = append(dsts, b.dst)
	}
	for _, d := range dsts {
		for dir := filepath.Dir(d); hidden(p.hide, dir) && !slices.Contains(p.hide, dir); dir = filepath.Dir(dir) {
			if !slices.Contains(out, dir) {
				out = append(out, dir)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	return out
}

// hiddenPlaces are the folders where a host keeps its writable state, its
// users' files and its services' sockets, which an agent does not see:
// the temporary folders, /run, /var (its sockets, spools, databases),
// every home, and the mount points of other disks.
var hiddenPlaces = []string{"/tmp", "/var", "/run", "/home", "/root", "/srv", "/mnt", "/media"}

// tempPlaces are the temporary folders, hidden by a tmpfs the agent may
// write in.
var tempPlaces = []string{"/tmp", "/var/tmp"}

// planBwrap decides what the agent running command with environ sees.
//
// Hidden, each by an empty tmpfs: the hiddenPlaces (/tmp, /var/tmp and the
// temporary folder writable), the runner's home, wherever it is, and the
// project (its baselines, verifiers and candidates). Bound read-only over
// them, each exactly, at its real path and at the path that names it: each
// file the command names by absolute path, the program its first word
// finds on PATH, each PATH folder inside them (but never a whole hidden
// place or a home, however PATH spells it; for a folder of shims, the
// version manager's root that holds it), and s.ReadOnly. Nothing bound
// may be or hold the project's .silo or an environment's folder.
func planBwrap(s Sandbox, command string, environ []string) (*bwrapPlan, error) {
	project, protected, err := sandboxedProject(s.Project)
	if err != nil {
		return nil, err
	}
	pl := &bwrapPlanner{plan: &bwrapPlan{net: s.Net}, protected: protected, declared: s.Declared}
	pl.hidePlaces(project)
	path := envValue(environ, "PATH")
	pl.bindPATH(path)
	if err := pl.bindCommand(command, path); err != nil {
		return nil, err
	}
	if err := pl.bindReadOnly(s.ReadOnly); err != nil {
		return nil, err
	}
	if s.Net {
		pl.bindResolvConf()
	}
	p := pl.plan
	slices.SortStableFunc(p.ro, func(a, b bind) int { return strings.Count(a.dst, "/") - strings.Count(b.dst, "/") })
	p.ro = slices.Compact(p.ro)
	return p, nil
}

// sandboxedProject resolves the project folder dir ("" for none) and the
// parts of it an agent may never see; a project that holds a system
// folder is refused.
func sandboxedProject(dir string) (project string, protected []string, err error) {
	if dir == "" {
		return "", nil, nil
	}
	if project, err = realPath(dir); err != nil {
		return "", nil, fmt.Errorf("sandbox: project folder: %w", err)
	}
	if held := holdsSystem(project); held != "" {
		return "", nil, &ProjectHoldsSystemError{Project: project, Held: held}
	}
	return project, protectedPaths(project), nil
}

// bwrapPlanner builds a bwrapPlan: what planBwrap knows while it decides.
type bwrapPlanner struct {
	plan      *bwrapPlan
	homes     []string // the runner's homes (runnerHomes)
	protected []string // what nothing bound may be or hold (protectedPaths)
	declared  bool     // a declared agent's command (Sandbox.Declared)
}

// inEnvironment reports whether the file real lies in an environment's
// folder, which protectedPaths lists after .silo.
func (pl *bwrapPlanner) inEnvironment(real string) bool {
	return len(pl.protected) > 1 && slices.ContainsFunc(pl.protected[1:], func(q string) bool { return within(real, q) && real != q })
}

// hidePlaces sets the folders the plan hides: the hiddenPlaces, the
// runner's homes and the project, outermost only, and every temporary
// folder as a writable tmpfs of its own; shallowest first.
func (pl *bwrapPlanner) hidePlaces(project string) {
	p := pl.plan
	temp := slices.Clone(tempPlaces)
	if t, err := realPath(os.TempDir()); err == nil {
		temp = append(temp, t)
	}
	pl.homes = runnerHomes()
	isDir := func(h string) bool {
		fi, err := os.Stat(h)
		return err == nil && fi.IsDir() && holdsSystem(h) == ""
	}
	var places []string
	for _, h := range append(append(slices.Clone(hiddenPlaces), pl.homes...), project) {
		if h != "" && isDir(h) {
			places = append(places, h)
		}
	}
	p.hide = outermost(places)
	for _, t := range temp {
		// a temporary folder is a tmpfs of its own, writable, also inside
		// a hidden place (/var/tmp in /var)
		if isDir(t) && !slices.Contains(p.writable, t) {
			if !slices.Contains(p.hide, t) {
				p.hide = append(p.hide, t)
			}
			p.writable = append(p.writable, t)
		}
	}
	slices.SortStableFunc(p.hide, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
}

// add binds real, named so, where the sandbox hides it.
func (pl *bwrapPlanner) add(named, real string) {
	p := pl.plan
	if hidden(p.hide, real) {
		p.ro = append(p.ro, bind{real, real})
	}
	if named != real && hidden(p.hide, named) {
		p.ro = append(p.ro, bind{real, named})
	}
}

// check refuses a path that is or holds a protected one; what names the
// path in the error, "" leaves the naming to the caller.
func (pl *bwrapPlanner) check(what, real string) error {
	for _, q := range pl.protected {
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

// wholePlace reports whether binding dir would show what the sandbox
// hides whole: a hidden folder itself, one holding one, or a home.
func (pl *bwrapPlanner) wholePlace(dir string) bool {
	if slices.ContainsFunc(pl.plan.hide, func(h string) bool { return within(h, dir) }) || slices.Contains(pl.homes, dir) {
		return true
	}
	return filepath.Dir(dir) == "/home" // another user's
}

// bindPATH binds each folder of path the sandbox hides, unless it is a
// whole hidden place, a home or protected, with a shims folder's version
// manager root.
func (pl *bwrapPlanner) bindPATH(path string) {
	hide := pl.plan.hide
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		named := filepath.Clean(dir)
		real, err := realPath(named)
		if err != nil || !hidden(hide, real) && !hidden(hide, named) {
			continue // not there, or in sight as it is
		}
		if pl.wholePlace(real) || pl.wholePlace(named) || pl.check("PATH", real) != nil {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		pl.add(named, real)
		// a version manager's shims (pyenv, rbenv, nodenv, asdf) run
		// its own programs and versions beside them: its root is bound
		// too, as long as it is no home or hidden place
		if filepath.Base(real) == "shims" {
			if root := filepath.Dir(real); !pl.wholePlace(root) && pl.check("PATH", root) == nil {
				pl.add(filepath.Dir(named), root)
			}
		}
	}
}

// bindCommand binds each file command names by absolute path and the
// program its first word finds on path; one that is protected is an error.
func (pl *bwrapPlanner) bindCommand(command, path string) error {
	words := shellWords(command)
	for i, w := range words {
		named := w
		if i == 0 && !strings.Contains(w, "/") {
			named = lookPath(w, path)
		}
		if !filepath.IsAbs(named) {
			continue
		}
		named = filepath.Clean(named)
		real, err := realPath(named)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := pl.check("the command's "+named, real); err != nil && !(pl.declared && pl.inEnvironment(real)) {
			return err
		}
		pl.add(named, real)
	}
	return nil
}

// bindReadOnly binds the sandbox's read-only paths; one that does not
// exist or is protected is a ReadOnlyPathError.
func (pl *bwrapPlanner) bindReadOnly(paths []string) error {
	for _, ro := range paths {
		abs, err := filepath.Abs(ro)
		if err != nil {
			return &ReadOnlyPathError{Path: ro, Reason: err.Error(), Err: err}
		}
		real, err := realPath(abs)
		if err != nil {
			return &ReadOnlyPathError{Path: ro, Reason: err.Error() + "; give a path that exists", Err: err}
		}
		if err := pl.check("", real); err != nil {
			return &ReadOnlyPathError{Path: ro, Reason: err.Error()}
		}
		pl.add(abs, real)
	}
	return nil
}

// bindResolvConf binds a resolv.conf that points into a hidden folder
// (/run, as systemd-resolved's does), for an agent with the network.
func (pl *bwrapPlanner) bindResolvConf() {
	if real, err := realPath("/etc/resolv.conf"); err == nil && hidden(pl.plan.hide, real) {
		pl.add(real, real)
	}
}

// runnerHomes are the runner's home folders, resolved: $HOME's and the one
// the user database gives, when they differ. A home that is or holds a
// system folder (HOME=/) is none.
func runnerHomes() []string {
	var out []string
	for _, h := range []string{os.Getenv("HOME"), userHome()} {
		if h == "" {
			continue
		}
		if real, err := realPath(h); err == nil && holdsSystem(real) == "" && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// userHome is the home of the runner's user in the user database, "" when
// it has none.
func userHome() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.HomeDir
}

// protectedPaths are the parts of the project an agent may never see: .silo
// and the folder of every environment its manifests name. A manifest that
// cannot be read protects the whole project.
func protectedPaths(project string) []string {
	silo := filepath.Join(project, ".silo")
	out := []string{silo}
	dir := filepath.Join(silo, "environments")
	entries, err := safeio.ReadDir(dir)
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
		data, err := safeio.ReadNoFollow(name)
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

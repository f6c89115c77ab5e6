package host

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agent-oracle/oracle/internal/secret"
)

// A host runs an environment's code, which in CI is a pull request's
// code: it is contained as an exec agent is. Every host gets an
// environment of its own (hostEnviron): oracle's variables but those
// named like a credential (internal/secret.Named: GITHUB_TOKEN, AWS keys,
// OPENAI_API_KEY…), with HOME and TMPDIR a fresh folder of its own that is
// removed when it exits. Under the sandbox (SandboxBwrap, bubblewrap) it
// also sees the machine read-only, with the temporary folders, /var, /run
// and every home hidden, the project read-only, its own folder writable,
// no network unless the environment declares it (Sandbox.Net), in
// namespaces of its own that die with oracle, so that no process it
// starts (in a session of its own included) outlives it.

// The sandbox modes of hosts, as those of exec agents (--sandbox).
const (
	SandboxAuto  = "auto"  // bwrap when bubblewrap works here, none otherwise
	SandboxBwrap = "bwrap" // bubblewrap, or the host does not start
	SandboxNone  = "none"  // an environment of its own only
)

// Sandbox says how a host is contained.
type Sandbox struct {
	// Mode is SandboxBwrap, SandboxAuto or SandboxNone; empty is none.
	Mode string
	// Net lets the host use the network.
	Net bool
	// ReadOnly are more folders the host sees read-only under the
	// sandbox (its runtime's packages, such as tsx's node_modules).
	ReadOnly []string
	// Writable are folders it may write in beside its own: the Node
	// host's cache of what loaded as CommonJS, which only saves work.
	Writable []string
}

// resolve is the mode the host runs in, bwrap or none; an error when bwrap
// is asked for and does not work here.
func (s Sandbox) resolve() (string, error) {
	switch s.Mode {
	case "", SandboxNone:
		return SandboxNone, nil
	case SandboxBwrap, SandboxAuto:
		if _, err := bwrapWorks(); err != nil {
			if s.Mode == SandboxAuto {
				return SandboxNone, nil
			}
			return "", fmt.Errorf("--sandbox bwrap: %v; install bubblewrap (apt-get install bubblewrap) or use --sandbox none", err)
		}
		return SandboxBwrap, nil
	}
	return "", fmt.Errorf("sandbox mode %q is not auto, bwrap or none", s.Mode)
}

var bwrapProbe struct {
	once sync.Once
	path string
	err  error
}

// bwrapWorks returns the path of a bwrap that runs here, probed once.
func bwrapWorks() (string, error) {
	bwrapProbe.once.Do(func() {
		path, err := exec.LookPath("bwrap")
		if err != nil {
			bwrapProbe.err = fmt.Errorf("bwrap is not installed")
			return
		}
		cmd := exec.Command(path, append(bwrapBase(false), "--", "/bin/true")...)
		cmd.Env = []string{}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			bwrapProbe.err = fmt.Errorf("bwrap does not work here (%v: %s); user namespaces may be disabled", err, oneLine(stderr.String(), 200))
			return
		}
		bwrapProbe.path = path
	})
	return bwrapProbe.path, bwrapProbe.err
}

// bwrapBase is the start of a host's bubblewrap command line: the machine
// read-only, every namespace new (the network too unless net), no
// capability, a session of its own, and death with oracle.
func bwrapBase(net bool) []string {
	args := []string{"--ro-bind", "/", "/", "--unshare-all"}
	if net {
		args = append(args, "--share-net")
	}
	return append(args, "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--proc", "/proc", "--dev", "/dev")
}

// hiddenPlaces are the folders a host does not see under the sandbox: the
// temporary folders, /var, /run, every home, the mount points of other
// disks, and the user's home wherever it is.
var hiddenPlaces = []string{"/tmp", "/var", "/run", "/home", "/root", "/srv", "/mnt", "/media"}

// bwrapArgs is the command line that runs argv in the sandbox, in dir (the
// project, read-only), with own bound writable and the folders of what
// argv names (its scripts, its runtime's packages) and readOnly bound
// read-only where they are hidden.
func bwrapArgs(bwrap string, s Sandbox, dir, own string, argv []string) []string {
	args := append([]string{bwrap}, bwrapBase(s.Net)...)
	places := slices.Clone(hiddenPlaces)
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		places = append(places, home)
	}
	var hide []string
	for _, p := range places {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if fi, err := os.Stat(real); err == nil && fi.IsDir() && !slices.ContainsFunc(hide, func(h string) bool { return within(real, h) }) {
				hide = slices.DeleteFunc(hide, func(h string) bool { return within(h, real) })
				hide = append(hide, real)
			}
		}
	}
	slices.SortFunc(hide, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	for _, h := range hide {
		args = append(args, "--tmpfs", h)
	}
	var ro []string
	add := func(p string) {
		if real, err := filepath.EvalSymlinks(p); err == nil && slices.ContainsFunc(hide, func(h string) bool { return within(real, h) }) && !slices.Contains(ro, real) {
			ro = append(ro, real)
		}
	}
	add(dir)
	for i, a := range argv {
		if !filepath.IsAbs(a) {
			continue
		}
		if fi, err := os.Stat(a); err == nil && !fi.IsDir() {
			a = filepath.Dir(a)
		}
		if i == 0 {
			a = interpreterRoot(a)
			// a virtualenv's python is a link to the interpreter it was
			// made from, whose standard library lies beside that one
			if real, err := filepath.EvalSymlinks(argv[0]); err == nil && real != argv[0] {
				add(interpreterRoot(filepath.Dir(real)))
			}
		}
		add(a)
	}
	for _, p := range s.ReadOnly {
		add(p)
	}
	for _, p := range ro {
		args = append(args, "--ro-bind", p, p)
	}
	args = append(args, "--bind", own, own)
	for _, p := range s.Writable {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			args = append(args, "--bind", p, p)
		}
	}
	for _, h := range hide {
		args = append(args, "--remount-ro", h)
	}
	return append(args, "--chdir", dir, "--")
}

// interpreterRoot is what a program in dir needs beside it: for a version
// manager's shim or an interpreter's bin folder, the folder above (pyenv's
// versions, nvm's lib, a virtualenv's own packages); else dir.
func interpreterRoot(dir string) string {
	if base := filepath.Base(dir); base == "shims" || base == "bin" {
		return filepath.Dir(dir)
	}
	return dir
}

// within reports whether path is dir or lies inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// hostEnviron is the environment of a host whose own folder is own: those
// of environ (nil: oracle's) but the variables named like a credential
// and those naming a home or a temporary folder, with HOME and TMPDIR own.
func hostEnviron(environ []string, own string) []string {
	if environ == nil {
		environ = os.Environ()
	}
	out := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case secret.Named(name), name == "HOME", name == "TMPDIR", name == "TMP", name == "TEMP", name == "USERPROFILE",
			strings.HasPrefix(name, "XDG_") && strings.HasSuffix(name, "_HOME"), name == "XDG_RUNTIME_DIR", name == "SSH_AGENT_PID":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+own, "TMPDIR="+own)
}

// packagesOf is the node_modules folder that holds the package file path
// lies in (its dependencies beside it), or path's folder.
func packagesOf(path string) string {
	const nm = string(filepath.Separator) + "node_modules" + string(filepath.Separator)
	if i := strings.LastIndex(path, nm); i >= 0 {
		return path[:i+len(nm)-1]
	}
	return filepath.Dir(path)
}

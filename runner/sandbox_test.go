//go:build linux

package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/proctest"
)

// The tests of the sandbox's promises. Each attack is also made without the
// sandbox, where it must work: the test shows it can fail.

// marker is a string found nowhere else.
func marker(t testing.TB, what string) string {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	return "oracle-test-" + what + "-" + hex.EncodeToString(b)
}

// attackerEnv names the variables of a runner started by runAttacker.
const (
	attackEnv    = "ORACLE_TEST_ATTACK"         // the script
	attackMode   = "ORACLE_TEST_ATTACK_SANDBOX" // bwrap or none
	attackOut    = "ORACLE_TEST_ATTACK_OUT"     // where the trace goes
	attackSecret = "ORACLE_TEST_SECRET"
)

// runAttacker runs the exec agent script in a runner of its own: the test
// binary, started with secret in its environment and project as its
// current folder, which it hides (as oracle hides its project). It returns
// the rollout's trace and result.json.
func runAttacker(t *testing.T, mode SandboxMode, script, secret, project string) (trace, result string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "-test.run=^TestAttackerRunner$", "-test.count=1")
	cmd.Dir = project
	cmd.Env = append(os.Environ(), attackEnv+"="+script, attackMode+"="+string(mode), attackOut+"="+out, attackSecret+"="+secret)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("runner: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	trace, result, _ = strings.Cut(string(b), "\x00")
	return trace, result
}

// TestAttackerRunner is the runner of runAttacker; it does nothing in a
// test run of its own.
func TestAttackerRunner(t *testing.T) {
	script := os.Getenv(attackEnv)
	if script == "" {
		t.Skip("the runner of the sandbox's attack tests; they start it")
	}
	o := execRun(t, ExecConfig{Command: script, Grace: 500 * time.Millisecond, Sandbox: Sandbox{
		Mode: SandboxMode(os.Getenv(attackMode)), Project: ".",
	}}, Config{})
	data := append(append(o.Artifacts.Trace, 0), o.Artifacts.Result...)
	if err := os.WriteFile(os.Getenv(attackOut), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSandboxHidesTheRunnersEnvironment: the agent reads /proc/PID/environ
// of its parent, of PID 1, of the runner by its PID and of every process
// it sees: the runner's secret is never in what it reads.
func TestSandboxHidesTheRunnersEnvironment(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	secret := marker(t, "secret")
	script := `read s; exec 3>&2
for f in /proc/[0-9]*/environ /proc/1/environ /proc/$PPID/environ; do tr '\0' ' ' < "$f" >&3 2>/dev/null; echo >&3; done
echo '{"type":"output","output":"done"}'`
	for _, mode := range []SandboxMode{SandboxBwrap, SandboxNone} {
		trace, result := runAttacker(t, mode, script, secret, t.TempDir())
		if !strings.Contains(trace, `"agent_stderr"`) || !strings.Contains(result, `"done"`) {
			t.Fatalf("%s: the agent did not run: trace %s", mode, trace)
		}
		leaked := strings.Contains(trace, secret) || strings.Contains(result, secret)
		switch {
		case mode == SandboxBwrap && leaked:
			t.Errorf("the sandboxed agent read the runner's secret from /proc")
		case mode == SandboxNone && !leaked:
			t.Errorf("without the sandbox the agent should read the runner's secret from /proc/$PPID/environ; the attack is broken")
		}
	}
}

// TestSandboxHidesTheProject: the agent tries to read a baseline and a
// verifier, by path and through /proc/$PPID/cwd and every /proc/*/cwd, and
// to overwrite the baseline and plant a file, by path and through
// /proc/$PPID/cwd: it reads nothing, and the project's bytes are unchanged.
func TestSandboxHidesTheProject(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	for _, mode := range []SandboxMode{SandboxBwrap, SandboxNone} {
		project := t.TempDir()
		baseline := filepath.Join(".silo", "baselines", "toy", "exec", "T-1.result.json")
		verifier := filepath.Join("envs", "toy", "verifiers.go")
		expected, code := marker(t, "expected"), marker(t, "verifier")
		files := map[string]string{
			baseline: `{"expected":"` + expected + `"}` + "\n",
			verifier: "package toy // " + code + "\n",
			filepath.Join(".silo", "environments", "toy", env.ManifestFile): `{"name":"toy","template":"toy","templateVersion":"0.1.0","entrypoint":"envs/toy","tools":[]}`,
		}
		for name, data := range files {
			writeTestFile(t, filepath.Join(project, name), data)
		}
		var script strings.Builder
		script.WriteString("read s; exec 3>&2\n")
		// reads through every process's folder; writes only where the
		// project is, by path and as the runner's folder (without the
		// sandbox, /proc/*/cwd are the folders of the machine's processes)
		fmt.Fprintf(&script, "for r in /proc/1/cwd /proc/[0-9]*/cwd; do ls -la $r >&3 2>&1; cat $r/%s $r/%s >&3 2>&1; done\n", baseline, verifier)
		for _, root := range []string{project, "/proc/$PPID/cwd"} {
			fmt.Fprintf(&script, "r=%s; ls -la $r >&3 2>&1; cat $r/%s $r/%s >&3 2>&1\n", root, baseline, verifier)
			fmt.Fprintf(&script, "echo overwritten > $r/%s 2>/dev/null; touch $r/planted 2>/dev/null\n", baseline)
		}
		script.WriteString(`echo '{"type":"output","output":"done"}'`)
		trace, result := runAttacker(t, mode, script.String(), "", project)
		if !strings.Contains(result, `"done"`) {
			t.Fatalf("%s: the agent did not run: %s", mode, trace)
		}
		read := strings.Contains(trace, expected) || strings.Contains(trace, code)
		b, err := os.ReadFile(filepath.Join(project, baseline))
		if err != nil {
			t.Fatal(err)
		}
		changed := string(b) != files[baseline]
		_, err = os.Lstat(filepath.Join(project, "planted"))
		planted := err == nil
		if mode == SandboxBwrap {
			if read {
				t.Error("the sandboxed agent read a baseline or a verifier of the project")
			}
			if changed {
				t.Errorf("the sandboxed agent changed the baseline: %q", b)
			}
			if planted {
				t.Error("the sandboxed agent wrote a file into the project")
			}
		} else if !read || !changed || !planted {
			t.Errorf("without the sandbox the attack should work (read %v, changed %v, planted %v); it is broken", read, changed, planted)
		}
	}
}

// leaveSetsidChildren is a shell line that starts children which leave
// the agent's process group and session, ignoring SIGTERM and SIGHUP,
// each with mark in its environment.
//
// The script goes on only once both children have left the group (each
// writes a file in the working folder once it is in its own session):
// otherwise, on a loaded machine, the rollout could end and kill the group
// before a child got to setsid, and there would be no survivor to look for.
func leaveSetsidChildren(mark string) string {
	return fmt.Sprintf(`ORACLE_SURVIVOR=%[1]s setsid sh -c 'trap "" TERM HUP; : > .survivor1; sleep 300' </dev/null >/dev/null 2>&1 &
(ORACLE_SURVIVOR=%[1]s setsid sh -c 'trap "" TERM HUP; : > .survivor2; while :; do sleep 1; done' </dev/null >/dev/null 2>&1 &)
until [ -e .survivor1 ] && [ -e .survivor2 ]; do sleep 0.01; done
`, mark)
}

// TestSandboxLeavesNoSurvivor: children that setsid out of the agent's
// process group die with the rollout, whether the agent ends, times out or
// is cancelled; the temporary folders go too.
func TestSandboxLeavesNoSurvivor(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	ready := `echo "$HOME" > home; echo ready > ready` + "\n"
	tests := []struct {
		name, script string
		timeout      time.Duration
		cancel       bool
	}{
		{"agent ends", `echo '{"type":"output","output":"done"}'`, 0, false},
		{"timeout", "while :; do sleep 1; done", 2 * time.Second, false},
		{"cancelled", "while :; do sleep 1; done", 0, true},
	}
	for _, mode := range []SandboxMode{SandboxBwrap, SandboxNone} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				// (a runner that is root runs the sandboxed agent as nobody:
				// the working folder given must be the agent's to write)
				if err := os.Chmod(dir, 0o777); err != nil {
					t.Fatal(err)
				}
				m := marker(t, "survivor")
				script := "read s; trap '' TERM; " + leaveSetsidChildren(m) + ready + tt.script
				t.Cleanup(func() {
					for _, pid := range proctest.WithEnv(t, m) {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				})
				cfg := ExecConfig{Command: script, Dir: dir, Grace: 200 * time.Millisecond, Sandbox: Sandbox{Mode: mode}}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				in := env.AgentInput{Task: "t", Call: func(context.Context, string, any) env.ToolResult { return env.ToolResult{} }}
				if tt.timeout > 0 {
					ctx, cancel = context.WithTimeoutCause(ctx, tt.timeout, env.ErrTimeout)
					defer cancel()
				}
				if tt.cancel {
					go func() {
						for {
							if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
								cancel()
								return
							}
							time.Sleep(10 * time.Millisecond)
						}
					}()
				}
				ExecAgent(cfg).Run(ctx, in)
				if _, err := os.Stat(filepath.Join(dir, "ready")); err != nil {
					t.Fatalf("the agent did not get to start its children: %v", err)
				}
				left := proctest.WithEnv(t, m)
				switch {
				case mode == SandboxBwrap && len(left) > 0:
					t.Errorf("processes %v of the sandboxed agent outlived the rollout", left)
				case mode == SandboxNone && len(left) == 0:
					t.Errorf("without the sandbox a setsid child should outlive the rollout; the attack is broken")
				}
				if mode == SandboxBwrap {
					home, _ := os.ReadFile(filepath.Join(dir, "home"))
					h := strings.TrimSpace(string(home))
					if !strings.Contains(h, "oracle-agent-") {
						t.Fatalf("the agent's HOME is %q, not a temporary folder of its own", h)
					}
					if _, err := os.Stat(h); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("the agent's temporary home %s is left behind (stat: %v)", h, err)
					}
				}
			})
		}
	}
}

// pendingConnections accepts, without waiting, the connections ln has
// queued: a connection an agent made is queued before its connect returns.
func pendingConnections(t *testing.T, ln *net.TCPListener) int {
	t.Helper()
	raw, err := ln.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = raw.Control(func(fd uintptr) {
		for {
			nfd, _, err := syscall.Accept4(int(fd), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
			if err != nil {
				return
			}
			syscall.Close(nfd)
			n++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSandboxNetwork: a sandboxed agent cannot reach a listener on the
// host's 127.0.0.1 (its loopback is its namespace's own) unless the
// sandbox's network is on.
func TestSandboxNetwork(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	tests := []struct {
		sandbox Sandbox
		connect bool
	}{
		{Sandbox{Mode: SandboxBwrap}, false},
		{Sandbox{Mode: SandboxBwrap, Net: true}, true},
		{Sandbox{Mode: SandboxNone}, true},
	}
	for _, tt := range tests {
		ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		cfg := helperExec(t, "dial", "ORACLE_TEST_DIAL="+ln.Addr().String())
		cfg.Sandbox = tt.sandbox
		o := execRun(t, cfg, Config{})
		got := pendingConnections(t, ln)
		ln.Close()
		out := outputText(o.Result.AgentOutput)
		if tt.connect && (got != 1 || out != "connected") {
			t.Errorf("%+v: the listener saw %d connections, the agent says %q; want its connection", tt.sandbox, got, out)
		}
		if !tt.connect && (got != 0 || !strings.HasPrefix(out, "no connection")) {
			t.Errorf("%+v: the listener saw %d connections, the agent says %q; the network must be off", tt.sandbox, got, out)
		}
	}
}

// TestSandboxModeInRunJSON: the mode is in run.json only; result.json and
// state-diff.json do not depend on it.
func TestSandboxModeInRunJSON(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	var results, diffs []string
	for _, mode := range []SandboxMode{SandboxBwrap, SandboxNone} {
		cfg := helperExec(t, "solve-toy")
		cfg.Sandbox.Mode = mode
		o := execRun(t, cfg, Config{Agent: "exec"})
		if !o.Result.Passed {
			t.Fatalf("%s: %s", mode, errorText(o.Result))
		}
		var info RunInfo
		if err := json.Unmarshal(o.Artifacts.Run, &info); err != nil {
			t.Fatal(err)
		}
		if info.Sandbox != mode {
			t.Errorf("run.json says sandbox %q, want %q", info.Sandbox, mode)
		}
		results = append(results, string(o.Artifacts.Result))
		diffs = append(diffs, string(o.Artifacts.StateDiff))
	}
	if results[0] != results[1] || diffs[0] != diffs[1] {
		t.Error("result.json or state-diff.json differ between the sandbox modes")
	}
	if strings.Contains(results[0], "sandbox") {
		t.Error("result.json names the sandbox")
	}
}

// TestSandboxFilesystem: the agent writes in its working folder, its home
// and /tmp, nowhere else, and sees no other agent's folder.
func TestSandboxFilesystem(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	other := t.TempDir() // under the temporary folder, as another agent's would be
	writeTestFile(t, filepath.Join(other, "notes"), "another agent's notes")
	script := fmt.Sprintf(`read s
r=""
for d in "$PWD" "$HOME" /tmp /usr /etc /; do if touch "$d/.probe" 2>/dev/null; then r="$r w:$d"; else r="$r ro:$d"; fi; done
o=%s; test -e "$o/notes" && r="$r other-visible"
printf '{"type":"output","output":"%%s"}\n' "$r"`, other)
	o := execRun(t, ExecConfig{Command: script, Sandbox: Sandbox{Mode: SandboxBwrap}}, Config{})
	got := strings.Fields(outputText(o.Result.AgentOutput))
	if len(got) != 6 {
		t.Fatalf("output %s, error %q", o.Result.AgentOutput, errorText(o.Result))
	}
	want := []string{"w:", "w:", "w:/tmp", "ro:/usr", "ro:/etc", "ro:/"}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) || (strings.HasSuffix(w, ":") && strings.Contains(got[i], "/usr")) {
			t.Errorf("probe %d: %s, want %s", i, got[i], w)
		}
	}
}

// TestSandboxHidesTheHomeHoweverPathSpellsIt: with PATH naming the home
// as "$HOME/", "$HOME/bin/.." and through a symlink, and a folder inside
// it, the sandboxed agent reads neither ~/.ssh/id_rsa nor the credentials
// beside that folder; without the sandbox it reads both.
func TestSandboxHidesTheHomeHoweverPathSpellsIt(t *testing.T) {
	needBwrap(t)
	home := t.TempDir()
	key, cred := marker(t, "ssh-key"), marker(t, "cargo-credentials")
	writeTestFile(t, filepath.Join(home, ".ssh", "id_rsa"), key)
	writeTestFile(t, filepath.Join(home, ".cargo", "credentials.toml"), cred)
	writeTestFile(t, filepath.Join(home, ".cargo", "bin", "hello"), "#!/bin/sh\necho hello\n")
	link := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{home, filepath.Dir(link)} {
		os.Chmod(d, 0o755) // readable by the agent user the sandbox of a root runner uses
	}
	t.Setenv("HOME", home)
	t.Setenv("PATH", strings.Join([]string{home + "/", home + "/bin/..", link, home + "/.cargo/bin", "/usr/bin", "/bin"}, ":"))
	// (the paths are made in the script: a file the command names by
	// absolute path is one the agent is shown)
	script := fmt.Sprintf(`read s; h=%[1]q; l=%[2]q
r=$( { hello; cat "$h/.ssh/id_rsa" "$h/.cargo/credentials.toml" "$l/.ssh/id_rsa"; } 2>/dev/null | tr -d '\n')
printf '{"type":"output","output":"%%s"}\n' "$r"`, home, link)
	for _, mode := range []SandboxMode{SandboxBwrap, SandboxNone} {
		o := execRun(t, ExecConfig{Command: script, Sandbox: Sandbox{Mode: mode}}, Config{})
		out := outputText(o.Result.AgentOutput)
		if !strings.HasPrefix(out, "hello") {
			t.Fatalf("%s: the PATH folder's program did not run: %q, %s", mode, out, errorText(o.Result))
		}
		leaked := strings.Contains(out, key) || strings.Contains(out, cred)
		switch {
		case mode == SandboxBwrap && leaked:
			t.Errorf("the sandboxed agent read the home's credentials: %q", out)
		case mode == SandboxNone && !(strings.Contains(out, key) && strings.Contains(out, cred)):
			t.Errorf("without the sandbox the agent should read both; the attack is broken: %q", out)
		}
	}
}

// TestSandboxAgentIsNotRoot: a sandboxed agent is never uid 0 and reads no
// file only root may read (one it is shown read-only, /etc/shadow); a
// runner that is root runs it as nobody. Without the sandbox, a root
// runner's agent reads them.
func TestSandboxAgentIsNotRoot(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	secret := marker(t, "root-only")
	dir := t.TempDir()
	file := filepath.Join(dir, "root-only")
	writeTestFile(t, file, secret)
	os.Chmod(file, 0o600)
	os.Chmod(dir, 0o755)
	script := fmt.Sprintf(`read s
r="uid=$(id -u) $(cat %s 2>/dev/null) $(head -c 5 /etc/shadow 2>/dev/null | tr -d ':\n')"
printf '{"type":"output","output":"%%s"}\n' "$r"`, file)
	for _, mode := range []SandboxMode{SandboxBwrap, SandboxNone} {
		sb := Sandbox{Mode: mode}
		if mode == SandboxBwrap {
			sb.ReadOnly = []string{file}
		}
		o := execRun(t, ExecConfig{Command: script, Sandbox: sb}, Config{})
		out := outputText(o.Result.AgentOutput)
		if !strings.HasPrefix(out, "uid=") {
			t.Fatalf("%s: %q, %s", mode, out, errorText(o.Result))
		}
		root := strings.HasPrefix(out, "uid=0 ")
		read := strings.Contains(out, secret)
		switch {
		case mode == SandboxBwrap && (root || read || strings.Contains(out, "root")):
			t.Errorf("the sandboxed agent is root or read a root-only file: %q", out)
		case mode == SandboxNone && os.Geteuid() == 0 && !(root && read):
			t.Errorf("without the sandbox a root runner's agent should be root; the attack is broken: %q", out)
		}
	}
}

// TestSandboxHidesWritablePlaces: a host service's Unix socket in /var/tmp
// or /dev/shm, a file in /var, /srv or another home, are out of the
// sandboxed agent's sight; without the sandbox they are in it.
func TestSandboxHidesWritablePlaces(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	var probes []string
	for _, dir := range []string{"/var/tmp", "/dev/shm"} {
		d, err := os.MkdirTemp(dir, "oracle-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		os.Chmod(d, 0o755)
		sock := filepath.Join(d, "service.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		os.Chmod(sock, 0o777)
		probes = append(probes, sock)
	}
	if len(probes) == 0 {
		t.Skip("neither /var/tmp nor /dev/shm is writable here")
	}
	script := fmt.Sprintf(`read s
r=""; for p in %s; do if [ -S "$p" ]; then r="$r seen:$p"; else r="$r hidden:$p"; fi; done
printf '{"type":"output","output":"%%s"}\n' "$r"`, strings.Join(probes, " "))
	for _, mode := range []SandboxMode{SandboxBwrap, SandboxNone} {
		o := execRun(t, ExecConfig{Command: script, Sandbox: Sandbox{Mode: mode}}, Config{})
		out := outputText(o.Result.AgentOutput)
		if strings.Count(out, ":") != len(probes) {
			t.Fatalf("%s: %q, %s", mode, out, errorText(o.Result))
		}
		switch {
		case mode == SandboxBwrap && strings.Contains(out, "seen:"):
			t.Errorf("the sandboxed agent sees a host socket: %q", out)
		case mode == SandboxNone && strings.Contains(out, "hidden:"):
			t.Errorf("without the sandbox the agent should see the sockets; the attack is broken: %q", out)
		}
	}
}

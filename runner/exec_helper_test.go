package runner

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary act as an exec agent: with
// ORACLE_TEST_AGENT set, it speaks the protocol on stdin and stdout instead
// of running the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("ORACLE_TEST_AGENT"); mode != "" {
		os.Exit(helperAgent(mode))
	}
	os.Exit(m.Run())
}

// helperAgent is the test binary as an agent in mode; it returns the exit
// status.
func helperAgent(mode string) int {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	read := func() map[string]any {
		b, err := in.ReadBytes('\n')
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper agent: read:", err)
			os.Exit(3)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			fmt.Fprintln(os.Stderr, "helper agent: decode:", err)
			os.Exit(3)
		}
		return m
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	call := func(id, tool string, input any) map[string]any {
		send(map[string]any{"type": "call", "id": id, "tool": tool, "input": input})
		return read()
	}
	start := read()
	switch mode {
	case "solve-toy":
		// the Go agent solveToy, as a process
		call("c1", "list_counters", nil)
		r := call("c2", "set_counter", map[string]any{"id": "C-1", "value": 5})
		if r["isError"] == true {
			fmt.Fprintln(os.Stderr, "set_counter failed:", r["output"])
			return 1
		}
		send(map[string]any{"type": "output", "output": "done"})
	case "calls":
		// ORACLE_TEST_CALLS calls of list_counters, then an output
		n, _ := strconv.Atoi(os.Getenv("ORACLE_TEST_CALLS"))
		for i := range n {
			call("c"+strconv.Itoa(i), "list_counters", nil)
		}
		send(map[string]any{"type": "output", "output": "done"})
	case "until-stop":
		// calls until told to stop, then says why on stderr and exits
		for i := 0; ; i++ {
			send(map[string]any{"type": "call", "id": i, "tool": "list_counters"})
			if m := read(); m["type"] == "stop" {
				fmt.Fprintln(os.Stderr, "got stop:", m["reason"])
				return 0
			}
		}
	case "dial":
		// dials ORACLE_TEST_DIAL over TCP and says what happened
		c, err := net.DialTimeout("tcp", os.Getenv("ORACLE_TEST_DIAL"), 5*time.Second)
		if err != nil {
			send(map[string]any{"type": "output", "output": "no connection: " + err.Error()})
			break
		}
		c.Close()
		send(map[string]any{"type": "output", "output": "connected"})
	case "start":
		// echoes the start message back as the output
		send(map[string]any{"type": "output", "output": start})
	default:
		fmt.Fprintln(os.Stderr, "helper agent: unknown mode", mode)
		return 2
	}
	return 0
}

// helperExec returns the exec config of the test binary as an agent in mode.
func helperExec(t testing.TB, mode string, env ...string) ExecConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	vars := append([]string{"ORACLE_TEST_AGENT=" + mode}, env...)
	if testing.CoverMode() != "" {
		// a binary built with -cover that finds no GOCOVERDIR says so on
		// stderr as it starts, and the agent's environment is scrubbed of
		// the test's: the agent's counters go to its own working folder,
		// which is writable in every sandbox and removed after the run
		vars = append(vars, "GOCOVERDIR=.")
	}
	return ExecConfig{Command: shellQuote(exe), Env: vars}
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/runner"
	"github.com/google/go-cmp/cmp"
)

// The code and message of the --json error object come from the error's
// type, never from its text: a message that starts like a code is text.
func TestJSONErrorIsData(t *testing.T) {
	notFound := &env.Error{Code: env.CodeTaskNotFound, Message: "no task T9 in crm; tasks: T1", Known: []string{"T1"}}
	for _, tt := range []struct {
		name  string
		err   error
		code  string
		msg   string
		known []string
	}{
		{"usage", usageError("--shard %q is not i/n", "3/2"), "usage", `--shard "3/2" is not i/n`, nil},
		{"exists", existsError("%s is already there", "a.go"), "exists", "a.go is already there", nil},
		{"coded", notFound, env.CodeTaskNotFound, "no task T9 in crm; tasks: T1", []string{"T1"}},
		{"wrapped usage", fmt.Errorf("record: %w", usageError("no")), "usage", "record: usage: no", nil},
		{"wrapped coded", fmt.Errorf("load: %w", notFound), env.CodeTaskNotFound, "load: task_not_found: no task T9 in crm; tasks: T1", []string{"T1"}},
		{"text like a code", errors.New("usage: not a usage error"), "error", "usage: not a usage error", nil},
		{"an environment's name", errors.New("my_env: cannot open"), "error", "my_env: cannot open", nil},
		{"exists in text", errors.New("exists: said, not coded"), "error", "exists: said, not coded", nil},
		{"sentinel", &env.Error{Code: "manifest_not_found"}, "manifest_not_found", "manifest_not_found", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := writeJSONError(&out, tt.err); err != nil {
				t.Fatal(err)
			}
			var got jsonError
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			want := jsonError{FormatVersion: FormatVersion}
			want.Error.Code, want.Error.Message, want.Error.Known = tt.code, tt.msg, tt.known
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error object (-want +got):\n%s", diff)
			}
		})
	}
}

// The sandbox's errors about a value of the command line name its flag,
// and still match what they reword.
func TestSandboxErrorsNameTheFlag(t *testing.T) {
	ro := &runner.ReadOnlyPathError{Path: "shared", Reason: "no such file or directory; give a path that exists"}
	held := &runner.ProjectHoldsSystemError{Project: "/home", Held: "/home/u"}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{ro, "sandbox: --agent-ro shared: no such file or directory; give a path that exists"},
		{held, held.Error() + " (or use --sandbox none)"},
		{errors.New("other"), "other"},
	} {
		got := sandboxWording(tt.err)
		if got.Error() != tt.want {
			t.Errorf("sandboxWording(%q) = %q, want %q", tt.err, got, tt.want)
		}
		if !errors.Is(got, tt.err) {
			t.Errorf("sandboxWording(%q) no longer matches the error it words", tt.err)
		}
	}
}

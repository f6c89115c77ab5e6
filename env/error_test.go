package env

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestErrorCodeMessageAndKnown(t *testing.T) {
	e, err := New(boxDefinition())
	if err != nil {
		t.Fatal(err)
	}
	_, err = FindTask(e, "TASK-404")
	wrapped := fmt.Errorf("select: %w", err)
	var coded *Error
	if !errors.As(wrapped, &coded) {
		t.Fatalf("FindTask of a missing task = %v, want an *Error", err)
	}
	if coded.Code != CodeTaskNotFound {
		t.Errorf("code = %q, want %q", coded.Code, CodeTaskNotFound)
	}
	if diff := cmp.Diff([]string{"TASK-001"}, coded.Known); diff != "" {
		t.Errorf("known tasks (-want +got):\n%s", diff)
	}
	if got, want := err.Error(), "task_not_found: no task TASK-404 in box; tasks: TASK-001"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}

func TestErrorSentinelMatchesByCode(t *testing.T) {
	cause := fs.ErrNotExist
	err := fmt.Errorf("load: %w", &Error{Code: ErrNoManifest.Code, Message: "no manifest m.json", Err: cause})
	tests := []struct {
		name   string
		target error
		want   bool
	}{
		{"the sentinel of its code", ErrNoManifest, true},
		{"its cause", cause, true},
		{"a sentinel of another code", &Error{Code: CodeTaskNotFound}, false},
		{"an error with a message is no sentinel", &Error{Code: ErrNoManifest.Code, Message: "no manifest m.json"}, false},
	}
	for _, tt := range tests {
		if got := errors.Is(err, tt.target); got != tt.want {
			t.Errorf("%s: errors.Is = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := ErrNoManifest.Error(); got != "manifest_not_found" {
		t.Errorf("sentinel text = %q, want its code", got)
	}
}

func TestNameList(t *testing.T) {
	many := make([]string, 100_000)
	for i := range many {
		many[i] = fmt.Sprintf("TASK-%06d", i+1)
	}
	tests := []struct {
		names []string
		want  string
	}{
		{nil, "none"},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a, b"},
		{many[:NameListMax], strings.Join(many[:NameListMax], ", ")},
		{many[:NameListMax+1], strings.Join(many[:NameListMax], ", ") + ", … and 1 more"},
		{many, strings.Join(many[:NameListMax], ", ") + ", … and 99980 more"},
	}
	for _, tt := range tests {
		if got := NameList(tt.names); got != tt.want {
			t.Errorf("NameList of %d names = %.120q, want %.120q", len(tt.names), got, tt.want)
		}
	}
}

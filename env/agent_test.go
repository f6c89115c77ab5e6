package env

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// CallOutput and CallInto: ctx's error first, {} for a nil input, a tool's
// error result as an error, and the output as it came.
func TestCallOutputAndCallInto(t *testing.T) {
	var gotInput any
	in := AgentInput{Call: func(_ context.Context, tool string, input any) ToolResult {
		gotInput = input
		if tool == "fails" {
			return ToolResult{Output: json.RawMessage(`{"code":"not_found","message":"no such lead"}`), IsError: true}
		}
		return ToolResult{Output: json.RawMessage(`{"id":"LEAD-1"}`)}
	}}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		tool    string
		output  string
		wantErr string
	}{
		{"output", context.Background(), "get", `{"id":"LEAD-1"}`, ""},
		{"error result", context.Background(), "fails", "", `fails: {"code":"not_found","message":"no such lead"}`},
		{"cancelled", cancelled, "get", "", context.Canceled.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotInput = nil
			out, err := in.CallOutput(tt.ctx, tt.tool, nil)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("CallOutput error %v, want %q", err, tt.wantErr)
				}
				if err := in.CallInto(tt.ctx, tt.tool, nil, &struct{}{}); err == nil || err.Error() != tt.wantErr {
					t.Errorf("CallInto error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(out) != tt.output {
				t.Fatalf("CallOutput = %s, %v; want %s", out, err, tt.output)
			}
			if m, ok := gotInput.(map[string]any); !ok || len(m) != 0 {
				t.Errorf("the tool got %#v for a nil input, want {}", gotInput)
			}
			var lead struct{ ID string }
			if err := in.CallInto(tt.ctx, tt.tool, nil, &lead); err != nil || lead.ID != "LEAD-1" {
				t.Errorf("CallInto = %+v, %v", lead, err)
			}
			var wrong struct{ ID int }
			err = in.CallInto(tt.ctx, tt.tool, nil, &wrong)
			var typeErr *json.UnmarshalTypeError
			if !errors.As(err, &typeErr) || !strings.HasPrefix(err.Error(), tt.tool+": decode output: ") {
				t.Errorf("CallInto into the wrong type: %v", err)
			}
		})
	}
}

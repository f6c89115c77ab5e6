package openai

import (
	"encoding/json"
	"strings"
)

// The request and response shapes of POST {base}/chat/completions, as far
// as the agent uses them.

type chatRequest struct {
	Model       string    `json:"model"`
	Messages    []message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	Temperature float64   `json:"temperature"`
	Seed        *int64    `json:"seed,omitempty"`
}

type message struct {
	Role string `json:"role"`
	// Content is null on an assistant message that only calls tools.
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
}

type functionCall struct {
	Name string `json:"name"`
	// Arguments is a string of JSON written by the model: it may be
	// malformed.
	Arguments string `json:"arguments"`
}

type chatResponse struct {
	Choices []struct {
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	} `json:"choices"`
}

// apiError is the body of an error response:
// {"error":{"message","type","code"}}.
type apiError struct {
	Error struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	} `json:"error"`
}

// errorMessage is the API's message in an error body, or the body itself
// (shortened) when it is not the API's error shape.
func errorMessage(body []byte) string {
	var e apiError
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg := e.Error.Message
		var code string
		if json.Unmarshal(e.Error.Code, &code) == nil && code != "" {
			msg = code + ": " + msg
		}
		return msg
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

func text(s string) *string { return &s }

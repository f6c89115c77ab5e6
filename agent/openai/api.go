package openai

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

func text(s string) *string { return &s }

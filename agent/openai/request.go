package openai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agent-oracle/oracle/agent/internal/modelapi"
)

// complete posts one turn through the API client, which retries and logs.
// The trace records logged of the request.
func (a *agent) complete(ctx context.Context, turn int, req chatRequest, logged any, log func(string, map[string]any)) (*chatResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("openai %s: turn %d: request: %w", a.cfg.Model, turn, err)
	}
	data, err := a.cfg.API.Post(ctx, modelapi.Request{URL: modelapi.Endpoint(a.cfg.BaseURL, "/chat/completions"), Body: body, Logged: logged, Turn: turn}, log)
	if err != nil {
		return nil, fmt.Errorf("openai %s: turn %d: %w", a.cfg.Model, turn, err)
	}
	var out chatResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("openai %s: turn %d: the response is not a chat completion: %v", a.cfg.Model, turn, err)
	}
	return &out, nil
}

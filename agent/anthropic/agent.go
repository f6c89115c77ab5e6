// Package anthropic is an agent for a Claude model behind Anthropic's
// Messages API: a tool-use loop that is an env.Agent, so its rollouts go
// through the runner like any agent's.
//
// Each turn posts the conversation with the environment's tools (name,
// description, input_schema); each tool_use block becomes a runner call,
// answered in the next user message by a tool_result block with the
// matching tool_use_id and is_error; the text of the first answer without
// tool use is the final output. Every request (its new messages) and
// response goes in the rollout's trace; the key, the base URL's
// credentials and the headers sent are secrets of the process, which no
// artifact, trace or output holds.
package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/agent-oracle/oracle/agent/internal/modelapi"
	"github.com/agent-oracle/oracle/env"
	"github.com/agent-oracle/oracle/internal/secret"
)

// Defaults of Config.
const (
	DefaultBaseURL   = "https://api.anthropic.com"
	DefaultMaxTurns  = 50
	DefaultMaxTokens = 4096
	// Version is the anthropic-version header sent.
	Version = "2023-06-01"
)

// Config is a model and how to reach it.
type Config struct {
	Model string
	// BaseURL is the API's base without /v1, as in Anthropic's SDKs;
	// requests go to BaseURL + "/v1/messages", the query of
	// BaseURL after the path.
	BaseURL string
	// APIKey is sent as x-api-key. It is never written to a trace or an
	// artifact.
	APIKey      string
	Temperature float64
	MaxTurns    int // 0 means DefaultMaxTurns
	MaxTokens   int // 0 means DefaultMaxTokens
	// API posts the requests (retries, limits, HTTP client); New adds the
	// key and the version to its Header. Every header's value but the
	// version is a secret, as the key is.
	API modelapi.Client
}

// FromEnv returns the Config of model with the base URL from
// ANTHROPIC_BASE_URL and the key from ANTHROPIC_API_KEY.
func FromEnv(model string) Config {
	return Config{Model: model, BaseURL: os.Getenv("ANTHROPIC_BASE_URL"), APIKey: os.Getenv("ANTHROPIC_API_KEY")}
}

// New returns the agent of cfg.
func New(cfg Config) (env.Agent, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, &env.Error{Code: env.CodeAgentNotFound, Message: "anthropic: names no model; give one, e.g. --agent anthropic:claude-sonnet-4-5"}
	}
	base, err := modelapi.BaseURL(cfg.BaseURL, DefaultBaseURL, "ANTHROPIC_BASE_URL")
	if err != nil {
		return nil, err
	}
	cfg.BaseURL = base
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	cfg.API = cfg.client()
	secret.Add(cfg.API.Secrets(base)...)
	return &agent{cfg: cfg}, nil
}

// client is cfg.API with the key and the version in its header.
func (cfg Config) client() modelapi.Client {
	return cfg.API.WithHeaders("Anthropic-Version", Version, "X-Api-Key", cfg.APIKey)
}

// Secrets returns the secrets of cfg, which New adds to the process's: its
// key, the credentials in its base URL (user and password, a key in the
// query) and the values of the headers it sends.
func (cfg Config) Secrets() []string {
	return modelapi.ConfigSecrets(cfg.client(), cfg.BaseURL, DefaultBaseURL, "ANTHROPIC_BASE_URL", cfg.APIKey)
}

type agent struct{ cfg Config }

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is a content block: text, tool_use or tool_result.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type request struct {
	Model       string    `json:"model"`
	MaxTokens   int       `json:"max_tokens"`
	System      string    `json:"system"`
	Messages    []message `json:"messages"`
	Tools       []tool    `json:"tools,omitempty"`
	Temperature float64   `json:"temperature"`
}

type response struct {
	Content    []block `json:"content"`
	StopReason string  `json:"stop_reason"`
}

// Run is the tool-use loop.
func (a *agent) Run(ctx context.Context, in env.AgentInput) (any, error) {
	log := modelapi.Log(in.Log)
	if log == nil {
		log = func(string, map[string]any) {}
	}
	req := request{Model: a.cfg.Model, MaxTokens: a.cfg.MaxTokens, System: modelapi.SystemPrompt, Temperature: a.cfg.Temperature,
		Messages: []message{{Role: "user", Content: []block{{Type: "text", Text: in.Task}}}}}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	url := modelapi.Endpoint(a.cfg.BaseURL, "/v1/messages")
	sent := 0 // messages the trace holds
	for turn := 1; turn <= a.cfg.MaxTurns; turn++ {
		body, err := json.Marshal(req)
		if err != nil {
			return nil, fmt.Errorf("anthropic %s: turn %d: request: %w", a.cfg.Model, turn, err)
		}
		var logged any // the whole first request, then the new messages
		if turn > 1 {
			logged = modelapi.NewMessages[message]{From: sent, Messages: req.Messages[sent:]}
		}
		sent = len(req.Messages)
		data, err := a.cfg.API.Post(ctx, modelapi.Request{URL: url, Body: body, Logged: logged, Turn: turn}, log)
		if err != nil {
			return nil, fmt.Errorf("anthropic %s: turn %d: %w", a.cfg.Model, turn, err)
		}
		var resp response
		if err := json.Unmarshal(data, &resp); err != nil {
			return nil, fmt.Errorf("anthropic %s: turn %d: the response is not a message: %v", a.cfg.Model, turn, err)
		}
		req.Messages = append(req.Messages, message{Role: "assistant", Content: resp.Content})
		var results []block
		var text []string
		for _, b := range resp.Content {
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "tool_use":
				input := b.Input
				if len(input) == 0 {
					input = json.RawMessage(`{}`)
				}
				res := in.Call(ctx, b.Name, input)
				results = append(results, block{Type: "tool_result", ToolUseID: b.ID, Content: string(res.Output), IsError: res.IsError})
			}
		}
		if len(results) == 0 {
			return strings.Join(text, "\n"), nil
		}
		req.Messages = append(req.Messages, message{Role: "user", Content: results})
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
	}
	return nil, fmt.Errorf("anthropic %s: no final answer after %d turns (--model-max-turns)", a.cfg.Model, a.cfg.MaxTurns)
}

// Package openai is an agent for a model behind an OpenAI-compatible chat
// completions API (OpenAI, vLLM, Ollama, llama.cpp server and the many
// hosted providers that speak it): a tool-calling loop that is an
// env.Agent, so its rollouts go through the runner like any agent's.
//
// Each turn posts the conversation with the environment's tools in the
// API's function format; each tool call the model makes becomes a runner
// call, answered by a tool message with the matching tool_call_id; the
// first assistant message without tool calls is the final output. Every
// request (its new messages) and response goes in the rollout's trace;
// the key, the base URL's credentials and the headers sent are secrets of
// the process, which no artifact, trace or output holds.
package openai

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
	DefaultBaseURL  = "https://api.openai.com/v1"
	DefaultMaxTurns = 50
	// DefaultMaxRetries bounds the retries of one request (429, 5xx, a
	// failed connection) when Config.API sets none; Anthropic's agent has
	// the same.
	DefaultMaxRetries = modelapi.DefaultMaxRetries
)

// Config is a model and how to reach it.
type Config struct {
	Model string
	// BaseURL is the API's base, with its /v1 as in the OpenAI SDKs;
	// requests go to BaseURL + "/chat/completions", the query of
	// BaseURL (?api-version=…) after the path.
	BaseURL string
	// APIKey is sent as a bearer token when set. It is never written to a
	// trace or an artifact.
	APIKey      string
	Temperature float64
	Seed        *int64 // sent when set
	// MaxTurns bounds the model's turns; 0 means DefaultMaxTurns.
	MaxTurns int
	// API posts the requests (retries, limits, HTTP client); New adds the
	// key to its Header. Every header's value is a secret, as the key is.
	API modelapi.Client
}

// FromEnv returns the Config of model with the base URL from
// OPENAI_BASE_URL and the key from OPENAI_API_KEY.
func FromEnv(model string) Config {
	return Config{Model: model, BaseURL: os.Getenv("OPENAI_BASE_URL"), APIKey: os.Getenv("OPENAI_API_KEY")}
}

// New returns the agent of cfg.
func New(cfg Config) (env.Agent, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, &env.Error{Code: env.CodeAgentNotFound, Message: "openai: names no model; give one, e.g. --agent openai:gpt-4o-mini"}
	}
	base, err := modelapi.BaseURL(cfg.BaseURL, DefaultBaseURL, "OPENAI_BASE_URL")
	if err != nil {
		return nil, err
	}
	cfg.BaseURL = base
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	cfg.API = cfg.client()
	secret.Add(cfg.API.Secrets(base)...)
	return &agent{cfg: cfg}, nil
}

// client is cfg.API with the key in its header.
func (cfg Config) client() modelapi.Client {
	bearer := ""
	if cfg.APIKey != "" {
		bearer = "Bearer " + cfg.APIKey
	}
	return cfg.API.WithHeaders("Authorization", bearer)
}

// Secrets returns the secrets of cfg, which New adds to the process's: its
// key, the credentials in its base URL (user and password, a key in the
// query) and the values of the headers it sends.
func (cfg Config) Secrets() []string {
	return modelapi.ConfigSecrets(cfg.client(), cfg.BaseURL, DefaultBaseURL, "OPENAI_BASE_URL", cfg.APIKey)
}

type agent struct{ cfg Config }

// Run is the tool-calling loop.
func (a *agent) Run(ctx context.Context, in env.AgentInput) (any, error) {
	log := in.Log
	if log == nil {
		log = func(string, map[string]any) {}
	}
	req := chatRequest{
		Model:       a.cfg.Model,
		Messages:    []message{{Role: "system", Content: text(modelapi.SystemPrompt)}, {Role: "user", Content: text(in.Task)}},
		Tools:       Tools(in.Tools),
		Temperature: a.cfg.Temperature,
		Seed:        a.cfg.Seed,
	}
	sent := 0 // messages the trace holds
	for turn := 1; turn <= a.cfg.MaxTurns; turn++ {
		var logged any = req
		if turn > 1 {
			logged = modelapi.NewMessages[message]{From: sent, Messages: req.Messages[sent:]}
		}
		sent = len(req.Messages)
		resp, err := a.complete(ctx, turn, req, logged, log)
		if err != nil {
			return nil, err
		}
		if len(resp.Choices) == 0 {
			return nil, fmt.Errorf("openai %s: turn %d: the response has no choices", a.cfg.Model, turn)
		}
		msg := resp.Choices[0].Message
		msg.Role = "assistant"
		req.Messages = append(req.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			if msg.Content == nil {
				return "", nil
			}
			return *msg.Content, nil
		}
		for _, tc := range msg.ToolCalls {
			args := json.RawMessage(tc.Function.Arguments)
			if strings.TrimSpace(tc.Function.Arguments) == "" {
				args = json.RawMessage(`{}`)
			}
			// malformed arguments go to the runner as they are: it
			// answers them with an invalid_input error the model can read
			res := in.Call(ctx, tc.Function.Name, args)
			req.Messages = append(req.Messages, message{Role: "tool", ToolCallID: tc.ID, Content: text(string(res.Output))})
		}
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
	}
	return nil, fmt.Errorf("openai %s: no final answer after %d turns (--model-max-turns)", a.cfg.Model, a.cfg.MaxTurns)
}

package command

import (
	"os"
	"strings"

	"github.com/agent-oracle/oracle/agent/anthropic"
	"github.com/agent-oracle/oracle/agent/openai"
	"github.com/agent-oracle/oracle/internal/secret"
)

// holdSecrets adds to the process's secrets (internal/secret), which no
// artifact, trace or output holds, those the command holds before any
// agent is made: the keys and base URLs of the model agents
// (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_*), and the values of the
// --agent-env variables named like a credential, which exec agents are
// given. A trace recorded elsewhere, an exec agent or a model echoing one
// of them then leaves it in no file.
func holdSecrets(agentEnv []string) {
	secret.Add(openai.FromEnv("").Secrets()...)
	secret.Add(anthropic.FromEnv("").Secrets()...)
	for _, spec := range agentEnv {
		name, value, set := strings.Cut(spec, "=")
		if !set {
			value = os.Getenv(name)
		}
		if secret.Named(name) {
			secret.Add(value)
		}
	}
}

// Package agent is the room for agents that come from outside Go code: its
// child packages are model agents behind chat APIs (openai, anthropic, on
// the shared client in internal/modelapi) and the MCP server (mcpserve),
// through which any MCP client is the agent of one rollout. The package
// itself holds no code.
package agent

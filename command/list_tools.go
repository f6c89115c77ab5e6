package command

import (
	"encoding/json"
	"fmt"
	"github.com/agent-oracle/oracle/internal/safetext"
	"strings"

	"github.com/agent-oracle/oracle/agent/mcpserve"
	"github.com/agent-oracle/oracle/agent/openai"
	"github.com/agent-oracle/oracle/internal/canon"
	"github.com/urfave/cli/v2"
)

// toolJSON is one tool in list --tools --format json.
type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	ReadOnly    bool            `json:"readOnly"`
}

// listTools prints the tools of --env with their input schemas, in the
// format --format names: ready to paste into a chat API request or an MCP
// server, or as the versioned JSON object.
func (o *listOptions) listTools(c *cli.Context, cat *catalog) error {
	if !o.Tools {
		return usageError("--format goes with --tools: list --tools --env ENV --format json|openai|mcp")
	}
	if o.Env == "" {
		return usageError("--tools lists one environment's tools; name it with --env (%s)", strings.Join(cat.names(), ", "))
	}
	e, err := cat.env(o.Env)
	if err != nil {
		return err
	}
	specs := e.Tools()
	format := o.Format
	if format == "" && o.JSON {
		format = "json"
	}
	w := c.App.Writer
	switch format {
	case "":
		s := newStyle(c, w)
		for _, t := range specs {
			ro := ""
			if t.ReadOnly {
				ro = s.Dim(" (read-only)")
			}
			fmt.Fprintf(w, "%s%s  %s\n  input: %s\n", s.Bold(safetext.LineStart(t.Name)), ro, safe(t.Description), safe(compactSchema(t.InputSchema)))
		}
		return nil
	case "json":
		tools := make([]toolJSON, len(specs))
		for i, t := range specs {
			tools[i] = toolJSON{t.Name, t.Description, t.InputSchema, t.ReadOnly}
		}
		return writeJSON(w, struct {
			FormatVersion int        `json:"formatVersion"`
			Environment   string     `json:"environment"`
			Tools         []toolJSON `json:"tools"`
		}{FormatVersion, e.Name(), nonNil(tools)})
	case "openai":
		return writeJSON(w, openai.Tools(specs))
	case "mcp":
		tools, err := mcpserve.Tools(specs)
		if err != nil {
			return err
		}
		return writeJSON(w, tools)
	}
	return usageError("--format %q is not json, openai or mcp", format)
}

func compactSchema(schema json.RawMessage) string {
	b, err := canon.Compact(schema)
	if err != nil {
		return string(schema)
	}
	return string(b)
}

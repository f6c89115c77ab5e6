// Package schema builds the JSON Schemas (draft 2020-12) of tools' inputs
// from small pieces, so an environment's tool list stays readable:
//
//	Object(Props{"id": ID("OPP", "the opportunity"), "note": Text("what to record")}, "id")
//
// Objects reject properties they do not name (additionalProperties false),
// which gives an agent's typo an invalid_input error instead of silence.
package schema

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Props are an object's properties by name.
type Props map[string]any

// Object returns the schema text of an object with the given properties, of
// which the named ones are required.
func Object(p Props, required ...string) string {
	m := map[string]any{"type": "object", "properties": map[string]any(p), "additionalProperties": false}
	if len(required) > 0 {
		m["required"] = required
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Maps of strings, numbers, slices and maps always marshal.
	_ = enc.Encode(m)
	return strings.TrimSpace(buf.String())
}

// String is any string.
func String(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

// Text is a string that is not empty.
func Text(desc string) map[string]any {
	return map[string]any{"type": "string", "minLength": 1, "description": desc}
}

// ID is an id of the form PREFIX-digits.
func ID(prefix, desc string) map[string]any {
	return map[string]any{"type": "string", "pattern": "^" + prefix + "-[0-9]+$", "description": desc}
}

// Enum is one of the given strings.
func Enum(desc string, values ...string) map[string]any {
	return map[string]any{"type": "string", "enum": values, "description": desc}
}

// Date is a calendar date written YYYY-MM-DD.
func Date(desc string) map[string]any {
	return map[string]any{"type": "string", "pattern": `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, "description": desc + " (YYYY-MM-DD)"}
}

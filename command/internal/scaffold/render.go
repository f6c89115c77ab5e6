package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"strings"
	"text/template"
)

//go:embed templates/*.tmpl
var templateFiles embed.FS

var templates = template.Must(template.ParseFS(templateFiles, "templates/*.tmpl"))

// File is one file to write, its path slash-separated and relative to the
// environment's package folder.
type File struct {
	Path string
	Data []byte
}

// render executes a template and formats the Go source it gives.
func render(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("scaffold %s: %w", name, err)
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("scaffold %s: generated source does not parse: %w", name, err)
	}
	return src, nil
}

// comment makes text safe inside a // comment: one line.
func comment(text string) string {
	return strings.Join(strings.Fields(text), " ")
}

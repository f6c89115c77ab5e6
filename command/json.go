package command

import (
	"io"

	"github.com/agent-oracle/oracle/internal/canon"
)

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := canon.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

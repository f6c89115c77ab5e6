package env

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
)

// SeedFile is a JSON file of seed data and the value it decodes into.
type SeedFile struct {
	Name string
	Into any
}

// LoadSeed decodes each file of fsys into its value. Decoding is strict: an
// unknown field or trailing data is an error naming the file, so a typo in
// seed data fails loudly instead of leaving a field empty.
func LoadSeed(fsys fs.FS, files ...SeedFile) error {
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f.Name)
		if err != nil {
			return fmt.Errorf("seed data: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f.Into); err != nil {
			return fmt.Errorf("seed data %s: %w; fix the file", f.Name, err)
		}
		if dec.More() {
			return fmt.Errorf("seed data %s: more than one JSON value; fix the file", f.Name)
		}
	}
	return nil
}

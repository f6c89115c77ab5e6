package env

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// checkExactKeys refuses, in the JSON object data, a key given twice and a
// key that names a field of the struct v only in another letter case
// ("Name" for "name"): encoding/json takes both silently (the last value
// wins; keys match case-insensitively), and a strict file takes neither.
// Data that is not an object is left to the decoder to refuse.
func checkExactKeys(data []byte, v any) error {
	fields := jsonFields(reflect.TypeOf(v))
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("key %q is given twice; keep one", key)
		}
		seen[key] = true
		for _, f := range fields {
			if key != f && strings.EqualFold(key, f) {
				return fmt.Errorf("key %q is spelt %q; keys match exactly, letter case included", key, f)
			}
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

// jsonFields lists the JSON names of the fields of the struct t.
func jsonFields(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for i := range t.NumField() {
		if name, _, ok := jsonName(t.Field(i)); ok {
			names = append(names, name)
		}
	}
	return names
}

// jsonName returns the name encoding/json gives the field f, the options
// of its tag after the name ("omitempty", …), and false when JSON leaves
// the field out (unexported, or json:"-").
func jsonName(f reflect.StructField) (name, options string, ok bool) {
	name, options, _ = strings.Cut(f.Tag.Get("json"), ",")
	if !f.IsExported() || name == "-" {
		return "", "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, options, true
}

package statediff

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// A small scanner over JSON text already known to be valid: it splits
// objects into keys and raw values and arrays into raw items in one pass,
// without decoding what it does not need. Compute validates its inputs once
// with json.Valid before scanning them.

var errScan = errors.New("malformed JSON")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"',
// and whether it holds an escape.
func skipString(b []byte, i int) (int, bool, error) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped, nil
		}
	}
	return 0, false, errScan
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errScan
	}
	switch b[i] {
	case '"':
		end, _, err := skipString(b, i)
		return end, err
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errScan
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	if j == i {
		return 0, errScan
	}
	return j, nil
}

// decodeKey returns the string value of the JSON string b. Invalid UTF-8
// is replaced as encoding/json replaces it.
func decodeKey(b []byte, escaped bool) (string, error) {
	if !escaped && utf8.Valid(b) {
		return string(b[1 : len(b)-1]), nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

// eachMember calls f for every key and raw value of the object b, in order.
// A later duplicate key wins, as encoding/json decides.
func eachMember(b []byte, f func(key string, value []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errScan
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errScan
		}
		end, escaped, err := skipString(b, i)
		if err != nil {
			return err
		}
		key, err := decodeKey(b[i:end], escaped)
		if err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return errScan
		}
		i = skipSpace(b, i+1)
		vend, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if err := f(key, b[i:vend]); err != nil {
			return err
		}
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return nil
		}
		return errScan
	}
}

// eachItem calls f for every raw item of the array b, in order.
func eachItem(b []byte, f func(item []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errScan
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		end, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if err := f(b[i:end]); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return nil
		}
		return errScan
	}
}

// objectMap splits the object b into its members.
func objectMap(b []byte) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	err := eachMember(b, func(k string, v []byte) error {
		m[k] = v
		return nil
	})
	return m, err
}

// stringID returns the value of the object b's top-level "id" key when it
// is a string.
func stringID(b []byte) (string, bool) {
	var id string
	found := false
	err := eachMember(b, func(k string, v []byte) error {
		if k != "id" {
			return nil
		}
		found = false
		if len(v) > 0 && v[0] == '"' {
			s, err := decodeKey(v, bytesContain(v, '\\'))
			if err != nil {
				return err
			}
			id, found = s, true
		}
		return nil
	})
	return id, found && err == nil
}

func bytesContain(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

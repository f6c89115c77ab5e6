package statediff

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// A small validating scanner: it splits objects into keys and raw values
// and arrays into raw items in one pass, checking the JSON grammar as it
// goes (what json.Valid accepts, nesting depth included), without decoding
// what it does not need.

var errScan = errors.New("malformed JSON")

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

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
		switch c := b[j]; {
		case c == '"':
			return j + 1, escaped, nil
		case c == '\\':
			escaped = true
			j++
			if j >= len(b) {
				return 0, false, errScan
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) || !isHex(b[j+1]) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) {
					return 0, false, errScan
				}
				j += 4
			default:
				return 0, false, errScan
			}
		case c < 0x20:
			return 0, false, errScan
		}
	}
	return 0, false, errScan
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipNumber returns the index after the number starting at b[i].
func skipNumber(b []byte, i int) (int, error) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && '1' <= b[j] && b[j] <= '9':
		for j < len(b) && isDigit(b[j]) {
			j++
		}
	default:
		return 0, errScan
	}
	if j < len(b) && b[j] == '.' {
		j++
		if j >= len(b) || !isDigit(b[j]) {
			return 0, errScan
		}
		for j < len(b) && isDigit(b[j]) {
			j++
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j >= len(b) || !isDigit(b[j]) {
			return 0, errScan
		}
		for j < len(b) && isDigit(b[j]) {
			j++
		}
	}
	return j, nil
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) (int, error) { return scanValue(b, i, 0) }

func scanValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errScan
	}
	switch c := b[i]; {
	case c == '"':
		end, _, err := skipString(b, i)
		return end, err
	case c == '{' || c == '[':
		return scanContainer(b, i, depth+1)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return skipNumber(b, i)
}

func literal(b []byte, i int, word string) (int, error) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return 0, errScan
	}
	return i + len(word), nil
}

// scanContainer returns the index after the object or array at b[i].
func scanContainer(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return 0, errScan
	}
	object := b[i] == '{'
	closer := byte(']')
	if object {
		closer = '}'
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closer {
		return i + 1, nil
	}
	for {
		if object {
			if i >= len(b) || b[i] != '"' {
				return 0, errScan
			}
			end, _, err := skipString(b, i)
			if err != nil {
				return 0, err
			}
			i = skipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return 0, errScan
			}
			i = skipSpace(b, i+1)
		}
		end, err := scanValue(b, i, depth)
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == closer {
			return i + 1, nil
		}
		return 0, errScan
	}
}

// decodeID returns the text of the JSON string b, without a copy when it
// has no escape and is valid UTF-8.
func decodeID(b []byte) ([]byte, error) {
	if bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		return b[1 : len(b)-1], nil
	}
	s, err := decodeKey(b, true)
	return []byte(s), err
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
		vend, err := scanValue(b, i, 1)
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

// objectID returns the value of the top-level "id" key of the object that
// starts at b[i] when it is a string, and the index after the object, in one
// walk that skips every value but the id's. depth is the object's nesting
// depth. A later duplicate "id" key wins, as encoding/json decides.
func objectID(b []byte, i, depth int) (end int, id []byte, found bool, err error) {
	if depth > maxDepth {
		return 0, nil, false, errScan
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil, false, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, nil, false, errScan
		}
		kend, escaped, err := skipString(b, i)
		if err != nil {
			return 0, nil, false, err
		}
		isID := !escaped && kend-i == 4 && b[i+1] == 'i' && b[i+2] == 'd'
		if escaped {
			key, err := decodeKey(b[i:kend], true)
			if err != nil {
				return 0, nil, false, err
			}
			isID = key == "id"
		}
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, nil, false, errScan
		}
		i = skipSpace(b, i+1)
		vend, err := scanValue(b, i, depth)
		if err != nil {
			return 0, nil, false, err
		}
		if isID {
			found = false
			if v := b[i:vend]; v[0] == '"' {
				if id, err = decodeID(v); err != nil {
					return 0, nil, false, err
				}
				found = true
			}
		}
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, id, found, nil
		}
		return 0, nil, false, errScan
	}
}

// arrayMembers scans the array that starts at b[i], at nesting depth
// depth, and returns the index after it with its items as members by id;
// ok is false when an item is not an object with a string id or two items
// share an id (the array is then scanned to its end all the same).
func arrayMembers(b []byte, i, depth int) (end int, list []entry, ok bool, err error) {
	if depth > maxDepth {
		return 0, nil, false, errScan
	}
	ok = true
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, []entry{}, true, nil
	}
	for {
		var iend int
		if ok && i < len(b) && b[i] == '{' {
			var id []byte
			var found bool
			if iend, id, found, err = objectID(b, i, depth+1); err != nil {
				return 0, nil, false, err
			}
			if found {
				list = append(list, entry{id, b[i:iend]})
			} else {
				ok = false
			}
		} else {
			ok = false
			if iend, err = scanValue(b, i, depth); err != nil {
				return 0, nil, false, err
			}
		}
		i = skipSpace(b, iend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			break
		}
		return 0, nil, false, errScan
	}
	if !ok {
		return i + 1, nil, false, nil
	}
	if list = sortEntries(list, false); list == nil {
		return i + 1, nil, false, nil
	}
	return i + 1, list, true, nil
}

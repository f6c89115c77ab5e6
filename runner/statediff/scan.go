package statediff

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/internal/jsontok"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// A small validating scanner: it splits objects into keys and raw values
// and arrays into raw items in one pass, checking the JSON grammar as it
// goes (what json.Valid accepts, nesting depth included), without decoding
// what it does not need.

var errScan = errors.New("malformed JSON")

// maxDepth is encoding/json's limit on nesting, as json.Valid's verdict is
// the scanner's.
const maxDepth = safeio.DecoderDepth

// skipString returns the index after the string starting at b[i] == '"',
// and whether it holds an escape.
func skipString(b []byte, i int) (int, bool, error) {
	end, escaped := jsontok.StringEnd(b, i)
	if end < 0 {
		return 0, false, errScan
	}
	return end, escaped, nil
}

// skipNumber returns the index after the number starting at b[i].
func skipNumber(b []byte, i int) (int, error) {
	end := jsontok.NumberEnd(b, i)
	if end < 0 {
		return 0, errScan
	}
	return end, nil
}

// scanValue returns the index after the value starting at b[i], the value
// being inside depth containers.
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
	end := jsontok.LiteralEnd(b, i, word)
	if end < 0 {
		return 0, errScan
	}
	return end, nil
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
	i = jsontok.SkipSpace(b, i+1)
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
			i = jsontok.SkipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return 0, errScan
			}
			i = jsontok.SkipSpace(b, i+1)
		}
		var end int
		var err error
		// strings and numbers, the most common values, without a call
		// through scanValue
		if i < len(b) && b[i] == '"' {
			end, _, err = skipString(b, i)
		} else {
			end, err = scanValue(b, i, depth)
		}
		if err != nil {
			return 0, err
		}
		i = jsontok.SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = jsontok.SkipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == closer {
			return i + 1, nil
		}
		return 0, errScan
	}
}

// sameValue reports whether the value at b[i] is want, a valid value, byte
// for byte, and returns the index after it. Objects, arrays and strings end
// with their last byte; a number or literal must be followed by what may
// follow a value, or 1 would match the start of 12.
func sameValue(b []byte, i int, want []byte) (int, bool) {
	if len(want) == 0 || !bytes.HasPrefix(b[i:], want) {
		return 0, false
	}
	end := i + len(want)
	switch want[0] {
	case '{', '[', '"':
		return end, true
	}
	if end == len(b) {
		return end, true
	}
	switch b[end] {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return end, true
	}
	return 0, false
}

// decodeText returns the text of the JSON string b, without a copy when it
// has no escape and is valid UTF-8. Invalid UTF-8 is replaced as
// encoding/json replaces it.
func decodeText(b []byte, escaped bool) ([]byte, error) {
	if !escaped && utf8.Valid(b) {
		return b[1 : len(b)-1], nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return []byte(s), err
}

// objectID returns the value of the top-level "id" key of the object that
// starts at b[i] when it is a string, and the index after the object, in one
// walk that skips every value but the id's. depth is the object's nesting
// depth. A later duplicate "id" key wins, as encoding/json decides.
func objectID(b []byte, i, depth int) (end int, id []byte, found bool, err error) {
	if depth > maxDepth {
		return 0, nil, false, errScan
	}
	i = jsontok.SkipSpace(b, i+1)
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
			key, err := decodeText(b[i:kend], true)
			if err != nil {
				return 0, nil, false, err
			}
			isID = string(key) == "id"
		}
		i = jsontok.SkipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, nil, false, errScan
		}
		i = jsontok.SkipSpace(b, i+1)
		var vend int
		var vescaped bool
		if i < len(b) && b[i] == '"' {
			vend, vescaped, err = skipString(b, i)
		} else {
			vend, err = scanValue(b, i, depth)
		}
		if err != nil {
			return 0, nil, false, err
		}
		if isID {
			found = false
			if b[i] == '"' {
				if id, err = decodeText(b[i:vend], vescaped); err != nil {
					return 0, nil, false, err
				}
				found = true
			}
		}
		i = jsontok.SkipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = jsontok.SkipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, id, found, nil
		}
		return 0, nil, false, errScan
	}
}

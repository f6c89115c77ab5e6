package runner

import (
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/agent-oracle/oracle/internal/jsontok"
	"github.com/agent-oracle/oracle/internal/safeio"
)

// errNotSimple is decodeInput's answer for text it leaves to encoding/json.
var errNotSimple = errors.New("not simple JSON")

// decodeInput decodes a tool's input for schema validation into what
// jsonschema.UnmarshalJSON gives (objects as map[string]any, arrays as
// []any, numbers as json.Number), without json.Decoder's setup: the input
// is the runner's canonical JSON. Strings with escapes go through
// encoding/json; anything it does not expect is errNotSimple, and the
// caller decodes with jsonschema.UnmarshalJSON instead.
func decodeInput(data []byte) (any, error) {
	d := inputDecoder{data: data}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.skipSpace(); d.at != len(d.data) {
		return nil, errNotSimple
	}
	return v, nil
}

type inputDecoder struct {
	data []byte
	at   int
}

// maxInputDepth bounds decodeInput's recursion: the artifacts' limit, as
// calls.json holds each input. Deeper input is left to encoding/json, which
// decodes it to the same values (its own bound is safeio.DecoderDepth).
const maxInputDepth = safeio.MaxDepth

func (d *inputDecoder) skipSpace() { d.at = jsontok.SkipSpace(d.data, d.at) }

func (d *inputDecoder) value(depth int) (any, error) {
	d.skipSpace()
	if d.at >= len(d.data) || depth > maxInputDepth {
		return nil, errNotSimple
	}
	switch c := d.data[d.at]; {
	case c == '{':
		d.at++
		m := map[string]any{}
		d.skipSpace()
		if d.at < len(d.data) && d.data[d.at] == '}' {
			d.at++
			return m, nil
		}
		for {
			d.skipSpace()
			if d.at >= len(d.data) || d.data[d.at] != '"' {
				return nil, errNotSimple
			}
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			if d.skipSpace(); d.at >= len(d.data) || d.data[d.at] != ':' {
				return nil, errNotSimple
			}
			d.at++
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			m[k] = v
			if done, err := d.next('}'); done || err != nil {
				return m, err
			}
		}
	case c == '[':
		d.at++
		a := []any{}
		d.skipSpace()
		if d.at < len(d.data) && d.data[d.at] == ']' {
			d.at++
			return a, nil
		}
		for {
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			if done, err := d.next(']'); done || err != nil {
				return a, err
			}
		}
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		start := d.at
		for d.at < len(d.data) {
			switch c := d.data[d.at]; {
			case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
				d.at++
				continue
			}
			break
		}
		n := d.data[start:d.at]
		if !json.Valid(n) {
			return nil, errNotSimple
		}
		return json.Number(n), nil
	}
	for _, lit := range []struct {
		text  string
		value any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(d.data)-d.at >= len(lit.text) && string(d.data[d.at:d.at+len(lit.text)]) == lit.text {
			d.at += len(lit.text)
			return lit.value, nil
		}
	}
	return nil, errNotSimple
}

// next reads what follows a member or an element: a comma (more follow)
// or close (done).
func (d *inputDecoder) next(close byte) (done bool, err error) {
	if d.skipSpace(); d.at < len(d.data) {
		switch d.data[d.at] {
		case ',':
			d.at++
			return false, nil
		case close:
			d.at++
			return true, nil
		}
	}
	return false, errNotSimple
}

// str decodes the string that starts at d.at.
func (d *inputDecoder) str() (string, error) {
	start := d.at
	escaped := false
	for i := start + 1; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '\\':
			escaped = true
			i++
		case c == '"':
			d.at = i + 1
			body := d.data[start+1 : i]
			if !escaped && utf8.Valid(body) {
				return string(body), nil
			}
			var s string
			if err := json.Unmarshal(d.data[start:i+1], &s); err != nil {
				return "", errNotSimple
			}
			return s, nil
		case c < 0x20:
			return "", errNotSimple
		}
	}
	return "", errNotSimple
}

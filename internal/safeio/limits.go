package safeio

import (
	"bytes"
	"fmt"
)

// MaxDepth is the deepest nesting of arrays and objects an artifact may
// have, in the file as written (oracle refuses to write deeper) and as read:
// the readers' limit. It is the one bound of nesting in oracle: every
// hand-written JSON scanner and encoder takes its bound from it, or from
// DecoderDepth, which says why it differs.
const MaxDepth = 1000

// DecoderDepth is encoding/json's own limit on nesting, which it does not
// export: json.Valid, json.Unmarshal, json.Decoder and json.Indent refuse a
// value nested deeper than 10,000. A scanner whose contract is to accept
// and refuse exactly what encoding/json does on any input takes it instead
// of MaxDepth: canon.AppendIndent (json.Indent's bytes and errors), the
// state scanner of runner/statediff (json.Valid's verdict) and
// fixtures/internal/jsonread (json.Unmarshal's). They read what is not an
// artifact yet (a world's state, a tool's output); what lies between the
// two limits they read, and the artifact's writer then refuses with
// ErrTooDeep.
const DecoderDepth = 10_000

// DecoderDepth holds every artifact: a MaxDepth above it does not compile.
const _ = uint(DecoderDepth - MaxDepth)

// ErrTooDeep is the error of JSON nested deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("is nested too deep (over the limit of %d levels)", MaxDepth)

// CheckLimits reports whether JSON bytes fit MaxBytes and MaxDepth: the
// writer calls it before writing an artifact and the reader after reading
// one, so both hold the same limits.
func CheckLimits(data []byte) error {
	if len(data) > MaxBytes {
		return ErrTooLarge
	}
	// nesting deeper than MaxDepth takes more opening brackets than that:
	// counting them (vectorised) spares most data the scan of Depth
	if bytes.Count(data, []byte("{"))+bytes.Count(data, []byte("[")) > MaxDepth && Depth(data) > MaxDepth {
		return ErrTooDeep
	}
	return nil
}

// Depth returns the deepest nesting of brackets outside strings in JSON
// bytes (or JSON Lines: each line's brackets close before the next).
func Depth(data []byte) int {
	d, most := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			// jump to the closing quote: one not preceded by an odd
			// number of backslashes
			for {
				j := bytes.IndexByte(data[i+1:], '"')
				if j < 0 {
					return most
				}
				i += j + 1
				k := i - 1
				for k >= 0 && data[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '{', '[':
			d++
			most = max(most, d)
		case '}', ']':
			d--
		}
	}
	return most
}

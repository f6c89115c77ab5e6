package safeio

import "fmt"

// ErrTooDeep is the error of JSON nested deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("is nested too deep (over the limit of %d levels)", MaxDepth)

// CheckLimits reports whether JSON bytes fit MaxBytes and MaxDepth: the
// writer calls it before writing an artifact and the reader after reading
// one, so both hold the same limits.
func CheckLimits(data []byte) error {
	if len(data) > MaxBytes {
		return ErrTooLarge
	}
	if Depth(data) > MaxDepth {
		return ErrTooDeep
	}
	return nil
}

// Depth returns the deepest nesting of brackets outside strings in JSON
// bytes (or JSON Lines: each line's brackets close before the next).
func Depth(data []byte) int {
	d, most, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

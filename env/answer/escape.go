package answer

import "strings"

// plain returns text without the ECMA-48 (ANSI) escape and control
// sequences in it: what a terminal acts on instead of showing. An answer
// that comes from a terminal program's output reads as the terminal shows
// it, so "\x1b[1m$479,659.50\x1b[0m" states 479659.5 and nothing else, the
// 1 and the 0 of the colour codes being no numbers.
//
// Removed, in their 7-bit (ESC …) and 8-bit (C1 control, as UTF-8) forms:
// control sequences (CSI: parameter, intermediate and final bytes), control
// strings (OSC, DCS, SOS, PM and APC up to their string terminator, or BEL
// for OSC; unterminated, up to CAN, SUB or the end), the other escape
// sequences (ESC with intermediates and a final byte: charset designations,
// ESC 7, ESC c) and the remaining C1 controls. Text without ESC or a C1
// control is returned as it is.
func plain(text string) string {
	if !hasEscape(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		c, size := introducer(text, i)
		if size == 0 {
			b.WriteByte(text[i])
			i++
			continue
		}
		i = skipSequence(text, i+size, c)
	}
	return b.String()
}

// hasEscape reports whether text holds ESC or a C1 control (U+0080 to
// U+009F, C2 80 to C2 9F in UTF-8).
func hasEscape(text string) bool {
	if strings.IndexByte(text, 0x1b) >= 0 {
		return true
	}
	for i := strings.IndexByte(text, 0xc2); i >= 0 && i+1 < len(text); {
		if c := text[i+1]; c >= 0x80 && c <= 0x9f {
			return true
		}
		j := strings.IndexByte(text[i+1:], 0xc2)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// Sequence kinds, by their introducer.
const (
	kindNone   = iota
	kindESC    // ESC, to be followed by what says which sequence
	kindCSI    // ESC [ or U+009B
	kindString // OSC, DCS, SOS, PM, APC: a control string up to ST
	kindOSC    // ESC ] or U+009D: a control string that BEL ends too
	kindC1     // any other C1 control: itself only
)

// introducer reads the start of a sequence at text[i]: its kind and the
// bytes it takes (0 when text[i] starts none).
func introducer(text string, i int) (kind, size int) {
	switch c := text[i]; {
	case c == 0x1b:
		if i+1 < len(text) {
			switch text[i+1] {
			case '[':
				return kindCSI, 2
			case ']':
				return kindOSC, 2
			case 'P', 'X', '^', '_':
				return kindString, 2
			}
		}
		return kindESC, 1
	case c == 0xc2 && i+1 < len(text) && text[i+1] >= 0x80 && text[i+1] <= 0x9f:
		switch text[i+1] {
		case 0x9b:
			return kindCSI, 2
		case 0x9d:
			return kindOSC, 2
		case 0x90, 0x98, 0x9e, 0x9f:
			return kindString, 2
		}
		return kindC1, 2
	}
	return kindNone, 0
}

// skipSequence returns the index after the sequence of the given kind
// whose introducer ends at text[i].
func skipSequence(text string, i, kind int) int {
	switch kind {
	case kindCSI:
		// parameter and intermediate bytes, then a final byte; another
		// byte (a control, a non-ASCII rune) ends the sequence unfinished
		for i < len(text) && text[i] >= 0x20 && text[i] <= 0x3f {
			i++
		}
		for i < len(text) && text[i] >= 0x20 && text[i] <= 0x2f {
			i++
		}
		if i < len(text) && text[i] >= 0x40 && text[i] <= 0x7e {
			i++
		}
		return i
	case kindString, kindOSC:
		for i < len(text) {
			switch c := text[i]; {
			case c == 0x07 && kind == kindOSC:
				return i + 1
			case c == 0x18 || c == 0x1a: // CAN, SUB: the string is cancelled
				return i + 1
			case c == 0x1b:
				if i+1 < len(text) && text[i+1] == '\\' {
					return i + 2 // ST
				}
				return i // another sequence starts: it ends this one
			case c == 0xc2 && i+1 < len(text) && text[i+1] == 0x9c: // ST
				return i + 2
			}
			i++
		}
		return i
	case kindESC:
		// intermediate bytes, then a final byte (ESC ( B, ESC 7, ESC c)
		for i < len(text) && text[i] >= 0x20 && text[i] <= 0x2f {
			i++
		}
		if i < len(text) && text[i] >= 0x30 && text[i] <= 0x7e {
			i++
		}
		return i
	}
	return i // a C1 control alone
}

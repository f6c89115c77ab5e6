package answer

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NumbersIn returns every number stated in a free-text answer, generous about
// formatting: currency symbols, thousands separators ("507,500", "507 500"
// is two numbers), decimals (".5" is 0.5), signs, percentages and the scale
// words k/thousand, m/million, bn/billion ("$1.2M" is 1200000). A minus sign
// counts only where it starts a number, so "2026-06-30" is 2026, 6 and 30,
// and digits inside a word or an id ("OPP-005", "Q3", "[DOC-2]") are not
// numbers. Only ASCII digits are read. Every result is finite. ANSI
// escape sequences (colours, cursor movement, window titles) are ignored:
// the text reads as a terminal shows it.
func NumbersIn(text string) []float64 {
	r := []rune(plain(text))
	var out []float64
	for i := 0; i < len(r); {
		if !isDigit(r[i]) {
			i++
			continue
		}
		idLike := i > 1 && r[i-1] == '-' && unicode.IsLetter(r[i-2]) // OPP-005
		if idLike || i > 0 && isWordRune(r[i-1]) && !isCurrencyLetter(r, i-1) {
			// a digit inside a word or id (OPP-005, A4): skip the whole token
			for i < len(r) && (isWordRune(r[i]) || r[i] == '.' && i+1 < len(r) && isDigit(r[i+1])) {
				i++
			}
			continue
		}
		start := i
		var b strings.Builder
		if leadingPoint(r, i) {
			// ".5", "$.50": the point before the digits is a decimal point
			start = i - 1
			b.WriteString("0.")
			for i < len(r) && isDigit(r[i]) {
				b.WriteRune(r[i])
				i++
			}
		} else {
			i = readInteger(r, i, &b)
			if i+1 < len(r) && r[i] == '.' && isDigit(r[i+1]) {
				b.WriteByte('.')
				i++
				for i < len(r) && isDigit(r[i]) {
					b.WriteRune(r[i])
					i++
				}
			}
		}
		v, err := strconv.ParseFloat(b.String(), 64)
		if err != nil || math.IsInf(v, 0) {
			continue
		}
		if negativeBefore(r, start) {
			v = -v
		}
		v *= scaleAfter(r, &i)
		if math.IsInf(v, 0) || math.IsNaN(v) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// readInteger writes the digits of the integer part starting at r[i] into b,
// skipping thousands separators, and returns the index after it.
func readInteger(r []rune, i int, b *strings.Builder) int {
	for i < len(r) {
		switch c := r[i]; {
		case isDigit(c):
			b.WriteRune(c)
			i++
		case c == ',' && groupOfThree(r, i+1):
			i++
		default:
			return i
		}
	}
	return i
}

// leadingPoint reports whether the digits at r[i] follow a decimal point
// that starts a number: ".5" or "$.50", but not "3.5" (read whole), "v.5"
// or "end.5".
func leadingPoint(r []rune, i int) bool {
	if i == 0 || r[i-1] != '.' {
		return false
	}
	if i == 1 {
		return true
	}
	p := r[i-2]
	return !isWordRune(p) && p != '.' && p != ','
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }

// StatesNumber reports whether text states value anywhere, within tolerance
// (0.01 when tolerance is 0 or less). Generous about formatting, strict about
// the value: 507501 is not 507500.
func StatesNumber(text string, value, tolerance float64) bool {
	if tolerance <= 0 {
		tolerance = 0.01
	}
	for _, n := range NumbersIn(text) {
		if math.Abs(n-value) <= tolerance {
			return true
		}
	}
	return false
}

// Names reports whether text names name: the words of name appear together,
// whole, in that order or as "Last, First", ignoring case, accents being kept,
// runs of white space and punctuation between words, ANSI escape sequences
// (as NumbersIn does), and a possessive ("Oskar Pelletier's deals" names
// Oskar Pelletier). To match many names
// against one text, fold it once with Fold.
func Names(text, name string) bool { return Fold(text).Names(name) }

// DoesNotName is the negation of Names, also failing when the name's last
// word alone (a surname) appears: a trap that must not be named is not named
// at all.
func DoesNotName(text, name string) bool { return Fold(text).DoesNotName(name) }

// Text is a text read once for the names it states: Fold it, then ask it
// about as many names as needed. Its methods answer exactly as Names and
// DoesNotName do on the text it was folded from. The zero Text names nothing.
type Text struct {
	words []string
}

// Fold reads text into the words names are matched against, ignoring ANSI
// escape sequences as NumbersIn does.
func Fold(text string) Text { return Text{words: appendFold(nil, plain(text))} }

// Names reports whether the text names name, as Names does. It allocates
// nothing for an ASCII name of up to eight words.
func (t Text) Names(name string) bool {
	var buf [8]string
	words := nameWords(buf[:0], name)
	return len(words) > 0 && t.namesWords(words)
}

// DoesNotName reports whether the text does not name name, nor its last word
// alone, as DoesNotName does.
func (t Text) DoesNotName(name string) bool {
	var buf [8]string
	words := nameWords(buf[:0], name)
	if len(words) == 0 {
		return true
	}
	if t.namesWords(words) {
		return false
	}
	return len(words) < 2 || !containsRun(t.words, words[len(words)-1:])
}

// namesWords reports whether the text holds words in order or, for two or
// more words, with the last one first ("Kim, Dana").
func (t Text) namesWords(words []string) bool {
	if containsRun(t.words, words) {
		return true
	}
	if len(words) < 2 {
		return false
	}
	last, rest := words[len(words)-1], words[:len(words)-1]
	for i := 0; i+len(words) <= len(t.words); i++ {
		if sameWord(t.words[i], last) && containsRun(t.words[i+1:i+len(words)], rest) {
			return true
		}
	}
	return false
}

// containsRun reports whether hay holds words one after another, hay being
// folded words and words folded or nameWords' words.
func containsRun(hay, words []string) bool {
	for i := 0; i+len(words) <= len(hay); i++ {
		match := true
		for j, w := range words {
			if !sameWord(hay[i+j], w) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// sameWord reports whether the folded word h is w, w being folded or an ASCII
// word of nameWords still in its case.
func sameWord(h, w string) bool {
	if len(h) != len(w) {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if h[i] != c {
			return false
		}
	}
	return true
}

// nameWords appends the words of a name to dst: for an ASCII name, its words
// as fold reads them but still in their case (substrings of name, so nothing
// is allocated), compared with sameWord; otherwise its folded words.
func nameWords(dst []string, name string) []string {
	name = plain(name)
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return appendFold(dst, name)
		}
	}
	return appendWords(dst, name)
}

// appendFold appends the words of s to dst: lower-case runs of letters,
// digits and inner apostrophes, typographic apostrophes (’ ‘ ʼ) read as
// straight ones, with a possessive "'s" and stray apostrophes dropped:
// "O’Brien's" is "o'brien". The words are substrings of s when s is ASCII
// without upper-case letters, and of one lower-cased copy otherwise.
func appendFold(dst []string, s string) []string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return appendWords(dst, lowerWords(s, i))
		}
	}
	return appendWords(dst, s)
}

// appendWords appends the words of t to dst, t being ASCII or made by
// lowerWords: runs of word bytes, less a possessive "'s" and the apostrophes
// around them. Letters keep their case.
func appendWords(dst []string, t string) []string {
	n, inWord := 0, false
	for i := 0; i < len(t); i++ {
		w := wordBytes[t[i]]
		if w && !inWord {
			n++
		}
		inWord = w
	}
	dst = slices.Grow(dst, n)
	for i := 0; i < len(t); {
		for i < len(t) && !wordBytes[t[i]] {
			i++
		}
		start := i
		for i < len(t) && wordBytes[t[i]] {
			i++
		}
		w := t[start:i]
		if len(w) >= 2 && w[len(w)-2] == '\'' && w[len(w)-1]|('a'-'A') == 's' {
			w = w[:len(w)-2]
		}
		for len(w) > 0 && w[0] == '\'' {
			w = w[1:]
		}
		for len(w) > 0 && w[len(w)-1] == '\'' {
			w = w[:len(w)-1]
		}
		if w != "" {
			dst = append(dst, w)
		}
	}
	return dst
}

// wordBytes marks the bytes that belong to a word of an ASCII string or of a
// string lowerWords made (every byte of a multi-byte rune there is a word's).
var wordBytes = func() (w [256]bool) {
	for c := range w {
		w[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '\'' || c >= utf8.RuneSelf
	}
	return w
}()

// lowerWords returns s lower-cased from byte from on (s[:from] is ASCII
// without upper-case letters), with typographic apostrophes made straight and
// every rune that is neither a letter, a digit nor an apostrophe (invalid
// UTF-8 included) written as a space.
func lowerWords(s string, from int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:from])
	for i := from; i < len(s); {
		// copy a run of ASCII without upper-case letters as it is
		j := i
		for j < len(s) && s[j] < utf8.RuneSelf && !('A' <= s[j] && s[j] <= 'Z') {
			j++
		}
		b.WriteString(s[i:j])
		if i = j; i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b.WriteByte(c + 'a' - 'A')
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r = unicode.ToLower(r); {
		case r == '\u2019' || r == '\u2018' || r == '\u02bc':
			b.WriteByte('\'')
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func isWordRune(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' }

// isCurrencyLetter reports whether r[i] ends a currency code or sign written
// with letters directly before a number, such as "US$" or "USD". A lone
// letter is not one: "R5" reads as an id or a word, not as five rand.
func isCurrencyLetter(r []rune, i int) bool {
	j := i
	for j >= 0 && unicode.IsLetter(r[j]) {
		j--
	}
	word := strings.ToUpper(string(r[j+1 : i+1]))
	switch word {
	case "USD", "EUR", "GBP", "US", "CHF", "CAD", "AUD", "JPY", "NZD", "SEK", "NOK", "DKK":
		return true
	}
	return false
}

// groupOfThree reports whether r[i:] starts with exactly three digits, as a
// thousands group after a separator does.
func groupOfThree(r []rune, i int) bool {
	if i+3 > len(r) {
		return false
	}
	for k := i; k < i+3; k++ {
		if !isDigit(r[k]) {
			return false
		}
	}
	return i+3 == len(r) || !isDigit(r[i+3])
}

// negativeBefore reports whether the number starting at r[start] carries a
// minus sign: "-5", "−5", "-$5", "$-5", but not "2026-06".
func negativeBefore(r []rune, start int) bool {
	j := start - 1
	for j >= 0 && strings.ContainsRune("$€£¥", r[j]) {
		j--
	}
	if j < 0 || (r[j] != '-' && r[j] != '−') {
		return false
	}
	if j == 0 {
		return true
	}
	p := r[j-1]
	return !unicode.IsDigit(p) && !unicode.IsLetter(p)
}

// scaleAfter reads a scale word after a number and returns its factor,
// advancing *i past it.
func scaleAfter(r []rune, i *int) float64 {
	j := *i
	for j < len(r) && r[j] == ' ' && j-*i < 1 {
		j++
	}
	k := j
	for k < len(r) && unicode.IsLetter(r[k]) {
		k++
	}
	word := strings.ToLower(string(r[j:k]))
	factor := scaleWords[word]
	if factor == 0 {
		return 1
	}
	if j > *i && len(word) <= 2 {
		// "5 m" is more likely metres than millions; only words scale after a space
		return 1
	}
	*i = k
	return factor
}

// scaleWords are the words after a number that scale it: "5k", "2 million".
var scaleWords = map[string]float64{"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "bn": 1e9, "b": 1e9, "billion": 1e9}

// hedgeWords are the words that offer an alternative answer.
var hedgeWords = map[string]bool{"or": true, "either": true, "maybe": true, "perhaps": true, "possibly": true, "probably": true, "alternatively": true}

// Hedges reports whether text offers alternatives ("X or Y", "either",
// "maybe", "possibly", …). A verifier that accepts an answer when it states
// the right value somewhere must also refuse an answer that states it beside
// a competing one: "either $479,659.50 or $969,470.00" is not an answer.
// Combine it with the competing values the task allows, so that context
// ("next is Oskar with 2") stays allowed.
func Hedges(text string) bool {
	for _, w := range appendFold(nil, plain(text)) {
		if hedgeWords[w] {
			return true
		}
	}
	return false
}

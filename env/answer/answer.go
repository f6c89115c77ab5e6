package answer

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// NumbersIn returns every number stated in a free-text answer, generous about
// formatting: currency symbols, thousands separators ("507,500", "507 500"
// is two numbers), decimals (".5" is 0.5), signs, percentages and the scale
// words k/thousand, m/million, bn/billion ("$1.2M" is 1200000). A minus sign
// counts only where it starts a number, so "2026-06-30" is 2026, 6 and 30,
// and digits inside a word or an id ("OPP-005", "Q3", "[DOC-2]") are not
// numbers. Only ASCII digits are read. Every result is finite.
func NumbersIn(text string) []float64 {
	r := []rune(text)
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
// runs of white space and punctuation between words, and a possessive
// ("Oskar Pelletier's deals" names Oskar Pelletier).
func Names(text, name string) bool {
	words := fold(name)
	if len(words) == 0 {
		return false
	}
	hay := fold(text)
	if containsRun(hay, words) {
		return true
	}
	if len(words) >= 2 {
		swapped := append([]string{words[len(words)-1]}, words[:len(words)-1]...)
		return containsRun(hay, swapped)
	}
	return false
}

// DoesNotName is the negation of Names, also failing when the name's last
// word alone (a surname) appears: a trap that must not be named is not named
// at all.
func DoesNotName(text, name string) bool {
	if Names(text, name) {
		return false
	}
	words := fold(name)
	if len(words) >= 2 {
		return !containsRun(fold(text), words[len(words)-1:])
	}
	return true
}

// apostrophes reads typographic apostrophes as straight ones.
var apostrophes = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u02bc", "'")

// fold splits s into lower-case words of letters, digits and inner
// apostrophes, typographic apostrophes read as straight ones, with a
// possessive "'s" and stray apostrophes dropped: "O’Brien's" is "o'brien".
func fold(s string) []string {
	s = apostrophes.Replace(strings.ToLower(s))
	words := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := words[:0]
	for _, w := range words {
		w = strings.TrimSuffix(w, "'s")
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func containsRun(hay, words []string) bool {
	for i := 0; i+len(words) <= len(hay); i++ {
		match := true
		for j, w := range words {
			if hay[i+j] != w {
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
	for _, w := range fold(text) {
		if hedgeWords[w] {
			return true
		}
	}
	return false
}

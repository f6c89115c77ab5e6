package env

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// NumbersIn returns every number stated in a free-text answer, generous about
// formatting: currency symbols, thousands separators ("507,500", "507 500"
// is two numbers), decimals, signs, percentages and the scale words
// k/thousand, m/million, bn/billion ("$1.2M" is 1200000). A minus sign counts
// only where it starts a number, so "2026-06-30" is 2026, 6 and 30.
func NumbersIn(text string) []float64 {
	r := []rune(text)
	var out []float64
	for i := 0; i < len(r); {
		if !unicode.IsDigit(r[i]) {
			i++
			continue
		}
		idLike := i > 1 && r[i-1] == '-' && unicode.IsLetter(r[i-2]) // OPP-005
		if idLike || i > 0 && isWordRune(r[i-1]) && !isCurrencyLetter(r, i-1) {
			// a digit inside a word or id (OPP-005, A4): skip the whole token
			for i < len(r) && (isWordRune(r[i]) || r[i] == '.' && i+1 < len(r) && unicode.IsDigit(r[i+1])) {
				i++
			}
			continue
		}
		start := i
		var b strings.Builder
		for i < len(r) {
			c := r[i]
			switch {
			case unicode.IsDigit(c):
				b.WriteRune(c)
				i++
			case c == ',' && groupOfThree(r, i+1):
				i++
			default:
				goto intDone
			}
		}
	intDone:
		if i+1 < len(r) && r[i] == '.' && unicode.IsDigit(r[i+1]) {
			b.WriteByte('.')
			i++
			for i < len(r) && unicode.IsDigit(r[i]) {
				b.WriteRune(r[i])
				i++
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
		out = append(out, v)
	}
	return out
}

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
// and runs of white space and punctuation between words.
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

func fold(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
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
// with letters directly before a number, such as "US$", "USD" or "R".
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
		if !unicode.IsDigit(r[k]) {
			return false
		}
	}
	return i+3 == len(r) || !unicode.IsDigit(r[i+3])
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
	factor := map[string]float64{"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "bn": 1e9, "b": 1e9, "billion": 1e9}[word]
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

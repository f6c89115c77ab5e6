package change

import (
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Span is one piece of a word-level string diff: text both sides share, text
// only the old side has, text only the new side has, or shared text left out
// of a long value.
type Span struct {
	Op   SpanOp `json:"op"`
	Text string `json:"text,omitempty"`
	// Skipped counts the characters an elided span leaves out.
	Skipped int `json:"skipped,omitempty"`
}

// SpanOp says which side a span belongs to.
type SpanOp string

const (
	Same     SpanOp = "same"
	Deleted  SpanOp = "deleted"
	Inserted SpanOp = "inserted"
	Elided   SpanOp = "elided"
)

// Word-diff windows: a value longer than longValue characters keeps only
// contextWords words of shared text around each change.
const (
	longValue    = 100
	contextWords = 6
	minElided    = 20
)

// WordDiff compares two strings word by word with diffmatchpatch (each word,
// run of spaces and punctuation mark is one symbol of the diff). When the
// strings are long, shared text far from every change is elided, so each
// changed span is shown with a window of context around it wherever it is.
func WordDiff(old, fresh string) []Span {
	tokens := map[string]rune{}
	var symbols []string
	encode := func(s string) []rune {
		var out []rune
		for _, t := range splitWords(s) {
			r, ok := tokens[t]
			if !ok {
				r = symbolRune(len(symbols))
				tokens[t] = r
				symbols = append(symbols, t)
			}
			out = append(out, r)
		}
		return out
	}
	a, b := encode(old), encode(fresh)
	if symbolRune(len(symbols)) < 0 {
		// More distinct words than private-use characters: diff characters.
		return window(fromDMP(diffmatchpatch.New().DiffMain(old, fresh, false), nil))
	}
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(a, b, false))
	return window(fromDMP(diffs, symbols))
}

// symbolRune maps the i-th distinct word to a private-use character, or -1
// when they run out.
func symbolRune(i int) rune {
	const bmp = 0xF8FF - 0xE000 + 1
	switch {
	case i < bmp:
		return rune(0xE000 + i)
	case i-bmp < 0xFFFFD-0xF0000:
		return rune(0xF0000 + i - bmp)
	}
	return -1
}

func runeIndex(r rune) int {
	if r >= 0xF0000 {
		return int(r-0xF0000) + 0xF8FF - 0xE000 + 1
	}
	return int(r - 0xE000)
}

func fromDMP(diffs []diffmatchpatch.Diff, symbols []string) []Span {
	var out []Span
	for _, d := range diffs {
		text := d.Text
		if symbols != nil {
			var buf []byte
			for _, r := range d.Text {
				buf = append(buf, symbols[runeIndex(r)]...)
			}
			text = string(buf)
		}
		op := Same
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = Deleted
		case diffmatchpatch.DiffInsert:
			op = Inserted
		}
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Text += text
			continue
		}
		out = append(out, Span{Op: op, Text: text})
	}
	return out
}

// splitWords cuts s into words (runs of characters other than spaces) and
// the runs of spaces between them.
func splitWords(s string) []string {
	var out []string
	start, prev := 0, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if i > start && space != prev {
			out = append(out, s[start:i])
			start = i
		}
		prev = space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// window elides shared text far from every change when the value is long.
func window(spans []Span) []Span {
	total := 0
	for _, s := range spans {
		total += utf8.RuneCountInString(s.Text)
	}
	if total <= longValue {
		return spans
	}
	var out []Span
	for i, s := range spans {
		if s.Op != Same {
			out = append(out, s)
			continue
		}
		words := splitWords(s.Text)
		keepBefore, keepAfter := 0, 0 // words kept at the start and the end
		if i > 0 {
			keepBefore = contextWords * 2 // words and the spaces between them
		}
		if i < len(spans)-1 {
			keepAfter = contextWords * 2
		}
		if len(words) <= keepBefore+keepAfter+1 {
			out = append(out, s)
			continue
		}
		head := join(words[:keepBefore])
		tail := join(words[len(words)-keepAfter:])
		skipped := join(words[keepBefore : len(words)-keepAfter])
		if utf8.RuneCountInString(skipped) < minElided {
			out = append(out, s)
			continue
		}
		if head != "" {
			out = append(out, Span{Op: Same, Text: head})
		}
		out = append(out, Span{Op: Elided, Skipped: utf8.RuneCountInString(skipped)})
		if tail != "" {
			out = append(out, Span{Op: Same, Text: tail})
		}
	}
	return out
}

func join(words []string) string {
	n := 0
	for _, w := range words {
		n += len(w)
	}
	buf := make([]byte, 0, n)
	for _, w := range words {
		buf = append(buf, w...)
	}
	return string(buf)
}

package answer

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// referenceFold is fold as it was first written, kept as the reference the
// one-pass appendFold must agree with on every input.
func referenceFold(s string) []string {
	s = referenceApostrophes.Replace(strings.ToLower(s))
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

var referenceApostrophes = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u02bc", "'")

// referenceNames and referenceDoesNotName are Names and DoesNotName as they
// were first written, folding the text again for every name.
func referenceNames(text, name string) bool {
	text, name = plain(text), plain(name)
	words := referenceFold(name)
	if len(words) == 0 {
		return false
	}
	hay := referenceFold(text)
	if referenceContainsRun(hay, words) {
		return true
	}
	if len(words) >= 2 {
		swapped := append([]string{words[len(words)-1]}, words[:len(words)-1]...)
		return referenceContainsRun(hay, swapped)
	}
	return false
}

func referenceContainsRun(hay, words []string) bool {
	for i := 0; i+len(words) <= len(hay); i++ {
		if slices.Equal(hay[i:i+len(words)], words) {
			return true
		}
	}
	return false
}

func referenceDoesNotName(text, name string) bool {
	if referenceNames(text, name) {
		return false
	}
	text, name = plain(text), plain(name)
	words := referenceFold(name)
	if len(words) >= 2 {
		return !referenceContainsRun(referenceFold(text), words[len(words)-1:])
	}
	return true
}

var foldSeeds = []string{
	"", " ", "'", "''s", "'s", "s's", "o'brien's'", "Oskar Pelletier's deals", "O’Brien’s ‘quote’ ʼtwas",
	"Kim, Dana", "Wójcik, Tomasz", "İSTANBUL Straße ΣΊΣΥΦΟΣ", "\u212a\u212b kelvin", "Ⱥ Ⱦ", "٣ apples ²",
	"bad \xff\xfe utf8 \xe2\x80", "tab\tnew\nline\u00a0nbsp\u2003em", "a-b_c.d/e", "DOC-2 [OPP-005] Q3",
	"\ufffd replacement", "ǅ ǈ ǋ titlecase", "e\u0301 combining", "日本語 テキスト", "mixed ASCII then é",
}

func TestFoldMatchesReference(t *testing.T) {
	t.Parallel()
	for _, s := range foldSeeds {
		if diff := cmp.Diff(referenceFold(s), appendFold(nil, s), cmpWords); diff != "" {
			t.Errorf("fold(%q) (-reference +new):\n%s", s, diff)
		}
	}
}

// cmpWords compares word lists, no words being no words whether nil or empty.
var cmpWords = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

func FuzzFold(f *testing.F) {
	for _, s := range foldSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendFold(nil, s), referenceFold(s); !slices.Equal(got, want) {
			t.Fatalf("fold(%q) = %q, reference %q", s, got, want)
		}
	})
}

func FuzzTextMatchesReference(f *testing.F) {
	for _, seed := range [][2]string{
		{"Anouk Verbeek has 3", "Anouk Verbeek"}, {"verbeek, anouk", "Anouk Verbeek"}, {"Pelletier's", "Oskar Pelletier"},
		{"O’Brien", "O'Brien"}, {"", ""}, {"'s", "'s"}, {"a b c", "c a"}, {"Wójcik", "Tomasz Wójcik"},
		{"c a b", "a b c"}, {"a b c d e f g h i j", "a b c d e f g h i j"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		folded := Fold(text)
		if got, want := folded.Names(name), referenceNames(text, name); got != want {
			t.Fatalf("Fold(%q).Names(%q) = %v, reference %v", text, name, got, want)
		}
		if got, want := folded.DoesNotName(name), referenceDoesNotName(text, name); got != want {
			t.Fatalf("Fold(%q).DoesNotName(%q) = %v, reference %v", text, name, got, want)
		}
		if Names(text, name) != folded.Names(name) || DoesNotName(text, name) != folded.DoesNotName(name) {
			t.Fatalf("Names or DoesNotName of %q, %q differ from Fold's", text, name)
		}
	})
}

func TestTextNamesMany(t *testing.T) {
	t.Parallel()
	text := Fold("Hand Oskar Pelletier’s open deals to Kim, Dana; Anouk stays.")
	tests := []struct {
		name               string
		names, doesNotName bool
	}{
		{"Oskar Pelletier", true, false},
		{"Dana Kim", true, false},
		{"Anouk Verbeek", false, true},
		{"Tomas Kim", false, false}, // the surname alone names a trap
		{"Anouk", true, false},
		{"", false, true},
		{"Pelletier Oskar", true, false},
	}
	for _, tt := range tests {
		if got := text.Names(tt.name); got != tt.names {
			t.Errorf("Names(%q) = %v, want %v", tt.name, got, tt.names)
		}
		if got := text.DoesNotName(tt.name); got != tt.doesNotName {
			t.Errorf("DoesNotName(%q) = %v, want %v", tt.name, got, tt.doesNotName)
		}
	}
	var zero Text
	if zero.Names("Oskar") || !zero.DoesNotName("Oskar") {
		t.Error("the zero Text names someone")
	}
}

// benchInstruction is crm TASK-002's instruction; benchNames the team it is
// matched against.
const benchInstruction = "Oskar Pelletier left the company on 27 March and his user was switched off the same day; " +
	"nobody is working the deals he had in progress. Anouk Verbeek (USR-003) inherits his territory: give her every " +
	"opportunity of his that is still open. His won and lost deals must stay recorded against him for commissions. " +
	"Philippa Crane (USR-001) is making the change."

var benchNames = []string{"Philippa Crane", "Tendai Moyo", "Anouk Verbeek", "Oskar Pelletier", "Mei-Ling Zhao", "Declan Whitford", "Ines Carvalho"}

// BenchmarkNamesMany matches a team's names against one instruction, folded once.
func BenchmarkNamesMany(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		text := Fold(benchInstruction)
		for _, n := range benchNames {
			text.Names(n)
		}
	}
}

// BenchmarkNames is one name against one instruction.
func BenchmarkNames(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Names(benchInstruction, "Anouk Verbeek")
	}
}

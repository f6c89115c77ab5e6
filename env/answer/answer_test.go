package answer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNumbersIn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []float64
	}{
		{"$507,500.00", []float64{507500}},
		{"The weighted total is $1,023,000.00.", []float64{1023000}},
		{"€1,234.56 and £12", []float64{1234.56, 12}},
		{"US$12 or USD 40", []float64{12, 40}},
		{"507 500", []float64{507, 500}},
		{"1,2345", []float64{1, 2345}},
		{"-5, −3, +7", []float64{-5, -3, 7}},
		{"-$5 and $-5", []float64{-5, -5}},
		{"(-12.5)", []float64{-12.5}},
		{"23% and 32.5%", []float64{23, 32.5}},
		{".5 and $.50", []float64{0.5, 0.5}},
		{"$1.2M, 12k, 3 million, 2bn", []float64{1.2e6, 12e3, 3e6, 2e9}},
		{"5 m of cable", []float64{5}},
		{"12 months", []float64{12}},
		{"2026-06-30", []float64{2026, 6, 30}},
		{"5-3", []float64{5, 3}},
		{"12:30 on 2026/05/12", []float64{12, 30, 2026, 5, 12}},
		{"OPP-005 and TASK-004", nil},
		{"claims [DOC-2] and [DOC-13]", nil},
		{"Q3, A4, v1.5, x2y", nil},
		{"1.8 million passengers [DOC-2]", []float64{1.8e6}},
		{"3.14.15", []float64{3.14, 15}},
		{"no numbers here", nil},
		{"١٢٣ are not ASCII digits", nil},
	}
	for _, tc := range tests {
		got := NumbersIn(tc.text)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("NumbersIn(%q) (-want +got):\n%s", tc.text, diff)
		}
	}
}

func TestStatesNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text  string
		value float64
		tol   float64
		want  bool
	}{
		{"$507,500.00", 507500, 0, true},
		{"It is 507500.", 507500, 0, true},
		{"€507,500", 507500, 0, true},
		{"507501", 507500, 0, false},
		{"507,499.98", 507500, 0, false},
		{"507,499.995", 507500, 0, true},
		{"about $0.5M", 500000, 0, true},
		{"23.4%", 23.4, 0, true},
		{"23.4%", 0.234, 0.0005, false},
		{"-1,250.00", -1250, 0, true},
		{"2026-06-30", -6, 0, false},
		{"2026-06-30", -30, 0, false},
		{"OPP-005", 5, 0, false},
		{"[DOC-2]", 2, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range tests {
		if got := StatesNumber(tc.text, tc.value, tc.tol); got != tc.want {
			t.Errorf("StatesNumber(%q, %v, %v) = %v, want %v", tc.text, tc.value, tc.tol, got, tc.want)
		}
	}
}

func TestDatesGiveNoNegativeNumbers(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"2026-06-30", "due 2026-06-30.", "between 2026-05-01 and 2026-05-31", "2026−06−30"} {
		for _, n := range NumbersIn(text) {
			if n < 0 {
				t.Errorf("NumbersIn(%q) has %v; a date has no negative numbers", text, n)
			}
		}
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, name string
		names      bool
		doesNot    bool
	}{
		{"Anouk Verbeek has the most", "Anouk Verbeek", true, false},
		{"verbeek, anouk", "Anouk Verbeek", true, false},
		{"ANOUK  VERBEEK.", "Anouk Verbeek", true, false},
		{"Oskar Pelletier's deals", "Oskar Pelletier", true, false},
		{"Pelletier’s deals moved", "Oskar Pelletier", false, false},
		{"Mr O’Brien", "O'Brien", true, false},
		{"Anouk Verbeekx", "Anouk Verbeek", false, true},
		{"Anouk and Verbeek", "Anouk Verbeek", false, false},
		{"Mei-Ling Zhao", "Mei-Ling Zhao", true, false},
		{"Wójcik", "Tomasz Wójcik", false, false},
		{"Wojcik", "Tomasz Wójcik", false, true},
		{"anything", "", false, true},
	}
	for _, tc := range tests {
		if got := Names(tc.text, tc.name); got != tc.names {
			t.Errorf("Names(%q, %q) = %v, want %v", tc.text, tc.name, got, tc.names)
		}
		if got := DoesNotName(tc.text, tc.name); got != tc.doesNot {
			t.Errorf("DoesNotName(%q, %q) = %v, want %v", tc.text, tc.name, got, tc.doesNot)
		}
	}
}

// formats writes v the ways an answer might state it. Every one of them
// must read back as v.
func formats(v float64) []string {
	plain := strconv.FormatFloat(v, 'f', -1, 64)
	cents := strconv.FormatFloat(v, 'f', 2, 64)
	out := []string{
		plain,
		cents,
		"The total is " + plain + ".",
		"(" + cents + ")",
		grouped(v, "$"),
		grouped(v, "€"),
		grouped(v, "£"),
		"USD " + cents,
		plain + "%",
		"answer: " + grouped(v, "$") + ", as of 2026-06-30 (OPP-005).",
	}
	if v >= 0 {
		out = append(out, "+"+plain)
	}
	return out
}

// grouped writes v with two decimals, thousands separators and a currency
// symbol after the sign: -$1,234.50.
func grouped(v float64, symbol string) string {
	sign := ""
	if math.Signbit(v) {
		sign, v = "-", -v
	}
	whole, frac, _ := strings.Cut(strconv.FormatFloat(v, 'f', 2, 64), ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + symbol + b.String() + "." + frac
}

func TestStatesNumberReadsEveryFormat(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{0, 5, 0.5, 12.25, 999.99, 1000, 507500, -1250.5, 1023000.004, 123456789.25} {
		for _, text := range formats(v) {
			if !StatesNumber(text, v, 0) {
				t.Errorf("StatesNumber(%q, %v) = false; read %v", text, v, NumbersIn(text))
			}
		}
	}
}

func FuzzNumbersIn(f *testing.F) {
	for _, seed := range []string{
		"$507,500.00", "507501", "2026-06-30", "OPP-005", "[DOC-2]", "€1,234.56", "£-12", "-$5", "$-5", "+7",
		"23%", ".5", "$.50", "1.8 million", "12k", "−3", "US$12", "1,2345", "3.14.15", "1" + strings.Repeat("0", 320),
		strings.Repeat("9", 308) + "bn", "1e5", "٣", "", "-", "$", ",", ".", "5,", "5.",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, n := range NumbersIn(text) {
			if math.IsNaN(n) || math.IsInf(n, 0) {
				t.Fatalf("NumbersIn(%q) has %v; every number must be finite", text, n)
			}
		}
	})
}

func FuzzStatesNumber(f *testing.F) {
	for _, seed := range []float64{0, 5, 0.5, -1250.5, 507500, 1023000.004, 1e12, 1e-9, -0.01, 1e300} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Skip()
		}
		for _, text := range formats(v) {
			if !StatesNumber(text, v, 0) {
				t.Fatalf("StatesNumber(%q, %v) = false; read %v", text, v, NumbersIn(text))
			}
			if math.Abs(v) < 1e12 && len(NumbersIn(text)) == 1 && StatesNumber(text, v+1, 0) {
				t.Fatalf("StatesNumber(%q, %v) = true for a value 1 away", text, v+1)
			}
		}
	})
}

func FuzzNames(f *testing.F) {
	for _, seed := range [][2]string{
		{"Anouk Verbeek has 3", "Anouk Verbeek"}, {"verbeek, anouk", "Anouk Verbeek"}, {"Pelletier's", "Oskar Pelletier"},
		{"O’Brien", "O'Brien"}, {"", ""}, {"'s", "'s"}, {"a b c", "c a"}, {"Wójcik", "Tomasz Wójcik"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, name string) {
		named := Names(text, name)
		if DoesNotName(text, name) && named {
			t.Fatalf("Names and DoesNotName both true for %q, %q", text, name)
		}
		if len(appendFold(nil, name)) == 0 {
			if named {
				t.Fatalf("Names(%q, %q) is true for a name without words", text, name)
			}
			return
		}
		if !Names(name, name) {
			t.Fatalf("Names(%q, %q) = false: a name names itself", name, name)
		}
		if joined := fmt.Sprintf("%s %s.", text, name); !Names(joined, name) {
			t.Fatalf("Names(%q, %q) = false", joined, name)
		}
	})
}

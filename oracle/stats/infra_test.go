package stats

import (
	"math"
	"strings"
	"testing"
)

func TestInfrastructure(t *testing.T) {
	errs := func(runs, errors int) *Distribution {
		d := counted(runs-errors, runs-errors)
		d.Runs, d.Verdicts.Error = runs, errors
		return d
	}
	for _, c := range []struct {
		name    string
		cases   []KeyedDistribution
		share   float64
		trouble bool
		wantErr string
	}{
		{"no errors", []KeyedDistribution{{"crm/m/T1", errs(10, 0)}, {"crm/m/T2", errs(10, 0)}}, DefaultMaxErrors, false, ""},
		{"at the limit", []KeyedDistribution{{"crm/m/T1", errs(20, 2)}, {"crm/m/T2", errs(20, 2)}}, DefaultMaxErrors, false, ""},
		{"over the limit", []KeyedDistribution{{"crm/m/T1", errs(20, 3)}, {"crm/m/T2", errs(20, 2)}}, DefaultMaxErrors, true,
			"infrastructure: 5 of 40 runs (12.5%) were errors, over the limit of 10%; check the model API"},
		{"no error allowed", []KeyedDistribution{{"crm/m/T1", errs(20, 1)}}, 0, true, "1 of 20 runs (5%) were errors, over the limit of 0%"},
		{"one case all errors", []KeyedDistribution{{"crm/m/T1", errs(10, 10)}, {"crm/m/T2", errs(100, 0)}, {"crm/m/T3", errs(100, 0)}}, DefaultMaxErrors, true,
			"infrastructure: every run of crm/m/T1 was an error; check the model API"},
		{"many cases all errors", []KeyedDistribution{{"e/m/D", errs(2, 2)}, {"e/m/A", errs(2, 2)}, {"e/m/C", errs(2, 2)}, {"e/m/B", errs(2, 2)}}, 1, true,
			"every run of 4 cases was an error (e/m/A, e/m/B, e/m/C and 1 more)"},
		{"a key that needs quoting", []KeyedDistribution{{"e/m/\x1b[2J", errs(2, 2)}}, DefaultMaxErrors, true, `every run of "e/m/\x1b[2J" was an error`},
		{"every error allowed", []KeyedDistribution{{"crm/m/T1", errs(10, 9)}}, 1, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := Infrastructure(c.cases, c.share)
			if err != nil {
				t.Fatal(err)
			}
			if in.Trouble() != c.trouble {
				t.Fatalf("Trouble = %v, want %v (%+v)", in.Trouble(), c.trouble, in)
			}
			err = in.Err()
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("Err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("Err = %v\nwant %q", err, c.wantErr)
			}
		})
	}
	for _, share := range []float64{-0.1, 1.1, math.NaN()} {
		if _, err := Infrastructure(nil, share); err == nil {
			t.Errorf("share %v: no error", share)
		}
	}
	if _, err := Infrastructure([]KeyedDistribution{{Key: "x"}}, 0.1); err == nil {
		t.Error("a case without a distribution: no error")
	}
}

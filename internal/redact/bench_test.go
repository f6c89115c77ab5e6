package redact

import (
	"fmt"
	"strings"
	"testing"
)

// bigCalls is a calls.json of n calls, each returning a listing of 50
// records with a creation time.
func bigCalls(b *testing.B, n int) []byte {
	var s strings.Builder
	s.WriteString("[")
	for i := range n {
		if i > 0 {
			s.WriteString(",")
		}
		fmt.Fprintf(&s, `{"tool":"list_orders","input":{"page":%d},"output":{"count":50,"orders":[`, i)
		for j := range 50 {
			if j > 0 {
				s.WriteString(",")
			}
			fmt.Fprintf(&s, `{"id":"ord-%d-%d","item":"widget \"%d\"","qty":%d.50,"createdAt":"2026-04-13T09:%02d:00Z"}`, i, j, j, j, j)
		}
		s.WriteString("]}}")
	}
	s.WriteString("]")
	return artifactJSON(b, s.String())
}

func BenchmarkApply(b *testing.B) {
	data := bigCalls(b, 200)
	for _, bb := range []struct {
		name  string
		rules []Rule
	}{
		{"no-place", []Rule{Whole(Calls, "/*/output/updatedAt")}},
		{"whole", []Rule{Whole(Calls, "/*/output/orders/*/createdAt")}},
		{"anywhere", []Rule{Whole(Calls, "/**/createdAt")}},
		{"pattern", []Rule{Match(Calls, "/*/output/orders/*/item", `"[0-9]+"`, "[n]")}},
	} {
		r := mustNew(b, bb.rules...)
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Apply(Calls, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCompareBaseline(b *testing.B) {
	data := bigCalls(b, 200)
	r := mustNew(b, Whole(Calls, "/*/output/orders/*/createdAt"))
	frozen, err := r.Apply(Calls, data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.CompareBaseline(Calls, frozen.Data, data); err != nil {
			b.Fatal(err)
		}
	}
}

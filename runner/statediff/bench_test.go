package statediff

import (
	"encoding/json"
	"fmt"
	"testing"
)

// largeStates returns two states of n entities in one collection, where
// every hundredth entity of the second has a changed amount.
func largeStates(tb testing.TB, n int) (before, after []byte) {
	type entity struct {
		ID     string         `json:"id"`
		Name   string         `json:"name"`
		Owner  string         `json:"ownerId"`
		Amount map[string]any `json:"amount"`
		Tags   []string       `json:"tags"`
	}
	make := func(changed bool) []byte {
		list := make([]entity, n)
		for i := range list {
			amount := 1000 + i
			if changed && i%100 == 0 {
				amount++
			}
			list[i] = entity{ID: fmt.Sprintf("E-%06d", i), Name: fmt.Sprintf("Entity %d", i), Owner: fmt.Sprintf("USR-%03d", i%50),
				Amount: map[string]any{"amount": amount, "currency": "USD"}, Tags: []string{"a", "b"}}
		}
		b, err := json.Marshal(map[string]any{"now": "2026-04-13T09:00:00Z", "entities": list})
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	return make(false), make(true)
}

// BenchmarkCompute100k diffs a 100,000-entity state with 1% of the
// entities changed.
func BenchmarkCompute100k(b *testing.B) {
	before, after := largeStates(b, 100_000)
	b.SetBytes(int64(len(before) + len(after)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Compute(before, after)
		if err != nil {
			b.Fatal(err)
		}
		if got := len(d.Collections["entities"].Changed); got != 1000 {
			b.Fatalf("%d changed, want 1000", got)
		}
	}
}

package env

import (
	"fmt"
	"testing"
)

type benchEntity struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Status string   `json:"status"`
	Amount float64  `json:"amount"`
	Owner  *string  `json:"owner"`
	Tags   []string `json:"tags"`
}

type benchState struct {
	Now      string         `json:"now"`
	Entities []benchEntity  `json:"entities"`
	Seq      map[string]int `json:"seq"`
}

// BenchmarkClone is a typed deep copy of a state of 1,000 entities, each
// with a pointer and a slice.
func BenchmarkClone(b *testing.B) {
	s := &benchState{Now: "2026-03-16T09:00:00Z", Seq: map[string]int{"E": 1000}}
	for i := range 1000 {
		owner := fmt.Sprintf("USR-%03d", i%50)
		s.Entities = append(s.Entities, benchEntity{ID: fmt.Sprintf("E-%06d", i), Name: "n", Status: "open", Amount: float64(i), Owner: &owner, Tags: []string{"a", "b"}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Clone(s); err != nil {
			b.Fatal(err)
		}
	}
}

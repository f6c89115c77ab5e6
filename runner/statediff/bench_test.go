package statediff

import (
	"bytes"
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

// measureCPU reports the CPU time per op (every goroutine, GC included) of
// what runs until the returned function is called: on a machine shared with
// other work it measures what the diff costs better than the wall clock.
func measureCPU(b *testing.B) (stop func()) {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

// BenchmarkCompute100k diffs a 100,000-entity state with 1% of the
// entities changed.
func BenchmarkCompute100k(b *testing.B) {
	before, after := largeStates(b, 100_000)
	benchCompute(b, [][]byte{before}, after, func(d *Diff) error {
		if got := len(d.Collections["entities"].Changed); got != 1000 {
			return fmt.Errorf("%d changed, want 1000", got)
		}
		return nil
	})
}

// benchCompute diffs each of befores in turn with after, checking each
// diff.
func benchCompute(b *testing.B, befores [][]byte, after []byte, check func(*Diff) error) {
	b.SetBytes(int64(len(befores[0]) + len(after)))
	b.ReportAllocs()
	defer measureCPU(b)()
	i := 0
	for b.Loop() {
		d, err := Compute(befores[i%len(befores)], after)
		if err == nil {
			err = check(d)
		}
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// rolloutStates returns two states shaped like a crm rollout's: 82
// entities of 14 fields in seven collections, a counter object and a
// clock; the second has one member changed in two fields, one added and
// one counter moved, as a rollout of a few write calls leaves it.
func rolloutStates(tb testing.TB) (before, after []byte) {
	type amount struct {
		Amount   int    `json:"amount"`
		Currency string `json:"currency"`
	}
	type entity struct {
		ID       string  `json:"id"`
		Name     string  `json:"name"`
		Account  string  `json:"accountId"`
		Contact  string  `json:"primaryContactId"`
		Owner    string  `json:"ownerId"`
		Stage    string  `json:"stageId"`
		Amount   amount  `json:"amount"`
		Expected string  `json:"expectedCloseDate"`
		Created  string  `json:"createdDate"`
		Entered  string  `json:"stageEnteredDate"`
		Status   string  `json:"status"`
		Closed   *string `json:"closedDate"`
		Lost     *string `json:"lostReason"`
		Lead     *string `json:"sourceLeadId"`
	}
	names := []string{"accounts", "activities", "contacts", "leads", "opportunities", "stages", "users"}
	sizes := []int{10, 15, 14, 10, 20, 6, 7}
	make := func(changed bool) []byte {
		state := map[string]any{"now": "2026-04-13T09:00:00Z"}
		seq := map[string]int{}
		for c, name := range names {
			n := sizes[c]
			if changed && name == "activities" {
				n++
			}
			list := make([]entity, n)
			for i := range list {
				list[i] = entity{ID: fmt.Sprintf("%.3s-%03d", name, i+1), Name: fmt.Sprintf("%s number %d", name, i+1),
					Account: fmt.Sprintf("ACC-%03d", i%10+1), Contact: fmt.Sprintf("CON-%03d", i%14+1),
					Owner: fmt.Sprintf("USR-%03d", i%7+1), Stage: fmt.Sprintf("STG-%03d", i%6+1),
					Amount: amount{Amount: 1000 * (i + 1), Currency: "USD"}, Expected: "2026-05-29",
					Created: "2025-12-08", Entered: "2026-02-20", Status: "open"}
				if changed && name == "opportunities" && i == 4 {
					won := "2026-04-13"
					list[i].Status, list[i].Closed = "won", &won
				}
			}
			state[name] = list
			seq[name] = n
		}
		state["sequences"] = seq
		b, err := json.Marshal(state)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	return make(false), make(true)
}

// BenchmarkComputeRollout diffs a state of the size a crm rollout leaves,
// as the runner does once per rollout: from a state before that was diffed
// before, as every rollout of a task after its first starts from.
func BenchmarkComputeRollout(b *testing.B) {
	before, after := rolloutStates(b)
	benchCompute(b, [][]byte{before}, after, threeChanged)
}

// BenchmarkComputeRolloutFirst is BenchmarkComputeRollout from a state
// before never diffed before, as the first rollout of a task starts from.
func BenchmarkComputeRolloutFirst(b *testing.B) {
	before, after := rolloutStates(b)
	befores := make([][]byte, 2*seenHashes)
	for i := range befores {
		befores[i] = bytes.Replace(before, []byte(`"now":"2026-04-13T09:00:00Z"`), fmt.Appendf(nil, `"now":"2026-04-13T09:%02d:%02dZ"`, i/60, i%60), 1)
	}
	benchCompute(b, befores, after, threeChanged)
}

func threeChanged(d *Diff) error {
	if len(d.Collections) != 3 {
		return fmt.Errorf("%d collections changed, want 3", len(d.Collections))
	}
	return nil
}

// BenchmarkMarshalRollout writes the state-diff.json of
// BenchmarkComputeRollout's diff, as the runner does once per rollout.
func BenchmarkMarshalRollout(b *testing.B) {
	before, after := rolloutStates(b)
	d, err := Compute(before, after)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer measureCPU(b)()
	for b.Loop() {
		if _, err := d.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}

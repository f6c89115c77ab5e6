package env

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// ledger is a state whose tools declare what they write.
type ledger struct {
	Now     string            `json:"now"`
	Items   []counter         `json:"items"`
	Notes   []string          `json:"notes"`
	Labels  map[string]string `json:"labels"`
	Owner   *string           `json:"owner"`
	Version int               `json:"version"`
}

func newLedger() *ledger {
	owner := "USR-1"
	return &ledger{Now: "2026-03-16T09:00:00Z", Items: []counter{{"C-1", 1, []string{"a", "b"}}, {"C-2", 2, []string{"c"}}},
		Notes: []string{"n1"}, Labels: map[string]string{"k": "v"}, Owner: &owner, Version: 1}
}

const oneTask = `{"id":"TASK-001","title":"t","instruction":"i","verifierId":"VER-001"}`

func ledgerEnv(t *testing.T, tools []Tool[ledger], checked bool, check func(final, initial *ledger, c VerifyContext) []CheckResult) Environment {
	t.Helper()
	seed := newLedger()
	if check == nil {
		check = func(*ledger, *ledger, VerifyContext) []CheckResult { return []CheckResult{Check("ok", true, "")} }
	}
	e, err := New(Definition[ledger]{
		Name:          "ledger",
		TaskFiles:     fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}},
		NewState:      func(Task) (*ledger, error) { return Clone(seed) },
		Tools:         tools,
		Verifiers:     []Verifier[ledger]{{ID: "VER-001", TaskID: "TASK-001", Name: "v", Check: check}},
		CheckReadOnly: checked,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func openTask(t *testing.T, e Environment) World {
	t.Helper()
	tasks, err := e.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.Open(tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func call(t *testing.T, w World, tool string) (string, error) {
	t.Helper()
	out, err := w.Call(context.Background(), tool, json.RawMessage(`{}`))
	return string(out), err
}

func state(t *testing.T, w World) string {
	t.Helper()
	s, err := w.State()
	if err != nil {
		t.Fatal(err)
	}
	return string(s)
}

// scribbleItems changes the items in every way a tool can: in place, deep
// inside, and by appending.
func scribbleItems(s *ledger) {
	s.Items[0].Value = 99
	s.Items[0].Tags[0] = "changed"
	s.Items[1].Tags = append(s.Items[1].Tags, "more")
	s.Items = append(s.Items, counter{ID: "C-9"})
	s.Version++
}

// A tool that declares Writes and fails after changing what it declared is
// rolled back exactly, with or without the checked mode, and a later
// successful write starts from the state as it was.
func TestDeclaredWritesRollBack(t *testing.T) {
	tools := []Tool[ledger]{
		{Name: "items_then_fail", Writes: []string{"items", "version"}, Run: func(_ context.Context, s *ledger, _ json.RawMessage) (any, error) {
			scribbleItems(s)
			return nil, Errorf("invalid_state", "gave up halfway")
		}},
		{Name: "items_then_panic", Writes: []string{"items", "version"}, Run: func(_ context.Context, s *ledger, _ json.RawMessage) (any, error) {
			scribbleItems(s)
			panic("tool bug")
		}},
		{Name: "bump", Writes: []string{"items"}, Run: func(_ context.Context, s *ledger, _ json.RawMessage) (any, error) {
			s.Items[1].Value++
			s.Items[1].Tags[0] = "bumped"
			return "ok", nil
		}},
	}
	for _, checked := range []bool{false, true} {
		for _, tool := range []string{"items_then_fail", "items_then_panic"} {
			t.Run(tool, func(t *testing.T) {
				w := openTask(t, ledgerEnv(t, tools, checked, nil))
				before := state(t, w)
				if _, err := call(t, w, tool); err == nil {
					t.Fatal("the call succeeded")
				}
				if diff := cmp.Diff(before, state(t, w)); diff != "" {
					t.Errorf("checked=%v: state changed (-before +after):\n%s", checked, diff)
				}
				if _, err := call(t, w, "bump"); err != nil {
					t.Fatal(err)
				}
				want := strings.Replace(strings.Replace(before, `"value":2`, `"value":3`, 1), `["c"]`, `["bumped"]`, 1)
				if diff := cmp.Diff(want, state(t, w)); diff != "" {
					t.Errorf("checked=%v: state after a failed call and a bump (-want +got):\n%s", checked, diff)
				}
			})
		}
	}
}

// In the checked mode, a tool that changes a field its Writes does not
// declare fails with writes_violated and the state is put back, whether
// the change is in place, deep inside or a new value, and whether the tool
// then succeeds or fails. Outside it, the declaration is trusted.
func TestUndeclaredWritesAreCaught(t *testing.T) {
	writes := map[string]func(*ledger){
		"in place":     func(s *ledger) { s.Notes[0] = "changed" },
		"deep":         func(s *ledger) { s.Items[0].Tags[0] = "changed" },
		"map":          func(s *ledger) { s.Labels["k"] = "changed" },
		"pointer":      func(s *ledger) { *s.Owner = "USR-9" },
		"flat field":   func(s *ledger) { s.Now = "2027-01-01T00:00:00Z" },
		"new value":    func(s *ledger) { s.Notes = nil },
		"append":       func(s *ledger) { s.Items = append(s.Items, counter{ID: "C-9"}) },
		"pointer swap": func(s *ledger) { other := "USR-2"; s.Owner = &other },
	}
	for name, write := range writes {
		for _, fail := range []bool{false, true} {
			tools := []Tool[ledger]{{Name: "sneaky", Writes: []string{"version"}, Run: func(_ context.Context, s *ledger, _ json.RawMessage) (any, error) {
				s.Version++
				write(s)
				if fail {
					return nil, Errorf("invalid_state", "gave up")
				}
				return "ok", nil
			}}}
			t.Run(name, func(t *testing.T) {
				w := openTask(t, ledgerEnv(t, tools, true, nil))
				before := state(t, w)
				_, err := call(t, w, "sneaky")
				if code := AsToolError(err).Code; err == nil || code != "writes_violated" {
					t.Fatalf("fail=%v: error %v, want writes_violated", fail, err)
				}
				if diff := cmp.Diff(before, state(t, w)); diff != "" {
					t.Errorf("fail=%v: state changed (-before +after):\n%s", fail, diff)
				}
			})
		}
	}
	t.Run("unchecked", func(t *testing.T) {
		tools := []Tool[ledger]{{Name: "sneaky", Writes: []string{"version"}, Run: func(_ context.Context, s *ledger, _ json.RawMessage) (any, error) {
			s.Notes = append(s.Notes, "n2")
			return "ok", nil
		}}}
		w := openTask(t, ledgerEnv(t, tools, false, nil))
		if _, err := call(t, w, "sneaky"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(state(t, w), `"n2"`) {
			t.Errorf("the unchecked write is gone: %s", state(t, w))
		}
	})
}

// New refuses a Writes declaration it cannot honour.
func TestWritesDeclarationChecked(t *testing.T) {
	run := func(context.Context, *ledger, json.RawMessage) (any, error) { return nil, nil }
	for _, tt := range []struct {
		name string
		tool Tool[ledger]
		want string
	}{
		{"unknown field", Tool[ledger]{Name: "x", Run: run, Writes: []string{"itemz"}}, `Writes names "itemz", which is not a field of the state; its fields (by JSON name): now, items, notes, labels, owner, version`},
		{"Go name", Tool[ledger]{Name: "x", Run: run, Writes: []string{"Items"}}, `Writes names "Items"`},
		{"read-only", Tool[ledger]{Name: "x", Run: run, ReadOnly: true, Writes: []string{"items"}}, "declares both ReadOnly and Writes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Definition[ledger]{Name: "ledger", TaskFiles: fstest.MapFS{},
				NewState: func(Task) (*ledger, error) { return newLedger(), nil }, Tools: []Tool[ledger]{tt.tool}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	_, err := New(Definition[map[string]int]{Name: "bag", TaskFiles: fstest.MapFS{},
		NewState: func(Task) (*map[string]int, error) { return &map[string]int{}, nil },
		Tools:    []Tool[map[string]int]{{Name: "x", Writes: []string{"a"}, Run: func(context.Context, *map[string]int, json.RawMessage) (any, error) { return nil, nil }}}})
	if err == nil || !strings.Contains(err.Error(), "is not a struct") {
		t.Errorf("Writes on a map state: error %v", err)
	}
}

// The verifier receives the world's own states: whatever it does to them
// changes neither the world's JSON (and so no artifact) nor the next
// rollout's initial state, and the world takes no call afterwards.
func TestVerifierMayChangeItsStates(t *testing.T) {
	scribble := func(final, initial *ledger, _ VerifyContext) []CheckResult {
		scribbleItems(final)
		scribbleItems(initial)
		final.Notes[0], initial.Labels["k"] = "verifier", "verifier"
		*final.Owner = "USR-7"
		return []CheckResult{Check("ok", true, "")}
	}
	tools := []Tool[ledger]{{Name: "bump", Writes: []string{"items"}, Run: func(_ context.Context, s *ledger, _ json.RawMessage) (any, error) {
		s.Items[1].Value++
		return "ok", nil
	}}}
	e := ledgerEnv(t, tools, false, scribble)
	w := openTask(t, e)
	initial := string(w.Initial())
	if _, err := call(t, w, "bump"); err != nil {
		t.Fatal(err)
	}
	final := state(t, w)
	if _, err := w.Verify(VerifyContext{}); err != nil {
		t.Fatal(err)
	}
	if got := state(t, w); got != final {
		t.Errorf("state after the verifier: %s, want %s", got, final)
	}
	if got := string(w.Initial()); got != initial {
		t.Errorf("initial after the verifier: %s, want %s", got, initial)
	}
	if _, err := call(t, w, "bump"); AsToolError(err).Code != "rollout_ended" {
		t.Errorf("a call after Verify: %v, want rollout_ended", err)
	}
	if got := string(openTask(t, e).Initial()); got != initial {
		t.Errorf("the next rollout starts from %s, want %s", got, initial)
	}
	// a second verification sees the states as they were, from their JSON
	var seen []string
	w2 := openTask(t, ledgerEnv(t, tools, false, func(final, initial *ledger, _ VerifyContext) []CheckResult {
		a, _ := json.Marshal(initial)
		b, _ := json.Marshal(final)
		seen = append(seen, string(a), string(b))
		return scribble(final, initial, VerifyContext{})
	}))
	for range 2 {
		if _, err := w2.Verify(VerifyContext{}); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{initial, initial, initial, initial}, seen); diff != "" {
		t.Errorf("states the verifier saw (-want +got):\n%s", diff)
	}
}

// A Seed is shared by every rollout and changed by none: not by the tools,
// not by a verifier that changes its states, not by the checked mode.
func TestSeedIsNeverChanged(t *testing.T) {
	seed := newLedger()
	before, err := json.Marshal(seed)
	if err != nil {
		t.Fatal(err)
	}
	scribble := func(final, initial *ledger, _ VerifyContext) []CheckResult {
		scribbleItems(final)
		scribbleItems(initial)
		initial.Notes[0], initial.Labels["k"], *initial.Owner = "verifier", "verifier", "verifier"
		return []CheckResult{Check("ok", true, "")}
	}
	tools := []Tool[ledger]{
		{Name: "declared", Writes: []string{"items", "version"}, Run: func(_ context.Context, s *ledger, _ json.RawMessage) (any, error) {
			scribbleItems(s)
			return "ok", nil
		}},
		{Name: "undeclared", Run: func(_ context.Context, s *ledger, _ json.RawMessage) (any, error) {
			scribbleItems(s)
			s.Notes[0], s.Labels["k"], *s.Owner = "tool", "tool", "tool"
			return nil, Errorf("invalid_state", "gave up")
		}},
	}
	for _, checked := range []bool{false, true} {
		e, err := New(Definition[ledger]{
			Name:          "ledger",
			TaskFiles:     fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}},
			Seed:          func(Task) (*ledger, error) { return seed, nil },
			Tools:         tools,
			Verifiers:     []Verifier[ledger]{{ID: "VER-001", TaskID: "TASK-001", Name: "v", Check: scribble}},
			CheckReadOnly: checked,
		})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			w := openTask(t, e)
			if string(w.Initial()) != string(before) {
				t.Errorf("initial %s, want the seed's JSON %s", w.Initial(), before)
			}
			for _, tool := range []string{"declared", "undeclared", "declared"} {
				_, _ = call(t, w, tool)
			}
			if _, err := w.Verify(VerifyContext{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	after, err := json.Marshal(seed)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("the seed changed (-before +after):\n%s", diff)
	}
	_, err = New(Definition[ledger]{Name: "ledger", TaskFiles: fstest.MapFS{}})
	if err == nil || !strings.Contains(err.Error(), "NewState and Seed are nil") {
		t.Errorf("no NewState and no Seed: error %v", err)
	}
}

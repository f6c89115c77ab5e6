package env

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

type idInput struct {
	ID string `json:"id"`
}

// memberTools write the member of items their input names ("items[id]"):
// touch changes it (its value, its tags in place) and appends a member;
// touch_then_fail does the same and fails; touch_other changes another
// member; remove drops the first member.
func memberTools() []Tool[ledger] {
	touch := func(s *ledger, id string) error {
		for i := range s.Items {
			if s.Items[i].ID == id {
				s.Items[i].Value += 10
				if len(s.Items[i].Tags) > 0 {
					s.Items[i].Tags[0] = "touched"
				}
				s.Items[i].Tags = append(s.Items[i].Tags, "more")
				s.Items = append(s.Items, counter{ID: fmt.Sprintf("N-%d", len(s.Items))})
				return nil
			}
		}
		return Errorf("not_found", "no item %s", id)
	}
	writes := []string{"items[id]"}
	return []Tool[ledger]{
		{Name: "touch", Writes: writes, Run: Typed(func(_ context.Context, s *ledger, in idInput) (any, error) {
			return "ok", touch(s, in.ID)
		})},
		{Name: "touch_then_fail", Writes: writes, Run: Typed(func(_ context.Context, s *ledger, in idInput) (any, error) {
			for i := range s.Items { // every member of that id, as a tool might
				if s.Items[i].ID == in.ID {
					s.Items[i].Value = 99
					s.Items[i].Tags[0] = "failed"
				}
			}
			if err := touch(s, in.ID); err != nil {
				return nil, err
			}
			return nil, Errorf("invalid_state", "gave up halfway")
		})},
		{Name: "touch_other", Writes: writes, Run: Typed(func(_ context.Context, s *ledger, in idInput) (any, error) {
			for i := range s.Items {
				if s.Items[i].ID != in.ID {
					s.Items[i].Value = -1
					return "ok", nil
				}
			}
			return "ok", nil
		})},
		{Name: "remove", Writes: writes, Run: Typed(func(_ context.Context, s *ledger, in idInput) (any, error) {
			s.Items = s.Items[1:]
			return "ok", nil
		})},
	}
}

func callWith(t *testing.T, call func(World, context.Context, string, json.RawMessage) (json.RawMessage, error), w World, tool, input string) error {
	t.Helper()
	_, err := call(w, context.Background(), tool, json.RawMessage(input))
	return err
}

// A tool that declares it writes one member of a list is undone exactly when
// it fails, member, what the member refers to and appended members alike,
// whether its list was copied (its first write of the rollout, the checked
// mode) or only the member was kept; the successful calls' changes stand,
// and the verifier's initial state is the state the rollout started from.
func TestMemberWritesRollBack(t *testing.T) {
	for _, checked := range []bool{false, true} {
		for how, call := range callers {
			t.Run(fmt.Sprintf("checked=%v/%s", checked, how), func(t *testing.T) {
				var initialSeen string
				check := func(_, initial *ledger, _ VerifyContext) []CheckResult {
					data, _ := json.Marshal(initial)
					initialSeen = string(data)
					return []CheckResult{Check("ok", true, "")}
				}
				w := openTask(t, ledgerEnv(t, memberTools(), checked, check))
				steps := []struct {
					tool, id string
					fails    bool
				}{
					{"touch", "C-1", false},
					{"touch_then_fail", "C-2", true},
					{"touch", "C-2", false},
					{"touch_then_fail", "C-1", true},
					{"touch_then_fail", "N-2", true},
					{"touch", "N-3", false},
					{"touch_then_fail", "C-2", true},
				}
				for _, st := range steps {
					before := state(t, w)
					err := callWith(t, call, w, st.tool, `{"id":"`+st.id+`"}`)
					if (err != nil) != st.fails {
						t.Fatalf("%s %s: %v", st.tool, st.id, err)
					}
					after := state(t, w)
					if st.fails && after != before {
						t.Fatalf("%s %s failed and left\n%s\nwant\n%s", st.tool, st.id, after, before)
					}
					if !st.fails && after == before {
						t.Fatalf("%s %s changed nothing", st.tool, st.id)
					}
				}
				final := state(t, w)
				for _, want := range []string{`{"id":"C-1","value":11,"tags":["touched","b","more"]}`, `{"id":"C-2","value":12,"tags":["touched","more"]}`, `{"id":"N-3","value":10,"tags":["more"]}`} {
					if !strings.Contains(final, want) {
						t.Errorf("final state lacks %s:\n%s", want, final)
					}
				}
				if _, err := w.Verify(VerifyContext{}); err != nil {
					t.Fatal(err)
				}
				if initialSeen != string(w.Initial()) {
					t.Errorf("the verifier's initial state is\n%s\nwant the rollout's first state\n%s", initialSeen, w.Initial())
				}
			})
		}
	}
}

// Where the member cannot be told for sure, the list is copied whole and the
// call still undone exactly: two members with the id, an input property
// whose name differs from the declared one only in case (encoding/json
// decodes it into the tool's input all the same), an input without it.
func TestMemberWritesOfAnUnclearMember(t *testing.T) {
	dup := func() *ledger {
		s := newLedger()
		s.Items = append(s.Items, counter{ID: "C-1", Value: 5, Tags: []string{"dup"}})
		return s
	}
	tests := []struct {
		name, input string
		state       func() *ledger
	}{
		{"two members with the id", `{"id":"C-1"}`, dup},
		{"a property in another case", `{"ID":"C-1"}`, newLedger},
		{"a property in another case after it", `{"id":"C-2","ID":"C-1"}`, newLedger},
		{"no id", `{}`, dup},
	}
	for _, tt := range tests {
		for how, call := range callers {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				e, err := New(Definition[ledger]{Name: "ledger", TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}},
					NewState: func(Task) (*ledger, error) { return tt.state(), nil }, Tools: memberTools()})
				if err != nil {
					t.Fatal(err)
				}
				w := openTask(t, e)
				// a first write makes the list the state's own
				if err := callWith(t, call, w, "touch", `{"id":"C-2"}`); err != nil {
					t.Fatal(err)
				}
				before := state(t, w)
				if err := callWith(t, call, w, "touch_then_fail", tt.input); err == nil {
					t.Fatal("touch_then_fail succeeded")
				}
				if after := state(t, w); after != before {
					t.Errorf("state after the failed call\n%s\nwant\n%s", after, before)
				}
			})
		}
	}
}

// In the checked mode a tool that changes another member than the one its
// Writes names, or removes members, fails with writes_violated and is
// undone.
func TestMemberWritesChecked(t *testing.T) {
	for _, tool := range []string{"touch_other", "remove"} {
		t.Run(tool, func(t *testing.T) {
			w := openTask(t, ledgerEnv(t, memberTools(), true, nil))
			before := state(t, w)
			_, err := call(t, w, tool)
			if AsToolError(err).Code != "writes_violated" {
				t.Fatalf("%s: %v, want writes_violated", tool, err)
			}
			if after := state(t, w); after != before {
				t.Errorf("state after %s\n%s\nwant\n%s", tool, after, before)
			}
		})
	}
}

// A member write whose tool never returns is given up with the state from
// before its call: the member as it was, not as the tool is writing it.
func TestAbandonedMemberWrite(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	stuck := Tool[ledger]{Name: "stuck", Writes: []string{"items[id]"}, Run: Typed(func(_ context.Context, s *ledger, in idInput) (any, error) {
		s.Items[0].Value = 1000
		s.Items[0].Tags[0] = "stuck"
		close(entered)
		<-release
		s.Items[0].Value = 2000
		return "ok", nil
	})}
	w := openTask(t, ledgerEnv(t, append(memberTools(), stuck), false, nil))
	if err := callWith(t, callers["here"], w, "touch", `{"id":"C-1"}`); err != nil {
		t.Fatal(err)
	}
	before := state(t, w)
	done := make(chan struct{})
	go func() {
		defer close(done)
		callWith(t, callers["here"], w, "stuck", `{"id":"C-1"}`)
	}()
	<-entered
	if err := w.(abandoner).Abandon(); AsToolError(err).Code != "tool_abandoned" {
		t.Fatalf("Abandon: %v", err)
	}
	if after := state(t, w); after != before {
		t.Errorf("state after Abandon\n%s\nwant\n%s", after, before)
	}
	close(release)
	<-done
	if after := state(t, w); after != before {
		t.Errorf("state once the tool returned\n%s\nwant\n%s", after, before)
	}
}

// New refuses a member write of what is not a list of objects with a string
// id, and a field named both alone and with a member.
func TestMemberWritesDeclared(t *testing.T) {
	tests := []struct {
		writes []string
		want   string
	}{
		{[]string{"now[id]"}, "now is not a list of objects"},
		{[]string{"notes[id]"}, "notes is not a list of objects"},
		{[]string{"items", "items[id]"}, "both alone and with a member"},
		{[]string{"items[]"}, `"items[]", which is not a field`},
		{[]string{"nothing[id]"}, `"nothing", which is not a field`},
	}
	for _, tt := range tests {
		_, err := New(Definition[ledger]{Name: "ledger", TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}},
			NewState: func(Task) (*ledger, error) { return newLedger(), nil },
			Tools:    []Tool[ledger]{{Name: "t", Writes: tt.writes, Run: func(context.Context, *ledger, json.RawMessage) (any, error) { return nil, nil }}}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Writes %q: %v, want an error with %q", tt.writes, err, tt.want)
		}
	}
	type noID struct {
		Name string `json:"name"`
	}
	type withList struct {
		List []noID `json:"list"`
	}
	_, err := New(Definition[withList]{Name: "x", TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}},
		NewState: func(Task) (*withList, error) { return &withList{}, nil },
		Tools:    []Tool[withList]{{Name: "t", Writes: []string{"list[name]"}, Run: func(context.Context, *withList, json.RawMessage) (any, error) { return nil, nil }}}})
	if err == nil || !strings.Contains(err.Error(), `no string field "id"`) {
		t.Errorf("a list without ids: %v", err)
	}
}

func TestInputString(t *testing.T) {
	tests := []struct {
		input, key, want string
		ok               bool
	}{
		{`{"id":"C-1"}`, "id", "C-1", true},
		{`{"a":1,"id":"C-\u0031","b":[1,{"id":"x"}]}`, "id", "C-1", true},
		{`{"id":"C-1","id":"C-2"}`, "id", "C-2", true},
		{`{"id":1}`, "id", "", false},
		{`{"ID":"C-1"}`, "id", "", false},
		{`{"id":"C-1","Id":"C-2"}`, "id", "", false},
		{`{}`, "id", "", false},
		{`[]`, "id", "", false},
		{`{"id":`, "id", "", false},
	}
	for _, tt := range tests {
		got, ok := inputString(json.RawMessage(tt.input), tt.key)
		if got != tt.want || ok != tt.ok {
			t.Errorf("inputString(%s, %q) = %q, %v; want %q, %v", tt.input, tt.key, got, ok, tt.want, tt.ok)
		}
	}
}

// inputString reads a compact input in place as encoding/json reads any
// input: the same id, or none, for every valid JSON object.
func FuzzInputString(f *testing.F) {
	for _, seed := range []string{`{"id":"C-1"}`, `{"a":[1,{"id":"x"}],"id":"C-\u00e9"}`, `{"id":"a","id":"b"}`, `{"iD":"x"}`,
		`{"id":"x","Id":"y"}`, `{"id":1}`, `{}`, `{"id":"\ud800"}`, `{"id":"a\"b"}`, `{ "id" : "x" }`, `{"k":"\u212a","id":"v"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		if !json.Valid(input) {
			return
		}
		got, ok := inputString(input, "id")
		want, wantOK := decodedInputString(input, "id")
		if got != want || ok != wantOK {
			t.Fatalf("inputString(%s) = %q, %v; encoding/json reads %q, %v", input, got, ok, want, wantOK)
		}
	})
}

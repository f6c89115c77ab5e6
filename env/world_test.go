package env

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// counters is a state that Clone copies field by field.
type counters struct {
	Now    string            `json:"now"`
	Items  []counter         `json:"items"`
	Labels map[string]string `json:"labels"`
	Owner  *string           `json:"owner"`
}

type counter struct {
	ID    string   `json:"id"`
	Value int      `json:"value"`
	Tags  []string `json:"tags"`
}

// loose is a state Clone has to copy through JSON: it holds an interface.
type loose struct {
	Items []counter      `json:"items"`
	Extra map[string]any `json:"extra"`
}

func worldOf[S any](t *testing.T, state func() *S, tools []Tool[S], checkReadOnly bool) World {
	t.Helper()
	return openTask(t, envOf(t, state, tools, checkReadOnly))
}

func envOf[S any](t *testing.T, state func() *S, tools []Tool[S], checkReadOnly bool) Environment {
	t.Helper()
	e, err := New(Definition[S]{
		Name:          "box",
		TaskFiles:     fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(oneTask)}},
		NewState:      func(Task) (*S, error) { return state(), nil },
		Tools:         tools,
		CheckReadOnly: checkReadOnly,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newCounters() *counters {
	owner := "USR-1"
	return &counters{Now: "2026-03-16T09:00:00Z", Items: []counter{{"C-1", 1, []string{"a"}}, {"C-2", 2, nil}}, Labels: map[string]string{"k": "v"}, Owner: &owner}
}

func newLoose() *loose {
	return &loose{Items: []counter{{"C-1", 1, []string{"a"}}}, Extra: map[string]any{"n": 1.0, "list": []any{"x"}}}
}

// scribble changes every part of a state it can reach.
func scribbleCounters(s *counters) {
	s.Items[0].Value = 99
	s.Items[0].Tags[0] = "changed"
	s.Items = append(s.Items, counter{ID: "C-9"})
	s.Labels["k"] = "changed"
	*s.Owner = "USR-9"
}

func scribbleLoose(s *loose) {
	s.Items[0].Tags[0] = "changed"
	s.Extra["list"].([]any)[0] = "changed"
	s.Extra["new"] = true
}

// toolsThatScribble are a write tool that fails, one that panics, a
// read-only tool that writes and a read-only tool that fails without
// writing.
func toolsThatScribble[S any](scribble func(*S)) []Tool[S] {
	return []Tool[S]{
		{Name: "write_then_fail", Run: func(_ context.Context, s *S, _ json.RawMessage) (any, error) {
			scribble(s)
			return nil, Errorf("invalid_state", "gave up halfway")
		}},
		{Name: "write_then_panic", Run: func(_ context.Context, s *S, _ json.RawMessage) (any, error) {
			scribble(s)
			panic("tool bug")
		}},
		{Name: "read_but_write", ReadOnly: true, Run: func(_ context.Context, s *S, _ json.RawMessage) (any, error) {
			scribble(s)
			return "ok", nil
		}},
		{Name: "read_then_fail", ReadOnly: true, Run: func(_ context.Context, s *S, _ json.RawMessage) (any, error) {
			return nil, Errorf("not_found", "nothing here")
		}},
		{Name: "read", ReadOnly: true, Run: func(_ context.Context, s *S, _ json.RawMessage) (any, error) { return "ok", nil }},
	}
}

// A failing tool leaves the state exactly as before, whether the state is
// snapshot by a typed copy or through JSON, and a read-only tool that writes
// is caught by CheckReadOnly and undone.
func TestFailingToolsLeaveTheStateAsBefore(t *testing.T) {
	worlds := map[string]func(t *testing.T) World{
		"typed copy": func(t *testing.T) World {
			return worldOf(t, newCounters, toolsThatScribble(scribbleCounters), true)
		},
		"json": func(t *testing.T) World { return worldOf(t, newLoose, toolsThatScribble(scribbleLoose), true) },
	}
	tests := []struct {
		tool string
		code string // "" when the call succeeds
	}{
		{"write_then_fail", "invalid_state"},
		{"write_then_panic", "tool_panic"},
		{"read_but_write", "read_only_violated"},
		{"read_then_fail", "not_found"},
		{"read", ""},
	}
	for name, open := range worlds {
		for _, tt := range tests {
			for how, call := range callers {
				t.Run(name+"/"+tt.tool+"/"+how, func(t *testing.T) {
					w := open(t)
					before, err := w.State()
					if err != nil {
						t.Fatal(err)
					}
					_, err = call(w, context.Background(), tt.tool, json.RawMessage(`{}`))
					code := ""
					if err != nil {
						code = AsToolError(err).Code
					}
					if code != tt.code {
						t.Fatalf("error code %q, want %q (%v)", code, tt.code, err)
					}
					after, err := w.State()
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(string(before), string(after)); diff != "" {
						t.Errorf("state changed (-before +after):\n%s", diff)
					}
				})
			}
		}
	}
}

// callers are the two ways a world runs a call: Call, on a goroutine of
// its own, and CallHere, on the caller's.
var callers = map[string]func(w World, ctx context.Context, tool string, input json.RawMessage) (json.RawMessage, error){
	"call": World.Call,
	"here": func(w World, ctx context.Context, tool string, input json.RawMessage) (json.RawMessage, error) {
		return w.(interface {
			CallHere(context.Context, string, json.RawMessage) (json.RawMessage, error)
		}).CallHere(ctx, tool, input)
	},
}

// Without CheckReadOnly, a read-only tool takes no snapshot: what it
// writes stays (the declaration is the environment's promise).
func TestReadOnlyTakesNoSnapshot(t *testing.T) {
	w := worldOf(t, newCounters, toolsThatScribble(scribbleCounters), false)
	if _, err := w.Call(context.Background(), "read_but_write", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	after, err := w.State()
	if err != nil {
		t.Fatal(err)
	}
	var s counters
	if err := json.Unmarshal(after, &s); err != nil {
		t.Fatal(err)
	}
	if s.Items[0].Value != 99 {
		t.Errorf("the write of an unchecked read-only tool is gone: %s", after)
	}
}

// The verifier gets copies of the initial and final states that are equal
// to their JSON round trips and that it may change without harm.
func TestVerifierGetsCopies(t *testing.T) {
	var seen []string
	check := func(final, initial *counters, _ VerifyContext) []CheckResult {
		a, _ := json.Marshal(initial)
		b, _ := json.Marshal(final)
		seen = append(seen, string(a), string(b))
		scribbleCounters(final)
		scribbleCounters(initial)
		return []CheckResult{Check("ok", true, "")}
	}
	e, err := New(Definition[counters]{
		Name:      "box",
		TaskFiles: fstest.MapFS{"tasks/TASK-001.json": {Data: []byte(`{"id":"TASK-001","title":"t","instruction":"i","verifierId":"VER-001"}`)}},
		NewState:  func(Task) (*counters, error) { return newCounters(), nil },
		Tools: []Tool[counters]{{Name: "bump", Run: func(_ context.Context, s *counters, _ json.RawMessage) (any, error) {
			s.Items[1].Value++
			return "ok", nil
		}}},
		Verifiers: []Verifier[counters]{{ID: "VER-001", TaskID: "TASK-001", Name: "v", Check: check}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := e.Tasks()
	w, err := e.Open(tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Call(context.Background(), "bump", nil); err != nil {
		t.Fatal(err)
	}
	final, _ := w.State()
	for range 2 {
		if _, err := w.Verify(VerifyContext{}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{string(w.Initial()), string(final), string(w.Initial()), string(final)}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("states the verifier saw (-want +got):\n%s", diff)
	}
	if now, _ := w.State(); string(now) != string(final) {
		t.Errorf("the verifier changed the world's state: %s", now)
	}
}

type withTime struct {
	At time.Time `json:"at"`
}

type withHidden struct {
	Shown  string `json:"shown"`
	Hidden string `json:"-"`
	secret string
}

type recursive struct {
	Name     string       `json:"name"`
	Children []*recursive `json:"children"`
}

// Clone gives what a JSON round trip gives, by field copies where it can.
func TestClone(t *testing.T) {
	roundTrip := func(t *testing.T, v, into any) {
		t.Helper()
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("counters", func(t *testing.T) {
		s := newCounters()
		s.Items = append(s.Items, counter{ID: "C-3", Tags: []string{}})
		c, err := Clone(s)
		if err != nil {
			t.Fatal(err)
		}
		var want counters
		roundTrip(t, s, &want)
		if diff := cmp.Diff(&want, c); diff != "" {
			t.Errorf("clone (-round trip +clone):\n%s", diff)
		}
		scribbleCounters(c)
		if diff := cmp.Diff(&want, s); diff != "" {
			t.Errorf("changing the clone changed the original:\n%s", diff)
		}
	})
	t.Run("recursive", func(t *testing.T) {
		s := &recursive{Name: "a", Children: []*recursive{{Name: "b"}, nil}}
		c, err := Clone(s)
		if err != nil {
			t.Fatal(err)
		}
		var want recursive
		roundTrip(t, s, &want)
		if diff := cmp.Diff(&want, c); diff != "" {
			t.Errorf("clone (-round trip +clone):\n%s", diff)
		}
	})
	t.Run("hidden fields go as in JSON", func(t *testing.T) {
		c, err := Clone(&withHidden{Shown: "s", Hidden: "h", secret: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if *c != (withHidden{Shown: "s"}) {
			t.Errorf("clone %+v, want only the shown field", *c)
		}
	})
	t.Run("time", func(t *testing.T) {
		at := time.Date(2026, 3, 16, 9, 0, 0, 0, time.FixedZone("X", 3600))
		c, err := Clone(&withTime{At: at})
		if err != nil {
			t.Fatal(err)
		}
		if !c.At.Equal(at) {
			t.Errorf("clone %v, want %v", c.At, at)
		}
	})
	for _, tt := range []struct {
		name string
		ok   bool
		copy func() bool
	}{
		{"counters", true, func() bool { return copyable(typeOf[counters]()) }},
		{"recursive", true, func() bool { return copyable(typeOf[recursive]()) }},
		{"interface", false, func() bool { return copyable(typeOf[loose]()) }},
		{"json:-", false, func() bool { return copyable(typeOf[withHidden]()) }},
		{"marshaler", false, func() bool { return copyable(typeOf[withTime]()) }},
	} {
		if got := tt.copy(); got != tt.ok {
			t.Errorf("copyable(%s) = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

type freshType struct {
	Items []counter  `json:"items"`
	Self  *freshType `json:"self"`
}

// Goroutines cloning a type never cloned before share its copier safely
// (run with -race).
func TestCloneConcurrently(t *testing.T) {
	s := &freshType{Items: []counter{{"C-1", 1, []string{"a"}}}, Self: &freshType{}}
	done := make(chan *freshType)
	for range 8 {
		go func() {
			c, err := Clone(s)
			if err != nil {
				t.Error(err)
			}
			done <- c
		}()
	}
	for range 8 {
		if c := <-done; c == nil || !cmp.Equal(s, c) {
			t.Errorf("clone %+v, want %+v", c, s)
		}
	}
}

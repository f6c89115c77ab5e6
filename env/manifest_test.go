package env

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Manifest // checked when err is ""
		err  string
	}{
		{"seed", `{"name":"demo","template":"crm","templateVersion":"0.3.0","entrypoint":"./index.ts","tools":[]}`,
			Manifest{Name: "demo", Template: "crm", TemplateVersion: "0.3.0", Entrypoint: "index.ts", Tools: []string{}}, ""},
		{"go package folder", `{"name":"crm","entrypoint":"fixtures/crm","tools":["core"]}`,
			Manifest{Name: "crm", Entrypoint: "fixtures/crm", Tools: []string{"core"}}, ""},
		{"cleaned", `{"name":"x","entrypoint":"./envs//x/"}`, Manifest{Name: "x", Entrypoint: "envs/x", Tools: []string{}}, ""},
		{"project root", `{"name":"x","entrypoint":"."}`, Manifest{Name: "x", Entrypoint: ".", Tools: []string{}}, ""},
		{"inner dots stay inside", `{"name":"x","entrypoint":"envs/../x"}`, Manifest{Name: "x", Entrypoint: "x", Tools: []string{}}, ""},
		{"unknown field", `{"name":"x","entrypoint":"x","module":"y"}`, Manifest{}, `unknown field "module"`},
		{"two values", `{"name":"x","entrypoint":"x"} {}`, Manifest{}, "more than one JSON value"},
		{"key in another case", `{"Name":"x","entrypoint":"x"}`, Manifest{}, `not a valid manifest: key "Name" is spelt "name"; keys match exactly, letter case included`},
		{"key in capitals", `{"name":"x","entrypoint":"x","BASELINES":["result"]}`, Manifest{}, `key "BASELINES" is spelt "baselines"`},
		{"key twice", `{"name":"x","entrypoint":"x","name":"y"}`, Manifest{}, `not a valid manifest: key "name" is given twice; keep one`},
		{"key twice in two cases", `{"name":"x","entrypoint":"x","NAME":"y"}`, Manifest{}, `key "NAME" is spelt "name"`},
		{"not JSON", `name: x`, Manifest{}, "not a valid manifest"},
		{"no name", `{"entrypoint":"x"}`, Manifest{}, "name: empty name"},
		{"name with slash", `{"name":"a/b","entrypoint":"x"}`, Manifest{}, "path separator"},
		{"no entrypoint", `{"name":"x"}`, Manifest{}, "missing entrypoint"},
		{"absolute", `{"name":"x","entrypoint":"/srv/x"}`, Manifest{}, "relative to the project root"},
		{"drive letter", `{"name":"x","entrypoint":"C:/x"}`, Manifest{}, "relative to the project root"},
		{"backslash", `{"name":"x","entrypoint":"envs\\x"}`, Manifest{}, "forward slashes"},
		{"parent", `{"name":"x","entrypoint":".."}`, Manifest{}, "leaves the project"},
		{"escapes after cleaning", `{"name":"x","entrypoint":"envs/../../x"}`, Manifest{}, "leaves the project"},
		{"control character", `{"name":"x","entrypoint":"envs/\u0007"}`, Manifest{}, "control characters"},
		{"tools not strings", `{"name":"x","entrypoint":"x","tools":[1]}`, Manifest{}, "not a valid manifest"},
		{"baselines", `{"name":"x","entrypoint":"x","baselines":["result","state-diff"]}`,
			Manifest{Name: "x", Entrypoint: "x", Tools: []string{}, Baselines: []string{"result", "state-diff"}}, ""},
		{"baselines null is all", `{"name":"x","entrypoint":"x","baselines":null}`, Manifest{Name: "x", Entrypoint: "x", Tools: []string{}}, ""},
		{"baselines empty", `{"name":"x","entrypoint":"x","baselines":[]}`, Manifest{}, "baselines names no artifact"},
		{"baselines unknown", `{"name":"x","entrypoint":"x","baselines":["result","trace"]}`, Manifest{}, `unknown artifact "trace"; the artifacts are result, state-diff, calls`},
		{"baselines file name", `{"name":"x","entrypoint":"x","baselines":["calls.json"]}`, Manifest{}, `unknown artifact "calls.json"`},
		{"baselines case", `{"name":"x","entrypoint":"x","baselines":["Calls"]}`, Manifest{}, `unknown artifact "Calls"`},
		{"baselines twice", `{"name":"x","entrypoint":"x","baselines":["calls","calls"]}`, Manifest{}, `"calls" is named twice`},
		{"baselines not strings", `{"name":"x","entrypoint":"x","baselines":"calls"}`, Manifest{}, "not a valid manifest"},
		{"redact", `{"name":"x","entrypoint":"x","redact":[{"artifact":"calls","path":"/*/output/id"},{"artifact":"result","path":"/agentOutput","pattern":"[0-9]+","replace":""}]}`,
			Manifest{Name: "x", Entrypoint: "x", Tools: []string{}, Redact: []Redaction{RedactWhole("calls", "/*/output/id"), RedactMatch("result", "/agentOutput", "[0-9]+", "")}}, ""},
		{"redact null is none", `{"name":"x","entrypoint":"x","redact":null}`, Manifest{Name: "x", Entrypoint: "x", Tools: []string{}}, ""},
		{"redact empty", `{"name":"x","entrypoint":"x","redact":[]}`, Manifest{}, `m.json: redact: the list is empty; give at least one rule, or leave "redact" out`},
		{"redact not a list", `{"name":"x","entrypoint":"x","redact":{}}`, Manifest{}, "m.json: redact: must be a list of rules, not an object"},
		{"redact unknown artifact", `{"name":"x","entrypoint":"x","redact":[{"artifact":"trace","path":"/a"}]}`, Manifest{}, `m.json: redact[0].artifact: unknown artifact "trace"`},
		{"redact unknown key", `{"name":"x","entrypoint":"x","redact":[{"artifact":"calls","path":"/a"},{"artifact":"calls","path":"/b","colour":"x"}]}`, Manifest{}, `m.json: redact[1]: unknown key "colour"`},
		{"redact key case", `{"name":"x","entrypoint":"x","redact":[{"artifact":"calls","path":"/a","Pattern":"x"}]}`, Manifest{}, `m.json: redact[0]: key "Pattern" is spelt "pattern"`},
		{"redact pattern", `{"name":"x","entrypoint":"x","redact":[{"artifact":"calls","path":"/a","pattern":"("}]}`, Manifest{}, "m.json: redact[0].pattern: does not compile as RE2"},
		{"redact path", `{"name":"x","entrypoint":"x","redact":[{"artifact":"calls","path":"a"}]}`, Manifest{}, `m.json: redact[0].path: "a" is not a JSON Pointer`},
		{"redact twice", `{"name":"x","entrypoint":"x","redact":[{"artifact":"calls","path":"/a"},{"artifact":"calls","path":"/a"}]}`, Manifest{}, "m.json: redact[1]: is the same rule as redact[0]"},
		{"redact key in capitals", `{"name":"x","entrypoint":"x","Redact":[{"artifact":"calls","path":"/a"}]}`, Manifest{}, `key "Redact" is spelt "redact"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseManifest("m.json", []byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseManifest = %v, want an error containing %q", err, tt.err)
				}
				if !strings.HasPrefix(err.Error(), "m.json: ") || strings.Contains(err.Error(), "\n") {
					t.Errorf("error %q is not one line naming the file", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseManifest: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("manifest (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadManifest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, ManifestPath(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("demo", `{"name":"demo","entrypoint":"envs/demo"}`)
	write("other", `{"name":"demo","entrypoint":"envs/demo"}`)

	m, err := LoadManifest(dir, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Dir(dir), filepath.Join(dir, "envs", "demo"); got != want {
		t.Errorf("Dir = %s, want %s", got, want)
	}
	_, err = LoadManifest(dir, "other")
	if err == nil || !strings.Contains(err.Error(), `name "demo" does not match its folder "other"`) {
		t.Errorf("LoadManifest with a mismatched name = %v", err)
	}
	_, err = LoadManifest(dir, "absent")
	if !errors.Is(err, ErrNoManifest) || !strings.Contains(err.Error(), "run oracle init absent") {
		t.Errorf("LoadManifest of a missing manifest = %v, want ErrNoManifest naming the fix", err)
	}
	_, err = LoadManifest(dir, "../demo")
	if err == nil || errors.Is(err, ErrNoManifest) {
		t.Errorf("LoadManifest(../demo) = %v, want a name error", err)
	}
}

// FuzzParseManifest checks the parser never panics, that what it accepts
// keeps its entrypoint inside the project, and that it survives a round trip.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"name":"demo","template":"crm","templateVersion":"0.3.0","entrypoint":"./index.ts","tools":[]}`))
	f.Add([]byte(`{"name":"crm","entrypoint":"fixtures/crm"}`))
	f.Add([]byte(`{"name":"x","entrypoint":"a/../../b","tools":null}`))
	f.Add([]byte(`{"name":"x","entrypoint":"C:\\x"}`))
	f.Add([]byte(`{"name":"..","entrypoint":"."}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"name":"x","entrypoint":".","redact":[{"artifact":"calls","path":"/*/output/id"},{"artifact":"result","path":"/**/a~2b","pattern":"<[0-9]+>","replace":""}]}`))
	f.Add([]byte(`{"name":"x","entrypoint":".","redact":[{"artifact":"calls","path":"/a","pattern":"(","replace":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest("m.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "m.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if CheckName(m.Name) != nil {
			t.Fatalf("accepted an unsafe name %q", m.Name)
		}
		if m.Entrypoint == "" || m.Entrypoint == ".." || strings.HasPrefix(m.Entrypoint, "../") || strings.HasPrefix(m.Entrypoint, "/") || filepath.IsAbs(m.Entrypoint) {
			t.Fatalf("accepted an entrypoint outside the project: %q", m.Entrypoint)
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseManifest("m.json", out)
		if err != nil {
			t.Fatalf("round trip of %s: %v", out, err)
		}
		if diff := cmp.Diff(m, back); diff != "" {
			t.Fatalf("round trip changed the manifest (-first +second):\n%s", diff)
		}
	})
}

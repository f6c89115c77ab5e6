package env

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModuleManifest: an entrypoint that names a module is relative to the
// environment's folder and must stay in the project; its "agents" are agent
// references by name, their module: and replay: paths made absolute from
// that folder.
func TestModuleManifest(t *testing.T) {
	for _, c := range []struct {
		entry, lang, clean, err string
	}{
		{"./index.ts", LangNode, "index.ts", ""},
		{"src/env.MJS", LangNode, "src/env.MJS", ""},
		{"./env.py", LangPython, "env.py", ""},
		{"../../../src/env.js", LangNode, "../../../src/env.js", ""},
		{"../../../../env.ts", "", "", "leaves the project"},
		{"/abs/env.ts", "", "", "must be relative"},
		{"fixtures/crm", "", "fixtures/crm", ""},
	} {
		data := `{"name":"shop","template":"","templateVersion":"","entrypoint":"` + c.entry + `","tools":[],"agents":{"solver":"module:tests/solver.ts","model":"openai:gpt-x"}}`
		m, err := ParseManifest("m.json", []byte(data))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.entry, err, c.err)
			}
			continue
		}
		if err != nil || m.Entrypoint != c.clean || EntrypointLang(m.Entrypoint) != c.lang || m.Module() != (c.lang != "") {
			t.Errorf("%s: %+v %v", c.entry, m, err)
			continue
		}
		if !m.Module() {
			continue
		}
		project := t.TempDir()
		folder := filepath.Join(project, ".silo", "environments", "shop")
		if m.Dir(project) != folder || m.EntrypointFile(project) != filepath.Join(folder, filepath.FromSlash(c.clean)) {
			t.Errorf("%s: folder %s, file %s", c.entry, m.Dir(project), m.EntrypointFile(project))
		}
		agents := m.DeclaredAgents(project)
		if agents["solver"] != "module:"+filepath.Join(folder, "tests", "solver.ts") || agents["model"] != "openai:gpt-x" {
			t.Errorf("%s: agents %v", c.entry, agents)
		}
	}
	for _, bad := range []string{`{"":"exec:true"}`, `{"a/b":"exec:true"}`, `{"solver":" "}`} {
		data := `{"name":"shop","template":"","templateVersion":"","entrypoint":"./index.ts","tools":[],"agents":` + bad + `}`
		if _, err := ParseManifest("m.json", []byte(data)); err == nil || !strings.Contains(err.Error(), "agents") {
			t.Errorf("agents %s: error %v", bad, err)
		}
	}
}

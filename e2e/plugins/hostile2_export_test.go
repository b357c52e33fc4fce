package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Exporting a stack with plugin resources and a secret provider config, with
// and without --show-secrets, then importing it: every secret is encrypted
// again, up is a no-op and destroy empties the store.
func TestHostile2ExportImport(t *testing.T) {
	for _, show := range []bool{false, true} {
		name := "encrypted"
		if show {
			name = "show-secrets"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			const tok, pass = "tok-h2-5e5e5e5e", "pass-h2-7a7a7a7a"
			e.ok("config", "set", "--secret", "testprov:token", tok)
			e.spec("one", map[string]any{
				"resources": []any{thing("a", map[string]any{"tok": map[string]any{"$config": "testprov:token"}, "pass": map[string]any{"$secret": pass}})},
				"outputs":   map[string]any{"pass": map[string]any{"$output": "a.pass"}},
			})
			e.spec("two", map[string]any{
				"resources": []any{thing("c", map[string]any{"from": map[string]any{"$stack": "one.pass"}})},
			})
			e.ok("up", "--yes")
			dir := t.TempDir()
			for _, p := range []string{"one", "two"} {
				args := []string{"stack", "export", "--project", p, "--file", filepath.Join(dir, p+".json")}
				if show {
					args = append(args, "--show-secrets")
				}
				e.ok(args...)
			}
			if show {
				data, _ := os.ReadFile(filepath.Join(dir, "one.json"))
				if !strings.Contains(string(data), tok) || !strings.Contains(string(data), pass) {
					t.Fatalf("--show-secrets export lacks the plaintext:\n%s", data)
				}
			}
			var runs []result
			for _, p := range []string{"one", "two"} {
				runs = append(runs, e.ok("stack", "import", "--project", p, "--file", filepath.Join(dir, p+".json")))
			}
			e.noLeak(tok, runs...)
			e.noLeak(pass, runs...)
			got, r := e.counts("up")
			want(t, "up after import", got, r, map[string]int{"create": 0, "update": 0, "create-replacement": 0, "delete": 0, "same": 2})
			e.noLeak(tok, r)
			e.noLeak(pass, r)
			if got := e.outputs("one", true)["pass"]; got != pass {
				t.Fatalf("stack output pass after import = %v", got)
			}
			e.ok("refresh", "--yes")
			e.noLeak(tok)
			e.noLeak(pass)
			e.destroyAll()
		})
	}
}

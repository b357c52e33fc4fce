package plugins

import (
	"strings"
	"testing"
)

// TestHostileSecretInPluginLog: a plugin that does not accept secrets is
// sent their plaintext; when it logs one (testprov logs its `warn` input),
// neither the output, --json, nor --debug shows it. The same holds for a
// secret config value, which every plugin receives in plain.
func TestHostileSecretInPluginLog(t *testing.T) {
	for _, accept := range []string{"false", "true"} {
		t.Run("accept_secrets="+accept, func(t *testing.T) {
			e := newEnv(t)
			e.extra = append(e.extra, "TESTPROV_ACCEPT_SECRETS="+accept)
			e.ok("config", "set", "--secret", "testprov:token", "tok-PLAIN-5150")
			e.spec("one", map[string]any{"resources": []any{
				thing("a", map[string]any{"pw": map[string]any{"$secret": "pw-PLAIN-4242"}}),
				thing("b", map[string]any{"warn": map[string]any{"$output": "a.pw"}}),
				thing("c", map[string]any{"warn": map[string]any{"$config": "testprov:token"}}),
			}})
			for _, args := range [][]string{{"up", "--yes"}, {"up", "--yes", "--json", "--debug"}, {"refresh", "--yes", "--debug"}} {
				r := e.ok(args...)
				for _, plain := range []string{"pw-PLAIN-4242", "tok-PLAIN-5150"} {
					if strings.Contains(r.Stdout+r.Stderr, plain) {
						t.Errorf("runner %v shows the secret %s: %s", args, plain, r)
					}
				}
			}
			if s := e.stateFiles(); strings.Contains(s, "PLAIN-") {
				t.Errorf("the state holds a plaintext secret")
			}
		})
	}
}

package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

// noLeak fails the test when the plaintext is in any output of r, any file
// under .runner or the stack's config.
func (e *env) noLeak(plain string, rs ...result) {
	e.t.Helper()
	for _, r := range rs {
		if strings.Contains(r.Stdout+r.Stderr, plain) {
			e.t.Fatalf("the secret %q leaked into runner's output: %s", plain, r)
		}
	}
	if strings.Contains(e.stateFiles(), plain) {
		e.t.Fatalf("the secret %q is in plaintext under .runner", plain)
	}
	cfg, _ := os.ReadFile(filepath.Join(e.dir, "config", "pulumi", "Pulumi.dev.yaml"))
	if strings.Contains(string(cfg), plain) {
		e.t.Fatalf("the secret %q is in plaintext in the stack config:\n%s", plain, cfg)
	}
}

// isSecret reports whether a state value is a secret.
func isSecret(v any) bool {
	m, ok := v.(map[string]any)
	return ok && m[providertest.SigKey] == providertest.SecretSig
}

// A $secret input stays secret in its outputs, in state, and in every
// output of the CLI, whether the plugin accepts secrets or not; --show-secrets
// shows it.
func TestSecretInput(t *testing.T) {
	for _, accept := range []string{"", "false"} {
		t.Run("accept="+accept, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if accept != "" {
				e.extra = append(e.extra, "TESTPROV_ACCEPT_SECRETS="+accept)
			}
			const plain = "hunter2-s3cr3t-value"
			secretSpec(e, plain)
			runs := []result{e.ok("preview", "--json"), e.ok("up", "--yes", "--json", "--debug")}
			runs = append(runs, e.ok("up", "--yes", "--debug"), e.ok("stack", "output"), e.ok("stack", "export", "--project", "one"))
			e.noLeak(plain, runs...)

			rs := e.byURNName()
			if got := providertest.Unwrap(rs["a"]["inputs"].(map[string]any)["pass"]); got != plain {
				t.Fatalf("the plugin stored pass = %v", got)
			}
			st := e.exported("one", false)
			for _, c := range []struct{ res, key string }{{"a", "pass"}, {"b", "copy"}} {
				if !isSecret(st[c.res].Outputs[c.key]) || !isSecret(st[c.res].Inputs[c.key]) {
					t.Fatalf("%s.%s is not secret in state: inputs %v outputs %v", c.res, c.key, st[c.res].Inputs, st[c.res].Outputs)
				}
			}
			if st["a"].Outputs["color"] != "red" {
				t.Fatalf("a's color in state = %v", st["a"].Outputs["color"])
			}
			if got := e.outputs("one", false)["pass"]; got != "[secret]" {
				t.Fatalf("stack output pass = %v, want [secret]", got)
			}
			if got := e.outputs("one", true)["pass"]; got != plain {
				t.Fatalf("stack output --show-secrets pass = %v, want the plaintext", got)
			}
			must(t, "stack output --show-secrets", e.ok("stack", "output", "--show-secrets").Stdout, plain)
			got, r := e.counts("up")
			want(t, "second up", got, r, map[string]int{"update": 0, "create": 0, "create-replacement": 0})

		})
	}
}

// secretSpec declares a with the secret input pass, b copying it, and the
// stack output pass.
func secretSpec(e *env, pass string) {
	e.spec("one", map[string]any{
		"resources": []any{
			thing("a", map[string]any{"color": "red", "pass": map[string]any{"$secret": pass}}),
			thing("b", map[string]any{"copy": map[string]any{"$output": "a.pass"}}),
		},
		"outputs": map[string]any{"pass": map[string]any{"$output": "a.pass"}},
	})
}

// A changed secret is an update whose diff shows neither value, even with
// --debug.
func TestChangedSecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const plain, plain2 = "first-s3cr3t-value", "second-s3cr3t-value"
	secretSpec(e, plain)
	runs := []result{e.ok("up", "--yes")}
	secretSpec(e, plain2)
	runs = append(runs, e.ok("preview", "--debug"), e.ok("preview", "--json", "--debug"))
	got, r := e.counts("up", "--debug")
	want(t, "up of a changed secret", got, r, map[string]int{"update": 2, "create": 0, "create-replacement": 0})
	e.noLeak(plain, append(runs, r)...)
	e.noLeak(plain2, append(runs, r)...)
	if got := e.outputs("one", true)["pass"]; got != plain2 {
		t.Fatalf("stack output --show-secrets pass = %v after the change", got)
	}
}

// The secret testprov:token config key reaches the plugin and is never in
// plaintext in state, config or output.
func TestSecretProviderConfig(t *testing.T) {
	for _, accept := range []string{"", "false"} {
		t.Run("accept="+accept, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if accept != "" {
				e.extra = append(e.extra, "TESTPROV_ACCEPT_SECRETS="+accept)
			}
			secretProviderConfig(t, e)
		})
	}
}

func secretProviderConfig(t *testing.T, e *env) {
	const plain = "tok-9f8e7d6c5b4a"
	e.ok("config", "set", "--secret", "testprov:token", plain)
	e.spec("one", map[string]any{
		"resources": []any{thing("a", map[string]any{"tok": map[string]any{"$config": "testprov:token"}})},
	})
	runs := []result{e.ok("preview", "--json"), e.ok("up", "--yes", "--debug"), e.ok("config", "get", "testprov:store")}
	runs = append(runs, e.ok("stack", "export", "--project", "one"))
	e.noLeak(plain, runs...)
	if got := providertest.Unwrap(e.byURNName()["a"]["inputs"].(map[string]any)["tok"]); got != plain {
		t.Fatalf("the plugin stored tok = %v", got)
	}
	var prov *stateResource
	for _, r := range e.exported("one", true) {
		if strings.HasPrefix(r.Type, "pulumi:providers:testprov") {
			prov = &r
		}
	}
	if prov == nil {
		t.Fatalf("no testprov provider in state")
	}
	if v, ok := prov.Inputs["token"].(map[string]any); !ok || !strings.Contains(v["plaintext"].(string), plain) {
		t.Fatalf("the provider's token in state (decrypted) = %v", prov.Inputs["token"])
	}
}

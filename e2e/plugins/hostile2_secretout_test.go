package plugins

import (
	"strings"
	"testing"
)

// additionalSecretOutputs on a plugin resource: the output is secret in
// state, in stack outputs and in events, and never printed.
func TestHostile2AdditionalSecretOutputs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const plain = "plain-but-made-secret-4242"
	res := thing("a", map[string]any{"code": plain, "color": "red"})
	res["options"] = map[string]any{"additionalSecretOutputs": []string{"code"}}
	e.spec("one", map[string]any{
		"resources": []any{res, thing("b", map[string]any{"copy": map[string]any{"$output": "a.code"}})},
		"outputs":   map[string]any{"code": map[string]any{"$output": "a.code"}},
	})
	runs := []result{e.ok("preview", "--json", "--debug"), e.ok("up", "--yes", "--json", "--debug"), e.ok("up", "--yes"), e.ok("stack", "output"), e.ok("stack", "export", "--project", "one")}
	st := e.exported("one", false)
	if !isSecret(st["a"].Outputs["code"]) {
		t.Fatalf("a.code is not secret in state: %v", st["a"].Outputs)
	}
	if !isSecret(st["b"].Inputs["code"]) && !isSecret(st["b"].Inputs["copy"]) {
		t.Fatalf("b.copy (from a secret output) is not secret in state: %v", st["b"].Inputs)
	}
	if got := e.outputs("one", false)["code"]; got != "[secret]" {
		t.Fatalf("stack output code = %v, want [secret]", got)
	}
	// The input is plain (the user wrote it so); only outputs and what
	// flows from them must hide it: check the state's outputs text.
	for _, r := range runs {
		for _, ev := range events(r.Stdout) {
			if outs, ok := ev["outputs"].(map[string]any); ok && outs["code"] == plain {
				t.Fatalf("an event shows the secret output: %v", ev)
			}
		}
	}
	if r := e.ok("stack", "output"); strings.Contains(r.Stdout, plain) {
		t.Fatalf("stack output prints the secret output: %s", r)
	}
	got, r := e.counts("up")
	want(t, "up again", got, r, map[string]int{"update": 0, "create": 0, "create-replacement": 0})
	res["options"] = map[string]any{}
	e.spec("one", map[string]any{"resources": []any{res}})
	got, r = e.counts("up")
	t.Logf("dropping additionalSecretOutputs: %v", got)
	e.destroyAll()
}

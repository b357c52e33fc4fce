package pulumiprojects

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackReferenceOtherStack: a stack reference to another stack of an
// upstream project reads that stack, not the one being deployed: one
// that does not exist fails the reader, naming it, and is never answered
// with this stack's outputs.
func TestStackReferenceOtherStack(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{
		"a/Pulumi.yaml": "name: a\nruntime: yaml\noutputs:\n  v: from-dev\n",
		"b/Pulumi.yaml": "name: b\nruntime: yaml\nresources:\n  ref:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: organization/a/prod\noutputs:\n  got: ${ref.outputs[\"v\"]}\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      a: {path: a}\n      b: {path: b, dependsOn: [a]}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	if want := `stack reference "organization/a/prod": project a has no stack prod`; !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("the up does not say %q:\nstdout:\n%s\nstderr:\n%s", want, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "got: from-dev") {
		t.Errorf("the reference to stack prod read stack dev's outputs:\n%s", r.Stdout)
	}
}

// TestPluginLogMasksSecretConfig: a provider plugin that logs a secret
// config value (here the program put it in a plain input the plugin
// prints as a warning) shows it masked, as the program's own output is.
func TestPluginLogMasksSecretConfig(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, false)
	w.jsProject("p", "p", `
const token = new pulumi.Config().require("token");
new pulumi.CustomResource("testprov:index:Thing", "t", {warn: "the plugin saw " + token});
`)
	w.write(map[string]string{"runner.yaml": "providers:\n  e:\n    projects:\n      p: {path: p}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "p:token", secretToken)
	r := w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if !strings.Contains(r.Stdout, "the plugin saw [secret]") {
		t.Errorf("the plugin's warning is not shown masked:\n%s", r.Stdout)
	}
	if strings.Contains(r.Stdout+r.Stderr, secretToken) {
		t.Errorf("the secret shows in the output:\n%s\n%s", r.Stdout, r.Stderr)
	}
}

// TestStackReferenceUnknownProject: a stack reference to a project that
// is not in the environment says so, instead of asking for a dependsOn
// on a project that does not exist.
func TestStackReferenceUnknownProject(t *testing.T) {
	w := newWS(t)
	w.withHosts(t, true)
	w.write(map[string]string{
		"b/Pulumi.yaml": "name: b\nruntime: yaml\nresources:\n  ref:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: organization/nosuch/dev\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      b: {path: b}\n",
	})
	r := w.fails(1, "-p", "e", "-s", "dev", "up", "--yes")
	if want := `stack reference "organization/nosuch/dev": there is no project nosuch in the environment of b`; !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("the up does not say %q:\nstdout:\n%s\nstderr:\n%s", want, r.Stdout, r.Stderr)
	}
}

// TestStackReferenceOtherStackSecrets: a stack reference to another stack
// whose outputs hold a secret reads them with that stack's own salt (each
// stack's config has its own), not with the salt of the stack being
// deployed; the secret stays secret downstream and never shows in plain
// text.
func TestStackReferenceOtherStackSecrets(t *testing.T) {
	w := newWS(t)
	w.withHosts(t, true)
	w.write(map[string]string{
		"a/Pulumi.yaml": "name: a\nruntime: yaml\nconfig:\n  token:\n    type: string\n    secret: true\noutputs:\n  v: ${token}\n  plain: visible\n",
		"b/Pulumi.yaml": "name: b\nruntime: yaml\nresources:\n  ref:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: organization/a/prod\noutputs:\n  got: ${ref.outputs[\"v\"]}\n  plain: ${ref.outputs[\"plain\"]}\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      a: {path: a}\n      b: {path: b, dependsOn: [a]}\n",
	})
	var logs []string
	run := func(r result) { logs = append(logs, r.Stdout, r.Stderr) }
	run(w.ok("-p", "e", "-s", "prod", "config", "set", "--secret", "a:token", secretToken))
	run(w.ok("-p", "e", "-s", "prod", "up", "--yes"))
	run(w.ok("-p", "e", "stack", "init", "dev")) // a salt of its own
	run(w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "a:token", "the-dev-token"))
	run(w.ok("-p", "e", "-s", "dev", "up", "--yes"))
	r := w.ok("-p", "e", "-s", "dev", "--json", "stack", "output", "--project", "b")
	run(r)
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("stack output: %v\n%s", err, r.Stdout)
	}
	if out["got"] != "[secret]" || out["plain"] != "visible" {
		t.Errorf("b's outputs on dev are %v, want got [secret] (prod's secret, still secret) and plain visible", out)
	}
	r = w.ok("-p", "e", "-s", "dev", "--json", "stack", "output", "--project", "b", "--show-secrets")
	if !strings.Contains(r.Stdout, secretToken) {
		t.Errorf("b's output on dev is not prod's secret:\n%s", r.Stdout)
	}
	noSecret(t, w.dir, logs)
}

// TestPlaintextValueOfASecretKey: a stack config value in plain text for
// a key that Pulumi.yaml declares secret is refused before anything runs,
// as Pulumi refuses it, naming the file and line of the value, in the
// shared stack config and in the project's own.
func TestPlaintextValueOfASecretKey(t *testing.T) {
	w := newWS(t)
	w.withHosts(t, true)
	w.write(map[string]string{
		"p/Pulumi.yaml": "name: p\nruntime: yaml\nconfig:\n  token:\n    type: string\n    secret: true\noutputs:\n  t: ${token}\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      p: {path: p}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "p:other", "x")
	w.ok("-p", "e", "-s", "dev", "config", "set", "p:token", "in-plain-text")
	shared := filepath.Join(w.dir, "config", "pulumi", "Pulumi.dev.yaml")
	decl := filepath.Join(w.dir, "p", "Pulumi.yaml") + " line 4 declares it secret"
	for _, cmd := range [][]string{{"validate"}, {"up", "--yes"}} {
		r := w.fails(3, append([]string{"-p", "e", "-s", "dev"}, cmd...)...)
		if want := shared + " line 4: p:token is in plain text, but " + decl; !strings.Contains(r.Stderr, want) {
			t.Errorf("%s does not say %q:\n%s", cmd, want, r.Stderr)
		}
		if strings.Contains(r.Stdout+r.Stderr, "in-plain-text") {
			t.Errorf("%s shows the value:\n%s%s", cmd, r.Stdout, r.Stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, ".runner")); err == nil {
		t.Error("a refused up wrote state")
	}
	w.write(map[string]string{"p/Pulumi.dev.yaml": "config:\n  p:token: own-plain\n"})
	r := w.fails(3, "-p", "e", "-s", "dev", "up", "--yes")
	if want := filepath.Join(w.dir, "p", "Pulumi.dev.yaml") + " line 2: p:token is in plain text, but " + decl; !strings.Contains(r.Stderr, want) {
		t.Errorf("up does not say %q:\n%s", want, r.Stderr)
	}
}

// TestYAMLHostOutputHasNoColour: with NO_COLOR (as every run here has)
// and no terminal, the YAML host's diagnostics, which it colours whatever
// NO_COLOR says, reach the output without escape sequences, in the plain
// view and in --json.
func TestYAMLHostOutputHasNoColour(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{
		"p/Pulumi.yaml": "name: p\nruntime: yaml\nresources:\n  t:\n    type: testprov:index:Thing\n    properties:\n      value: ${nosuch.value}\n",
		"runner.yaml":   "providers:\n  e:\n    projects:\n      p: {path: p}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	for _, args := range [][]string{{"up", "--yes"}, {"--json", "preview"}} {
		r := w.fails(1, append([]string{"-p", "e", "-s", "dev"}, args...)...)
		if !strings.Contains(r.Stdout, `config value`) || !strings.Contains(r.Stdout, `nosuch`) {
			t.Errorf("%v does not show the host's diagnostic:\n%s", args, r.Stdout)
		}
		if strings.Contains(r.Stdout+r.Stderr, "\x1b") || strings.Contains(r.Stdout, `\u001b`) {
			t.Errorf("%v shows escape sequences:\n%q", args, r.Stdout)
		}
	}
}

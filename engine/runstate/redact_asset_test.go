package runstate

import (
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

func TestRedactSecretAssetText(t *testing.T) {
	m := resource.PropertyMap{"code": resource.Secret{Element: resource.NewTextAsset("hunter2-code")}, "plain": resource.NewTextAsset("public")}
	if got := Redact("failed on hunter2-code and public", m); got != "failed on [secret] and public" {
		t.Errorf("Redact = %q", got)
	}
}

// A secret output value (a component's input, a method's argument) is
// redacted from errors as a secret is.
func TestRedactSecretOutputValue(t *testing.T) {
	m := resource.PropertyMap{"pw": resource.Output{Element: map[string]any{"k": "hunter2-pw"}, Known: true, Secret: true},
		"plain": resource.Output{Element: "public", Known: true}}
	if got := Redact("failed on hunter2-pw and public", m); got != "failed on [secret] and public" {
		t.Errorf("Redact = %q", got)
	}
}

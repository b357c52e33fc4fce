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

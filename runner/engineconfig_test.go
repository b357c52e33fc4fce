package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/providers"
	"github.com/runnerhq/runner/runner/orchestrate"
)

// A value the provider's questions call a secret reaches programs as a
// secret even when the stack config holds it in plain text (as MARA's
// example holds prometheus:adminpass); other plain values stay plain.
func TestEngineConfigPlainSecretIsSecret(t *testing.T) {
	p := graphProvider()
	p.Questions = append(p.Questions, providers.Question{Key: "fake:pw", Message: "Password", Secret: true})
	f := newFixture(t, p)
	cfg := filepath.Join(f.opts.Root, "config", "pulumi", "Pulumi.dev.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("config:\n  fake:pw: plain-pw\n  fake:size: \"3\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFor(orchestrate.Up, f.opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.engineConfig(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sec, ok := got["fake:pw"].(resource.Secret); !ok || sec.Element != "plain-pw" {
		t.Errorf("fake:pw = %#v, want a secret of its plain value", got["fake:pw"])
	}
	if got["fake:size"] != "3" {
		t.Errorf("fake:size = %#v, want plain 3", got["fake:size"])
	}
}

package runner

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/runnerhq/runner/runner/term"
)

// configWorkspace returns options for a workspace whose dev stack holds a
// secret app:key, a plain app:keyring (whose name starts with the
// secret's) and a structured app:obj without secrets, with the passphrase
// in the environment when withPassphrase is set.
func configWorkspace(t *testing.T, withPassphrase bool) (Options, *bytes.Buffer) {
	t.Helper()
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "test")
	t.Setenv("PULUMI_STACK", "")
	out := &bytes.Buffer{}
	opts := Options{Root: t.TempDir(), Stack: "dev", Provider: "t", NonInteractive: true, KeyIterations: testIterations, Providers: testProviders(t),
		IO: &term.IO{In: strings.NewReader(""), Out: out, Err: &bytes.Buffer{}, NoColor: true}}
	ctx := context.Background()
	for _, set := range []ConfigSetOptions{
		{Key: "app:key", Value: "s3cret", ValueGiven: true, Secret: true},
		{Key: "app:keyring", Value: "ring", ValueGiven: true},
		{Key: "app:obj.n", Value: "1", ValueGiven: true, Path: true},
	} {
		if err := ConfigSet(ctx, opts, set); err != nil {
			t.Fatal(err)
		}
	}
	if !withPassphrase {
		os.Unsetenv("PULUMI_CONFIG_PASSPHRASE") // t.Setenv restores it
	}
	out.Reset()
	return opts, out
}

// A config command opens the crypter (and needs the passphrase) only when
// it reveals a value that holds a secret, whatever the key's name.
func TestConfigGetNeedsThePassphraseOnlyForASecret(t *testing.T) {
	tests := []struct {
		key        string
		passphrase bool
		want       string // printed value; "" when an error is expected
	}{
		{"app:keyring", false, "ring\n"},  // its name starts with a secret's
		{"app:obj", false, "{\"n\":1}\n"}, // structured, without a secret
		{"app:key", true, "s3cret\n"},
		{"app:key", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			opts, out := configWorkspace(t, tt.passphrase)
			err := ConfigGet(context.Background(), opts, ConfigGetOptions{Key: tt.key, Secrets: Reveal})
			if tt.want == "" {
				if !IsValidation(err) || !strings.Contains(err.Error(), "PULUMI_CONFIG_PASSPHRASE") {
					t.Fatalf("error %v, want one asking for the passphrase", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Fatalf("printed %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestConfigListRedactsWithoutThePassphrase(t *testing.T) {
	tests := []struct {
		name    string
		json    bool
		secrets Secrets
		want    string
	}{
		{"table", false, Redact, "KEY          VALUE\napp:key      [secret]\napp:keyring  ring\napp:obj      {\"n\":1}\n"},
		{"json", true, Redact, `"app:key": {
    "value": "[secret]",
    "secret": true
  }`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, out := configWorkspace(t, false)
			opts.JSON = tt.json
			if err := ConfigList(context.Background(), opts, ConfigListOptions{Secrets: tt.secrets}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Fatalf("output:\n%s\nwant it to hold:\n%s", out, tt.want)
			}
		})
	}
	opts, out := configWorkspace(t, true)
	if err := ConfigList(context.Background(), opts, ConfigListOptions{Secrets: Reveal}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "app:key      s3cret\n") {
		t.Fatalf("--show-secrets output:\n%s", out)
	}
}

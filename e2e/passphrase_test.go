package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A wrong passphrase exits 3 naming where it came from: the process
// environment, the environment file (with its path), the file named by
// PULUMI_CONFIG_PASSPHRASE_FILE (with its path), or the prompt.
func TestWrongPassphraseNamesItsSource(t *testing.T) {
	dir := workspace(t)
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "--secret", "app:adminPassword", adminPassword)
	envFile := filepath.Join(dir, "config", "pulumi", "environment")
	passFile := filepath.Join(t.TempDir(), "passphrase")
	if err := os.WriteFile(passFile, []byte("wrong-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		env      []string
		envFile  string // added to the environment file
		wantFrom string
	}{
		{name: "process environment", env: []string{"PULUMI_CONFIG_PASSPHRASE=wrong"},
			wantFrom: "the passphrase from the environment variable PULUMI_CONFIG_PASSPHRASE does not open"},
		{name: "environment file", envFile: "PULUMI_CONFIG_PASSPHRASE=wrong-in-file\n",
			wantFrom: "the passphrase from PULUMI_CONFIG_PASSPHRASE in " + envFile + " does not open"},
		{name: "passphrase file", env: []string{"PULUMI_CONFIG_PASSPHRASE=", "PULUMI_CONFIG_PASSPHRASE_FILE=" + passFile},
			wantFrom: "the passphrase from the file " + passFile + " named by the environment variable PULUMI_CONFIG_PASSPHRASE_FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, err := os.ReadFile(envFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(envFile, append(orig, tc.envFile...), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(envFile, orig, 0o644) //nolint:errcheck
			for _, args := range [][]string{{"config", "get", "app:adminPassword"}, {"preview"}} {
				r := wantRun(t, dir, "", tc.env, 3, args...)
				if !strings.Contains(r.Stderr, "incorrect passphrase") || !strings.Contains(r.Stderr, tc.wantFrom) || !strings.Contains(r.Stderr, stackFile(dir)) {
					t.Errorf("%v: want %q and the stack config named:\n%s", args, tc.wantFrom, r.Stderr)
				}
			}
		})
	}
	t.Run("prompt", func(t *testing.T) {
		p := inTmux(t, dir, noPassphrase, nil, "config", "get", "app:adminPassword")
		p.Answer("Passphrase of stack dev", "wrong-at-the-prompt")
		code, screen := p.Exit()
		flat := strings.Join(strings.Fields(screen), " ")
		if code != 3 || !strings.Contains(flat, "incorrect passphrase for stack dev: the passphrase from the prompt does not open") {
			t.Fatalf("exit %d:\n%s", code, screen)
		}
	})
}

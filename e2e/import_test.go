package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportOfShowSecretsExportEncryptsTheSecrets imports exports made with
// --show-secrets (secrets in Pulumi's plaintext form) back into their
// projects, twice so that the history keeps a copy of an imported
// snapshot: afterwards no secret of the state is in plain text anywhere
// under .runner (but the data folder, where the TLS key file holds the
// key by design), and a preview plans nothing.
func TestImportOfShowSecretsExportEncryptsTheSecrets(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes")
	secrets, _ := secretPlaintexts(t, dir)
	if len(secrets) == 0 {
		t.Fatal("the state holds no secret to look for")
	}

	exports := t.TempDir()
	projects := []string{"ca", "secrets", "ingress"}
	for _, p := range projects {
		file := filepath.Join(exports, p+".json")
		ok(t, dir, "-s", "dev", "stack", "export", "--project", p, "--show-secrets", "--file", file)
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"plaintext"`) {
			t.Fatalf("the --show-secrets export of %s holds no plaintext secret:\n%.400s", p, b)
		}
	}
	found := false // positive control: the search sees the secrets in the exports
	for plain := range secrets {
		for _, p := range projects {
			b, _ := os.ReadFile(filepath.Join(exports, p+".json"))
			found = found || strings.Contains(strings.ReplaceAll(string(b), `\n`, "\n"), plain)
		}
	}
	if !found {
		t.Fatal("no secret of the state is in the --show-secrets exports: the search would miss a leak")
	}

	for round := 0; round < 2; round++ {
		for _, p := range projects {
			ok(t, dir, "-s", "dev", "stack", "import", "--project", p, "--file", filepath.Join(exports, p+".json"))
		}
	}
	history, _ := filepath.Glob(filepath.Join(runnerStackDir(dir, "dev"), "ca", "history", "*.json"))
	if len(history) == 0 {
		t.Fatal("the second import kept no copy of the first in the history folder")
	}

	data := filepath.Join(dir, ".runner", "data") + string(filepath.Separator)
	err := filepath.WalkDir(filepath.Join(dir, ".runner"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, data) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(string(b), `\n`, "\n")
		if strings.Contains(text, `"plaintext"`) {
			t.Errorf("%s holds a secret in plaintext form", path)
		}
		for plain, where := range secrets {
			if strings.Contains(text, plain) {
				t.Errorf("the secret %s is in %s in plain text", where[0], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// The re-encrypted state opens with the stack's passphrase and is what
	// up works from: the same outputs, nothing to do.
	if again, _ := secretPlaintexts(t, dir); len(again) != len(secrets) {
		t.Errorf("the imported state holds %d secrets, the deployed one %d", len(again), len(secrets))
	}
	for p, row := range summary(t, ok(t, dir, "--json", "-s", "dev", "preview").Stdout) {
		if changes(row) != 0 {
			t.Errorf("after the import, preview plans changes in %s", p)
		}
	}
}

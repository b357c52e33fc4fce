package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestConfigTempFilesOfAKilledWriteAreCleaned: a `config set` killed
// between writing its temporary file and renaming it leaves
// .Pulumi.<stack>.yaml.tmp-* or .environment.tmp-* beside the file (with
// the file's content, secrets of the environment file included); the next
// command that changes the file removes them.
func TestConfigTempFilesOfAKilledWriteAreCleaned(t *testing.T) {
	dir := workspace(t)
	ok(t, dir, "-s", "dev", "config", "set", "app:port", "8443")
	cfg := filepath.Join(dir, "config", "pulumi")
	litter := []string{
		filepath.Join(cfg, ".Pulumi.dev.yaml.tmp-123456"),
		filepath.Join(cfg, ".environment.tmp-654321"),
	}
	for _, f := range litter {
		if err := os.WriteFile(f, []byte("PULUMI_CONFIG_PASSPHRASE=left-behind\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(cfg, "notes.tmp")
	if err := os.WriteFile(other, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}

	ok(t, dir, "config", "set", "app:port", "9443")
	ok(t, dir, "stack", "select", "dev")
	for _, f := range litter {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("the temporary file %s of a killed write is still there (%v)", f, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a file runner did not write was removed: %v", err)
	}
}

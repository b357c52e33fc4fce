package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDataTempFilesOfAKilledWriteAreCleaned: an up killed while the file
// plugin wrote tls.key leaves .tls.key.tmp-<n> beside it, holding the
// private key. The next up that writes the file removes it, and destroy
// leaves no file and no folder of the environment behind.
func TestDataTempFilesOfAKilledWriteAreCleaned(t *testing.T) {
	dir := deployable(t)
	ok(t, dir, "--non-interactive", "up", "--yes", "--target", "ca")
	data := filepath.Join(dir, ".runner", "data", "local", "dev")
	litter := []string{
		filepath.Join(data, "ca", ".ca.crt.tmp-3817120977"),
		filepath.Join(data, "ingress", ".tls.key.tmp-1234567"),
	}
	for _, f := range litter {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("-----BEGIN EC PRIVATE KEY-----\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ok(t, dir, "--non-interactive", "up", "--yes")
	if _, err := os.Stat(litter[1]); !os.IsNotExist(err) {
		t.Errorf("up left the temporary file %s of a killed write (%v)", litter[1], err)
	}
	ok(t, dir, "--non-interactive", "destroy", "--yes")
	if _, err := os.Stat(filepath.Join(dir, ".runner", "data")); !os.IsNotExist(err) {
		var left []string
		_ = filepath.Walk(data, func(p string, _ os.FileInfo, _ error) error {
			left = append(left, p)
			return nil
		})
		t.Errorf("destroy left files behind: %v", left)
	}
}

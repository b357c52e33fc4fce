package hostileclouds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud"
)

// MARA's example stores prometheus:adminpass in plain text. Validation
// only warns about it, but the secrets project left it out of the cluster,
// so prometheus (and sirius) failed after ten projects were deployed. Now
// it goes into the prometheus Secret, as a secret, and out of the state.
func TestPlainTextSecretConfigGoesIntoTheCluster(t *testing.T) {
	e := newEnv(t)
	e.maraStack("prometheus:adminpass", "sirius:ledger_pwd")
	r := e.ok("-p", "aws", "up", "--yes")
	if !strings.Contains(r.Stdout+r.Stderr, "prometheus:adminpass is a secret but is stored in plain text") {
		t.Errorf("no warning about the plain-text secret:\n%s", r.Stderr)
	}
	found := map[string]bool{}
	for _, res := range e.list() {
		if res.Type != "kubernetes:core/v1:Secret" {
			continue
		}
		data, _ := fakecloud.Unwrap(res.Inputs["stringData"]).(map[string]any)
		for k, v := range data {
			found[k] = fakecloud.Unwrap(v) == secrets[map[string]string{"adminpass": "prometheus:adminpass", "ledger_pwd": "sirius:ledger_pwd"}[k]]
		}
	}
	if !found["adminpass"] || !found["ledger_pwd"] {
		t.Errorf("the cluster's Secrets do not hold the plain-text passwords: %v", found)
	}
	err := filepath.Walk(filepath.Join(e.ws, ".runner"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		for _, k := range []string{"prometheus:adminpass", "sirius:ledger_pwd"} {
			if strings.Contains(string(b), secrets[k]) {
				t.Errorf("%s holds %s in plain text", p, k)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/providers/kubeconfig"
)

// TestKubeconfigProviderValidation: the kubeconfig provider's file and
// context are checked before anything runs (a validation error: exit 3),
// and a complete config takes the cluster name from the context.
func TestKubeconfigProviderValidation(t *testing.T) {
	ctx := context.Background()
	kc := filepath.Join(t.TempDir(), "config")
	data := "kind: Config\nclusters:\n- name: c1\n  cluster: {server: https://x}\ncontexts:\n- name: one\n  context: {cluster: c1}\n"
	if err := os.WriteFile(kc, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body string
		err        string
	}{
		{"a context of the file", "config:\n  kubernetes:kubeconfig: " + kc + "\n  kubernetes:context_name: one\n", ""},
		{"a context missing from the file", "config:\n  kubernetes:kubeconfig: " + kc + "\n  kubernetes:context_name: two\n", `kubernetes:context_name is "two", which is not one of one`},
		{"a file missing", "config:\n  kubernetes:kubeconfig: " + kc + ".gone\n", kc + ".gone does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := session(t, false, nil, tt.body+"  sirius:demo_login_user: testuser\n")
			s.Provider = kubeconfig.New()
			for _, k := range []string{"prometheus:adminpass", "sirius:accounts_pwd", "sirius:ledger_pwd", "sirius:demo_login_pwd"} {
				if err := s.SetConfig(ctx, k, "pw", true, false); err != nil {
					t.Fatal(err)
				}
			}
			_, err := s.Validate(ctx)
			if tt.err != "" {
				if !IsValidation(err) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want a validation error holding %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, _, _ := s.Config.String(ctx, "kubernetes:cluster_name", nil); got != "c1" {
				t.Errorf("kubernetes:cluster_name = %q, want the context's cluster c1", got)
			}
		})
	}
}

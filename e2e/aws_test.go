package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAWSValidateWithMARAExample copies MARA's own example stack config
// into a workspace: validate -p aws names the three passwords the example
// leaves commented out, its zones outside its region and its Kubernetes
// version past EKS support, and passes once they are fixed. (Deploying
// with fake plugins is the e2e/plugins tests' work.)
func TestAWSValidateWithMARAExample(t *testing.T) {
	example := maraExample(t)
	dir := workspace(t)
	cfgDir := filepath.Join(dir, "config", "pulumi")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "Pulumi.dev.yaml"), example, 0o644); err != nil {
		t.Fatal(err)
	}

	// MARA's eks:k8s_version 1.21 left EKS support long ago.
	if r := run(t, dir, "", nil, "-s", "dev", "-p", "aws", "validate"); r.Code != 3 || !strings.Contains(r.Stderr, "eks:k8s_version") || !strings.Contains(r.Stderr, "1.21 is past EKS support") {
		t.Fatalf("validate with MARA's Kubernetes version: exit %d\n%s", r.Code, r.Stderr)
	}
	ok(t, dir, "-s", "dev", "config", "set", "eks:k8s_version", "1.34")
	r := run(t, dir, "", nil, "-s", "dev", "-p", "aws", "validate")
	if r.Code != 3 {
		t.Fatalf("validate exit %d, want 3\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, key := range []string{"sirius:accounts_pwd", "sirius:ledger_pwd", "sirius:demo_login_pwd"} {
		if !strings.Contains(r.Stderr, "config set --secret "+key) {
			t.Errorf("validate does not name %s:\n%s", key, r.Stderr)
		}
		set := run(t, dir, "a-password-for-"+key, nil, "-s", "dev", "config", "set", "--secret", key)
		if set.Code != 0 {
			t.Fatalf("config set %s: exit %d %s", key, set.Code, set.Stderr)
		}
	}
	// MARA's example puts its zones (us-west-1a, us-west-1b) in another
	// region than its aws:region (us-east-1): named, then fixed.
	if r := run(t, dir, "", nil, "-s", "dev", "-p", "aws", "validate"); r.Code != 3 || !strings.Contains(r.Stderr, "the zone us-west-1a is in region us-west-1, not in aws:region us-east-1") {
		t.Fatalf("validate with MARA's zones: exit %d\n%s", r.Code, r.Stderr)
	}
	ok(t, dir, "-s", "dev", "config", "set", "aws:region", "us-west-1")
	ok(t, dir, "-s", "dev", "-p", "aws", "validate")

	saved, _ := os.ReadFile(filepath.Join(cfgDir, "Pulumi.dev.yaml"))
	if strings.Contains(string(saved), "a-password-for-") {
		t.Fatal("a secret was written to the stack config in plain text")
	}
}

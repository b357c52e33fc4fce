package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/internal/testenv"
)

// TestMakeRunAppliesTheGivenAdminPassword: `make run
// DEMO_ADMIN_PASSWORD=...` was ignored once the stack existed, and a ' in
// the value broke the recipe's shell line. Now a given value is applied
// whenever the stack holds another (reaching runner through the
// environment, quotes and $ intact), and the default only fills a missing
// one.
func TestMakeRunAppliesTheGivenAdminPassword(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		testenv.Unavailable(t, "make is not installed (.ci/run installs it)")
	}
	example := t.TempDir()
	bin := filepath.Join(t.TempDir(), "runner")
	makeRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("make", append([]string{"-C", repoRoot(), "run", "EXAMPLE=" + example, "BIN=" + bin}, args...)...)
		cmd.Env = baseEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make run %v: %v\n%s", args, err, out)
		}
	}
	password := func() string {
		t.Helper()
		return strings.TrimSpace(ok(t, example, "--stack", "dev", "config", "get", "app:adminPassword").Stdout)
	}
	t.Cleanup(func() { run(t, example, "", nil, "--stack", "dev", "--non-interactive", "destroy", "--yes") })
	makeRun()
	if got := password(); got != "demo-admin-password" {
		t.Fatalf("the first make run set the admin password to %q, want the default", got)
	}
	given := `it's a "pass" $word`
	makeRun("DEMO_ADMIN_PASSWORD=" + given)
	if got := password(); got != given {
		t.Fatalf("make run DEMO_ADMIN_PASSWORD=%q left the admin password %q", given, got)
	}
	makeRun()
	if got := password(); got != given {
		t.Fatalf("make run without a value changed the admin password to %q", got)
	}
}

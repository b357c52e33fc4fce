package clouds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreshMachineNamesEveryProblem: on a machine without plugins (an
// empty PULUMI_HOME, the fakes off PATH), validate, preview and up -p aws
// named the missing plugins and stopped there, hiding every config
// problem behind them. Each now lists the plugins and every missing or
// invalid config value, each with the command that fixes it, exits 3 and
// writes nothing: first on a workspace with no config at all, then with
// MARA's example config (its eks:k8s_version 1.21 refused by line).
func TestFreshMachineNamesEveryProblem(t *testing.T) {
	e := newEnv(t, "us-west-1")
	e.path = withoutDir(os.Getenv("PATH"), fakeBin)
	plugins := []string{"aws 7.48.0", "kubernetes 4.34.2", "runner plugin install --provider aws"}
	keys := []string{"config set vpc:azs", "config set --secret prometheus:adminpass", "config set --secret sirius:accounts_pwd",
		"config set --secret sirius:ledger_pwd", "config set --secret sirius:demo_login_pwd"}
	check := func(want []string, args ...string) {
		t.Helper()
		before := tree(t, e.root())
		r := e.fails(3, append([]string{"-p", "aws"}, args...)...)
		for _, w := range want {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("%s does not say %q:\n%s", args[0], w, r)
			}
		}
		if after := tree(t, e.root()); !sameFiles(before, after) {
			t.Errorf("%s refused on a fresh machine wrote files: before %d, after %d", args[0], len(before), len(after))
		}
	}
	for _, cmd := range [][]string{{"validate"}, {"preview"}, {"up", "--yes"}} {
		check(append(append([]string{}, plugins...), keys...), cmd...)
	}

	example, err := os.ReadFile(filepath.Join("testdata", "Pulumi.stackname.yaml.example"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(e.dir, "config", "pulumi", "Pulumi.dev.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, example, 0o644); err != nil {
		t.Fatal(err)
	}
	mara := append(append([]string{}, plugins...), `eks:k8s_version is "1.21"`, "runner config set eks:k8s_version",
		"config set --secret sirius:accounts_pwd")
	for _, cmd := range [][]string{{"validate"}, {"preview"}, {"up", "--yes"}} {
		check(mara, cmd...)
	}
}

// root is the folder of the test's world: the workspace, HOME and
// PULUMI_HOME.
func (e *env) root() string { return filepath.Dir(e.dir) }

// sameFiles reports whether two trees hold the same files and contents.
func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for p, data := range a {
		if d, ok := b[p]; !ok || d != data {
			return false
		}
	}
	return true
}

package hostileclouds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A zone listed twice in vpc:azs passed validation, and preview -p aws
// failed in the vpc program (exit 1: a subnet's URN declared twice). Now
// validation names the key and the zone, exit 3, before anything runs.
func TestAZListedTwiceIsAValidationError(t *testing.T) {
	e := newEnv(t)
	e.maraStack()
	cfg := filepath.Join(e.ws, "config", "pulumi", "Pulumi.dev.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "    - us-west-1b\n", "    - us-west-1a\n", 1)
	if edited == string(data) {
		t.Fatal("MARA's example lists no us-west-1b under vpc:azs")
	}
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"preview"}, {"up", "--yes"}} {
		op := args[0]
		r := e.run("", append([]string{"-p", "aws"}, args...)...)
		if r.Code != 3 || !strings.Contains(r.Stderr, "vpc:azs") || !strings.Contains(r.Stderr, "us-west-1a is given twice") {
			t.Errorf("%s: exit %d, want 3 naming vpc:azs:\n%s", op, r.Code, r.Stderr)
		}
	}
	if left := e.list(); len(left) != 0 {
		t.Errorf("%d resources made", len(left))
	}
}

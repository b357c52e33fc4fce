package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// maraExample reads MARA's example stack config (e2e/clouds/testdata holds
// a copy of ../shared/mara's).
func maraExample(t *testing.T) []byte {
	t.Helper()
	// A copy of ../shared/mara's, kept in the repository so that CI has it.
	b, err := os.ReadFile(filepath.Join(repoRoot(), "e2e", "clouds", "testdata", "Pulumi.stackname.yaml.example"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// awsSecrets sets the aws provider's secrets on stack dev of dir.
func awsSecrets(t *testing.T, dir string) {
	t.Helper()
	for _, m := range awsMissing {
		if m.secret {
			wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "--secret", m.key, "pw-for-"+m.key)
		}
	}
}

// TestAWSZonesMustBeInTheRegion: zones of another region than aws:region
// are refused by a non-interactive validate, naming both keys, both
// values and both lines, and the file is left alone; zones given without
// a region make the region default to theirs, not to AWS_DEFAULT_REGION
// or us-east-1.
func TestAWSZonesMustBeInTheRegion(t *testing.T) {
	dir := workspace(t)
	awsSecrets(t, dir)
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "aws:region", "us-east-1")
	wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "vpc:azs", "us-west-2a,us-west-2b")
	before := readStack(t, dir)
	r := wantRun(t, dir, "", nil, 3, "-s", "dev", "-p", "aws", "--non-interactive", "validate")
	for _, re := range []string{
		`line \d+: vpc:azs "us-west-2a,us-west-2b" does not agree with aws:region \(line \d+\)`,
		`the zone us-west-2a is in region us-west-2, not in aws:region us-east-1`,
	} {
		if !regexp.MustCompile(re).MatchString(r.Stderr) {
			t.Errorf("validate does not say %s:\n%s", re, r.Stderr)
		}
	}
	if readStack(t, dir) != before {
		t.Error("a failed validate changed the stack config")
	}

	for _, env := range [][]string{nil, {"AWS_DEFAULT_REGION=us-east-1"}} {
		dir := workspace(t)
		awsSecrets(t, dir)
		wantRun(t, dir, "", nil, 0, "-s", "dev", "config", "set", "vpc:azs", "us-west-2a,us-west-2b")
		r := wantRun(t, dir, "", env, 0, "--json", "-s", "dev", "-p", "aws", "--non-interactive", "validate")
		var rep struct {
			Defaults map[string]string `json:"defaults"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
			t.Fatalf("validate --json: %v\n%s", err, r.Stdout)
		}
		if got := rep.Defaults["aws:region"]; got != "us-west-2" {
			t.Errorf("with %v, the region defaulted to %q beside zones of us-west-2", env, got)
		}
	}
}

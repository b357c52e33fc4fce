package clouds

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/e2e/fakecloud"
)

// TestUnfindableCreatesListedOnceAndRepaired: with an aws plugin that, as
// the real one, cannot look a resource up without its ID, an interrupted
// create (the plugin stopped after making the VPC, before answering) is
// listed by the next up with its type, name and tags, and what to do;
// after the user deleted it by hand, one `runner stack repair` (no
// --project) clears it, and the next up creates it again and converges.
// Before, each such create was its own error asking for `stack repair
// --project P`, and `stack repair` without --project was a usage error.
func TestUnfindableCreatesListedOnceAndRepaired(t *testing.T) {
	e := maraWorkspace(t)
	e.extra = append(e.extra, "FAKECLOUD_NO_URN_LOOKUP=1", "FAKECLOUD_DIE_AFTER_CREATE=aws:ec2/vpc:Vpc")
	e.fails(1, "-p", "aws", "up", "--yes")
	r := e.fails(1, "-p", "aws", "up", "--yes")
	out := r.Stdout + r.Stderr
	for _, want := range []string{
		"interrupted while creating urn:pulumi:dev::vpc::aws:ec2/vpc:Vpc::vpc; it is read back through its plugin now",
		"cannot be looked up, since their plugin needs the ID it never returned:\n  - aws:ec2/vpc:Vpc \"vpc\" tagged ",
		"then run `runner stack repair` (it clears every such operation of the stack)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the up after an interrupted create of the VPC does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--project") {
		t.Errorf("the up names a --project to repair; one `runner stack repair` does:\n%s", out)
	}
	if n := e.removeFromCloud("aws:ec2/vpc:Vpc"); n != 1 {
		t.Fatalf("the fake cloud holds %d VPCs, want the 1 the interrupted create made", n)
	}
	r = e.ok("stack", "repair")
	if !strings.Contains(r.Stdout, "repaired the state of project vpc on stack dev") ||
		!strings.Contains(r.Stdout, `cleared the pending operation creating aws:ec2/vpc:Vpc "vpc"`) {
		t.Errorf("stack repair does not say what it cleared:\n%s", r.Stdout)
	}
	e.ok("-p", "aws", "up", "--yes")
	e.converged("aws", "after the repair")
}

// removeFromCloud deletes, as a person would by hand, every resource of typ
// from the fake cloud (logging the deletes among the cloud's calls), and
// returns how many there were.
func (e *env) removeFromCloud(typ string) int {
	e.t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.cloud, "*", "*.json"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			e.t.Fatal(err)
		}
		var r fakecloud.Resource
		if json.Unmarshal(data, &r) != nil || r.Type != typ {
			continue
		}
		if err := os.Remove(f); err != nil {
			e.t.Fatal(err)
		}
		line, _ := json.Marshal(fakecloud.Call{Op: "delete", Type: r.Type, ID: r.ID, URN: r.URN})
		calls, err := os.OpenFile(filepath.Join(e.cloud, fakecloud.CallsFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			e.t.Fatal(err)
		}
		_, err = calls.Write(append(line, '\n'))
		if cerr := calls.Close(); err != nil || cerr != nil {
			e.t.Fatal(err, cerr)
		}
		n++
	}
	return n
}

package clouds

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	// The plugin process is shared by the projects that run beside vpc's
	// (ecr's): a create of theirs in flight when it died is listed too,
	// and removed by hand as well when the plugin had made it.
	listed := unfindable(out)
	if !slices.Contains(listed, [2]string{"aws:ec2/vpc:Vpc", "vpc"}) {
		t.Fatalf("the up does not list the VPC among %v", listed)
	}
	for _, r := range listed {
		n := e.removeFromCloud(r[0], r[1])
		if want := r[0] == "aws:ec2/vpc:Vpc"; want && n != 1 || n > 1 {
			t.Fatalf("the fake cloud held %d %s named %s; the interrupted create made 1 (the VPC) or at most 1", n, r[0], r[1])
		}
	}
	r = e.ok("stack", "repair")
	if !strings.Contains(r.Stdout, "repaired the state of project vpc on stack dev") ||
		!strings.Contains(r.Stdout, `cleared the pending operation creating aws:ec2/vpc:Vpc "vpc"`) {
		t.Errorf("stack repair does not say what it cleared:\n%s", r.Stdout)
	}
	e.ok("-p", "aws", "up", "--yes")
	e.converged("aws", "after the repair")
}

// unfindable returns the (type, name) of each create an up listed as
// interrupted and not to be looked up ("  - TYPE "NAME" tagged ...").
func unfindable(out string) [][2]string {
	var got [][2]string
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(line, "  - ")
		if !ok || !strings.Contains(rest, "\" tagged ") {
			continue
		}
		typ, quoted, _ := strings.Cut(rest, " ")
		name, _, _ := strings.Cut(strings.TrimPrefix(quoted, "\""), "\"")
		if r := [2]string{typ, name}; !slices.Contains(got, r) {
			got = append(got, r)
		}
	}
	return got
}

// removeFromCloud deletes, as a person would by hand, every resource of typ
// named name ("": any) from the fake cloud (logging the deletes among the
// cloud's calls), and returns how many there were.
func (e *env) removeFromCloud(typ, name string) int {
	e.t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.cloud, "*", "*.json"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			e.t.Fatal(err)
		}
		var r fakecloud.Resource
		if json.Unmarshal(data, &r) != nil || r.Type != typ || name != "" && !strings.HasSuffix(r.URN, "::"+name) {
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

// TestUnfindable reads the list an up prints of creates not to be looked up.
func TestUnfindable(t *testing.T) {
	out := "x cannot be looked up, since their plugin needs the ID it never returned:\n" +
		"  - aws:ec2/vpc:Vpc \"vpc\" tagged Name=vpc\n" +
		"  - aws:ecr/repository:Repository \"ingress-controller\" tagged Project=ecr\n" +
		"  - not a listed create\n"
	want := [][2]string{{"aws:ec2/vpc:Vpc", "vpc"}, {"aws:ecr/repository:Repository", "ingress-controller"}}
	if got := unfindable(out); !slices.Equal(got, want) {
		t.Errorf("unfindable = %v, want %v", got, want)
	}
}

package clouds

import (
	"maps"
	"strings"
	"testing"
)

// checkOrder checks the project-start and project-done events of an
// operation against the graph: every project of the graph started and
// succeeded once, and (forward) started only after its upstreams were
// done, or (reverse, as destroy) only after every project depending on it
// was done.
func checkOrder(t *testing.T, op string, g graph, evs []event, reverse bool) {
	t.Helper()
	start, done := map[string]int{}, map[string]int{}
	for i, ev := range evs {
		switch ev.Type {
		case "project-start":
			if _, twice := start[ev.Project]; twice {
				t.Errorf("%s: project %s started twice", op, ev.Project)
			}
			start[ev.Project] = i
		case "project-done":
			done[ev.Project] = i
			if ev.Result != "succeeded" {
				t.Errorf("%s: project %s %s: %s", op, ev.Project, ev.Result, ev.Error)
			}
		case "project-skipped":
			t.Errorf("%s: project %s skipped: %s", op, ev.Project, ev.Message)
		}
	}
	if len(start) != len(g.Projects) {
		t.Errorf("%s: %d projects started, the graph has %d", op, len(start), len(g.Projects))
	}
	for _, p := range g.Projects {
		_, started := start[p.Name]
		if _, ok := done[p.Name]; !started || !ok {
			t.Errorf("%s: project %s has no start or no done event", op, p.Name)
			continue
		}
		for _, up := range p.DependsOn {
			first, then := up, p.Name // forward: the upstream is done before p starts
			if reverse {
				first, then = p.Name, up
			}
			if d, ok := done[first]; !ok || start[then] < d {
				t.Errorf("%s: project %s started before %s was done", op, then, first)
			}
		}
	}
}

// changes returns the summary's counts of everything but "same", by
// project.
func changes(t testing.TB, evs []event) map[string]map[string]int {
	t.Helper()
	out := map[string]map[string]int{}
	var summaries int
	for _, ev := range evs {
		if ev.Type != "summary" {
			continue
		}
		summaries++
		for _, p := range ev.Projects {
			for op, n := range p.Counts {
				if op != "same" && n != 0 {
					if out[p.Project] == nil {
						out[p.Project] = map[string]int{}
					}
					out[p.Project][op] = n
				}
			}
		}
	}
	if summaries != 1 {
		t.Errorf("%d summary events, want 1", summaries)
	}
	return out
}

// stepsNotSame returns the step-done events whose op is not "same".
func stepsNotSame(evs []event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Type == "step-done" && ev.Op != "same" {
			out = append(out, ev.Op+" "+ev.URN)
		}
	}
	return out
}

// secondUpChangesNothing runs up -p provider again and fails the test
// unless it plans no change, makes no step and leaves every file of the
// fake cloud alone.
func (e *env) secondUpChangesNothing(provider string) {
	t := e.t
	t.Helper()
	before := e.cloudTimes()
	evs := events(t, e.ok("-p", provider, "--json", "up", "--yes"))
	if c := changes(t, evs); len(c) != 0 {
		t.Errorf("a second up changed: %v", c)
	}
	if steps := stepsNotSame(evs); len(steps) != 0 {
		t.Errorf("a second up made steps: %v", steps)
	}
	if after := e.cloudTimes(); !maps.Equal(before, after) {
		t.Errorf("a second up touched the fake cloud:\nbefore %v\nafter  %v", before, after)
	}
}

// TestDestroyTargetEKSUnderDeployedKubernetesProjects: destroy --target
// eks deleted the EKS cluster under every Kubernetes project, still
// deployed on it (exit 0). Now it is refused, naming them, as a
// validation error (exit 3: nothing ran), and the cluster stays; with them
// targeted too it runs (hostile tester's regression).
func TestDestroyTargetEKSUnderDeployedKubernetesProjects(t *testing.T) {
	e := maraWorkspace(t)
	if r := e.fails(3, "-p", "aws", "up", "--yes", "--target", "sirius"); !strings.Contains(r.Stderr, "never deployed on stack dev") {
		t.Errorf("up --target sirius on a fresh stack does not name its upstream projects: %s", r)
	}
	e.cloudEmpty("after up --target sirius was refused")
	e.ok("-p", "aws", "up", "--yes")
	before := len(e.resources())
	r := e.run("-p", "aws", "destroy", "--yes", "--target", "eks")
	if r.Code != 3 || !strings.Contains(r.Stderr, "destroy --target eks would leave these projects") ||
		!strings.Contains(r.Stderr, "kubeconfig") || !strings.Contains(r.Stderr, "sirius") {
		t.Fatalf("destroy --target eks: want a refusal naming kubeconfig and sirius; %s", r)
	}
	if after := len(e.resources()); after != before {
		t.Fatalf("the refused destroy deleted %d resources", before-after)
	}
	args := []string{"-p", "aws", "destroy", "--yes", "--target", "eks"}
	for _, p := range []string{"kubeconfig", "secrets", "ingress-controller-namespace", "ingress-controller", "logstore",
		"logagent", "certmgr", "prometheus", "observability", "sirius"} {
		args = append(args, "--target", p)
	}
	e.ok(args...)
	for _, res := range e.resources() {
		if res.Package == "kubernetes" || strings.HasPrefix(res.Type, "aws:eks/") {
			t.Errorf("left after destroying eks and its dependents: %s %s", res.Type, res.ID)
		}
	}
}

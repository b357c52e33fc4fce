package clouds

import "testing"

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
func changes(t *testing.T, evs []event) map[string]map[string]int {
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

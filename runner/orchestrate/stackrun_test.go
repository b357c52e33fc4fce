package orchestrate

import (
	"context"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
)

// TestRunsAreRecordedOnceForTheStack: every up is recorded once in the
// stack's own history with each project's changes; a project has a record
// of its own only when the run changed it or failed there, and a failed
// run's stack record says so (skipped projects are not listed).
func TestRunsAreRecordedOnceForTheStack(t *testing.T) {
	ctx := context.Background()
	b := plugintest.NewBackend()
	plug := &plugintest.Plugin{}
	projects := chain(diamond, diamondOrder, nil)
	history := func() (stack []backend.HistoryEntry, projects int) {
		all, err := b.History(ctx, "dev", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range all {
			if e.Project == "" {
				stack = append(stack, e)
			} else {
				projects++
			}
		}
		return stack, projects
	}
	up := func() error {
		req, _ := request(Up, b, plug, projects)
		_, err := Run(ctx, req)
		return err
	}
	if err := up(); err != nil {
		t.Fatal(err)
	}
	runs, n := history()
	if len(runs) != 1 || n != 5 || runs[0].Kind != "update" || runs[0].Result != "succeeded" || len(runs[0].Projects) != 5 || runs[0].Changes["create"] == 0 {
		t.Fatalf("after the first up: stack records %+v, %d project records; want one of 5 projects, and 5", runs, n)
	}
	if err := up(); err != nil {
		t.Fatal(err)
	}
	runs, n = history()
	if len(runs) != 2 || n != 5 || runs[0].Changes["create"] != 0 || runs[0].Changes["same"] == 0 || len(runs[0].Projects) != 5 {
		t.Fatalf("after a no-op up: stack records %+v, %d project records; want 2 (the newest with only sames), and still 5", runs, n)
	}
	held, err := b.Lock(ctx, "c", "dev", backend.LockInfo{PID: 43, Command: "runner stack import"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	if err := up(); err == nil {
		t.Fatal("up with project c held by another succeeded")
	}
	runs, _ = history()
	if len(runs) != 3 || runs[0].Result != "failed" {
		t.Fatalf("after a failed up: stack records %+v; want 3, the newest failed", runs)
	}
	if _, ok := runs[0].Projects["d"]; ok {
		t.Errorf("the failed run's record lists d, which was skipped: %+v", runs[0].Projects)
	}
	if _, ok := runs[0].Projects["c"]; !ok {
		t.Errorf("the failed run's record does not list c, which failed: %+v", runs[0].Projects)
	}
}

package orchestrate

import (
	"context"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/walk"
	"github.com/runnerhq/runner/runner/event"
)

// recordRun records the run (up, refresh, destroy, under the stack lock)
// once in the stack's own history, with each project's changes: a project
// the run left unchanged records nothing of its own
// (backend.ProjectRecorded), so this record is what `runner stack history`
// lists of a run that changed nothing. A run in which no project
// succeeded or changed anything (each stopped before its operation, as by
// a wrong passphrase, or failed and recorded that in its own history)
// records nothing here either. A record that cannot be written is a
// warning: every project's state is saved by then.
func (o *run) recordRun(ctx context.Context, start time.Time, sum *Summary, result string) {
	rec, ok := o.req.Backend.(backend.StackRecorder)
	if !ok || o.stackLock == nil || sum == nil {
		return
	}
	kind := o.req.Operation
	if kind == Up {
		kind = "update"
	}
	r := backend.HistoryRecord{Kind: kind, Result: result, StartTime: start.UTC(), EndTime: time.Now().UTC(),
		Changes: map[string]int{}, User: o.req.Lock.User, Host: o.req.Lock.Host, Projects: map[string]map[string]int{}}
	ran := false
	for _, row := range sum.Rows {
		if row.Result == walk.Skipped.String() {
			continue
		}
		counts := map[string]int{}
		for k, n := range row.Counts {
			counts[k] = n
			r.Changes[k] += n
			ran = ran || n > 0
		}
		r.Projects[row.Project] = counts
		ran = ran || row.Result == walk.Succeeded.String()
	}
	if !ran {
		return
	}
	if err := rec.RecordStackRun(context.WithoutCancel(ctx), o.req.Stack, r); err != nil {
		o.emit(event.Event{Type: event.Warning, Stack: o.req.Stack, Message: "recording the run in the history of stack " + o.req.Stack + ": " + err.Error()})
	}
}

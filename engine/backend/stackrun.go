package backend

import (
	"context"
)

// A run that leaves a project's state as it was stored (nothing created,
// updated or deleted, and no output changed: SameCheckpoint) records
// nothing in that project's history, as Terraform writes no state for an
// apply that changes nothing: its commit writes no checkpoint and no
// update record (ProjectRecorded). A failed run is recorded all the same.
// The run itself is recorded once for the whole stack, in the stack's own
// history (StackRecorder), so `runner stack history` lists every run.

// ProjectRecorded reports whether a commit records its operation (rec) in
// the project's history: unless it succeeded and left the state
// unchanged.
func ProjectRecorded(rec HistoryRecord, unchanged bool) bool {
	return !unchanged || rec.Result != "succeeded"
}

// StackRecorder is a Store that records a run across a stack's projects
// (up, refresh or destroy under the stack lock) in the stack's own
// history: one record per run, with each project's changes
// (HistoryRecord.Projects), listed by History without a project.
type StackRecorder interface {
	RecordStackRun(ctx context.Context, stack string, rec HistoryRecord) error
}

var _ StackRecorder = (*Folder)(nil)

// RecordStackRun records rec, a run across the projects of stack, in the
// stack's own history.
func (f *Folder) RecordStackRun(ctx context.Context, stack string, rec HistoryRecord) error {
	if err := f.checkStack(stack); err != nil {
		return err
	}
	return f.appendHistory(paths{stack: stack}, rec)
}

// StackRunReader is a Store that reads the newest record of a stack's own
// history (nil when none), so that `runner stack ls` shows the result of
// a run that changed nothing, which no project's history records.
type StackRunReader interface {
	LastStackRun(ctx context.Context, stack string) (*HistoryEntry, error)
}

var _ StackRunReader = (*Folder)(nil)

// LastStackRun returns the newest record of the stack's own history.
func (f *Folder) LastStackRun(ctx context.Context, stack string) (*HistoryEntry, error) {
	if err := f.checkStack(stack); err != nil {
		return nil, err
	}
	records, err := historyRecordFiles(stack, map[string]string{f.key(RunnerStackHistoryPrefix(stack)): ""})
	if err != nil || len(records) == 0 {
		return nil, err
	}
	return readHistoryFile(records[0])
}

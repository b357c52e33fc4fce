package bucket

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// Repair makes the (project, stack) state loadable again under its lock:
// a journal of a run that did not commit is folded in, references are
// mended and pending operations cleared (backend.RepairSnapshot).
func (s *Store) Repair(ctx context.Context, project, stack string, c resource.Crypter) ([]string, error) {
	if err := names(project, stack); err != nil {
		return nil, err
	}
	start := time.Now().UTC()
	var changes []string
	err := s.underLock(ctx, project, stack, "runner stack repair", func() error {
		cur, leftovers, err := s.current(ctx, project, stack, nil)
		if err != nil {
			return err
		}
		var snap *state.Snapshot
		if cur.data != nil {
			if snap, err = s.decode(ctx, project, stack, cur.data, c); err != nil {
				return fmt.Errorf("%w; it cannot be repaired automatically: fix it by hand or import an export of the stack", err)
			}
		}
		for _, j := range leftovers {
			where := s.obj.Describe() + "/" + journalPrefix(project, stack) + j.op
			var change string
			if snap, change, err = backend.FoldForRepair(ctx, snap, cur.hash, j.data, where, c); err != nil {
				return err
			}
			if change != "" {
				changes = append(changes, change)
			}
		}
		if snap == nil {
			return nil
		}
		more, err := backend.RepairSnapshot(snap, project, stack)
		if changes = append(changes, more...); err != nil || len(changes) == 0 {
			return err
		}
		data, err := marshal(ctx, project, stack, snap, c)
		if err != nil {
			return err
		}
		if _, err := s.replace(ctx, project, stack, cur, data, leftovers, c); err != nil {
			return err
		}
		return s.addHistory(ctx, project, stack, backend.RepairRecord(start, changes))
	})
	if err != nil {
		return nil, err
	}
	return changes, nil
}

// RemoveStack removes the state of project on stack (checkpoint, backup,
// journal, history) under its lock, refusing while it manages resources
// unless force is set. When no project is left on the stack, its tags go
// too.
func (s *Store) RemoveStack(ctx context.Context, project, stack string, force bool) error {
	if err := names(project, stack); err != nil {
		return err
	}
	err := s.underLock(ctx, project, stack, "runner stack rm", func() error {
		o, err := s.readCheckpoint(ctx, project, stack)
		if err != nil {
			return err
		}
		if o != nil && !force {
			snap, err := s.opaque(project, stack, o.Data)
			if err != nil {
				return fmt.Errorf("reading %s: %w; use force to remove it anyway", checkpointKey(project, stack), err)
			}
			if n := backend.CountManaged(snap); n > 0 {
				return fmt.Errorf("it still manages %d resources; destroy them first, or force the removal to forget them", n)
			}
		}
		var keys []string
		for _, ext := range []string{"", gzipExt, zstdExt} {
			keys = append(keys, checkpointKey(project, stack)+ext, checkpointKey(project, stack)+ext+".bak")
		}
		for _, prefix := range []string{journalPrefix(project, stack), historyPrefix(project, stack)} {
			list, err := s.obj.List(ctx, prefix)
			if err != nil {
				return err
			}
			for _, l := range list {
				keys = append(keys, l.Key)
			}
		}
		return s.obj.DeleteMany(ctx, keys)
	})
	if err != nil {
		return fmt.Errorf("removing project %s from stack %s: %w", project, stack, err)
	}
	s.remember(project, stack, seenState{})
	left, err := s.Projects(ctx, stack)
	if err != nil || len(left) > 0 {
		return err
	}
	var keys []string
	for _, prefix := range []string{".runner/stacks/" + stack + "/", ".runner/history/" + stack + "/"} {
		list, err := s.obj.List(ctx, prefix)
		if err != nil {
			return err
		}
		for _, l := range list {
			if l.Key != stackLockKey(stack) {
				keys = append(keys, l.Key)
			}
		}
	}
	hist, err := s.historyKeys(ctx, stack, "")
	if err != nil {
		return err
	}
	for _, h := range hist {
		keys = append(keys, h.key)
	}
	if len(keys) == 0 {
		return nil
	}
	return s.obj.DeleteMany(ctx, keys)
}

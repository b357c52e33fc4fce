package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// StackInfo is a stack and the projects that have state on it.
type StackInfo struct {
	Name     string   `json:"name"`
	Projects []string `json:"projects"`
}

// StackSummary describes one project's state on a stack.
type StackSummary struct {
	Project string `json:"project"`
	Stack   string `json:"stack"`
	// Resources counts every resource in the snapshot (root stack and
	// providers included, as Pulumi counts them).
	Resources int `json:"resources"`
	// Pending counts the pending operations recorded in the snapshot.
	Pending int `json:"pendingOperations"`
	// Interrupted is set when a journal of an unfinished operation exists.
	Interrupted bool `json:"interrupted"`
	// LastUpdate is the project's newest history entry (nil when none).
	LastUpdate *HistoryEntry `json:"lastUpdate,omitempty"`
	// Locked names the lock holder (nil when not locked).
	Locked *LockInfo `json:"locked,omitempty"`
}

// Summary describes the (project, stack) state without decrypting it (no
// crypter needed). It wraps ErrNotFound when the project has no state there.
func (f *Folder) Summary(ctx context.Context, project, stack string) (StackSummary, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return StackSummary{}, err
	}
	sum := StackSummary{Project: project, Stack: stack, Interrupted: fileExists(p.journal)}
	data, err := exportFile(p)
	if err != nil {
		return sum, err
	}
	if data == nil && !sum.Interrupted {
		return sum, fmt.Errorf("project %s has no state on stack %s: %w", project, stack, ErrNotFound)
	}
	if data != nil {
		snap, err := state.UnmarshalOpaque(data)
		if err != nil {
			return sum, fmt.Errorf("reading the state file %s: %w", p.snapshot, err)
		}
		sum.Resources, sum.Pending = len(snap.Resources), len(snap.PendingOperations)
	}
	hist, err := f.History(ctx, stack, project)
	if err != nil {
		return sum, err
	}
	if len(hist) > 0 {
		sum.LastUpdate = &hist[0]
	}
	sum.Locked, err = f.LockHolder(ctx, project, stack)
	return sum, err
}

// Export returns the (project, stack) snapshot file as stored: a Pulumi
// deployment (version 3) with its ciphertexts intact, ready for `pulumi
// stack import`. A journal of an interrupted operation is not folded in.
// It wraps ErrNotFound when the project has no snapshot there.
func (f *Folder) Export(ctx context.Context, project, stack string) ([]byte, error) {
	p, err := f.paths(project, stack)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := exportFile(p)
	if err != nil {
		return nil, err
	}
	if data == nil {
		return nil, fmt.Errorf("exporting project %s of stack %s: %w", project, stack, ErrNotFound)
	}
	return data, nil
}

// Import replaces the (project, stack) snapshot with data, a Pulumi
// deployment export. Under the stack's lock, data must match Pulumi's
// deployment schema, pass state.Check for this project and stack, and
// every secret must decrypt with crypter. It is written as given (atomic),
// the replaced snapshot and any leftover journal are kept in the history
// folder, and an "import" entry is recorded in the history.
func (f *Folder) Import(ctx context.Context, project, stack string, data []byte, crypter resource.Crypter) error {
	p, err := f.paths(project, stack)
	if err != nil {
		return err
	}
	start := time.Now().UTC()
	snap, err := CheckImport(ctx, project, stack, data, crypter)
	if err != nil {
		return err
	}
	lock, err := f.Lock(ctx, project, stack, CurrentLockInfo("runner stack import"))
	if err != nil {
		return fmt.Errorf("importing into project %s of stack %s: %w", project, stack, err)
	}
	defer lock.Unlock()
	if err := f.retireJournal(p); err != nil {
		return err
	}
	file, err := importFile(p, data)
	if err != nil {
		return fmt.Errorf("importing into project %s of stack %s: %w", project, stack, err)
	}
	if err := f.overwriteSnapshot(p, file); err != nil {
		return err
	}
	return f.appendHistory(p, ImportRecord(start, snap))
}

// CheckImport decodes data, a Pulumi deployment export, for Import into
// (project, stack): it must match Pulumi's deployment schema, pass
// state.Check for this project and stack, and every secret must decrypt
// with crypter.
func CheckImport(ctx context.Context, project, stack string, data []byte, crypter resource.Crypter) (*state.Snapshot, error) {
	if err := state.ValidateSchema(data); err != nil {
		return nil, fmt.Errorf("importing into project %s of stack %s: %w", project, stack, err)
	}
	snap, err := state.Unmarshal(ctx, data, crypter)
	if err != nil {
		return nil, fmt.Errorf("importing into project %s of stack %s: %w", project, stack, err)
	}
	if err := state.Check(snap, project, stack); err != nil {
		return nil, fmt.Errorf("importing into project %s of stack %s: %w", project, stack, err)
	}
	return snap, nil
}

// ImportRecord is the history record of an import of snap begun at start.
func ImportRecord(start time.Time, snap *state.Snapshot) HistoryRecord {
	return housekeeping("import", start, fmt.Sprintf("imported %d resources", len(snap.Resources)))
}

// housekeeping is the history record, by this user and host, of an
// operation on the state itself (import, repair) begun at start.
func housekeeping(kind string, start time.Time, msg string) HistoryRecord {
	me := CurrentLockInfo("")
	return HistoryRecord{Kind: kind, Result: "succeeded", StartTime: start, EndTime: time.Now().UTC(),
		User: me.User, Host: me.Host, Message: msg}
}

// retireJournal moves a leftover journal into the history folder.
func (f *Folder) retireJournal(p paths) error {
	if !fileExists(p.journal) {
		return nil
	}
	if err := os.MkdirAll(p.history, 0o755); err != nil {
		return fmt.Errorf("keeping the journal %s: %w", p.journal, err)
	}
	name := filepath.Join(p.history, time.Now().UTC().Format("20060102T150405.000000000Z")+".journal.jsonl")
	if err := os.Rename(p.journal, name); err != nil {
		return fmt.Errorf("keeping the journal %s: %w", p.journal, err)
	}
	return syncDir(p.dir)
}

// RemoveStack removes the state of project on stack (snapshot, journal,
// history snapshots), under its lock. It refuses while the snapshot still
// holds resources other than the root stack, unless force is set. When no
// project is left on the stack, the stack's folder (tags, history) goes too.
func (f *Folder) RemoveStack(ctx context.Context, project, stack string, force bool) error {
	p, err := f.paths(project, stack)
	if err != nil {
		return err
	}
	lock, err := f.Lock(ctx, project, stack, CurrentLockInfo("runner stack rm"))
	if err != nil {
		return fmt.Errorf("removing project %s from stack %s: %w", project, stack, err)
	}
	if data, _ := exportFile(p); data != nil && !force {
		snap, err := state.UnmarshalOpaque(data)
		if err != nil {
			lock.Unlock()
			return fmt.Errorf("removing project %s from stack %s: reading %s: %w; use force to remove it anyway", project, stack, p.snapshot, err)
		}
		if n := CountManaged(snap); n > 0 {
			lock.Unlock()
			return fmt.Errorf("removing project %s from stack %s: it still manages %d resources; destroy them first, or force the removal to forget them", project, stack, n)
		}
	}
	if err := f.removeProject(p); err != nil {
		lock.Unlock()
		return fmt.Errorf("removing project %s from stack %s: %w", project, stack, err)
	}
	if err := lock.Unlock(); err != nil {
		return fmt.Errorf("removing project %s from stack %s: %w", project, stack, err)
	}
	removeEmpty(filepath.Dir(p.lock), filepath.Dir(filepath.Dir(p.lock)))
	left, err := f.Projects(ctx, stack)
	if err != nil {
		return err
	}
	if len(left) == 0 {
		for _, dir := range []string{p.stackDir, f.key(RunnerStackHistoryPrefix(stack))} {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("removing stack %s: %w", stack, err)
			}
		}
	}
	return syncDir(filepath.Dir(p.stackDir))
}

// CountManaged counts the resources of s other than the root stack.
func CountManaged(s *state.Snapshot) int {
	n := 0
	for _, r := range s.Resources {
		if r.Type != resource.RootStackType {
			n++
		}
	}
	return n
}

// Outputs returns the outputs of the (project, stack) root stack resource,
// secrets decrypted by crypter (still wrapped in resource.Secret). It wraps
// ErrNotFound when the project has no state there.
func (f *Folder) Outputs(ctx context.Context, project, stack string, crypter resource.Crypter) (resource.PropertyMap, error) {
	snap, err := f.Load(ctx, project, stack, crypter)
	if err != nil {
		return nil, err
	}
	return RootOutputs(snap, project, stack)
}

// RootOutputs returns the outputs of snap's root stack resource (empty
// when it has none). It wraps ErrNotFound when snap is nil: the project has
// no state on the stack.
func RootOutputs(snap *state.Snapshot, project, stack string) (resource.PropertyMap, error) {
	if snap == nil {
		return nil, fmt.Errorf("project %s has no state on stack %s: %w", project, stack, ErrNotFound)
	}
	for _, r := range snap.Resources {
		if r.Type == resource.RootStackType && !r.Delete {
			return r.Outputs, nil
		}
	}
	return resource.PropertyMap{}, nil
}

// StackExists reports whether the backend holds anything of stack: state,
// a lock, tags or history (its folder exists).
func (f *Folder) StackExists(ctx context.Context, stack string) (bool, error) {
	if err := f.checkStack(stack); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	_, err := os.Stat(f.stackDir(stack))
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("looking for stack %s in %s: %w", stack, f.Root, err)
	}
	projects, err := f.Projects(ctx, stack)
	if err != nil || len(projects) > 0 {
		return len(projects) > 0, err
	}
	locked, err := f.LockedProjects(ctx, stack)
	return len(locked) > 0, err
}

package plugintest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// ListStacks returns every stack with a project that has state.
func (b *Backend) ListStacks(ctx context.Context) ([]backend.StackInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	byStack := map[string][]string{}
	for k, s := range b.stacks {
		if s.hasState() {
			project, stack, _ := strings.Cut(k, "\x00")
			byStack[stack] = append(byStack[stack], project)
		}
	}
	out := make([]backend.StackInfo, 0, len(byStack))
	for stack, projects := range byStack {
		sort.Strings(projects)
		out = append(out, backend.StackInfo{Name: stack, Projects: projects})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Projects lists the projects with state on stack.
func (b *Backend) Projects(ctx context.Context, stack string) ([]string, error) {
	return b.projectsWhere(ctx, stack, (*memStack).hasState)
}

// LockedProjects lists the projects of stack whose lock is taken.
func (b *Backend) LockedProjects(ctx context.Context, stack string) ([]string, error) {
	return b.projectsWhere(ctx, stack, func(s *memStack) bool { return s.lock != nil })
}

func (b *Backend) projectsWhere(ctx context.Context, stack string, ok func(*memStack) bool) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for k, s := range b.stacks {
		project, st, _ := strings.Cut(k, "\x00")
		if st == stack && ok(s) {
			out = append(out, project)
		}
	}
	sort.Strings(out)
	return out, nil
}

// StackExists reports whether the backend holds anything of stack.
func (b *Backend) StackExists(ctx context.Context, stack string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stackLocks[stack] != nil || len(b.tags[stack]) > 0 || len(b.history[stack]) > 0 {
		return true, nil
	}
	for k, s := range b.stacks {
		if strings.HasSuffix(k, "\x00"+stack) && (s.hasState() || s.lock != nil) {
			return true, nil
		}
	}
	return false, nil
}

// Summary describes the (project, stack) state.
func (b *Backend) Summary(ctx context.Context, project, stack string) (backend.StackSummary, error) {
	if err := ctx.Err(); err != nil {
		return backend.StackSummary{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	sum := backend.StackSummary{Project: project, Stack: stack, Interrupted: s.journal != nil}
	if !s.hasState() {
		return sum, fmt.Errorf("project %s has no state on stack %s: %w", project, stack, backend.ErrNotFound)
	}
	if s.snap != nil {
		sum.Resources, sum.Pending = len(s.snap.Resources), len(s.snap.PendingOperations)
	}
	hist := b.history[stack]
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].Project == project {
			e := hist[i]
			sum.LastUpdate = &e
			break
		}
	}
	if s.lock != nil {
		h := *s.lock
		sum.Locked = &h
	}
	return sum, nil
}

// Outputs returns the outputs of the project's root stack resource.
func (b *Backend) Outputs(ctx context.Context, project, stack string, c resource.Crypter) (resource.PropertyMap, error) {
	snap, err := b.Load(ctx, project, stack, c)
	if err != nil {
		return nil, err
	}
	return backend.RootOutputs(snap, project, stack)
}

// StackSecrets says, for every project with state on stack, what its state
// records of its secrets.
func (b *Backend) StackSecrets(ctx context.Context, stack string) ([]backend.StateSecrets, error) {
	projects, err := b.Projects(ctx, stack)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]backend.StateSecrets, 0, len(projects))
	for _, p := range projects {
		s := b.stack(p, stack)
		st := backend.StateSecrets{Project: p, Path: "memory://" + stack + "/" + p}
		if s.snap != nil {
			st.Provider = s.snap.SecretsProvider
			st.HasSecrets = snapshotHasSecret(s.snap)
		}
		if s.journal != nil {
			for _, e := range s.journal.entries {
				st.HasSecrets = st.HasSecrets || resourceHasSecret(e.Old) || resourceHasSecret(e.New)
			}
		}
		out = append(out, st)
	}
	return out, nil
}

func snapshotHasSecret(snap *state.Snapshot) bool {
	for _, r := range snap.Resources {
		if resourceHasSecret(r) {
			return true
		}
	}
	for _, p := range snap.PendingOperations {
		if resourceHasSecret(p.Resource) {
			return true
		}
	}
	return false
}

func resourceHasSecret(r *state.Resource) bool {
	return r != nil && (hasSecret(r.Inputs) || hasSecret(r.Outputs))
}

// History returns the operations recorded for stack, newest first.
func (b *Backend) History(ctx context.Context, stack, project string) ([]backend.HistoryEntry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []backend.HistoryEntry
	hist := b.history[stack]
	for i := len(hist) - 1; i >= 0; i-- {
		if project == "" || hist[i].Project == project {
			out = append(out, hist[i])
		}
	}
	return out, nil
}

// Tags returns the stack's tags.
func (b *Backend) Tags(ctx context.Context, stack string) (map[string]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]string, len(b.tags[stack]))
	for k, v := range b.tags[stack] {
		out[k] = v
	}
	return out, nil
}

// SetTag sets one tag of the stack.
func (b *Backend) SetTag(ctx context.Context, stack, key, value string) error {
	if key == "" {
		return fmt.Errorf("setting a tag of stack %s: the tag name is empty", stack)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tags[stack] == nil {
		b.tags[stack] = map[string]string{}
	}
	b.tags[stack][key] = value
	return nil
}

// RemoveTag removes one tag of the stack.
func (b *Backend) RemoveTag(ctx context.Context, stack, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.tags[stack], key)
	return nil
}

// LockHolder returns the holder of the (project, stack) lock.
func (b *Backend) LockHolder(ctx context.Context, project, stack string) (*backend.LockInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.judge(b.stack(project, stack).lock), nil
}

// ForceUnlock clears the (project, stack) lock whoever holds it.
func (b *Backend) ForceUnlock(ctx context.Context, project, stack string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	b.dropped(s.lock)
	s.lock = nil
	return nil
}

// StackLockHolder returns the holder of the stack's own lock.
func (b *Backend) StackLockHolder(ctx context.Context, stack string) (*backend.LockInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.judge(b.stackLocks[stack]), nil
}

// ForceUnlockStack clears the stack's own lock whoever holds it.
func (b *Backend) ForceUnlockStack(ctx context.Context, stack string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropped(b.stackLocks[stack])
	delete(b.stackLocks, stack)
	return nil
}

// Export returns the committed snapshot as a Pulumi deployment, its
// secrets encrypted with the crypter they were last written with.
func (b *Backend) Export(ctx context.Context, project, stack string) ([]byte, error) {
	b.mu.Lock()
	s := b.stack(project, stack)
	snap, c := CopySnapshot(s.snap), s.crypter
	b.mu.Unlock()
	if snap == nil {
		return nil, fmt.Errorf("exporting project %s of stack %s: %w", project, stack, backend.ErrNotFound)
	}
	return state.Marshal(ctx, snap, c)
}

// Import replaces the (project, stack) snapshot with data, once checked.
func (b *Backend) Import(ctx context.Context, project, stack string, data []byte, c resource.Crypter) error {
	start := time.Now().UTC()
	snap, err := backend.CheckImport(ctx, project, stack, data, c)
	if err != nil {
		return err
	}
	return b.underLock(ctx, project, stack, fmt.Sprintf("importing into project %s of stack %s", project, stack), func(s *memStack) error {
		s.snap, s.crypter, s.journal = snap, c, nil
		b.wrote(s)
		b.history[stack] = append(b.history[stack], backend.HistoryEntry{Project: project, HistoryRecord: backend.ImportRecord(start, snap)})
		return nil
	})
}

// Repair makes the (project, stack) state loadable again.
func (b *Backend) Repair(ctx context.Context, project, stack string, c resource.Crypter) ([]string, error) {
	start := time.Now().UTC()
	var changes []string
	err := b.underLock(ctx, project, stack, fmt.Sprintf("repairing project %s of stack %s", project, stack), func(s *memStack) error {
		if !s.hasState() {
			return nil
		}
		var snap *state.Snapshot
		if s.journal != nil {
			var err error
			if snap, err = backend.Fold(s.journal.base, s.journal.entries); err != nil {
				return fmt.Errorf("reading the journal of project %s on stack %s: %w", project, stack, err)
			}
			snap = CopySnapshot(snap)
			changes = append(changes, fmt.Sprintf("folded the finished steps of the journal of project %s into its state", project))
		} else {
			snap = CopySnapshot(s.snap)
		}
		more, err := backend.RepairSnapshot(snap, project, stack)
		if changes = append(changes, more...); err != nil || len(changes) == 0 {
			changes = nil
			return err
		}
		s.snap, s.crypter, s.journal = snap, c, nil
		b.wrote(s)
		b.history[stack] = append(b.history[stack], backend.HistoryEntry{Project: project, HistoryRecord: backend.RepairRecord(start, changes)})
		return nil
	})
	return changes, err
}

// RemoveStack removes the state of project on stack.
func (b *Backend) RemoveStack(ctx context.Context, project, stack string, force bool) error {
	return b.underLock(ctx, project, stack, fmt.Sprintf("removing project %s from stack %s", project, stack), func(s *memStack) error {
		if s.snap != nil && !force {
			if n := backend.CountManaged(s.snap); n > 0 {
				return fmt.Errorf("removing project %s from stack %s: it still manages %d resources; destroy them first, or force the removal to forget them", project, stack, n)
			}
		}
		delete(b.stacks, key(project, stack))
		for k, other := range b.stacks {
			if strings.HasSuffix(k, "\x00"+stack) && other.hasState() {
				return nil
			}
		}
		delete(b.tags, stack)
		delete(b.history, stack)
		return nil
	})
}

// underLock runs fn on the (project, stack) with b.mu held, refusing while
// another holder has the project's lock (an error saying what it was doing).
func (b *Backend) underLock(ctx context.Context, project, stack, doing string, fn func(*memStack) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stack(project, stack)
	if s.lock != nil {
		return fmt.Errorf("%s: %w", doing, b.locked(project, stack, s.lock))
	}
	return fn(s)
}

package bucket

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
)

// stateKeys lists every (stack → projects) with a checkpoint or a journal.
func (s *Store) stateKeys(ctx context.Context) (map[string]map[string]bool, error) {
	all, _, _, err := s.stateAndJournals(ctx)
	return all, err
}

// stateAndJournals lists every (stack → projects) with a checkpoint or a
// journal, (stack → projects) with a journal, and the ETag of each plain
// checkpoint (by seenKey).
func (s *Store) stateAndJournals(ctx context.Context) (all, journaled map[string]map[string]bool, etags map[string]string, err error) {
	out := map[string]map[string]bool{}
	journaled = map[string]map[string]bool{}
	etags = map[string]string{}
	add := func(stack, project string) {
		if backend.CheckName("stack", stack) != nil || backend.CheckName("project", project) != nil {
			return
		}
		if out[stack] == nil {
			out[stack] = map[string]bool{}
		}
		out[stack][project] = true
	}
	list, err := s.obj.List(ctx, ".pulumi/stacks/")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("listing the stacks in %s: %w", s.obj.Describe(), err)
	}
	for _, o := range list {
		parts := strings.Split(strings.TrimPrefix(o.Key, ".pulumi/stacks/"), "/")
		if len(parts) == 2 && strings.HasSuffix(parts[1], ".json") {
			add(strings.TrimSuffix(parts[1], ".json"), parts[0])
			etags[seenKey(parts[0], strings.TrimSuffix(parts[1], ".json"))] = o.ETag
		} else if len(parts) == 2 && strings.HasSuffix(parts[1], ".json"+gzipExt) {
			add(strings.TrimSuffix(parts[1], ".json"+gzipExt), parts[0])
		} else if len(parts) == 2 && strings.HasSuffix(parts[1], ".json"+zstdExt) {
			add(strings.TrimSuffix(parts[1], ".json"+zstdExt), parts[0])
		}
	}
	list, err = s.obj.List(ctx, ".runner/stacks/")
	if err != nil {
		return nil, nil, nil, fmt.Errorf("listing the stacks in %s: %w", s.obj.Describe(), err)
	}
	for _, o := range list {
		parts := strings.Split(strings.TrimPrefix(o.Key, ".runner/stacks/"), "/")
		if len(parts) > 3 && parts[2] == "journal" {
			add(parts[0], parts[1])
			if journaled[parts[0]] == nil {
				journaled[parts[0]] = map[string]bool{}
			}
			journaled[parts[0]][parts[1]] = true
		}
	}
	return out, journaled, etags, nil
}

// ListStacks returns every stack with state, sorted, with its projects.
func (s *Store) ListStacks(ctx context.Context) ([]backend.StackInfo, error) {
	all, err := s.stateKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []backend.StackInfo
	for stack, projects := range all {
		out = append(out, backend.StackInfo{Name: stack, Projects: sorted(projects)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Projects lists, sorted, the projects with state on stack.
func (s *Store) Projects(ctx context.Context, stack string) ([]string, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	all, err := s.stateKeys(ctx)
	if err != nil {
		return nil, err
	}
	if len(all[stack]) == 0 {
		return nil, nil
	}
	return sorted(all[stack]), nil
}

// StackExists reports whether anything of stack is stored: state, a lock,
// tags or history.
func (s *Store) StackExists(ctx context.Context, stack string) (bool, error) {
	ps, err := s.Projects(ctx, stack)
	if err != nil || len(ps) > 0 {
		return len(ps) > 0, err
	}
	list, err := s.obj.List(ctx, ".runner/stacks/"+stack+"/")
	if err != nil || len(list) > 0 {
		return len(list) > 0, err
	}
	hist, err := s.historyKeys(ctx, stack, "")
	if err != nil || len(hist) > 0 {
		return len(hist) > 0, err
	}
	locked, err := s.LockedProjects(ctx, stack)
	return len(locked) > 0, err
}

// Summary describes the (project, stack) state without decrypting it.
func (s *Store) Summary(ctx context.Context, project, stack string) (backend.StackSummary, error) {
	if err := names(project, stack); err != nil {
		return backend.StackSummary{}, err
	}
	sum := backend.StackSummary{Project: project, Stack: stack}
	o, err := s.readCheckpoint(ctx, project, stack)
	if err != nil {
		return sum, err
	}
	ops, err := s.readJournals(ctx, project, stack)
	if err != nil {
		return sum, err
	}
	stored := ""
	if o != nil {
		stored = backend.SnapshotHash(o.Data)
	}
	sum.Interrupted = len(pending(ops, stored)) > 0
	if o == nil && !sum.Interrupted {
		return sum, fmt.Errorf("project %s has no state on stack %s: %w", project, stack, backend.ErrNotFound)
	}
	if o != nil {
		snap, err := s.opaque(project, stack, o.Data)
		if err != nil {
			return sum, err
		}
		sum.Resources, sum.Pending = len(snap.Resources), len(snap.PendingOperations)
	}
	keys, err := s.historyKeys(ctx, stack, project)
	if err != nil {
		return sum, err
	}
	if len(keys) > 0 {
		if sum.LastUpdate, err = s.readHistory(ctx, keys[0].key, project); err != nil {
			return sum, err
		}
	}
	sum.Locked, err = s.LockHolder(ctx, project, stack)
	return sum, err
}

// Outputs returns the outputs of the project's root stack resource.
func (s *Store) Outputs(ctx context.Context, project, stack string, c resource.Crypter) (resource.PropertyMap, error) {
	snap, err := s.Load(ctx, project, stack, c)
	if err != nil {
		return nil, err
	}
	return backend.RootOutputs(snap, project, stack)
}

// StackSecrets returns what each project's state on stack records of its
// secrets, without decrypting anything: the listing that finds the
// projects also finds their journals, so only those are read, and gives
// each checkpoint's ETag, so only those the stack's index does not
// describe under that ETag are read (secretsindex.go).
func (s *Store) StackSecrets(ctx context.Context, stack string) ([]backend.StateSecrets, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	all, journaled, etags, err := s.stateAndJournals(ctx)
	if err != nil {
		return nil, err
	}
	projects := sorted(all[stack])
	stored := secretsIndex{}
	if len(projects) > 0 {
		if stored, err = s.readSecretsIndex(ctx, stack); err != nil {
			return nil, err
		}
	}
	current := secretsIndex{}
	out := make([]backend.StateSecrets, 0, len(projects))
	for _, project := range projects {
		sec, err := s.stateSecrets(ctx, project, stack, stored, etags[seenKey(project, stack)], current)
		if err != nil {
			return nil, err
		}
		var ops []*opJournal
		if journaled[stack][project] {
			if ops, err = s.readJournals(ctx, project, stack); err != nil {
				return nil, err
			}
		}
		for _, j := range ops {
			sec.HasSecrets = sec.HasSecrets || bytes.Contains(j.data, []byte(state.SecretSig))
		}
		out = append(out, sec)
	}
	s.keepSecretsIndex(stack, stored, current)
	return out, nil
}

// stateSecrets tells what the project's checkpoint (listed with etag)
// records of its secrets: from the index when it describes that
// checkpoint, else read (and noted in current).
func (s *Store) stateSecrets(ctx context.Context, project, stack string, idx secretsIndex, etag string, current secretsIndex) (backend.StateSecrets, error) {
	sec := backend.StateSecrets{Project: project, Path: s.obj.Describe() + "/" + checkpointKey(project, stack)}
	if idx.describe(&sec, etag) {
		current[project] = idx[project]
		sec.Indexed = true
		return sec, nil
	}
	o, err := s.readCheckpoint(ctx, project, stack)
	if err != nil || o == nil {
		return sec, err
	}
	sec.Provider, sec.HasSecrets, sec.Unreadable = describeCheckpoint(sec.Path, o.Data)
	if sec.Unreadable == nil && o.ETag != "" && s.formOf(project, stack) == "" {
		current[project] = indexedState{ETag: strings.Trim(o.ETag, `"`), Provider: sec.Provider, HasSecrets: sec.HasSecrets}
	}
	return sec, nil
}

// Export returns the (project, stack) checkpoint as a Pulumi deployment.
func (s *Store) Export(ctx context.Context, project, stack string) ([]byte, error) {
	if err := names(project, stack); err != nil {
		return nil, err
	}
	o, err := s.readCheckpoint(ctx, project, stack)
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fmt.Errorf("exporting project %s of stack %s: %w", project, stack, backend.ErrNotFound)
	}
	return backend.FromCheckpoint(s.obj.Describe()+"/"+checkpointKey(project, stack), o.Data)
}

// Import replaces the (project, stack) state with data, a Pulumi
// deployment, under the project's lock.
func (s *Store) Import(ctx context.Context, project, stack string, data []byte, c resource.Crypter) error {
	if err := names(project, stack); err != nil {
		return err
	}
	start := time.Now().UTC()
	snap, err := backend.CheckImport(ctx, project, stack, data, c)
	if err != nil {
		return err
	}
	return s.underLock(ctx, project, stack, "runner stack import", func() error {
		cp, err := backend.ToCheckpoint(project, stack, data)
		if err != nil {
			return err
		}
		cur, leftovers, err := s.current(ctx, project, stack, nil)
		if err != nil {
			return err
		}
		if _, err := s.replace(ctx, project, stack, cur, cp, leftovers, c); err != nil {
			return err
		}
		return s.addHistory(ctx, project, stack, backend.ImportRecord(start, snap))
	})
}

// underLock runs fn under the (project, stack) lock taken for command.
func (s *Store) underLock(ctx context.Context, project, stack, command string, fn func() error) error {
	lock, err := s.Lock(ctx, project, stack, backend.CurrentLockInfo(command))
	if err != nil {
		return fmt.Errorf("%s of project %s on stack %s: %w", strings.TrimPrefix(command, "runner "), project, stack, err)
	}
	err = fn()
	if uerr := lock.Unlock(); err == nil {
		err = uerr
	}
	return err
}

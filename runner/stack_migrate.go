package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/resource"
)

// StackMigrate is `runner stack migrate --to URL`: it copies the state of
// every project of the selected stack, and the stack's tags, from the
// workspace's backend to the backend at to, then reads each copy back and
// checks it is what was copied. It refuses while any lock of the stack is
// held on either backend, while a project has the journal of an
// unfinished operation, and where the destination already holds other
// state for a project. The source is left as it was.
func StackMigrate(ctx context.Context, opts Options, to string) (string, error) {
	s, stack, err := openStack(opts)
	if err != nil {
		return "", err
	}
	from := BackendURL(opts, s.Workspace)
	itself := func(what string) error {
		return Invalid(fmt.Errorf("stack migrate --to %s names the backend stack %s is already in (%s): %s; nothing was copied, and the stack's only copy is there (do not `runner stack rm` it)",
			backend.RedactURL(to), stack, backend.RedactURL(from), what))
	}
	if strings.TrimSuffix(from, "/") == strings.TrimSuffix(to, "/") {
		return "", itself("the same URL")
	}
	dstOpts := opts
	dstOpts.Backend = to
	dst, err := OpenBackend(dstOpts, s.Workspace)
	if err != nil {
		return "", err
	}
	same, id, err := backend.SameStorage(ctx, s.backend, dst)
	if err != nil {
		return "", fmt.Errorf("stack migrate: telling whether %s is the backend the stack is in: %w", backend.RedactURL(to), err)
	}
	if same {
		return "", itself("both are " + id)
	}
	return s.Migrate(ctx, stack, dst, backend.RedactURL(to))
}

// Migrate copies stack's state to dst (named where, for messages) and
// verifies every copy (see StackMigrate).
func (s *Stacks) Migrate(ctx context.Context, stack string, dst backend.Store, where string) (string, error) {
	src := s.backend
	projects, err := src.Projects(ctx, stack)
	if err != nil {
		return "", err
	}
	if len(projects) == 0 {
		return "", Invalid(fmt.Errorf("stack %s has no state in this workspace's backend; nothing to migrate", stack))
	}
	for _, b := range []backend.Store{src, dst} {
		if err := refuseLocked(ctx, b, stack); err != nil {
			return "", fmt.Errorf("migrating stack %s: %w; migrate once no operation runs (or clear a stale lock with `runner stack unlock`)", stack, err)
		}
	}
	lock, err := src.LockStack(ctx, stack, backend.CurrentLockInfo("runner stack migrate"))
	if err != nil {
		return "", fmt.Errorf("migrating stack %s: %w", stack, err)
	}
	defer lock.Unlock()
	c, err := s.Crypter(stack)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, project := range projects {
		line, err := migrateProject(ctx, src, dst, project, stack, c)
		if err != nil {
			return "", fmt.Errorf("migrating stack %s to %s: %w; the projects before it were copied and verified, the source is unchanged", stack, where, err)
		}
		lines = append(lines, line)
	}
	tags, err := src.Tags(ctx, stack)
	if err != nil {
		return "", err
	}
	for k, v := range tags {
		if err := dst.SetTag(ctx, stack, k, v); err != nil {
			return "", fmt.Errorf("migrating the tags of stack %s: %w", stack, err)
		}
	}
	lines = append(lines, fmt.Sprintf("Copied the %d tags of stack %s.", len(tags), stack),
		fmt.Sprintf("Stack %s is now in %s as well, every copy read back and verified (its history stays in the old backend). "+
			"Point --backend or RUNNER_BACKEND_URL at it; the old backend's copy is unchanged (`runner stack rm` removes it once you are sure).", stack, where))
	return strings.Join(lines, "\n"), nil
}

// refuseLocked returns a *backend.LockedError when any lock of stack is
// held in b.
func refuseLocked(ctx context.Context, b backend.Store, stack string) error {
	h, err := b.StackLockHolder(ctx, stack)
	if err != nil {
		return err
	}
	if h != nil {
		return &backend.LockedError{Stack: stack, StackWide: true, Holder: *h, Stale: h.Stale()}
	}
	locked, err := b.LockedProjects(ctx, stack)
	if err != nil || len(locked) == 0 {
		return err
	}
	h, err = b.LockHolder(ctx, locked[0], stack)
	if err != nil || h == nil {
		return err
	}
	return &backend.LockedError{Project: locked[0], Stack: stack, Holder: *h, Stale: h.Stale()}
}

// migrateProject copies one project's state and reads it back.
func migrateProject(ctx context.Context, src, dst backend.Store, project, stack string, c resource.Crypter) (string, error) {
	sum, err := src.Summary(ctx, project, stack)
	if err != nil {
		return "", err
	}
	if sum.Interrupted {
		return "", Invalid(fmt.Errorf("project %s has the journal of an unfinished operation: run `runner up` (or `runner stack repair --project %s`) first, so that its state is whole", project, project))
	}
	data, err := src.Export(ctx, project, stack)
	if err != nil {
		return "", err
	}
	if have, err := dst.Export(ctx, project, stack); err == nil {
		if same, _ := sameDeployment(data, have); same {
			return fmt.Sprintf("Project %s: already in the destination, identical.", project), nil
		}
		return "", Invalid(fmt.Errorf("the destination already holds other state for project %s of stack %s; remove it there first (`runner stack rm`) or migrate elsewhere", project, stack))
	}
	if err := dst.Import(ctx, project, stack, data, c); err != nil {
		return "", fmt.Errorf("copying project %s: %w", project, err)
	}
	back, err := dst.Export(ctx, project, stack)
	if err != nil {
		return "", fmt.Errorf("reading back project %s: %w", project, err)
	}
	if same, err := sameDeployment(data, back); err != nil || !same {
		return "", fmt.Errorf("project %s reads back differently from what was copied (%v); the copy is not to be trusted: remove it from the destination", project, err)
	}
	return fmt.Sprintf("Project %s: copied %d resources, verified.", project, sum.Resources), nil
}

// sameDeployment reports whether two deployment exports hold the same JSON
// value (key order and spacing aside).
func sameDeployment(a, b []byte) (bool, error) {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return false, err
	}
	return reflect.DeepEqual(va, vb), nil
}

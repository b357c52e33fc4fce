package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// lockStack takes the stack's own lock for a stack command that rewrites
// state (rm, import, repair), so that it never runs while up, refresh or
// destroy works on the stack (a *backend.LockedError, exit 4, names the
// holder), and no planned up finds a project lock of it half way. The
// returned function lets go of it; once the last project's state is
// removed, with the stack's lock, there is nothing left to let go. A stack
// the backend holds nothing of is not locked (locking would leave it
// something).
func (s *Stacks) lockStack(ctx context.Context, stack, command, doing string) (func(), error) {
	exists, err := s.backend.StackExists(ctx, stack)
	if err != nil || !exists {
		return func() {}, err
	}
	lock, err := s.backend.LockStack(ctx, stack, backend.CurrentLockInfo(command))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doing, err)
	}
	return func() { _ = lock.Unlock() }, nil
}

// managed counts a summary's resources other than the root stack.
func managed(sum backend.StackSummary) int {
	if sum.Resources <= 1 {
		return 0
	}
	return sum.Resources - 1
}

// Unlock clears a project's lock on stack, and the stack's own lock (which
// up, refresh and destroy hold across the projects) when its holder no
// longer runs. A holder that still runs on this host, or one of another
// host, is refused unless force.
func (s *Stacks) Unlock(ctx context.Context, stack, project string, force bool) (string, error) {
	msg, err := s.unlockProject(ctx, stack, project, force)
	if err != nil {
		return "", err
	}
	msgs, err := s.unlockPulumi(ctx, stack, project, force)
	if msg == "" && len(msgs) == 0 && err == nil {
		msg = fmt.Sprintf("project %s of stack %s is not locked", project, stack)
	}
	msgs = append([]string{msg}, msgs...)
	if err != nil {
		return joinLines(msgs), err
	}
	stackMsg, err := s.unlockStack(ctx, stack, force)
	return joinLines(append(msgs, stackMsg)), err
}

// joinLines joins the messages that are not "", one a line.
func joinLines(msgs []string) string {
	var out []string
	for _, m := range msgs {
		if m != "" {
			out = append(out, m)
		}
	}
	return strings.Join(out, "\n")
}

// unlockPulumi removes the lock files the Pulumi CLI left in the lock
// folders of stack (of project only, unless it is "") when their holder is
// a process of this host that no longer runs, or with force, naming each
// file it removed. Each holder that may still run is refused (a
// *backend.LockedError, all of them joined) unless force. Backends without Pulumi's layout
// (PostgreSQL) have none.
func (s *Stacks) unlockPulumi(ctx context.Context, stack, project string, force bool) ([]string, error) {
	keeper, ok := s.backend.(backend.PulumiLockKeeper)
	if !ok {
		return nil, nil
	}
	locks, err := keeper.PulumiLocks(ctx, stack, project)
	if err != nil {
		return nil, err
	}
	var msgs []string
	var refused []error // and the files that could not be removed: each is named
	for _, l := range locks {
		h := l.Holder
		if !h.Stale() && !force {
			// The error says to wait, or to pass --force.
			refused = append(refused, &backend.LockedError{Project: l.Project, Stack: stack, Holder: h, File: l.File, Pulumi: true})
			continue
		}
		if err := keeper.RemovePulumiLock(ctx, l); err != nil {
			refused = append(refused, err)
			continue
		}
		msgs = append(msgs, fmt.Sprintf("removed the Pulumi CLI's lock file %s of project %s on stack %s (held by %s, pid %d on %s, since %s)",
			l.File, l.Project, stack, h.User, h.PID, h.Host, h.Started.Format(time.RFC3339)))
	}
	return msgs, errors.Join(refused...)
}

// UnlockAll clears the stack's own lock and every project's lock on stack
// whose holder no longer runs (or, with force, whoever holds them): what
// an operation killed while projects ran side by side leaves behind. A
// project's holder that still runs is refused unless force.
func (s *Stacks) UnlockAll(ctx context.Context, stack string, force bool) (string, error) {
	projects, err := s.backend.LockedProjects(ctx, stack)
	if err != nil {
		return "", err
	}
	var msgs []string
	for _, project := range projects {
		msg, err := s.unlockProject(ctx, stack, project, force)
		if err != nil {
			return strings.Join(msgs, "\n"), err
		}
		if msg != "" { // a bucket lists projects locked by Pulumi's files only
			msgs = append(msgs, msg)
		}
	}
	pulumiMsgs, err := s.unlockPulumi(ctx, stack, "", force)
	msgs = append(msgs, pulumiMsgs...)
	if err != nil {
		return strings.Join(msgs, "\n"), err
	}
	stackMsg, err := s.unlockStack(ctx, stack, force)
	if err != nil {
		return strings.Join(msgs, "\n"), err
	}
	if stackMsg != "" {
		msgs = append(msgs, stackMsg)
	}
	if len(msgs) == 0 {
		return fmt.Sprintf("stack %s is not locked", stack), nil
	}
	return strings.Join(msgs, "\n"), nil
}

// unlockProject clears runner's lock of project on stack when its holder
// no longer runs, or with force; it returns "" when the lock is not taken.
func (s *Stacks) unlockProject(ctx context.Context, stack, project string, force bool) (string, error) {
	holder, err := s.backend.LockHolder(ctx, project, stack)
	if err != nil {
		return "", err
	}
	if holder == nil {
		return "", nil
	}
	if !holder.Stale() && !force {
		held := &backend.LockedError{Project: project, Stack: stack, Holder: *holder}
		return "", fmt.Errorf("%w; as it may still run, it is cleared only with --force, if you are sure it is not working on this stack", held)
	}
	if err := s.backend.ForceUnlock(ctx, project, stack); err != nil {
		return "", err
	}
	return fmt.Sprintf("cleared the lock of project %s on stack %s (held by %s, pid %d on %s)", project, stack, holder.Command, holder.PID, holder.Host), nil
}

// unlockStack clears the stack's own lock when its holder is a process of
// this host that no longer runs, or with force. It returns "" when the
// stack's lock is not taken.
func (s *Stacks) unlockStack(ctx context.Context, stack string, force bool) (string, error) {
	holder, err := s.backend.StackLockHolder(ctx, stack)
	if err != nil || holder == nil {
		return "", err
	}
	if !force && !holder.Stale() {
		return fmt.Sprintf("stack %s stays locked by %s (pid %d on %s), which may still run; pass --force to clear that lock too", stack, holder.Command, holder.PID, holder.Host), nil
	}
	if err := s.backend.ForceUnlockStack(ctx, stack); err != nil {
		return "", err
	}
	return fmt.Sprintf("cleared the lock of stack %s (held by %s, pid %d on %s)", stack, holder.Command, holder.PID, holder.Host), nil
}

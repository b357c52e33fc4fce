package bucket

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/runnerhq/runner/engine/backend"
)

// PulumiLocks returns the Pulumi CLI's lock files of stack in the bucket
// (of project only, unless it is ""), each holder judged as holderOf
// judges runner's.
func (s *Store) PulumiLocks(ctx context.Context, stack, project string) ([]backend.PulumiLock, error) {
	if err := backend.CheckName("stack", stack); err != nil {
		return nil, err
	}
	prefix := ".pulumi/locks/organization/"
	if project != "" {
		if err := names(project, stack); err != nil {
			return nil, err
		}
		prefix = pulumiLockDir(project, stack)
	}
	list, err := s.obj.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("listing the Pulumi CLI's locks of stack %s in %s: %w", stack, s.obj.Describe(), err)
	}
	var out []backend.PulumiLock
	for _, o := range list {
		l, ok := backend.PulumiLockOf(o.Key, stack, project)
		if !ok {
			continue
		}
		obj, err := s.obj.Get(ctx, o.Key)
		if errors.Is(err, ErrNotExist) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("reading the Pulumi CLI's lock %s/%s: %w", s.obj.Describe(), o.Key, err)
		}
		l.File = s.obj.Describe() + "/" + o.Key
		l.Holder = holderOf(obj, l.File)
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// RemovePulumiLock deletes a Pulumi CLI's lock file from the bucket.
func (s *Store) RemovePulumiLock(ctx context.Context, l backend.PulumiLock) error {
	if _, ok := backend.PulumiLockOf(l.Key, l.Stack, l.Project); !ok {
		return fmt.Errorf("%s is not a lock file of the Pulumi CLI", l.Key)
	}
	if err := s.obj.Delete(ctx, l.Key, ""); err != nil && !errors.Is(err, ErrNotExist) {
		return fmt.Errorf("removing the Pulumi CLI's lock %s/%s: %w", s.obj.Describe(), l.Key, err)
	}
	return nil
}

var _ backend.PulumiLockKeeper = (*Store)(nil)

package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
)

// lostLock is a backend whose locks were cleared and taken by another
// process before their holder released them.
type lostLock struct{ backend.Backend }

var errNotOurs = errors.New("the lock is held by another process now")

func (b lostLock) Lock(ctx context.Context, project, stack string, h backend.LockInfo) (backend.Lock, error) {
	l, err := b.Backend.Lock(ctx, project, stack, h)
	if err != nil {
		return nil, err
	}
	return notOurs{l}, nil
}

type notOurs struct{ backend.Lock }

func (l notOurs) Unlock() error {
	_ = l.Lock.Unlock()
	return errNotOurs
}

// An up whose lock turned out not to be its own at the end fails, saying
// so (before: the failed release was ignored and the up succeeded).
func TestUpReportsALockItCouldNotRelease(t *testing.T) {
	e := newEnv(t)
	e.opts.Backend = lostLock{e.backend}
	res, err := e.up(resources(map[string]engine.Inputs{"a": {"k": "v"}}))
	if !errors.Is(err, errNotOurs) || !strings.Contains(err.Error(), "releasing the lock") || res == nil {
		t.Fatalf("up = %v, %v; want the failed release named", res, err)
	}
}

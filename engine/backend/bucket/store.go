package bucket

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// Store is the bucket backend: a backend.Store over an object store. It is
// safe for concurrent use.
type Store struct {
	obj Objects

	leaseMu sync.Mutex
	lease   time.Duration // 0: backend.LeaseFromEnv

	probeOnce  sync.Once
	probeErr   error
	condDelete bool // the store honours If-Match on DELETE
	metaOnce   sync.Once

	mu   sync.Mutex
	seen map[string]seenState // project/stack → the checkpoint last read or written
	held map[string]*objLock  // lock key → the lock this process holds
	form map[string]string    // project/stack → its checkpoint's compression (an extension; "": plain)
	// journals, per stack whose lock this process holds, names the
	// projects with journal segments (journalindex.go).
	journals map[string]*journalIndex
	// secretsIdx is, per stack, its index of what its checkpoints record
	// of their secrets, as read by StackSecrets (secretsindex.go).
	secretsIdx map[string]*stackSecretsIndex
}

// seenState is a checkpoint as last read or written by this process.
type seenState struct {
	data []byte // the checkpoint JSON (decompressed)
	etag string
	hash string
}

var (
	_ backend.Store  = (*Store)(nil)
	_ backend.Leaser = (*Store)(nil)
)

// New returns the Store keeping its files in obj. Nothing is read or
// written until it is used; the store's conditional writes are checked on
// the first lock (Probe).
func New(obj Objects) *Store {
	return &Store{obj: obj, seen: map[string]seenState{}, held: map[string]*objLock{}, form: map[string]string{},
		journals: map[string]*journalIndex{}, secretsIdx: map[string]*stackSecretsIndex{}}
}

// Objects returns the object store s keeps its files in.
func (s *Store) Objects() Objects { return s.obj }

// SetLease sets the lease of the locks taken from now on.
func (s *Store) SetLease(d time.Duration) {
	s.leaseMu.Lock()
	defer s.leaseMu.Unlock()
	s.lease = d
}

func (s *Store) leaseFor() time.Duration {
	s.leaseMu.Lock()
	defer s.leaseMu.Unlock()
	if s.lease > 0 {
		return s.lease
	}
	return backend.LeaseFromEnv()
}

// NoConditionalWritesError is a store that does not honour conditional
// writes: two runs could both take a lock, so runner refuses to use it.
type NoConditionalWritesError struct{ Where string }

func (e *NoConditionalWritesError) Error() string {
	return fmt.Sprintf("the object store %s ignores conditional writes (a second PUT with If-None-Match: * was accepted), so its locks cannot keep two runs apart; "+
		"use a store that implements them (AWS S3, versitygw, ...) or the folder backend", e.Where)
}

// Probe checks, once per Store, that the object store honours conditional
// writes: a second create of one key must be refused. It also learns
// whether a DELETE honours If-Match (else a lock is released after reading
// it back). The probe object is removed.
func (s *Store) Probe(ctx context.Context) error {
	s.probeOnce.Do(func() { s.probeErr = s.probe(ctx) })
	return s.probeErr
}

func (s *Store) probe(ctx context.Context) error {
	if err := s.checkLayout(ctx); err != nil {
		return err
	}
	key := ".runner/probe/" + newID()
	etag, err := s.obj.Put(ctx, key, []byte("probe\n"), Cond{IfNoneMatch: true})
	if err != nil {
		return fmt.Errorf("checking the object store %s: %w", s.obj.Describe(), err)
	}
	defer s.obj.Delete(context.WithoutCancel(ctx), key, "")
	_, err = s.obj.Put(ctx, key, []byte("probe again\n"), Cond{IfNoneMatch: true})
	if err == nil {
		return &NoConditionalWritesError{Where: s.obj.Describe()}
	}
	if !errors.Is(err, ErrPrecondition) {
		return fmt.Errorf("checking the object store %s: %w", s.obj.Describe(), err)
	}
	err = s.obj.Delete(ctx, key, `"not-`+etag[min(1, len(etag)):])
	switch {
	case errors.Is(err, ErrPrecondition):
		s.condDelete = true
	case err != nil:
		return fmt.Errorf("checking the object store %s: %w", s.obj.Describe(), err)
	}
	return nil
}

// newID returns a random name that sorts after those made earlier.
func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%016x-%s", time.Now().UnixNano(), hex.EncodeToString(b[:]))
}

func seenKey(project, stack string) string { return project + "/" + stack }

func (s *Store) remember(project, stack string, st seenState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[seenKey(project, stack)] = st
}

func (s *Store) recall(project, stack string) (seenState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.seen[seenKey(project, stack)]
	return st, ok
}

// The keys of the layout, shared with the folder backend (see
// backend.DIYCheckpointKey and the package documentation).
func checkpointKey(project, stack string) string { return backend.DIYCheckpointKey(project, stack) }
func pulumiLockDir(project, stack string) string { return backend.DIYLockDir(project, stack) }
func projectLockKey(project, stack string) string {
	return backend.DIYProjectLockKey(project, stack)
}
func stackLockKey(stack string) string { return backend.RunnerStackPrefix(stack) + "lock.json" }
func tagsKey(stack string) string      { return backend.RunnerStackPrefix(stack) + "tags.json" }
func journalPrefix(project, stack string) string {
	return backend.RunnerProjectPrefix(project, stack) + "journal/"
}
func historyPrefix(project, stack string) string { return backend.DIYHistoryPrefix(project, stack) }

const metaKey = backend.DIYMetaKey

// checkLayout refuses a bucket whose .pulumi/meta.yaml names another
// layout than Pulumi's project layout (version 1), which runner writes,
// or Pulumi's legacy layout (stacks not grouped by project).
func (s *Store) checkLayout(ctx context.Context) error {
	o, err := s.obj.Get(ctx, metaKey)
	if errors.Is(err, ErrNotExist) {
		legacy, lerr := s.obj.List(ctx, ".pulumi/stacks/")
		if lerr != nil {
			return fmt.Errorf("checking the layout of %s: %w", s.obj.Describe(), lerr)
		}
		for _, l := range legacy {
			if !strings.Contains(strings.TrimPrefix(l.Key, ".pulumi/stacks/"), "/") {
				return &backend.UnavailableError{URL: s.obj.Describe(), Problem: errors.New("the bucket holds stacks in Pulumi's legacy layout (not grouped by project)"),
					Hint: "upgrade it with `pulumi state upgrade`, then run again; nothing was changed"}
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking the layout of %s: %w", s.obj.Describe(), err)
	}
	var version int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(o.Data)), "version: %d", &version); err != nil || version != 1 {
		return &backend.UnavailableError{URL: s.obj.Describe(), Problem: fmt.Errorf("its .pulumi/meta.yaml names layout %q (version %d), and runner reads Pulumi's project layout, version 1", strings.TrimSpace(string(o.Data)), version),
			Hint: "use a bucket (or prefix) of that layout; nothing was changed"}
	}
	s.metaOnce.Do(func() {})
	return nil
}

// ensureMeta writes .pulumi/meta.yaml (the project layout, version 1)
// unless it is there, once per Store.
func (s *Store) ensureMeta(ctx context.Context) {
	s.metaOnce.Do(func() {
		_, _ = s.obj.Put(ctx, metaKey, []byte("version: 1\n"), Cond{IfNoneMatch: true})
	})
}

func names(project, stack string) error {
	if err := backend.CheckName("project", project); err != nil {
		return err
	}
	return backend.CheckName("stack", stack)
}

var _ backend.Identifier = (*Store)(nil)

// Identity names the storage, when the object store can name itself (an
// Identity() string method, as S3's): "" when it cannot.
func (s *Store) Identity(context.Context) (string, error) {
	if id, ok := s.obj.(interface{ Identity() string }); ok {
		return id.Identity(), nil
	}
	return "", nil
}

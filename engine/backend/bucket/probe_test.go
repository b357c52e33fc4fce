package bucket_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/bucket"
)

// TestProbeRefusesAStoreWithoutConditionalWrites: a store that accepts a
// second create of one key cannot keep two runs apart, so the first lock
// is refused (nothing taken, the probe object removed).
func TestProbeRefusesAStoreWithoutConditionalWrites(t *testing.T) {
	mem := bucket.NewMemory()
	mem.IgnoreConditions = true
	s := bucket.New(mem)
	ctx := context.Background()
	for _, lock := range []func() error{
		func() error {
			_, err := s.Lock(ctx, "network", "dev", backend.CurrentLockInfo("runner up"))
			return err
		},
		func() error { _, err := s.LockStack(ctx, "dev", backend.CurrentLockInfo("runner up")); return err },
	} {
		err := lock()
		var nc *bucket.NoConditionalWritesError
		if !errors.As(err, &nc) || !strings.Contains(err.Error(), "ignores conditional writes") {
			t.Fatalf("Lock on a store without conditional writes = %v, want a *NoConditionalWritesError", err)
		}
	}
	if list, _ := mem.List(ctx, ""); len(list) != 0 {
		t.Fatalf("the refused probe left %v", list)
	}
}

// TestProbeAcceptsConditionalWrites: a store that honours them passes, and
// the probe leaves nothing behind.
func TestProbeAcceptsConditionalWrites(t *testing.T) {
	mem := bucket.NewMemory()
	s := bucket.New(mem)
	if err := s.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if list, _ := mem.List(context.Background(), ""); len(list) != 0 {
		t.Fatalf("the probe left %v", list)
	}
}

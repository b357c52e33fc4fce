package bucket_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/bucket"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
)

// TestPulumiLockFileRefusesRunner: a lock file the Pulumi CLI wrote in its
// lock folder of a project's stack refuses runner's lock of that project,
// naming the Pulumi user and host; runner's own lock is not left behind.
func TestPulumiLockFileRefusesRunner(t *testing.T) {
	mem := bucket.NewMemory()
	s := bucket.New(mem)
	ctx := context.Background()
	body := `{"pid": 4242, "username": "alice", "hostname": "laptop", "timestamp": "2026-11-28T10:00:00Z"}`
	if _, err := mem.Put(ctx, ".pulumi/locks/organization/network/dev/0a1b2c.json", []byte(body), bucket.Cond{}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Lock(ctx, "network", "dev", backend.CurrentLockInfo("runner up"))
	var le *backend.LockedError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "the Pulumi CLI (alice)") || !strings.Contains(err.Error(), "host laptop") {
		t.Fatalf("Lock beside a Pulumi lock file = %v, want a *LockedError naming alice@laptop", err)
	}
	if h, _ := s.LockHolder(ctx, "network", "dev"); h != nil {
		t.Fatalf("runner's refused lock was left behind: %+v", h)
	}
	if l, err := s.Lock(ctx, "app", "dev", backend.CurrentLockInfo("runner up")); err != nil {
		t.Fatalf("another project is held up by Pulumi's lock of network: %v", err)
	} else {
		l.Unlock()
	}
}

// TestNewerLayoutRefused: a bucket whose .pulumi/meta.yaml names a layout
// newer than Pulumi's project layout (version 1) is refused before
// anything is written.
func TestNewerLayoutRefused(t *testing.T) {
	mem := bucket.NewMemory()
	ctx := context.Background()
	if _, err := mem.Put(ctx, ".pulumi/meta.yaml", []byte("version: 2\n"), bucket.Cond{}); err != nil {
		t.Fatal(err)
	}
	s := bucket.New(mem)
	_, err := s.Lock(ctx, "network", "dev", backend.CurrentLockInfo("runner up"))
	if err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("Lock in a bucket of layout version 2 = %v, want a refusal naming the version", err)
	}
	if list, _ := mem.List(ctx, ""); len(list) != 1 {
		t.Fatalf("the refused bucket was written: %v", list)
	}
}

// TestCompressedCheckpointReadAndWrittenBack: a checkpoint the Pulumi CLI
// wrote gzipped or with zstd (PULUMI_DIY_BACKEND_GZIP, _ZSTD) is read, and a
// commit writes it back in its form (no plain one beside it), its .bak
// too; a zstd checkpoint that does not decode is an error naming it, never a stack with no state (a first
// up would create everything again).
func TestCompressedCheckpointReadAndWrittenBack(t *testing.T) {
	for _, ext := range []string{".gz", ".zst"} {
		t.Run(ext, func(t *testing.T) {
			mem := bucket.NewMemory()
			s := bucket.New(mem)
			ctx := context.Background()
			c := statetest.NewCrypter(1)
			export, _ := state.Marshal(ctx, statetest.Snapshot("app", "prod", 2), c)
			cp, _ := backend.ToCheckpoint("app", "prod", export)
			stored, err := backend.Compress(ext, cp)
			if err != nil || bytes.Equal(stored, cp) {
				t.Fatalf("Compress(%s) = %v", ext, err)
			}
			mem.Put(ctx, ".pulumi/meta.yaml", []byte("version: 1\n"), bucket.Cond{})
			mem.Put(ctx, ".pulumi/stacks/app/prod.json"+ext, stored, bucket.Cond{})
			snap, err := s.Load(ctx, "app", "prod", c)
			if err != nil || len(snap.Resources) != 4 {
				t.Fatalf("Load of a %s checkpoint = %v", ext, err)
			}
			if stacks, _ := s.ListStacks(ctx); len(stacks) != 1 || stacks[0].Name != "prod" {
				t.Fatalf("ListStacks = %+v", stacks)
			}
			j, err := s.OpenJournal(ctx, "app", "prod", snap, c)
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Commit(ctx, statetest.Snapshot("app", "prod", 3), backend.HistoryRecord{Kind: "update", Result: "succeeded", StartTime: time.Now()}); err != nil {
				t.Fatal(err)
			}
			if _, err := mem.Get(ctx, ".pulumi/stacks/app/prod.json"); err == nil {
				t.Fatalf("a plain checkpoint was written beside the %s one", ext)
			}
			for _, key := range []string{".pulumi/stacks/app/prod.json" + ext, ".pulumi/stacks/app/prod.json" + ext + ".bak"} {
				o, err := mem.Get(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				if plain, err := backend.Decompress(ext, o.Data); err != nil || bytes.Equal(plain, o.Data) {
					t.Fatalf("%s is not in the %s form: %v", key, ext, err)
				}
			}
			again, err := bucket.New(mem).Load(ctx, "app", "prod", c)
			if err != nil || len(again.Resources) != 5 {
				t.Fatalf("Load after the %s write = %v", ext, err)
			}
		})
	}
	for name, data := range map[string][]byte{"truncated": {0x28, 0xb5, 0x2f, 0xfd}, "garbled": append([]byte{0x28, 0xb5, 0x2f, 0xfd}, bytes.Repeat([]byte{0xff}, 64)...)} {
		mem := bucket.NewMemory()
		ctx := context.Background()
		mem.Put(ctx, ".pulumi/meta.yaml", []byte("version: 1\n"), bucket.Cond{})
		mem.Put(ctx, ".pulumi/stacks/app/prod.json.zst", data, bucket.Cond{})
		_, err := bucket.New(mem).Load(ctx, "app", "prod", statetest.NewCrypter(1))
		if err == nil || !strings.Contains(err.Error(), "project app on stack prod") {
			t.Errorf("Load of a %s zstd checkpoint = %v, want an error naming it", name, err)
		}
	}
}

// TestLeftBackupNamesABakWithoutItsCheckpoint: a checkpoint the Pulumi
// CLI's `stack rm` left only as <stack>.json.bak (in any compression form)
// is named; once the checkpoint is there, nothing is.
func TestLeftBackupNamesABakWithoutItsCheckpoint(t *testing.T) {
	ctx := context.Background()
	for _, ext := range []string{"", ".gz", ".zst"} {
		mem := bucket.NewMemory()
		s := bucket.New(mem)
		mem.Put(ctx, ".pulumi/stacks/app/prod.json"+ext+".bak", []byte("{}"), bucket.Cond{})
		if bak, err := s.LeftBackup(ctx, "app", "prod"); err != nil || !strings.HasSuffix(bak, "/.pulumi/stacks/app/prod.json"+ext+".bak") {
			t.Errorf("LeftBackup with only %s.bak = %q, %v", ext, bak, err)
		}
		mem.Put(ctx, ".pulumi/stacks/app/prod.json"+ext, []byte("{}"), bucket.Cond{})
		if bak, err := s.LeftBackup(ctx, "app", "prod"); err != nil || bak != "" {
			t.Errorf("LeftBackup beside the checkpoint%s = %q, %v, want none", ext, bak, err)
		}
	}
}

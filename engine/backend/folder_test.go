package backend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/engine/state/statetest"
	"github.com/runnerhq/runner/internal/testenv"
)

func openTemp(t testing.TB) *Folder {
	t.Helper()
	f, err := Open("file://" + t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// commit saves snap for (project, stack) through a journal with no steps.
func commit(t testing.TB, f *Folder, project, stack string, snap *state.Snapshot, c resource.Crypter) {
	t.Helper()
	ctx := context.Background()
	base, err := f.Load(ctx, project, stack, c)
	if err != nil {
		t.Fatal(err)
	}
	j, err := f.OpenJournal(ctx, project, stack, base, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Commit(ctx, snap, HistoryRecord{Kind: "update", Result: "succeeded", StartTime: time.Now(), EndTime: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

func canonical(t testing.TB, s *state.Snapshot) string {
	t.Helper()
	if s == nil {
		return "<nil>"
	}
	cp := *s
	cp.Manifest = state.Manifest{}
	data, err := state.Marshal(context.Background(), &cp, plainCrypter{})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

type plainCrypter struct{}

func (plainCrypter) EncryptValue(_ context.Context, s string) (string, error) { return s, nil }
func (plainCrypter) DecryptValue(_ context.Context, s string) (string, error) { return s, nil }

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		url, want, err string
	}{
		{"file://" + dir, dir, ""},
		{dir, dir, ""},
		{"postgres://db/runner", "", "the folder backend serves file:// URLs, not postgres://"},
		{"s3://bucket", "", "the folder backend serves file:// URLs, not s3://"},
		{"file://", "", "no folder given"},
	}
	for _, tt := range tests {
		f, err := Open(tt.url)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Open(%q) = %v, want an error containing %q", tt.url, err, tt.err)
			}
			continue
		}
		if err != nil || f.Root != tt.want {
			t.Errorf("Open(%q) = %v, %v", tt.url, f, err)
		}
	}
	t.Chdir(dir)
	f, err := Open("file://rel/state")
	if err != nil || f.Root != filepath.Join(dir, "rel", "state") {
		t.Errorf("relative: %v %v", f, err)
	}
}

func TestLoadMissingIsNil(t *testing.T) {
	f := openTemp(t)
	snap, err := f.Load(context.Background(), "network", "dev", statetest.NewCrypter(1))
	if err != nil || snap != nil {
		t.Fatalf("Load = %v, %v; want nil, nil", snap, err)
	}
	if _, err := f.Load(context.Background(), "../x", "dev", nil); err == nil {
		t.Fatal("a project name with a path passes")
	}
}

func TestCommitLoadRoundTripAndSchema(t *testing.T) {
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	want := statetest.Snapshot("network", "dev", 5)
	commit(t, f, "network", "dev", want, c)
	got, err := f.Load(context.Background(), "network", "dev", c)
	if err != nil {
		t.Fatal(err)
	}
	if canonical(t, got) != canonical(t, want) {
		t.Fatalf("Load after Commit differs:\n%s\n%s", canonical(t, got), canonical(t, want))
	}
	p, _ := f.paths("network", "dev")
	if p.snapshot != filepath.Join(f.Root, ".pulumi", "stacks", "network", "dev.json") {
		t.Fatalf("the checkpoint is %s, not where Pulumi keeps it", p.snapshot)
	}
	cp, err := os.ReadFile(p.snapshot)
	if err != nil {
		t.Fatal(err)
	}
	data, err := FromCheckpoint(p.snapshot, cp)
	if err != nil {
		t.Fatal(err)
	}
	if err := state.ValidateSchema(data); err != nil {
		t.Fatalf("the written snapshot fails the schema: %v", err)
	}
	if strings.Contains(string(data), "pw-r00001") {
		t.Fatal("a plaintext secret reached the snapshot file")
	}
	if _, err := os.Stat(p.journal); !os.IsNotExist(err) {
		t.Fatalf("the journal is still there after Commit: %v", err)
	}
}

func TestBadSnapshotIsNamedAndNotOverwritten(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *state.Snapshot)
		want   string
	}{
		{"out of order", func(s *state.Snapshot) { s.Resources[3], s.Resources[4] = s.Resources[4], s.Resources[3] }, "out of order"},
		{"dangling dependency", func(s *state.Snapshot) {
			s.Resources[4].Dependencies = []resource.URN{statetest.URN("network", "dev", "a:b:C", "ghost")}
		}, "dangling reference"},
		{"dangling parent", func(s *state.Snapshot) { s.Resources[4].Parent = statetest.URN("network", "dev", "a:b:C", "gone") }, "has parent"},
		{"foreign URN", func(s *state.Snapshot) { s.Resources[4].URN = statetest.URN("other", "dev", "a:b:C", "x") }, `not to project "network"`},
		{"duplicate URN", func(s *state.Snapshot) { s.Resources = append(s.Resources, s.Resources[4]) }, "duplicate URN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openTemp(t)
			c := statetest.NewCrypter(1)
			snap := statetest.Snapshot("network", "dev", 3)
			tt.mutate(snap)
			data, err := state.MarshalCheckpoint(context.Background(), snap, "network", "dev", c)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(f.Root, ".pulumi", "stacks", "network", "dev.json")
			if err := writeFileAtomic(path, data); err != nil {
				t.Fatal(err)
			}
			_, err = f.Load(context.Background(), "network", "dev", c)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load = %v; want an error naming %s and %q", err, path, tt.want)
			}
			_, err = f.OpenJournal(context.Background(), "network", "dev", statetest.Snapshot("network", "dev", 1), c)
			if err == nil || !strings.Contains(err.Error(), "refusing to write over") {
				t.Fatalf("OpenJournal over a bad snapshot = %v", err)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(data) {
				t.Fatal("the bad snapshot was overwritten")
			}
		})
	}
}

func TestHistoryKeepsTen(t *testing.T) {
	f := openTemp(t)
	c := statetest.NewCrypter(1)
	for i := 0; i < 13; i++ {
		commit(t, f, "network", "dev", statetest.Snapshot("network", "dev", i), c)
	}
	commit(t, f, "app", "dev", statetest.Snapshot("app", "dev", 1), c)
	p, _ := f.paths("network", "dev")
	files, err := os.ReadDir(p.history)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != HistoryKeep {
		t.Fatalf("%d history snapshots, want %d", len(files), HistoryKeep)
	}
	// The newest history snapshot is the one before the last commit.
	newest, _ := os.ReadFile(filepath.Join(p.history, files[len(files)-1].Name()))
	old, err := state.UnmarshalCheckpoint(context.Background(), newest, c)
	if err != nil || len(old.Resources) != 2+11 {
		t.Fatalf("newest history snapshot: %v resources, %v", len(old.Resources), err)
	}
	all, err := f.History(context.Background(), "dev", "")
	if err != nil || len(all) != 14 || all[0].Project != "app" {
		t.Fatalf("History = %d entries (first %+v), %v", len(all), all[0], err)
	}
	net, _ := f.History(context.Background(), "dev", "network")
	if len(net) != 13 || net[0].Kind != "update" {
		t.Fatalf("History(network) = %d", len(net))
	}
}

func TestAtomicWriteLeavesOldOrNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := writeFileAtomic(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	// A write that cannot complete (the folder is read-only, for root too)
	// leaves the old content and no temporary file.
	t.Run("read-only folder", func(t *testing.T) {
		testenv.ReadOnly(t, dir)
		if err := writeFileAtomic(path, []byte("new")); err == nil {
			t.Fatal("writing into a read-only folder succeeded")
		}
	})
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("content after a failed write = %q", b)
	}
	if err := writeFileAtomic(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("content = %q", b)
	}
}

func TestOpenUnknownScheme(t *testing.T) {
	_, err := Open("postgres://x")
	if err == nil || errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

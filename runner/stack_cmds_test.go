package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/plugintest"
	"github.com/runnerhq/runner/engine/state/statetest"
	"github.com/runnerhq/runner/internal/testenv"
	"github.com/runnerhq/runner/runner/term"
)

// memOptions are options for a workspace whose state is in mem, reached
// through a "memory" entry of the backend registry.
func memOptions(t *testing.T, mem *plugintest.Backend, asJSON bool) (Options, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	t.Setenv("PULUMI_STACK", "")
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	io := &term.IO{In: strings.NewReader(""), Out: out, Err: errOut, NoColor: true}
	reg := backend.Registry{"memory": func(context.Context, string) (backend.Store, error) { return mem, nil }}
	return Options{Root: t.TempDir(), Stack: "dev", Provider: "t", IO: io, JSON: asJSON, Backend: "memory://test", Backends: reg, Providers: testProviders(t)}, out, errOut
}

// deploy commits a snapshot of project on dev with n resources to mem.
func deploy(t *testing.T, mem *plugintest.Backend, project string, n int) {
	t.Helper()
	ctx := context.Background()
	j, err := mem.OpenJournal(ctx, project, "dev", nil, statetest.NewCrypter(1))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	rec := backend.HistoryRecord{Kind: "update", Result: "succeeded", StartTime: now, EndTime: now.Add(time.Second), Changes: map[string]int{"create": n}}
	if err := j.Commit(ctx, statetest.Snapshot(project, "dev", n), rec); err != nil {
		t.Fatal(err)
	}
}

func TestStackCommandsTalkToAnyBackend(t *testing.T) {
	ctx := context.Background()
	mem := plugintest.NewBackend()
	deploy(t, mem, "a", 2)
	opts, out, _ := memOptions(t, mem, true)
	if err := StackSetTag(ctx, opts, "owner", "ann"); err != nil {
		t.Fatal(err)
	}
	if err := StackList(ctx, opts); err != nil {
		t.Fatal(err)
	}
	var list []StackListing
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(list) != 1 || list[0].Name != "dev" || list[0].Resources != 4 || list[0].Tags["owner"] != "ann" || list[0].LastKind != "update" {
		t.Fatalf("stack ls = %+v", list)
	}
	out.Reset()
	if err := StackHistory(ctx, opts, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"resourceChanges": {`) || !strings.Contains(out.String(), `"project": "a"`) {
		t.Fatalf("stack history --json:\n%s", out)
	}
	if err := StackRemove(ctx, opts, StackRemoveOptions{Name: "dev", Yes: true}); err == nil || !strings.Contains(err.Error(), "a (3 resources)") {
		t.Fatalf("stack rm of a stack with resources = %v, want a refusal naming them", err)
	}
	if err := StackRemove(ctx, opts, StackRemoveOptions{Name: "dev", Force: true, Yes: true}); err != nil {
		t.Fatal(err)
	}
	if ps, _ := mem.Projects(ctx, "dev"); len(ps) != 0 {
		t.Fatalf("projects left after stack rm --force: %v", ps)
	}
}

func TestStackUnlockJudgesHostAndProcess(t *testing.T) {
	ctx := context.Background()
	me := backend.CurrentLockInfo("runner up")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		testenv.Unavailable(t, fmt.Sprintf("cannot run true, which gives a process that has exited: %v", err))
	}
	gone := cmd.Process.Pid
	tests := []struct {
		name   string
		holder backend.LockInfo
		force  bool
		want   string // in the message, or in the error when fails
		fails  bool
	}{
		{"a gone process of this host", backend.LockInfo{PID: gone, Host: me.Host, Command: "runner up"}, false,
			fmt.Sprintf("cleared the lock of project a on stack dev (held by runner up, pid %d on %s)", gone, me.Host), false},
		{"a process of another host", backend.LockInfo{PID: gone, Host: "ci-7", Command: "runner up"}, false,
			fmt.Sprintf("pid %d on host ci-7", gone), true},
		{"a process of another host, forced", backend.LockInfo{PID: gone, Host: "ci-7", Command: "runner up"}, true,
			fmt.Sprintf("cleared the lock of project a on stack dev (held by runner up, pid %d on ci-7)", gone), false},
		{"this process", me, false, fmt.Sprintf("pid %d on host %s", me.PID, me.Host), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := plugintest.NewBackend()
			if _, err := mem.Lock(ctx, "a", "dev", tt.holder); err != nil {
				t.Fatal(err)
			}
			opts, _, _ := memOptions(t, mem, false)
			msg, err := StackUnlock(ctx, opts, StackUnlockOptions{Force: tt.force})
			if tt.fails {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("unlock = %q, %v; want an error naming %q", msg, err, tt.want)
				}
				if h, _ := mem.LockHolder(ctx, "a", "dev"); h == nil {
					t.Fatal("a refused unlock cleared the lock")
				}
				return
			}
			if err != nil || !strings.Contains(msg, tt.want) {
				t.Fatalf("unlock = %q, %v; want %q", msg, err, tt.want)
			}
			if h, _ := mem.LockHolder(ctx, "a", "dev"); h != nil {
				t.Fatalf("still locked by %+v", h)
			}
		})
	}
}

func TestUnknownBackendSchemeIsAValidationError(t *testing.T) {
	ws := t.TempDir()
	_, err := OpenBackend(Options{Backend: "gs://bucket/state"}, ws)
	var unknown *backend.UnknownSchemeError
	if !IsValidation(err) || !errors.As(err, &unknown) {
		t.Fatalf("OpenBackend(gs://) = %v, want a validation error (exit 3)", err)
	}
	for _, want := range []string{"gs://bucket/state", "no backend serves the scheme gs://", "the known schemes are file://, postgres://, postgresql://, s3://"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	b, err := OpenBackend(Options{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.(*backend.Folder); !ok {
		t.Fatalf("the default backend is a %T, want the folder backend", b)
	}
}

// stack import and stack repair rewrite a project's state, so they wait for
// the stack's own lock, as stack rm does: they never run while an up,
// refresh or destroy works on the stack, and a planned up never finds one
// of them holding a project half way (before: they took the project's lock
// only).
func TestStackImportAndRepairTakeTheStackLock(t *testing.T) {
	ctx := context.Background()
	mem := plugintest.NewBackend()
	deploy(t, mem, "a", 2)
	opts, _, _ := memOptions(t, mem, false)
	opts.KeyIterations = testIterations
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", "test")
	lock, err := mem.LockStack(ctx, "dev", backend.CurrentLockInfo("runner up"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	export := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(export, []byte(`{"version": 3, "deployment": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := StackImport(ctx, opts, StackImportOptions{Project: "a", File: export}); !IsLocked(err) {
		t.Errorf("stack import while up holds the stack = %v, want a lock error", err)
	}
	if _, err := StackRepair(ctx, opts, "a"); !IsLocked(err) {
		t.Errorf("stack repair while up holds the stack = %v, want a lock error", err)
	}
}

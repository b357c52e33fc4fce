package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/engine/backend/bucket"
)

// TestS3SaltChangedByAnotherWriterStopsTheRunFirst: a no-op up reads no
// checkpoint before the locks (the stack's index says what each records
// of its secrets, under the checkpoint's ETag), but a checkpoint another
// writer changed since (as the Pulumi CLI does, with its own stack
// config's salt) has another ETag, so it is read before anything runs: a
// salt the passphrase does not open stops the up with exit 3 naming that
// state, before the stack or any project is locked. A wrong passphrase is
// refused as early.
func TestS3SaltChangedByAnotherWriterStopsTheRunFirst(t *testing.T) {
	srv, dir, env, obj := s3Deployed(t)
	ctx := context.Background()
	if _, err := obj.Get(ctx, ".runner/stacks/dev/secrets.json"); err != nil {
		t.Fatalf("the first up left no index of what the stack's checkpoints record of their secrets: %v", err)
	}
	var mu sync.Mutex
	var puts []string
	srv.Intercept(func(r *http.Request) {
		if r.Method == http.MethodPut {
			mu.Lock()
			puts = append(puts, r.URL.Path)
			mu.Unlock()
		}
	})
	defer srv.Intercept(nil)
	noLockTaken := func(what string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		for _, p := range puts {
			if !strings.Contains(p, "/.runner/probe/") {
				t.Errorf("%s wrote %s (a lock or state): the check must come before anything runs", what, p)
			}
		}
		puts = nil
	}
	// A wrong passphrase is still refused before anything runs, the
	// checkpoints' salts coming from the index.
	r := run(t, dir, "", append(env, "PULUMI_CONFIG_PASSPHRASE=not-the-passphrase"), "--non-interactive", "up", "--yes")
	if out := r.Stdout + r.Stderr; r.Code != 3 || !strings.Contains(out, "incorrect passphrase") {
		t.Errorf("up with a wrong passphrase: exit %d, want 3 naming it:\n%s", r.Code, out)
	}
	noLockTaken("the up with a wrong passphrase")
	key := ".pulumi/stacks/network/dev.json"
	o, err := obj.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	other, err := config.NewCrypter("another team's passphrase")
	if err != nil {
		t.Fatal(err)
	}
	salt := regexp.MustCompile(`"salt":"[^"]*"`)
	if !salt.Match(o.Data) {
		t.Fatalf("the checkpoint %s records no salt:\n%s", key, o.Data)
	}
	changed := salt.ReplaceAll(o.Data, []byte(`"salt":"`+other.EncryptionSalt()+`"`))
	if _, err := obj.Put(ctx, key, changed, bucket.Cond{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	puts = nil // the test's own
	mu.Unlock()
	r = run(t, dir, "", env, "--non-interactive", "up", "--yes")
	if out := r.Stdout + r.Stderr; r.Code != 3 || !strings.Contains(out, "the state of project network") || !strings.Contains(out, "does not open that salt") {
		t.Errorf("up after another writer changed network's salt: exit %d, want 3 naming network's state and its salt:\n%s", r.Code, out)
	}
	noLockTaken("the up refused for network's salt")
	if now, err := obj.Get(ctx, key); err != nil || !bytes.Equal(now.Data, changed) {
		t.Errorf("the refused up changed %s (%v)", key, err)
	}
	if _, err := obj.Put(ctx, key, o.Data, bucket.Cond{}); err != nil { // for the cleanup's destroy
		t.Fatal(err)
	}
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Errorf("up with the checkpoint put back exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestS3IndexEditedByHandDoesNotStopTheRun: the stack's secrets index
// (.runner/stacks/<stack>/secrets.json) edited by hand to name, under the
// ETag of network's checkpoint, a salt the passphrase does not open (and
// an entry for a project with no state) stopped every run with exit 3,
// telling the user to put that salt into the stack config, though the
// checkpoint records the stack's own salt. A refusal now rests on the
// checkpoints themselves: the indexed states whose salt is not the stack
// config's are read, and the run goes on; its end writes the index again
// from what it read.
func TestS3IndexEditedByHandDoesNotStopTheRun(t *testing.T) {
	_, dir, env, obj := s3Deployed(t)
	ctx := context.Background()
	key := ".runner/stacks/dev/secrets.json"
	o, err := obj.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Version int                                   `json:"version"`
		States  map[string]map[string]json.RawMessage `json:"states"`
	}
	if err := json.Unmarshal(o.Data, &idx); err != nil || idx.States["network"] == nil {
		t.Fatalf("the index %s does not describe network (%v):\n%s", key, err, o.Data)
	}
	other, err := config.NewCrypter("another team's passphrase")
	if err != nil {
		t.Fatal(err)
	}
	wrong := json.RawMessage(`{"Type":"passphrase","State":{"salt":"` + other.EncryptionSalt() + `"}}`)
	idx.States["network"]["secrets_providers"] = wrong
	idx.States["ghost"] = map[string]json.RawMessage{"etag": json.RawMessage(`"0123"`), "secrets_providers": wrong}
	edited, _ := json.Marshal(idx)
	if _, err := obj.Put(ctx, key, edited, bucket.Cond{}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"preview"}, {"up", "--yes"}} {
		r := run(t, dir, "", env, append([]string{"--non-interactive"}, args...)...)
		if r.Code != 0 || !strings.Contains(r.Stdout, "network") {
			t.Errorf("%s with an index edited by hand exited %d, want 0:\n%s%s", args[0], r.Code, r.Stdout, r.Stderr)
		}
	}
	now, err := obj.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(now.Data, []byte(other.EncryptionSalt())) || bytes.Contains(now.Data, []byte("ghost")) {
		t.Errorf("the up left the hand-made entries in %s:\n%s", key, now.Data)
	}
}

// TestS3ImportReplacesAStateOfAnotherSalt: another writer re-encrypted
// network's checkpoint with a salt the passphrase does not open (as the
// Pulumi CLI's change-secrets-provider with another passphrase does). up
// is refused naming that state; `stack import` of an earlier export of
// network, which replaces that state, was refused the same way, so the
// repair was refused by what it repairs. It now checks the passphrase
// against every other state only, and the next up runs.
func TestS3ImportReplacesAStateOfAnotherSalt(t *testing.T) {
	_, dir, env, obj := s3Deployed(t)
	export := run(t, dir, "", env, "--non-interactive", "stack", "export", "--project", "network")
	if export.Code != 0 {
		t.Fatalf("stack export exited %d: %s", export.Code, export.Stderr)
	}
	file := filepath.Join(t.TempDir(), "network.json")
	if err := os.WriteFile(file, []byte(export.Stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := ".pulumi/stacks/network/dev.json"
	o, err := obj.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	other, err := config.NewCrypter("another team's passphrase")
	if err != nil {
		t.Fatal(err)
	}
	changed := regexp.MustCompile(`"salt":"[^"]*"`).ReplaceAll(o.Data, []byte(`"salt":"`+other.EncryptionSalt()+`"`))
	if _, err := obj.Put(ctx, key, changed, bucket.Cond{}); err != nil {
		t.Fatal(err)
	}
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 3 {
		t.Fatalf("up over a state of another salt exited %d, want 3:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(t, dir, "", env, "--non-interactive", "stack", "import", "--project", "network", "--file", file); r.Code != 0 {
		t.Fatalf("stack import over the state of another salt exited %d, want 0:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(t, dir, "", env, "--non-interactive", "up", "--yes"); r.Code != 0 {
		t.Errorf("up after the import exited %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

package e2e

import (
	"bytes"
	"context"
	"net/http"
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

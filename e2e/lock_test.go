package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// TestConcurrentRunFailsNamingTheHolder holds a project's lock from this
// test process, as another runner would, and checks that runner fails at
// once with a message naming the holder; then that it works once released.
func TestConcurrentRunFailsNamingTheHolder(t *testing.T) {
	dir := deployable(t)
	b, err := backend.Open(filepath.Join(dir, ".runner"))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := b.Lock(context.Background(), "network", "dev", backend.CurrentLockInfo("runner up (the other one)"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := run(t, dir, "", nil, "--non-interactive", "up", "--yes")
	took := time.Since(start)
	want := fmt.Sprintf("pid %d", os.Getpid())
	if r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, "runner up (the other one)") || !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Fatalf("exit %d; the output does not name the holder (%s):\n%s%s", r.Code, want, r.Stdout, r.Stderr)
	}
	if took > 20*time.Second {
		t.Fatalf("the locked run waited %s instead of failing at once", took)
	}
	if err := lock.Unlock(); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "--non-interactive", "up", "--yes")
}

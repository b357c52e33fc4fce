package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/backend/bucket"
)

// TestS3LockOfAMachineOfTheSameHostnameHolds: the stack's lock, held with
// a fresh lease by runner on another machine of the same hostname (VMs
// cloned from one image), whose pid names no process here. Before, the
// up judged the holder by its pid as a process of this host, took the
// lock over as left by a killed run and ran beside it; now a holder that
// recorded another boot is judged by its lease only: the up exits 4
// naming it, and the lock is left as it was.
func TestS3LockOfAMachineOfTheSameHostnameHolds(t *testing.T) {
	if _, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err != nil {
		t.Skipf("no boot id on this system: %v", err)
	}
	_, dir, env, obj := s3Deployed(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	holder, _ := json.Marshal(map[string]any{"pid": gone.Process.Pid, "host": host, "pidNamespace": ns, "bootID": "0e5b6c6a-another-machine",
		"user": "ci", "started": time.Now().UTC(), "command": "runner up", "leaseSeconds": 300})
	ctx := context.Background()
	key := ".runner/stacks/dev/lock.json"
	if _, err := obj.Put(ctx, key, holder, bucket.Cond{}); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", env, "--non-interactive", "up", "--yes")
	out := r.Stdout + r.Stderr
	if r.Code != 4 || !strings.Contains(out, "runner up (pid "+strconv.Itoa(gone.Process.Pid)+" on host "+host) {
		t.Errorf("up beside the holder of another machine of the same hostname exited %d, want 4 naming it:\n%s", r.Code, out)
	}
	if o, err := obj.Get(ctx, key); err != nil || !bytes.Equal(o.Data, holder) {
		t.Errorf("the up changed the lock of the other machine's run (%v)", err)
	}
	if err := obj.Delete(ctx, key, ""); err != nil { // for the cleanup's destroy
		t.Fatal(err)
	}
}

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/runnerhq/runner/engine/backend/bucket"
	"github.com/runnerhq/runner/engine/backend/s3"
	"github.com/runnerhq/runner/internal/testenv"
	"github.com/runnerhq/runner/internal/testserver"
)

// pulumiLockBody is a lock file as the Pulumi CLI writes it.
func pulumiLockBody(pid int, host string) []byte {
	return fmt.Appendf(nil, `{"pid":%d,"username":"alice","hostname":%q,"timestamp":"2026-11-28T10:00:00Z"}`, pid, host)
}

// deadPID is the pid of a process of this host that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	return gone.Process.Pid
}

// TestStackUnlockRemovesThePulumiCLIsLocks: a lock file a killed Pulumi CLI
// left in the workspace's state folder (no process of this host has its
// pid) refused every up of that project, and `runner stack unlock` did not
// clear it, so the user stayed locked out. Now `stack unlock` removes it
// naming the file, as it clears runner's own stale locks; one whose holder
// may still run (a live pid here, or another host) is refused with exit 4
// and kept, unless --force.
func TestStackUnlockRemovesThePulumiCLIsLocks(t *testing.T) {
	dir := deployable(t)
	host, _ := os.Hostname()
	locks := filepath.Join(dir, ".runner", ".pulumi", "locks", "organization")
	stale := filepath.Join(locks, "network", "dev", "7f3e.json")
	write := func(path string, body []byte) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(stale, pulumiLockBody(deadPID(t), host))
	r := run(t, dir, "", nil, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")
	if out := r.Stdout + r.Stderr; r.Code != 4 || !strings.Contains(out, "runner stack unlock --project network") {
		t.Fatalf("up beside a killed Pulumi CLI's lock: exit %d, want 4 pointing at stack unlock:\n%s", r.Code, out)
	}
	r = ok(t, dir, "-s", "dev", "stack", "unlock")
	if !strings.Contains(r.Stdout, "removed the Pulumi CLI's lock file "+stale) {
		t.Errorf("stack unlock does not name the Pulumi lock it removed:\n%s", r.Stdout)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Fatalf("stack unlock left the killed Pulumi CLI's lock %s", stale)
	}
	ok(t, dir, "-s", "dev", "--non-interactive", "up", "--yes", "--target", "network")

	// Holders that may still run: this test's own pid, a pid of another host.
	live := filepath.Join(locks, "network", "dev", "a1.json")
	remote := filepath.Join(locks, "app", "dev", "b2.json")
	write(live, pulumiLockBody(os.Getpid(), host))
	write(remote, pulumiLockBody(4242, "otherbox"))
	for _, args := range [][]string{{"stack", "unlock"}, {"stack", "unlock", "--project", "network"}, {"stack", "unlock", "--project", "app"}} {
		r = run(t, dir, "", nil, append([]string{"-s", "dev"}, args...)...)
		if out := r.Stdout + r.Stderr; r.Code != 4 || !strings.Contains(out, "--force") || !strings.Contains(out, "the Pulumi CLI (alice)") {
			t.Errorf("runner %s over a Pulumi CLI that may still run: exit %d, want 4 naming it and --force:\n%s", strings.Join(args, " "), r.Code, out)
		}
	}
	for _, path := range []string{live, remote} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("a refused stack unlock removed %s: %v", path, err)
		}
	}
	r = ok(t, dir, "-s", "dev", "stack", "unlock", "--project", "app", "--force")
	if !strings.Contains(r.Stdout, "removed the Pulumi CLI's lock file "+remote) || strings.Contains(r.Stdout, live) {
		t.Errorf("stack unlock --project app --force:\n%s", r.Stdout)
	}
	r = ok(t, dir, "-s", "dev", "stack", "unlock", "--force")
	if !strings.Contains(r.Stdout, "removed the Pulumi CLI's lock file "+live) {
		t.Errorf("stack unlock --force:\n%s", r.Stdout)
	}
	r = ok(t, dir, "-s", "dev", "stack", "unlock")
	if !strings.Contains(r.Stdout, "stack dev is not locked") {
		t.Errorf("stack unlock once every lock is gone:\n%s", r.Stdout)
	}
}

// TestS3StackUnlockRemovesThePulumiCLIsLocks is the same in a bucket
// (gofakes3): a killed Pulumi CLI's lock object is removed by `stack
// unlock` and named; one of another host stays unless --force.
func TestS3StackUnlockRemovesThePulumiCLIsLocks(t *testing.T) {
	srv := testserver.GoFakeS3(t)
	dir, env := s3Workspace(t, srv)
	srv.SetEnv(t)
	ctx := context.Background()
	obj, err := s3.OpenObjects(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	stale, remote := ".pulumi/locks/organization/network/dev/7f3e.json", ".pulumi/locks/organization/app/dev/b2.json"
	for key, body := range map[string][]byte{stale: pulumiLockBody(deadPID(t), host), remote: pulumiLockBody(4242, "otherbox")} {
		if _, err := obj.Put(ctx, key, body, bucket.Cond{}); err != nil {
			t.Fatal(err)
		}
	}
	r := run(t, dir, "", env, "-s", "dev", "stack", "unlock")
	if out := r.Stdout + r.Stderr; r.Code != 4 || !strings.Contains(out, "removed the Pulumi CLI's lock file ") || !strings.Contains(out, stale) ||
		!strings.Contains(out, "otherbox") {
		t.Errorf("stack unlock in a bucket: exit %d, want 4 (another host's lock kept) having removed %s:\n%s", r.Code, stale, out)
	}
	if _, err := obj.Get(ctx, stale); err == nil {
		t.Errorf("stack unlock left the killed Pulumi CLI's lock %s", stale)
	}
	if _, err := obj.Get(ctx, remote); err != nil {
		t.Errorf("stack unlock removed another host's Pulumi lock without --force: %v", err)
	}
	r = run(t, dir, "", env, "-s", "dev", "stack", "unlock", "--force")
	if r.Code != 0 || !strings.Contains(r.Stdout, "removed the Pulumi CLI's lock file ") || !strings.Contains(r.Stdout, remote) {
		t.Errorf("stack unlock --force in a bucket: exit %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := obj.Get(ctx, remote); err == nil {
		t.Errorf("stack unlock --force left %s", remote)
	}
}

// TestStackUnlockKeepsAPulumiLockOfAnotherPIDNamespace: the Pulumi CLI
// records no pid namespace in its lock file, so a Pulumi CLI running in a
// container of the same hostname (another pid namespace, which counts pids
// apart) writes a pid that names no process here. Before, `stack unlock`
// judged it by that pid and removed the lock of a run still going; now a
// pid is judged only where it can be seen: from the host's namespace it is
// looked for in every namespace, and the lock is kept (exit 4, --force
// named) while that process runs.
func TestStackUnlockKeepsAPulumiLockOfAnotherPIDNamespace(t *testing.T) {
	inner := containerPID(t)
	dir := deployable(t)
	host, _ := os.Hostname()
	lock := filepath.Join(dir, ".runner", ".pulumi", "locks", "organization", "network", "dev", "c0.json")
	os.MkdirAll(filepath.Dir(lock), 0o755)
	if err := os.WriteFile(lock, pulumiLockBody(inner, host), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", nil, "-s", "dev", "stack", "unlock")
	if out := r.Stdout + r.Stderr; r.Code != 4 || !strings.Contains(out, "--force") || !strings.Contains(out, "the Pulumi CLI (alice)") {
		t.Errorf("stack unlock over a Pulumi CLI running in another pid namespace (pid %d there): exit %d, want 4 naming it and --force:\n%s", inner, r.Code, out)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("stack unlock removed the lock of a Pulumi CLI still running in another pid namespace: %v", err)
	}
}

// containerPID starts, in a new pid namespace of this hostname (unshare, as
// a container sharing the host's name), a process whose pid there names no
// process of this namespace, and returns that pid; the process ends with
// the test.
func containerPID(t *testing.T) int {
	t.Helper()
	pid := 0
	for p := 30000; p > 20000; p-- {
		if syscall.Kill(p, 0) == syscall.ESRCH && syscall.Kill(p+1, 0) == syscall.ESRCH {
			pid = p + 1
			break
		}
	}
	cmd := exec.Command("unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c",
		fmt.Sprintf(`echo %d > /proc/sys/kernel/ns_last_pid; sleep 600 & echo $!; wait`, pid-1))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		testenv.Unavailable(t, fmt.Sprintf("cannot start a process in another pid namespace with unshare: %v", err))
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var inner int
	if _, err := fmt.Fscan(out, &inner); err != nil || inner != pid {
		_ = cmd.Process.Kill()
		testenv.Unavailable(t, fmt.Sprintf("cannot choose a pid in another pid namespace (got %d, want %d: %v)", inner, pid, err))
	}
	if syscall.Kill(inner, 0) != syscall.ESRCH {
		t.Skipf("pid %d came to be used in this namespace too", inner)
	}
	return inner
}

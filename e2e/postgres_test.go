package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/runnerhq/runner/engine/backend/postgres/pgtest"
)

// pgWorkspace is a workspace of the local provider whose state is in a new
// database of the test server: the URL (without password) and
// PGPASSWORD are in env, which every run of the test passes.
func pgWorkspace(t *testing.T) (dir string, srv *pgtest.Server, db string, env []string) {
	t.Helper()
	srv = pgtest.Need(t)
	db = srv.Database(t)
	env = []string{"RUNNER_BACKEND_URL=" + srv.URL(db, false), "PGPASSWORD=" + srv.Password}
	dir = workspace(t)
	if r := run(t, dir, adminPassword, env, "-s", "dev", "config", "set", "--secret", "app:adminPassword"); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	t.Cleanup(func() { run(t, dir, "", env, "--non-interactive", "destroy", "--yes") })
	return dir, srv, db, env
}

// pgOK runs runner with env and fails the test unless it exits 0; every
// output is checked for the database password.
func pgOK(t *testing.T, dir string, env []string, srv *pgtest.Server, args ...string) Result {
	t.Helper()
	r := run(t, dir, "", env, args...)
	if r.Code != 0 {
		t.Fatalf("runner %s exited %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	noPassword(t, srv, "the output of runner "+strings.Join(args, " "), r.Stdout+r.Stderr)
	return r
}

func noPassword(t *testing.T, srv *pgtest.Server, what, text string) {
	t.Helper()
	if strings.Contains(text, srv.Password) {
		t.Fatalf("%s holds the database password", what)
	}
}

// dbText returns everything runner stored in database db, as text.
func dbText(t *testing.T, srv *pgtest.Server, db string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL(db, true))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var b strings.Builder
	for _, table := range []string{"runner_snapshots", "runner_journal", "runner_kept", "runner_history", "runner_tags", "runner_locks"} {
		var text string
		if err := conn.QueryRow(ctx, "SELECT coalesce(string_agg(t::text, E'\\n'), '') FROM "+table+" t").Scan(&text); err != nil {
			t.Fatal(err)
		}
		b.WriteString(text)
	}
	return b.String()
}

// TestPostgresBackendThroughTheCLI runs what the folder backend does with
// the state in PostgreSQL (URL in RUNNER_BACKEND_URL, password in
// PGPASSWORD): up, a no-op preview, the stack commands, a plan file,
// refresh and destroy. The workspace keeps no state, and the password is
// in no output, --json event, error or stored row.
func TestPostgresBackendThroughTheCLI(t *testing.T) {
	dir, srv, db, env := pgWorkspace(t)
	pgOK(t, dir, env, srv, "--non-interactive", "up", "--yes")
	if _, err := os.Stat(filepath.Join(dir, ".runner", ".pulumi")); err == nil {
		t.Fatal("with a postgres backend the workspace holds state files (.runner/stacks)")
	}
	for p, row := range summary(t, pgOK(t, dir, env, srv, "--json", "preview").Stdout) {
		if changes(row) != 0 {
			t.Fatalf("a preview after up plans changes in %s", p)
		}
	}
	// With the password in the URL itself, no output shows it either.
	inURL := []string{"RUNNER_BACKEND_URL=" + srv.URL(db, true)}
	for _, args := range [][]string{{"--debug", "--json", "--non-interactive", "up", "--yes"}, {"--debug", "preview"}, {"--json", "stack", "ls"}, {"stack", "history"}} {
		pgOK(t, dir, inURL, srv, args...)
	}
	ls := pgOK(t, dir, env, srv, "stack", "ls").Stdout
	if !strings.Contains(ls, "dev") || !strings.Contains(ls, "ingress") {
		t.Fatalf("stack ls does not list the stack and its projects:\n%s", ls)
	}
	if out := pgOK(t, dir, env, srv, "stack", "output").Stdout; !strings.Contains(out, "ingress") {
		t.Fatalf("stack output:\n%s", out)
	}
	file := filepath.Join(t.TempDir(), "ingress.json")
	pgOK(t, dir, env, srv, "stack", "export", "--project", "ingress", "--file", file)
	before := pgOK(t, dir, env, srv, "stack", "export", "--project", "ingress").Stdout
	pgOK(t, dir, env, srv, "stack", "import", "--project", "ingress", "--file", file)
	if after := pgOK(t, dir, env, srv, "stack", "export", "--project", "ingress").Stdout; resources(t, before) != resources(t, after) {
		t.Fatal("the state changed across export and import")
	}
	pgOK(t, dir, env, srv, "stack", "tag", "set", "team", "platform")
	if out := pgOK(t, dir, env, srv, "stack", "tag", "ls").Stdout; !strings.Contains(out, "platform") {
		t.Fatalf("stack tag ls:\n%s", out)
	}
	pgOK(t, dir, env, srv, "stack", "tag", "rm", "team")
	hist := pgOK(t, dir, env, srv, "stack", "history").Stdout
	if !strings.Contains(hist, "update") || !strings.Contains(hist, "import") {
		t.Fatalf("stack history lacks the update and the import:\n%s", hist)
	}
	pgOK(t, dir, env, srv, "--non-interactive", "stack", "repair", "--project", "ingress")
	pgOK(t, dir, env, srv, "stack", "unlock")
	plan := filepath.Join(t.TempDir(), "plan.json")
	pgOK(t, dir, env, srv, "--non-interactive", "-s", "dev", "config", "set", "app:port", freePort(t))
	pgOK(t, dir, env, srv, "--non-interactive", "preview", "--out", plan)
	pgOK(t, dir, env, srv, "--json", "--non-interactive", "up", "--yes", "--plan", plan)
	pgOK(t, dir, env, srv, "--json", "--non-interactive", "refresh", "--yes")
	pgOK(t, dir, env, srv, "--json", "--non-interactive", "destroy", "--yes")
	if out := pgOK(t, dir, env, srv, "--json", "stack", "ls").Stdout; strings.Contains(out, `"resources": 5`) {
		t.Fatalf("after destroy:\n%s", out)
	}
	pgOK(t, dir, env, srv, "--non-interactive", "stack", "rm", "--yes", "dev")
	if text := dbText(t, srv, db); strings.Contains(text, "urn:pulumi:dev") {
		t.Fatal("stack rm left the stack's state in the database")
	}
	noPassword(t, srv, "the database's runner tables", dbText(t, srv, db))
	noPassword(t, srv, "the workspace", strings.Join(treeText(t, dir), "\n"))
}

// treeText returns every file of dir with its contents.
func treeText(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		out = append(out, p+"\n"+string(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPostgresBackendRefusals: a server that cannot be reached, refused
// credentials, a missing database, TLS the server does not offer, a
// password file others may read and a schema newer than runner are each
// exit 3 naming the URL (password redacted) and what to do, before
// anything changes; a private password file is used.
func TestPostgresBackendRefusals(t *testing.T) {
	srv := pgtest.Need(t)
	db := srv.Database(t)
	dir := workspace(t)
	if r := run(t, dir, adminPassword, nil, "-s", "dev", "config", "set", "--secret", "app:adminPassword"); r.Code != 0 {
		t.Fatalf("config set: %s", r.Stderr)
	}
	withPW := srv.URL(db, true)
	home := t.TempDir()
	pgpass := filepath.Join(home, ".pgpass")
	if err := os.WriteFile(pgpass, []byte("127.0.0.1:*:*:"+srv.User+":"+srv.Password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	newer := srv.Database(t)
	ok(t, dir, "--backend", srv.URL(newer, true), "stack", "ls") // creates the tables
	execSQL(t, srv, newer, "INSERT INTO runner_schema_migrations (version) VALUES (99)")
	before := tree(t, dir)
	for _, c := range []struct {
		name, url string
		env       []string
		want      []string
	}{
		{"unreachable", "postgres://runner:" + srv.Password + "@127.0.0.1:" + freePort(t) + "/" + db + "?sslmode=disable", nil,
			[]string{"postgres://runner:xxxxx@127.0.0.1:", "cannot be reached", "check the host and port"}},
		{"bad credentials", strings.Replace(withPW, srv.Password, "wrong-"+srv.Password, 1), nil,
			[]string{"runner:xxxxx@", "refused the credentials", "PGPASSWORD"}},
		{"missing database", srv.URL("nosuchdb", false), []string{"PGPASSWORD=" + srv.Password},
			[]string{"/nosuchdb", "no such database", "createdb"}},
		{"TLS required", strings.Replace(withPW, "sslmode=disable", "sslmode=require", 1), nil,
			[]string{"sslmode=require", "TLS", "enable ssl on the server"}},
		{"password file readable by others", srv.URL(db, false), []string{"HOME=" + home},
			[]string{pgpass, "may be read by others", "chmod 0600"}},
		{"newer schema", srv.URL(newer, false), []string{"PGPASSWORD=" + srv.Password},
			[]string{"schema version 99, newer than this runner", "upgrade runner"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, dir, "", append([]string{"RUNNER_BACKEND_URL=" + c.url}, c.env...), "--non-interactive", "up", "--yes")
			if r.Code != 3 {
				t.Fatalf("exit %d, want 3\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("the error does not say %q:\n%s", w, r.Stderr)
				}
			}
			noPassword(t, srv, "the error", r.Stdout+r.Stderr)
		})
	}
	if after := tree(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("a refused backend changed the workspace:\nbefore %v\nafter  %v", before, after)
	}
	// A stack that exists nowhere is named with the backend it was looked
	// for in, without the password.
	r := run(t, workspace(t), "", nil, "--backend", withPW, "-s", "nosuch", "--non-interactive", "preview")
	if r.Code != 3 || !strings.Contains(r.Stderr, "no state for it in postgres://runner:xxxxx@") {
		t.Fatalf("a missing stack: exit %d\n%s", r.Code, r.Stderr)
	}
	noPassword(t, srv, "the missing stack's error", r.Stdout+r.Stderr)
	if err := os.Chmod(pgpass, 0o600); err != nil {
		t.Fatal(err)
	}
	ok2 := run(t, dir, "", []string{"RUNNER_BACKEND_URL=" + srv.URL(db, false), "HOME=" + home}, "stack", "ls")
	if ok2.Code != 0 {
		t.Fatalf("with a private ~/.pgpass: exit %d\n%s", ok2.Code, ok2.Stderr)
	}
}

func execSQL(t *testing.T, srv *pgtest.Server, db, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL(db, true))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
}

// startRunner starts runner in dir with env and args, as runAs does,
// without waiting; prefix (e.g. unshare ...) runs it inside another
// command.
func startRunner(t *testing.T, dir string, env, prefix []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	argv := append(append(append([]string{}, prefix...), binary, "--root", dir), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// waitLocked waits until a session holds a lock of stack dev in db.
func waitLocked(t *testing.T, srv *pgtest.Server, db string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL(db, true))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM runner_locks l JOIN pg_locks k ON k.locktype = 'advisory'
			AND k.granted AND k.pid = l.backend_pid WHERE l.stack = 'dev'`).Scan(&n)
		if err == nil && n > 0 {
			return
		}
	}
	t.Fatal("no run took a lock of stack dev within 60 s")
}

// machineB runs a command as another machine: in new UTS and pid
// namespaces, with the hostname machine-b.
func machineB(t *testing.T) []string {
	t.Helper()
	if out, err := exec.Command("unshare", "--uts", "--pid", "--fork", "--mount-proc", "hostname", "machine-b").CombinedOutput(); err != nil {
		pgtest.Unavailable(t, fmt.Sprintf("cannot make a second machine with unshare (%v: %s)", err, out))
	}
	return []string{"unshare", "--uts", "--pid", "--fork", "--mount-proc", "sh", "-c", `hostname machine-b && exec "$@"`, "sh"}
}

// TestPostgresTwoMachines: runner on this host and runner on machine-b
// (other hostname and pid namespace) run up on one stack in one database:
// exactly one runs, the other exits 4 naming the holder. Then a run on
// this host is killed (SIGKILL) holding the locks, with the services it
// started (as when a machine crashes), and machine-b's next up --refresh
// converges: it takes the locks the dead session let go, records the
// killed run as interrupted, and leaves nothing to do.
func TestPostgresTwoMachines(t *testing.T) {
	dir, srv, db, env := pgWorkspace(t)
	prefix := machineB(t)
	a, aOut := startRunner(t, dir, env, nil, "--non-interactive", "up", "--yes")
	waitLocked(t, srv, db)
	// Paused while it holds the locks (as a slow step would hold it), so
	// that machine-b's run comes while it runs.
	_ = a.Process.Signal(syscall.SIGSTOP)
	b, bOut := startRunner(t, dir, env, prefix, "--non-interactive", "up", "--yes")
	bErr := b.Wait()
	_ = a.Process.Signal(syscall.SIGCONT)
	aErr := a.Wait()
	if aErr != nil {
		t.Fatalf("the first run failed (%v):\n%s", aErr, aOut)
	}
	var exit *exec.ExitError
	if !errors.As(bErr, &exit) || exit.ExitCode() != 4 {
		t.Fatalf("machine-b's run beside it: %v, want exit 4:\n%s", bErr, bOut)
	}
	host, _ := os.Hostname()
	for _, want := range []string{"locked by runner up", fmt.Sprintf("pid %d on host %s", a.Process.Pid, host)} {
		if !strings.Contains(bOut.String(), want) {
			t.Errorf("machine-b's refusal does not say %q:\n%s", want, bOut)
		}
	}
	noPassword(t, srv, "machine-b's refusal", bOut.String())

	pgOK(t, dir, env, srv, "--non-interactive", "-s", "dev", "config", "set", "app:port", freePort(t))
	a, _ = startRunner(t, dir, env, nil, "--non-interactive", "up", "--yes")
	waitLocked(t, srv, db)
	time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
	_ = a.Process.Signal(syscall.SIGKILL)
	// On an idle machine the run may end before the kill comes: then
	// there is no interrupted run to record.
	killed := a.Wait() != nil
	// A machine that crashes takes its services with it: machine-b cannot
	// look into this host's processes (another pid namespace), so a service
	// the killed run started but never recorded would hold its port forever.
	// So machine-b refreshes, as after any crash.
	crashServices(t, dir)
	b, bOut = startRunner(t, dir, env, prefix, "--non-interactive", "up", "--refresh", "--yes")
	if err := b.Wait(); err != nil {
		t.Fatalf("machine-b's run after the kill did not converge (%v):\n%s", err, bOut)
	}
	for p, row := range summary(t, pgOK(t, dir, env, srv, "--json", "preview").Stdout) {
		if changes(row) != 0 {
			t.Fatalf("after machine-b's run, preview plans changes in %s", p)
		}
	}
	if hist := pgOK(t, dir, env, srv, "stack", "history").Stdout; killed && !strings.Contains(hist, "interrupted") {
		t.Errorf("the killed run is not recorded as interrupted:\n%s", hist)
	}
}

// crashServices kills (SIGKILL) every process working in dir, as the
// services of a machine that crashed die with it, and waits until they
// are gone (or zombies, which hold no port).
func crashServices(t *testing.T, dir string) {
	t.Helper()
	var victims []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			victims = append(victims, pid)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		alive := slices.ContainsFunc(victims, func(pid int) bool {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			return err == nil && !strings.Contains(string(b), ") Z ")
		})
		if !alive {
			return
		}
	}
	t.Fatalf("the processes working in %s (pids %v) outlived SIGKILL by 10 s", dir, victims)
}

// TestPostgresForcedUnlockFencesTheHolder: `stack unlock --force` from
// machine-b while an up runs here ends the up's sessions: the up stops
// (its writes are fenced) and fails, and the next up converges.
func TestPostgresForcedUnlockFencesTheHolder(t *testing.T) {
	dir, srv, db, env := pgWorkspace(t)
	prefix := machineB(t)
	a, aOut := startRunner(t, dir, env, nil, "--non-interactive", "up", "--yes")
	waitLocked(t, srv, db)
	_ = a.Process.Signal(syscall.SIGSTOP) // holding the locks while the unlock comes
	u, uOut := startRunner(t, dir, env, prefix, "--non-interactive", "stack", "unlock", "--force")
	uErr := u.Wait()
	_ = a.Process.Signal(syscall.SIGCONT)
	if uErr != nil {
		t.Fatalf("stack unlock --force: %v\n%s", uErr, uOut)
	}
	err := a.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the up whose locks were cleared succeeded:\n%s", aOut)
	}
	noPassword(t, srv, "the fenced run's output", aOut.String())
	pgOK(t, dir, env, srv, "--non-interactive", "up", "--yes")
	for p, row := range summary(t, pgOK(t, dir, env, srv, "--json", "preview").Stdout) {
		if changes(row) != 0 {
			t.Fatalf("after the next up, preview plans changes in %s", p)
		}
	}
	t.Logf("the fenced up exited %d:\n%s", exit.ExitCode(), aOut)
}

// TestPostgresMigrateFromTheFolder: a stack deployed with the folder
// backend is copied to a postgres database by `stack migrate --to URL`
// (the URL holding the password, which no output shows), and the next
// runs there find nothing to do.
func TestPostgresMigrateFromTheFolder(t *testing.T) {
	srv := pgtest.Need(t)
	db := srv.Database(t)
	dir := deployable(t)
	ok(t, dir, "--non-interactive", "up", "--yes")
	r := run(t, dir, "", nil, "--non-interactive", "stack", "migrate", "--to", srv.URL(db, true))
	if r.Code != 0 {
		t.Fatalf("stack migrate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	noPassword(t, srv, "the output of stack migrate", r.Stdout+r.Stderr)
	env := []string{"RUNNER_BACKEND_URL=" + srv.URL(db, false), "PGPASSWORD=" + srv.Password}
	for p, row := range summary(t, pgOK(t, dir, env, srv, "--json", "preview").Stdout) {
		if changes(row) != 0 {
			t.Fatalf("after the migration, preview plans changes in %s", p)
		}
	}
	if folder, pg := ok(t, dir, "stack", "output").Stdout, pgOK(t, dir, env, srv, "stack", "output").Stdout; folder != pg {
		t.Fatalf("the outputs differ after the migration:\nfolder:\n%s\npostgres:\n%s", folder, pg)
	}
}

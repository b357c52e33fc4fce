// Package crashtest kills a real process running `up` with SIGKILL at
// random moments and checks that the next run converges: nothing is created
// twice, nothing is lost, and the state is valid.
package crashtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine"
	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/engine/backend/postgres"
	"github.com/runnerhq/runner/engine/backend/postgres/pgtest"
	"github.com/runnerhq/runner/engine/backend/s3"
	"github.com/runnerhq/runner/engine/plugins/file"
	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/internal/killspan"
)

// The child process's settings, passed through the environment.
const (
	envChild   = "CRASHTEST_CHILD_DIR"
	envRound   = "CRASHTEST_ROUND"
	envBackend = "CRASHTEST_BACKEND_URL" // the state's backend; unset: a folder in the child's dir
)

// files is how many files the program declares.
const files = 40

func TestMain(m *testing.M) {
	if dir := os.Getenv(envChild); dir != "" {
		round, _ := strconv.Atoi(os.Getenv(envRound))
		if err := up(dir, round); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(pgtest.Main(m))
}

// program declares the files of a round: the content changes every third
// round (updates), and odd rounds leave out the last ten files (deletes,
// then creates again).
func program(dir string, round int) engine.Program {
	return func(ctx *engine.Context) error {
		n := files
		if round%2 == 1 {
			n = files - 10
		}
		for i := 0; i < n; i++ {
			ctx.Resource(file.Type, fmt.Sprintf("f%02d", i), engine.Inputs{
				"path":    filepath.Join(dir, "out", fmt.Sprintf("f%02d.txt", i)),
				"content": fmt.Sprintf("file %d, version %d\n", i, round/3),
			})
		}
		return nil
	}
}

// expected returns the files a converged round leaves, with their content.
func expected(dir string, round int) map[string]string {
	want := map[string]string{}
	n := files
	if round%2 == 1 {
		n = files - 10
	}
	for i := 0; i < n; i++ {
		want[filepath.Join(dir, "out", fmt.Sprintf("f%02d.txt", i))] = fmt.Sprintf("file %d, version %d\n", i, round/3)
	}
	return want
}

// watched wraps the file plugin: a create of a path that already exists is
// recorded as a double create, and every call is slowed a little so that
// kills land in the middle of steps.
type watched struct {
	file.Plugin
	log string
}

func (w watched) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if !req.Preview {
		path, _ := req.Inputs.String("path", "")
		if _, err := os.Stat(path); err == nil {
			appendLine(w.log, "double-create "+path)
		}
		time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
	}
	return w.Plugin.Create(ctx, req)
}

func (w watched) Delete(ctx context.Context, req resource.DeleteRequest) error {
	time.Sleep(time.Duration(rand.IntN(3)) * time.Millisecond)
	return w.Plugin.Delete(ctx, req)
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	fmt.Fprintln(f, line)
	_ = f.Sync()
}

// openBackend opens the backend of the state: the one named by
// CRASHTEST_BACKEND_URL (postgres:// or s3://), else the folder in dir.
func openBackend(dir string) (backend.Store, error) {
	url := os.Getenv(envBackend)
	switch {
	case strings.HasPrefix(url, "s3://"):
		return s3.OpenURL(context.Background(), url)
	case url != "":
		return postgres.Open(context.Background(), url)
	}
	return backend.Open("file://" + filepath.Join(dir, "state"))
}

// up runs one round (an up, or a destroy: see remote_test.go) against the
// backend of the state.
func up(dir string, round int) error {
	b, err := openBackend(dir)
	if err != nil {
		return err
	}
	if os.Getenv(envDestroy) != "" || os.Getenv(envConverge) != "" {
		return remoteRound(b, dir, round)
	}
	_, err = engine.Up(context.Background(), options(b, dir), program(dir, round))
	return err
}

// options are the engine options of a child's run on b.
func options(b backend.Backend, dir string) engine.Options {
	return engine.Options{
		Project: "crash", Stack: "dev", Backend: b, Crypter: testCrypter{},
		Plugins:  []resource.Plugin{watched{log: filepath.Join(dir, "events.log")}},
		Parallel: 8,
	}
}

// testCrypter is a reversible stand-in for the passphrase crypter.
type testCrypter struct{}

func (testCrypter) EncryptValue(_ context.Context, s string) (string, error) {
	return "test:" + s, nil
}

func (testCrypter) DecryptValue(_ context.Context, s string) (string, error) {
	if !strings.HasPrefix(s, "test:") {
		return "", errors.New("not a test ciphertext")
	}
	return strings.TrimPrefix(s, "test:"), nil
}

// child runs one up in a new process; with a kill delay, it is killed with
// SIGKILL after that delay.
func child(t *testing.T, dir string, round int, kill time.Duration) (killed bool, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+dir, envRound+"="+strconv.Itoa(round))
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if kill > 0 {
		select {
		case err := <-done:
			return false, fmt.Sprint(buf.String(), err)
		case <-time.After(kill):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			return true, buf.String()
		}
	}
	err := <-done
	if err != nil {
		return false, fmt.Sprintf("%s%v", buf.String(), err)
	}
	return false, ""
}

func TestKillAtRandomMoments(t *testing.T) {
	kills := 50
	if testing.Short() {
		kills = 10
	}
	killAtRandomMoments(t, t.TempDir(), kills)
}

// TestKillAtRandomMomentsPostgres kills runs whose state is in a
// PostgreSQL database: the killed run's session ends with it (and so its
// lock), and the next run folds its journal rows and converges.
func TestKillAtRandomMomentsPostgres(t *testing.T) {
	srv := pgtest.Need(t)
	t.Setenv(envBackend, srv.URL(srv.Database(t), true))
	killAtRandomMoments(t, t.TempDir(), 20)
}

// killAtRandomMoments kills kills runs at random moments (of creates,
// updates and deletes: the rounds change the files), each followed by a
// run that must converge.
func killAtRandomMoments(t *testing.T, dir string, kills int) {
	// Measure how long an undisturbed run takes, so that kills land inside
	// runs; a kill after the run ended shrinks the span.
	start := time.Now()
	if _, out := child(t, dir, 0, 0); out != "" {
		t.Fatalf("first up failed: %s", out)
	}
	span := killspan.New(time.Since(start))
	landed := 0
	for round := 1; landed < kills; round++ {
		if round > kills*4 {
			t.Fatalf("only %d of %d kills landed inside a run", landed, kills)
		}
		delay := span.Draw()
		began := time.Now()
		killed, _ := child(t, dir, round, delay)
		if killed {
			landed++
		} else {
			span.Missed(time.Since(began))
		}
		// The next run converges, taking over the dead run's lock and
		// resolving what it left, with no person's help.
		if _, out := child(t, dir, round, 0); out != "" {
			t.Fatalf("round %d: the run after a kill at %s did not converge: %s", round, delay, out)
		}
		checkConverged(t, dir, round)
	}
	t.Logf("%d kills landed inside runs (the span of kill moments ended at %s)", landed, span.Len())
}

// checkConverged verifies files, the double-create log and the state.
func checkConverged(t *testing.T, dir string, round int) {
	t.Helper()
	want := expected(dir, round)
	if destroying(round) {
		want = map[string]string{}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "out"))
	for _, e := range entries {
		p := filepath.Join(dir, "out", e.Name())
		if strings.Contains(e.Name(), ".tmp") {
			continue // an atomic write's temporary file cut short by the kill
		}
		if _, ok := want[p]; !ok {
			t.Fatalf("round %d: %s should not exist", round, p)
		}
	}
	for p, content := range want {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("round %d: %s is lost: %v", round, p, err)
		}
		if string(got) != content {
			t.Fatalf("round %d: %s holds %q, want %q", round, p, got, content)
		}
	}
	if log, err := os.ReadFile(filepath.Join(dir, "events.log")); err == nil && strings.Contains(string(log), "double-create") {
		t.Fatalf("round %d: a file was created twice:\n%s", round, log)
	}
	b, err := openBackend(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := b.(interface{ Close() }); ok {
		defer c.Close()
	}
	snap, err := b.Load(context.Background(), "crash", "dev", testCrypter{})
	if err != nil {
		t.Fatalf("round %d: the state does not load: %v", round, err)
	}
	if snap == nil && len(want) == 0 {
		return
	}
	if snap == nil {
		t.Fatalf("round %d: no state after a converged run", round)
	}
	if len(snap.PendingOperations) != 0 {
		t.Fatalf("round %d: %d pending operations after a converged run", round, len(snap.PendingOperations))
	}
	var custom int
	for _, r := range snap.Resources {
		if r.Custom && r.Type == file.Type {
			custom++
		}
	}
	if custom != len(want) {
		t.Fatalf("round %d: the state holds %d files, want %d", round, custom, len(want))
	}
}

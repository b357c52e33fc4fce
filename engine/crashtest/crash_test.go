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
	"github.com/runnerhq/runner/engine/plugins/file"
	"github.com/runnerhq/runner/engine/resource"
)

// The child process's settings, passed through the environment.
const (
	envChild = "CRASHTEST_CHILD_DIR"
	envRound = "CRASHTEST_ROUND"
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
	os.Exit(m.Run())
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

// up runs one up of a round against the folder backend in dir.
func up(dir string, round int) error {
	b, err := backend.Open("file://" + filepath.Join(dir, "state"))
	if err != nil {
		return err
	}
	_, err = engine.Up(context.Background(), engine.Options{
		Project: "crash", Stack: "dev", Backend: b, Crypter: testCrypter{},
		Plugins:  []resource.Plugin{watched{log: filepath.Join(dir, "events.log")}},
		Parallel: 8,
	}, program(dir, round))
	return err
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
	dir := t.TempDir()
	// Measure how long an undisturbed run takes, so that kills land inside runs.
	start := time.Now()
	if _, out := child(t, dir, 0, 0); out != "" {
		t.Fatalf("first up failed: %s", out)
	}
	span := time.Since(start)
	landed := 0
	for round := 1; landed < kills; round++ {
		if round > kills*4 {
			t.Fatalf("only %d of %d kills landed inside a run", landed, kills)
		}
		delay := time.Duration(rand.Int64N(int64(span))) + time.Millisecond
		killed, _ := child(t, dir, round, delay)
		if killed {
			landed++
		}
		// The next run converges, taking over the dead run's lock and
		// resolving what it left, with no person's help.
		if _, out := child(t, dir, round, 0); out != "" {
			t.Fatalf("round %d: the run after a kill at %s did not converge: %s", round, delay, out)
		}
		checkConverged(t, dir, round)
	}
	t.Logf("%d kills landed inside runs (an undisturbed run took %s)", landed, span)
}

// checkConverged verifies files, the double-create log and the state.
func checkConverged(t *testing.T, dir string, round int) {
	t.Helper()
	want := expected(dir, round)
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
	b, err := backend.Open("file://" + filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := b.Load(context.Background(), "crash", "dev", testCrypter{})
	if err != nil {
		t.Fatalf("round %d: the state does not load: %v", round, err)
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

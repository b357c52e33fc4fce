// Package pgtest starts a PostgreSQL server for tests: Debian's
// postgresql binaries (initdb and postgres on PATH, or under
// /usr/lib/postgresql/*/bin), a cluster in a temporary folder, listening
// on 127.0.0.1 on a free port, with password (SCRAM) authentication over
// TCP. As root the server runs as the user postgres, which PostgreSQL
// requires. A test that cannot have a server is skipped saying why, or,
// under CI (CI set), fails.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/runnerhq/runner/internal/testenv"
)

// Server is a running PostgreSQL server.
type Server struct {
	Dir      string // the cluster's folder (data, socket, log)
	Port     int
	User     string // the superuser
	Password string // its password
	cmd      *exec.Cmd
}

// Binaries returns the folder holding initdb and postgres.
func Binaries() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(real), nil
		}
		return filepath.Dir(p), nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return "", errors.New("PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin): apt-get install postgresql")
	}
	sort.Slice(found, func(i, k int) bool { return version(found[i]) < version(found[k]) })
	return filepath.Dir(found[len(found)-1]), nil
}

func version(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// Start initializes a cluster in a new temporary folder and starts its
// server.
func Start() (*Server, error) {
	bin, err := Binaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "runner-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, User: "runner", Password: "pw-" + randomHex(12)}
	cred, err := s.owner()
	if err != nil {
		s.Stop()
		return nil, err
	}
	if err := s.initdb(bin, cred); err != nil {
		s.Stop()
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		if err = s.start(bin, cred); err == nil || attempt == 2 {
			break
		}
	}
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// owner makes the folder the server's user's: postgres when root.
func (s *Server) owner() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, os.Chmod(s.Dir, 0o700)
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root and there is no user postgres: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(s.Dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, os.Chmod(s.Dir, 0o700)
}

func (s *Server) run(cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.Dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	return cmd
}

func (s *Server) initdb(bin string, cred *syscall.Credential) error {
	pwfile := filepath.Join(s.Dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return err
	}
	if cred != nil {
		if err := os.Chown(pwfile, int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	out, err := s.run(cred, filepath.Join(bin, "initdb"), "-D", filepath.Join(s.Dir, "data"), "-U", s.User,
		"--pwfile="+pwfile, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync").CombinedOutput()
	os.Remove(pwfile)
	if err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	return nil
}

func (s *Server) start(bin string, cred *syscall.Credential) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.Port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	logf, err := os.Create(filepath.Join(s.Dir, "server.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	s.cmd = s.run(cred, filepath.Join(bin, "postgres"), "-D", filepath.Join(s.Dir, "data"), "-p", strconv.Itoa(s.Port),
		"-k", s.Dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=600",
		"-c", "shared_buffers=32MB", "-c", "full_page_writes=off")
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
			s.cmd = nil
			return fmt.Errorf("postgres exited (%v): %s", err, log)
		case <-time.After(100 * time.Millisecond):
		}
		conn, err := pgx.Connect(context.Background(), s.URL("postgres", true))
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
	}
	return errors.New("postgres did not accept connections within 30 s")
}

// URL is the URL of database db, with the password in it or not.
func (s *Server) URL(db string, withPassword bool) string {
	userinfo := s.User
	if withPassword {
		userinfo += ":" + s.Password
	}
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", userinfo, s.Port, db)
}

// Stop stops the server and removes its folder.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGQUIT)
		done := make(chan struct{})
		go func() { _, _ = s.cmd.Process.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
		}
	}
	os.RemoveAll(s.Dir)
}

// Database creates an empty database for one test (dropped when it ends)
// and returns its name.
func (s *Server) Database(t testing.TB) string {
	t.Helper()
	name := "t_" + randomHex(8)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.URL("postgres", true))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, s.URL("postgres", true))
		if err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	return name
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Need returns the server this test process shares, started on first use
// (Main stops it); without one the test is skipped saying why, or fails
// under CI.
func Need(t testing.TB) *Server {
	t.Helper()
	srv, err := Shared()
	if err != nil {
		Unavailable(t, "no PostgreSQL server: "+err.Error())
	}
	return srv
}

// Shared returns the server this test process shares, started on first
// use, or why there is none.
func Shared() (*Server, error) {
	shared.once.Do(func() { shared.srv, shared.err = Start() })
	return shared.srv, shared.err
}

// Unavailable skips t saying why, or fails it under CI, where everything
// a test needs is installed (testenv.Unavailable).
func Unavailable(t testing.TB, why string) {
	t.Helper()
	testenv.Unavailable(t, why+" (.ci/run installs Debian's postgresql)")
}

// Main runs a package's tests (m.Run) and stops the shared server.
func Main(m interface{ Run() int }) int {
	code := m.Run()
	StopShared()
	return code
}

// Redact replaces the password in text, for test messages.
func (s *Server) Redact(text string) string { return strings.ReplaceAll(text, s.Password, "xxxxx") }

// StopShared stops the server Need started, if any (for a TestMain that
// does not use Main).
func StopShared() {
	if shared.srv != nil {
		shared.srv.Stop()
	}
}

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Every concurrent update lands: each goroutine holds its own descriptor
// of the lock file, as separate processes do.
func TestConcurrentUpdatesAllLand(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config", "pulumi", "Pulumi.dev.yaml")
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := UpdateStack(p, func(s *Stack) error {
				return s.Set(ctx, fmt.Sprintf("app:k%d", i), fmt.Sprint(i), false, false, nil)
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := LoadStack(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Keys()); got != n {
		t.Fatalf("%d of %d keys were kept:\n%s", got, n, s.src)
	}
}

func TestConcurrentEnvUpdatesAllLand(t *testing.T) {
	p := filepath.Join(t.TempDir(), "environment")
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := UpdateEnv(p, func(e *EnvFile) error {
				e.raw = append(e.raw, fmt.Sprintf("K%d=%d\n", i, i)...)
				e.changed = true
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	e, err := LoadEnv(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Values) != n {
		t.Fatalf("%d of %d keys were kept", len(e.Values), n)
	}
}

func TestLockWaitGivesUpNamingTheFile(t *testing.T) {
	old := LockTimeout
	LockTimeout = 50 * time.Millisecond
	t.Cleanup(func() { LockTimeout = old })
	p := filepath.Join(t.TempDir(), "Pulumi.dev.yaml")
	held := make(chan struct{})
	release := make(chan struct{})
	go func() {
		_ = withLock(p, func() error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	_, err := UpdateStack(p, func(s *Stack) error { return nil })
	close(release)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), LockPath(p)) {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("the file was written without the lock")
	}
}

func TestAnEmptySaltIsMissingAndIsWrittenPlain(t *testing.T) {
	for _, body := range []string{"encryptionsalt:\nconfig:\n  a:b: c\n", "encryptionsalt: ~\nconfig: {}\n", "encryptionsalt: null\n"} {
		s, err := ParseStack("Pulumi.dev.yaml", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.EncryptionSalt(); got != "" {
			t.Fatalf("%q: salt %q, want none", body, got)
		}
		s.SetEncryptionSalt("v1:AAAAAAAAAAA=:v1:x:y")
		out, err := s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(out), "encryptionsalt: v1:AAAAAAAAAAA=:v1:x:y\n") || strings.Contains(string(out), "!!") {
			t.Fatalf("%q written as:\n%s", body, out)
		}
	}
}

// Package providertest builds and inspects pulumi-resource-testprov, the
// real Pulumi provider plugin of engine/pluginhost/testprovider (a module of
// its own), for the tests of several packages: Binary builds it once per
// machine state, Store reads the resource files it keeps.
package providertest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BinaryName is the plugin's file name, as Pulumi looks it up on PATH.
const BinaryName = "pulumi-resource-testprov"

// The environment variables the plugin reads.
const (
	// EnvAcceptSecrets "false" makes Handshake (or, legacy, Configure)
	// answer accept_secrets = false.
	EnvAcceptSecrets = "TESTPROV_ACCEPT_SECRETS"
	// EnvAcceptResources "false" makes it answer accept_resources = false.
	EnvAcceptResources = "TESTPROV_ACCEPT_RESOURCES"
	// EnvLegacy "1" makes Handshake return Unimplemented.
	EnvLegacy = "TESTPROV_LEGACY"
	// EnvStartDelay (a Go duration) delays the port line.
	EnvStartDelay = "TESTPROV_START_DELAY"
	// EnvBadStart "noport" exits 1 without a port; "garbage" prints
	// "hello world" first and hangs until SIGINT/SIGTERM.
	EnvBadStart = "TESTPROV_BAD_START"
)

// The plugin's resource types.
const (
	TypeThing = "testprov:index:Thing"
	TypeBlob  = "testprov:index:Blob"
	TypeRef   = "testprov:index:Ref"
)

// buildOnce builds the binary once per test process.
var buildOnce = sync.OnceValues(build)

// Binary returns the path of pulumi-resource-testprov, building it when the
// cache under os.TempDir() has no binary for the module's current sources
// and Go version (parallel test processes share one build through a lock
// file). It fails tb when the build fails.
func Binary(tb testing.TB) string {
	tb.Helper()
	path, err := buildOnce()
	if err != nil {
		tb.Fatalf("providertest: %v", err)
	}
	return path
}

// Dir returns the directory of Binary, to put on PATH; it holds nothing else.
func Dir(tb testing.TB) string {
	tb.Helper()
	return filepath.Dir(Binary(tb))
}

// ModuleDir returns the directory of the plugin's Go module.
func ModuleDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate the providertest package's source")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "testprovider")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("the testprovider module is not at %s: %w", dir, err)
	}
	return dir, nil
}

// build returns the cached binary for the current sources, building it
// under the cache's lock when it is missing.
func build() (string, error) {
	mod, err := ModuleDir()
	if err != nil {
		return "", err
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building %s needs the go command on PATH: %w", BinaryName, err)
	}
	key, err := sourceKey(goCmd, mod)
	if err != nil {
		return "", err
	}
	cache := filepath.Join(os.TempDir(), "runner-testprov")
	dir := filepath.Join(cache, key)
	bin := filepath.Join(dir, BinaryName)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create the build cache: %w", err)
	}
	unlock, err := lock(filepath.Join(cache, key+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // another process built it while we waited
	}
	return bin, goBuild(goCmd, mod, bin)
}

// goBuild builds the module in mod to bin, through a temporary file so a
// half-written binary is never at bin.
func goBuild(goCmd, mod, bin string) error {
	tmp := bin + ".tmp"
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "build", "-o", tmp, ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %w\n%s", BinaryName, mod, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return fmt.Errorf("install the built %s: %w", BinaryName, err)
	}
	return nil
}

// sourceKey hashes the module's files (all but dot-files and tests) with
// the Go version, OS and architecture.
func sourceKey(goCmd, mod string) (string, error) {
	out, err := exec.Command(goCmd, "env", "GOVERSION", "GOOS", "GOARCH").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	h := sha256.New()
	h.Write(out)
	var files []string
	err = filepath.WalkDir(mod, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && path != mod {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read the testprovider sources: %w", err)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("read the testprovider sources: %w", err)
		}
		rel, _ := filepath.Rel(mod, f)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// lock takes an exclusive lock on path (created if needed), waiting for it.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the build lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("take the build lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

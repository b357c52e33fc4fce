// Package buildcache builds the commands of a nested Go module (a test
// plugin with a go.mod of its own) into a directory under os.TempDir()
// that is keyed by the module's sources, the Go version and the target:
// a later build of unchanged sources reuses the binaries, and parallel test
// processes share one build through a lock file.
package buildcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Spec says what to build.
type Spec struct {
	// Name names the cache folder, os.TempDir()/<Name>/<key>.
	Name string
	// Module is the directory of the module's go.mod.
	Module string
	// Commands maps each binary's file name to the package that builds it,
	// relative to Module ("." or "./cmd/x").
	Commands map[string]string
}

// Build returns the directory holding the binaries of s.Commands (and
// nothing else), building them when the cache has none for the module's
// current sources.
func Build(s Spec) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("building the %s binaries needs the go command on PATH: %w", s.Name, err)
	}
	key, err := sourceKey(goCmd, s)
	if err != nil {
		return "", err
	}
	cache := filepath.Join(os.TempDir(), s.Name)
	dir := filepath.Join(cache, key)
	if built(dir, s) {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create the build cache: %w", err)
	}
	unlock, err := lock(filepath.Join(cache, key+".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	for _, bin := range names(s.Commands) {
		if _, err := os.Stat(filepath.Join(dir, bin)); err == nil {
			continue // another process built it while we waited
		}
		if err := goBuild(goCmd, s.Module, s.Commands[bin], filepath.Join(dir, bin)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// built reports whether dir holds every binary of s.
func built(dir string, s Spec) bool {
	for bin := range s.Commands {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return false
		}
	}
	return true
}

// names returns the keys of m, sorted.
func names(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// goBuild builds the package pkg of the module in mod to bin, through a
// temporary file so a half-written binary is never at bin.
func goBuild(goCmd, mod, pkg, bin string) error {
	tmp := bin + ".tmp"
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "build", "-o", tmp, pkg)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s (%s) in %s: %w\n%s", filepath.Base(bin), pkg, mod, err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return fmt.Errorf("install the built %s: %w", filepath.Base(bin), err)
	}
	return nil
}

// sourceKey hashes the module's files (all but dot-files and tests) with
// the Go version, OS, architecture and the commands to build.
func sourceKey(goCmd string, s Spec) (string, error) {
	out, err := exec.Command(goCmd, "env", "GOVERSION", "GOOS", "GOARCH").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	h := sha256.New()
	h.Write(out)
	for _, bin := range names(s.Commands) {
		fmt.Fprintf(h, "%s\x00%s\x00", bin, s.Commands[bin])
	}
	files, err := sources(s.Module)
	if err != nil {
		return "", fmt.Errorf("read the sources of %s: %w", s.Module, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("read the sources of %s: %w", s.Module, err)
		}
		rel, _ := filepath.Rel(s.Module, f)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// sources lists the module's files but dot-files and tests, sorted.
func sources(mod string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(mod, func(path string, d fs.DirEntry, err error) error {
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
	sort.Strings(files)
	return files, err
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

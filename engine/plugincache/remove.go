package plugincache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// RemoveTimeout bounds how long Remove waits for an install of the same
// plugin version to finish.
var RemoveTimeout = 10 * time.Minute

// Remove deletes plugin name from the cache: the given version, or every
// version when version is "", unfinished installs included, each under its
// install lock. It returns what it removed (nothing when nothing
// matched). A binary on PATH is never removed: see OnPath.
func Remove(name, version string, getenv func(string) string) ([]Installed, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	var want *semver
	if version != "" {
		v, err := parseVersion(version)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", name, err)
		}
		want = &v
	}
	cache, err := Dir(getenv)
	if err != nil {
		return nil, err
	}
	dirs, err := versionDirs(cache, name, want)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), RemoveTimeout)
	defer cancel()
	var out []Installed
	for _, e := range dirs {
		in := describe(e)
		if err := removeDir(ctx, e.Dir); err != nil {
			return out, err
		}
		out = append(out, in)
	}
	return out, nil
}

// versionDirs lists the cache directories of plugin name (of version
// want, when set), finished or not.
func versionDirs(cache, name string, want *semver) ([]entry, error) {
	des, err := os.ReadDir(cache)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the plugin cache %s: %w", cache, err)
	}
	var out []entry
	for _, de := range des {
		n, v, ok := parseDirName(de.Name())
		if !ok || n != name || !de.IsDir() || (want != nil && v.compare(*want) != 0) {
			continue
		}
		d := filepath.Join(cache, de.Name())
		out = append(out, entry{Name: n, Version: v, Path: filepath.Join(d, Binary(n)), Dir: d})
	}
	return out, nil
}

// removeDir deletes a plugin directory and its markers under its lock.
// The lock file stays: removing it could let two processes lock two files.
func removeDir(ctx context.Context, dir string) error {
	unlock, err := lock(ctx, dir, func(string, ...any) {})
	if err != nil {
		return err
	}
	defer unlock()
	// The marker first: a directory half removed is an unfinished one.
	if err := os.WriteFile(dir+".partial", nil, 0o644); err != nil {
		return fmt.Errorf("marking %s as being removed: %w", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing the plugin directory %s: %w", dir, err)
	}
	for _, m := range []string{".partial", ".lastused"} {
		if err := os.Remove(dir + m); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing %s%s: %w", dir, m, err)
		}
	}
	return nil
}

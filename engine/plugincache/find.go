// Package plugincache finds, lists, installs and removes Pulumi resource
// provider plugins (pulumi-resource-<name> binaries) where the Pulumi CLI
// keeps them, so that runner and the Pulumi CLI share one cache: a binary
// on PATH first (unless PULUMI_IGNORE_AMBIENT_PLUGINS is set), then
// $PULUMI_HOME/plugins (default ~/.pulumi/plugins) in Pulumi's layout,
// resource-<name>-v<version>/pulumi-resource-<name>, where a sibling
// <dir>.partial marks an install that has not finished and <dir>.lock is
// the install lock.
package plugincache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Installed is one plugin found on PATH or in the cache.
type Installed struct {
	// Name is the plugin's package name (aws for pulumi-resource-aws).
	Name string `json:"name"`
	// Version is the installed version ("" for a binary on PATH, whose
	// version runner does not know without starting it).
	Version string `json:"version,omitempty"`
	// Path is the plugin's binary.
	Path string `json:"path"`
	// Size is the size in bytes of the plugin's cache directory (of the
	// binary for one on PATH).
	Size int64 `json:"size"`
	// Modified is when the directory (or binary) was last changed.
	Modified time.Time `json:"modified"`
	// Ambient says the binary was found on PATH, where it wins over the
	// cache whatever its version, and which runner never removes.
	Ambient bool `json:"ambient"`
	// AlreadyInstalled, set by Install only, says the plugin was in the
	// cache already and nothing was downloaded.
	AlreadyInstalled bool `json:"alreadyInstalled,omitempty"`
}

// NotInstalledError is a plugin found neither on PATH nor in the cache.
type NotInstalledError struct {
	// Name and Version are the plugin asked for (Version "" for any).
	Name, Version string
	// Dir is the cache directory looked in ("" when unknown).
	Dir string
}

func (e *NotInstalledError) Error() string {
	where := "on PATH or in the plugin cache"
	if e.Dir != "" {
		where = "on PATH or in " + e.Dir
	}
	if e.Version == "" {
		return fmt.Sprintf("the resource plugin %s (pulumi-resource-%s) is not installed %s; install it with `runner plugin install %s`", e.Name, e.Name, where, e.Name)
	}
	return fmt.Sprintf("the resource plugin %s %s (pulumi-resource-%s) is not installed %s; install it with `runner plugin install %s %s`", e.Name, e.Version, e.Name, where, e.Name, e.Version)
}

// validName is what a plugin name may be: it becomes a file name.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// checkName refuses a plugin name that cannot name a plugin binary.
func checkName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("%q is not a plugin name: use letters, digits, - and _ (aws, azure-native)", name)
	}
	return nil
}

// Binary returns the file name of the plugin name's binary.
func Binary(name string) string { return "pulumi-resource-" + name }

// Dir returns the plugin cache, $PULUMI_HOME/plugins, PULUMI_HOME
// defaulting to ~/.pulumi, as the Pulumi CLI has it.
func Dir(getenv func(string) string) (string, error) {
	home := getenv("PULUMI_HOME")
	if home == "" {
		user := getenv("HOME")
		if user == "" {
			var err error
			if user, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("finding the plugin cache: set PULUMI_HOME or HOME: %w", err)
			}
		}
		home = filepath.Join(user, ".pulumi")
	}
	return filepath.Join(home, "plugins"), nil
}

// ignoreAmbient reports whether PULUMI_IGNORE_AMBIENT_PLUGINS is set to
// a true value (anything but "", 0 and false).
func ignoreAmbient(getenv func(string) string) bool {
	switch strings.ToLower(getenv("PULUMI_IGNORE_AMBIENT_PLUGINS")) {
	case "", "0", "false":
		return false
	}
	return true
}

// OnPath returns the binary of plugin name on PATH, unless
// PULUMI_IGNORE_AMBIENT_PLUGINS is set.
func OnPath(name string, getenv func(string) string) (string, bool) {
	if ignoreAmbient(getenv) || checkName(name) != nil {
		return "", false
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // never the working directory
		}
		p := filepath.Join(dir, Binary(name))
		if executable(p) {
			return p, true
		}
	}
	return "", false
}

// executable reports whether p is a regular file someone may execute.
func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// Find returns the binary of plugin name: on PATH unless
// PULUMI_IGNORE_AMBIENT_PLUGINS is set (whatever its version), else in
// the cache, skipping directories with a .partial marker. With a version
// it must match exactly (semver precedence, pre-releases included);
// without one the newest installed is chosen, a stable release over a
// pre-release. Not found is a *NotInstalledError.
func Find(name, version string, getenv func(string) string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	var want *semver
	if version != "" {
		v, err := parseVersion(version)
		if err != nil {
			return "", fmt.Errorf("plugin %s: %w", name, err)
		}
		want = &v
		version = v.String()
	}
	if p, ok := OnPath(name, getenv); ok {
		return p, nil
	}
	dir, err := Dir(getenv)
	if err != nil {
		return "", err
	}
	found, err := cached(dir, name)
	if err != nil {
		return "", err
	}
	if best, ok := choose(found, want); ok {
		return best.Path, nil
	}
	return "", &NotInstalledError{Name: name, Version: version, Dir: dir}
}

// entry is one complete plugin directory of the cache.
type entry struct {
	Name    string
	Version semver
	Path    string // the binary
	Dir     string
}

// choose picks the exact match of want, or without want the newest
// stable entry (the newest pre-release when none is stable).
func choose(found []entry, want *semver) (entry, bool) {
	var best entry
	ok := false
	for _, e := range found {
		switch {
		case want != nil:
			if e.Version.compare(*want) == 0 {
				return e, true
			}
		case !ok, e.Version.stable() && !best.Version.stable(),
			e.Version.stable() == best.Version.stable() && e.Version.compare(best.Version) > 0:
			best, ok = e, true
		}
	}
	return best, ok
}

// cached lists the complete directories of the cache dir for plugin name
// ("" for every plugin): resource-<name>-v<version> holding the binary,
// without a .partial sibling. A cache that does not exist holds nothing.
func cached(dir, name string) ([]entry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the plugin cache %s: %w", dir, err)
	}
	var out []entry
	for _, de := range des {
		n, v, ok := parseDirName(de.Name())
		if !ok || (name != "" && n != name) {
			continue
		}
		d := filepath.Join(dir, de.Name())
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		if _, err := os.Lstat(d + ".partial"); err == nil {
			continue // an install that has not finished (or was killed)
		}
		bin := filepath.Join(d, Binary(n))
		if !executable(bin) {
			continue
		}
		out = append(out, entry{Name: n, Version: v, Path: bin, Dir: d})
	}
	return out, nil
}

// parseDirName splits resource-<name>-v<version> into its name and
// version. A name may hold dashes, so every "-v" is tried from the end.
func parseDirName(base string) (string, semver, bool) {
	rest, ok := strings.CutPrefix(base, "resource-")
	if !ok {
		return "", semver{}, false
	}
	for i := strings.LastIndex(rest, "-v"); i > 0; i = strings.LastIndex(rest[:i], "-v") {
		name := rest[:i]
		v, err := parseVersion(rest[i+2:])
		if err == nil && checkName(name) == nil && !strings.HasPrefix(rest[i+2:], "v") {
			return name, v, true
		}
	}
	return "", semver{}, false
}

// dirName is the cache directory name of a plugin version.
func dirName(name string, v semver) string { return "resource-" + name + "-v" + v.String() }

// List returns the plugins on PATH (unless PULUMI_IGNORE_AMBIENT_PLUGINS
// is set) and in the cache, sorted by name, those on PATH first, then
// newest version first.
func List(getenv func(string) string) ([]Installed, error) {
	dir, err := Dir(getenv)
	if err != nil {
		return nil, err
	}
	found, err := cached(dir, "")
	if err != nil {
		return nil, err
	}
	out := ambient(getenv)
	for _, e := range found {
		out = append(out, describe(e))
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Ambient != b.Ambient {
			return a.Ambient
		}
		va, _ := parseVersion(a.Version)
		vb, _ := parseVersion(b.Version)
		return va.compare(vb) > 0
	})
	return out, nil
}

// describe returns what List shows of a cache entry.
func describe(e entry) Installed {
	in := Installed{Name: e.Name, Version: e.Version.String(), Path: e.Path}
	if st, err := os.Stat(e.Dir); err == nil {
		in.Modified = st.ModTime()
	}
	_ = filepath.WalkDir(e.Dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				in.Size += info.Size()
			}
		}
		return nil
	})
	return in
}

// ambient lists the pulumi-resource-* binaries on PATH (the first of each
// name, the one that runs), unless PULUMI_IGNORE_AMBIENT_PLUGINS is set.
func ambient(getenv func(string) string) []Installed {
	if ignoreAmbient(getenv) {
		return nil
	}
	seen := map[string]bool{}
	var out []Installed
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(dir, Binary("*")))
		for _, p := range matches {
			name := strings.TrimPrefix(filepath.Base(p), Binary(""))
			st, err := os.Stat(p)
			if seen[name] || checkName(name) != nil || err != nil || !executable(p) {
				continue
			}
			seen[name] = true
			out = append(out, Installed{Name: name, Path: p, Size: st.Size(), Modified: st.ModTime(), Ambient: true})
		}
	}
	return out
}

// CheckSpec reports whether name and version (optional) can name a
// plugin, before anything is looked up or downloaded.
func CheckSpec(name, version string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if version == "" {
		return nil
	}
	if _, err := parseVersion(version); err != nil {
		return fmt.Errorf("plugin %s: %w", name, err)
	}
	return nil
}

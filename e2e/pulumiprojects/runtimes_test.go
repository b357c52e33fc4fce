package pulumiprojects

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
	"github.com/runnerhq/runner/internal/testenv"
)

// cacheDir is where .ci/langhosts installs the language hosts and npm
// packages.
func cacheDir() string {
	if d := os.Getenv("RUNNER_CI_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "runner-ci")
}

// unavailable skips a test whose runtime cannot be had here, saying why,
// and fails it under CI, where .ci/langhosts installs everything.
func unavailable(t testing.TB, why string) {
	t.Helper()
	testenv.Unavailable(t, why+"; run .ci/langhosts to install it")
}

// yamlHostDir returns the folder of pulumi-language-yaml.
func yamlHostDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(cacheDir(), "pulumi-language-yaml-v1.32.0")
	if _, err := os.Stat(filepath.Join(dir, "pulumi-language-yaml")); err != nil {
		unavailable(t, "pulumi-language-yaml v1.32.0 is not in "+cacheDir())
	}
	return dir
}

// nodeModules returns the node_modules folder of the TypeScript programs.
func nodeModules(t testing.TB) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(cacheDir(), "node-modules-*", "node_modules", "@pulumi", "pulumi"))
	if len(dirs) == 0 {
		unavailable(t, "the npm packages of the TypeScript programs are not in "+cacheDir())
	}
	return filepath.Dir(filepath.Dir(dirs[0]))
}

// project copies a test program (testdata/<runtime>/<name>) into the
// workspace folder dest, named name in its Pulumi.yaml.
func (w *ws) project(runtime, program, dest, name string) {
	w.t.Helper()
	src := filepath.Join("testdata", runtime, program)
	to := filepath.Join(w.dir, dest)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "Pulumi.yaml" {
			b = []byte(strings.Replace(string(b), "name: "+program+"\n", "name: "+name+"\n", 1))
		}
		return writeFile(filepath.Join(to, rel), b)
	})
	if err != nil {
		w.t.Fatal(err)
	}
	switch runtime {
	case "ts":
		for _, f := range []string{"thing.ts", "tsconfig.json"} {
			b, err := os.ReadFile(filepath.Join("testdata", "ts", f))
			if err != nil {
				w.t.Fatal(err)
			}
			if err := writeFile(filepath.Join(to, f), b); err != nil {
				w.t.Fatal(err)
			}
		}
		if err := os.Symlink(nodeModules(w.t), filepath.Join(to, "node_modules")); err != nil {
			w.t.Fatal(err)
		}
	case "go":
		// The program's module: go.mod and go.sum one folder up.
		for _, f := range []string{"go.mod", "go.sum"} {
			b, err := os.ReadFile(filepath.Join("testdata", "go", f))
			if err != nil {
				w.t.Fatal(err)
			}
			if err := writeFile(filepath.Join(filepath.Dir(to), f), b); err != nil {
				w.t.Fatal(err)
			}
		}
	}
}

func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// withHosts puts the test plugin and the YAML host on PATH.
func (w *ws) withHosts(t testing.TB, yaml bool) providertest.Store {
	t.Helper()
	path := providertest.Dir(t)
	if yaml {
		path += string(os.PathListSeparator) + yamlHostDir(t)
	}
	w.extra = append(w.extra, "PATH="+path+string(os.PathListSeparator)+os.Getenv("PATH"))
	return providertest.Store(t.TempDir())
}

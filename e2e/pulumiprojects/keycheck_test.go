package pulumiprojects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrongPassphraseRunsNoProgram: a preview or up of YAML projects
// starts its language hosts (and, YAML being declarative, its programs)
// while the passphrase's key is derived, but a wrong passphrase still stops
// it before any of the program's calls reaches the engine: exit 3 naming
// the passphrase's source, nothing created, no state or history written.
// With a secret in the config the key is needed first, and the same holds.
func TestWrongPassphraseRunsNoProgram(t *testing.T) {
	program := "name: one\nruntime: yaml\nresources:\n  r:\n    type: testprov:index:Thing\n    properties:\n      value: v\n"
	for _, secret := range []bool{false, true} {
		for _, op := range [][]string{{"preview"}, {"up", "--yes"}} {
			name := op[0]
			if secret {
				name += "/secret"
			}
			t.Run(name, func(t *testing.T) {
				w := newWS(t)
				store := w.withHosts(t, true)
				w.write(map[string]string{"one/Pulumi.yaml": program, "runner.yaml": "providers:\n  e:\n    projects:\n      one: {path: one}\n"})
				w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
				if secret {
					w.ok("-p", "e", "-s", "dev", "config", "set", "--secret", "one:token", "s3cr3t")
				}
				right := w.extra
				w.extra = append(append([]string(nil), right...), "PULUMI_CONFIG_PASSPHRASE=not-the-passphrase")
				r := w.fails(3, append([]string{"-p", "e", "-s", "dev"}, op...)...)
				if out := r.Stdout + r.Stderr; !strings.Contains(out, "incorrect passphrase for stack dev") || !strings.Contains(out, "PULUMI_CONFIG_PASSPHRASE") {
					t.Errorf("the output does not name the wrong passphrase and its source:\n%s\n%s", r.Stdout, r.Stderr)
				}
				if got := values(t, store); len(got) != 0 {
					t.Errorf("the program ran: the store holds %v", got)
				}
				if files := stateFiles(t, w.dir); len(files) != 0 {
					t.Errorf("a run with the wrong passphrase wrote %v", files)
				}
				w.extra = right
				w.ok("-p", "e", "-s", "dev", "up", "--yes")
				if got := values(t, store); len(got) != 1 {
					t.Errorf("after an up with the right passphrase the store holds %v", got)
				}
			})
		}
	}
}

// TestWrongPassphraseAndAnotherFailure: when the run fails for another
// reason before the passphrase is checked (a plugin the program names is
// not installed), the output names both problems, and the exit is 3.
func TestWrongPassphraseAndAnotherFailure(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{
		"one/Pulumi.yaml": "name: one\nruntime: yaml\nresources:\n  r:\n    type: nosuchpkg:index:Thing\n",
		"runner.yaml":     "providers:\n  e:\n    projects:\n      one: {path: one}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.extra = append(w.extra, "PULUMI_CONFIG_PASSPHRASE=not-the-passphrase")
	r := w.fails(3, "-p", "e", "-s", "dev", "preview")
	out := r.Stdout + r.Stderr
	for _, want := range []string{"incorrect passphrase for stack dev", "runner plugin install nosuchpkg"} {
		if strings.Count(out, want) == 0 {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "incorrect passphrase"); n != 1 {
		t.Errorf("the passphrase error is shown %d times, want once:\n%s", n, out)
	}
}

// stateFiles lists the files under the workspace's .runner folder (the
// folder backend's states, journals and history), but not its caches of
// what programs are made of (.runner/programs: Go builds, YAML package
// lists), which a run may keep before its passphrase is checked.
func stateFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, ".runner"), func(p string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return filepath.SkipAll
		}
		if err == nil && d.IsDir() && p == filepath.Join(dir, ".runner", "programs") {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMissingPluginIsExit3: a program naming a package whose plugin is not
// installed and cannot be (no version named) fails with the plugin and the
// command that installs it, exit 3 (the user's to fix), in preview and up.
// Before, the program relayed the error and the exit was 1.
func TestMissingPluginIsExit3(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{
		"one/Pulumi.yaml": "name: one\nruntime: yaml\nresources:\n  r:\n    type: nosuchpkg:index:Thing\n",
		"runner.yaml":     "providers:\n  e:\n    projects:\n      one: {path: one}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	for _, op := range [][]string{{"preview"}, {"up", "--yes"}} {
		r := w.fails(3, append([]string{"-p", "e", "-s", "dev"}, op...)...)
		if out := r.Stdout + r.Stderr; !strings.Contains(out, "runner plugin install nosuchpkg") {
			t.Errorf("%s does not name the command that installs the plugin:\n%s", op[0], out)
		}
	}
}

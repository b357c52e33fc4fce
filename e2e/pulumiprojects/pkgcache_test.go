package pulumiprojects

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCachedPackageListStaysRight: runner keeps the YAML host's list of
// the packages a program needs (GetRequiredPackages) between runs. The
// kept list must never hide a plugin that cannot be had: a program changed
// to name a package with no plugin is exit 3 naming it (the list is asked
// again), and with the program unchanged but its plugin gone from PATH the
// kept list still names the plugin: exit 3, nothing run.
func TestCachedPackageListStaysRight(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	program := "name: one\nruntime: yaml\nresources:\n  r:\n    type: testprov:index:Thing\n    properties:\n      value: v\n"
	w.write(map[string]string{"one/Pulumi.yaml": program, "runner.yaml": "providers:\n  e:\n    projects:\n      one: {path: one}\n"})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "preview")
	kept, _ := filepath.Glob(filepath.Join(w.dir, ".runner", "programs", "yaml", "one-*", "packages.json"))
	if len(kept) != 1 {
		t.Fatalf("no list of packages was kept after a preview (%v)", kept)
	}

	// Changed: a second resource of a package nobody serves.
	w.write(map[string]string{"one/Pulumi.yaml": program + "  s:\n    type: nosuchpkg:index:Thing\n"})
	r := w.fails(3, "-p", "e", "-s", "dev", "up", "--yes")
	if out := r.Stdout + r.Stderr; !strings.Contains(out, "runner plugin install nosuchpkg") {
		t.Errorf("the changed program's missing plugin is not named:\n%s", out)
	}
	if got := values(t, store); len(got) != 0 {
		t.Errorf("the program ran: the store holds %v", got)
	}

	// Unchanged program (its list kept again), its plugin no longer on PATH.
	w.write(map[string]string{"one/Pulumi.yaml": program})
	w.ok("-p", "e", "-s", "dev", "preview")
	var path []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "pulumi-resource-testprov")); err != nil {
			path = append(path, dir)
		}
	}
	w.extra = append(w.extra, "PATH="+yamlHostDir(t)+string(os.PathListSeparator)+strings.Join(path, string(os.PathListSeparator)))
	r = w.fails(3, "-p", "e", "-s", "dev", "up", "--yes")
	if out := r.Stdout + r.Stderr; !strings.Contains(out, "runner plugin install testprov") {
		t.Errorf("the kept list's plugin, gone from PATH, is not named:\n%s", out)
	}
	if got := values(t, store); len(got) != 0 {
		t.Errorf("the program ran: the store holds %v", got)
	}
}

// TestEditedPackageListIsAskedAgain: a kept list of packages edited by
// hand (its key left as it was) is not trusted: the host is asked again,
// so the up does not fail naming a plugin the program does not use, and
// the entry is written right again.
func TestEditedPackageListIsAskedAgain(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	w.write(map[string]string{
		"one/Pulumi.yaml": "name: one\nruntime: yaml\nresources:\n  r:\n    type: testprov:index:Thing\n    properties:\n      value: v\n",
		"runner.yaml":     "providers:\n  e:\n    projects:\n      one: {path: one}\n",
	})
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "preview")
	kept, _ := filepath.Glob(filepath.Join(w.dir, ".runner", "programs", "yaml", "one-*", "packages.json"))
	if len(kept) != 1 {
		t.Fatalf("no list of packages was kept after a preview (%v)", kept)
	}
	var entry map[string]any
	b, err := os.ReadFile(kept[0])
	if err == nil {
		err = json.Unmarshal(b, &entry)
	}
	if err != nil {
		t.Fatal(err)
	}
	entry["packages"] = []map[string]string{{"Name": "edited"}}
	if b, err = json.Marshal(entry); err == nil {
		err = os.WriteFile(kept[0], b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := w.ok("-p", "e", "-s", "dev", "up", "--yes")
	if out := r.Stdout + r.Stderr; strings.Contains(out, "edited") {
		t.Errorf("the edited list was used:\n%s", out)
	}
	if got := values(t, store); !equal(got, []string{"v"}) {
		t.Errorf("the store holds %v, want [v]", got)
	}
	if b, _ := os.ReadFile(kept[0]); !strings.Contains(string(b), `"testprov"`) || strings.Contains(string(b), "edited") {
		t.Errorf("the kept list was not written again: %s", b)
	}
}

// TestCachedPackageListOfALinkedFolder: a project whose folder is a
// symbolic link to its program's folder: a change of its Pulumi.yaml
// that names a package with no plugin still makes the list be asked
// again (exit 3 naming it, nothing run), as for a folder that is not a
// link.
func TestCachedPackageListOfALinkedFolder(t *testing.T) {
	w := newWS(t)
	store := w.withHosts(t, true)
	program := "name: one\nruntime: yaml\nresources:\n  r:\n    type: testprov:index:Thing\n    properties:\n      value: v\n"
	w.write(map[string]string{"programs/one/Pulumi.yaml": program, "runner.yaml": "providers:\n  e:\n    projects:\n      one: {path: one}\n"})
	if err := os.Symlink(filepath.Join("programs", "one"), filepath.Join(w.dir, "one")); err != nil {
		t.Fatal(err)
	}
	w.ok("-p", "e", "-s", "dev", "config", "set", "testprov:store", string(store))
	w.ok("-p", "e", "-s", "dev", "preview")
	w.write(map[string]string{"programs/one/Pulumi.yaml": program + "  s:\n    type: nosuchpkg:index:Thing\n"})
	r := w.fails(3, "-p", "e", "-s", "dev", "up", "--yes")
	if out := r.Stdout + r.Stderr; !strings.Contains(out, "runner plugin install nosuchpkg") {
		t.Errorf("the changed program's missing plugin is not named:\n%s", out)
	}
	if got := values(t, store); len(got) != 0 {
		t.Errorf("the program ran: the store holds %v", got)
	}
}

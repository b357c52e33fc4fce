package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"github.com/runnerhq/runner/e2e/fakecloud/plugins"
)

// write writes sh to <out>/<package>.json: one resource or type a line,
// sorted, so that a new version's changes read as a diff.
func write(out string, sh *plugins.Shapes) error {
	var b bytes.Buffer
	head, _ := json.Marshal(map[string]string{"package": sh.Package, "version": sh.Version, "source": sh.Source})
	b.Write(head[:len(head)-1])
	section := func(name string, keys []string, value func(string) any) {
		fmt.Fprintf(&b, ",\n%q: {", name)
		for i, k := range keys {
			v, _ := json.Marshal(value(k))
			kj, _ := json.Marshal(k)
			sep := ","
			if i == len(keys)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "\n%s: %s%s", kj, v, sep)
		}
		b.WriteString("\n}")
	}
	section("resources", sorted(sh.Resources), func(k string) any { return sh.Resources[k] })
	section("types", sorted(sh.Types), func(k string) any { return sh.Types[k] })
	b.WriteString("\n}\n")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, sh.Package+".json")
	fmt.Fprintf(os.Stderr, "%s: %d resource types, %d nested types, %d bytes\n", path, len(sh.Resources), len(sh.Types), b.Len())
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func sorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// npmPack fetches @pulumi/<pkg>@version with npm pack into tmp and returns
// the unpacked package folder.
func npmPack(tmp, pkg, version string) (string, error) {
	dir := filepath.Join(tmp, pkg)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	pack := exec.Command("npm", "pack", "--silent", "@pulumi/"+pkg+"@"+version)
	pack.Dir = dir
	name, err := pack.Output()
	if err != nil {
		return "", fmt.Errorf("npm pack @pulumi/%s@%s: %w", pkg, version, err)
	}
	untar := exec.Command("tar", "xzf", string(bytes.TrimSpace(name)))
	untar.Dir = dir
	if out, err := untar.CombinedOutput(); err != nil {
		return "", fmt.Errorf("unpacking @pulumi/%s: %w: %s", pkg, err, out)
	}
	return filepath.Join(dir, "package"), nil
}

// moduleFile downloads the Go module mod@version into the Go module cache
// (outside the repository) and returns the path of file in it.
func moduleFile(mod, file string) (string, error) {
	dl := exec.Command("go", "mod", "download", "-json", mod)
	dl.Env = append(os.Environ(), "GOFLAGS=-modcacherw")
	out, err := dl.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", mod, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no folder in %s", mod, out)
	}
	return filepath.Join(info.Dir, file), nil
}

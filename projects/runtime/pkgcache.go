package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/runnerhq/runner/engine/source"
)

// packageCache keeps the YAML host's answer to GetRequiredPackages, which
// parses and walks the whole template a second time beside Run (~0.15 s
// of a core for 1,000 resources), keyed by everything that answer depends
// on in pulumi-language-yaml v1.32.0 (pkg/server GetRequiredPackages,
// pulumiyaml.LoadDir, packages.SearchPackageDecls): the host binary (path,
// size, modification time), the program's ProgramInfo (folders, entry
// point, runtime options), and the content of every file it reads:
// Main.json and every *.yaml file under the program's folder. A program
// with the `compiler` option (its template made by a command) is never
// cached; nor is an answer that was an error. An entry carries a sum of
// its key and packages: one edited by hand, or damaged so that it still
// parses, is a miss (the host is asked and the entry written again)
// rather than an answer runner would keep trusting until the program
// changes.
type packageCache struct {
	file string // "": no cache
}

type cachedPackages struct {
	Key      string           `json:"key"`
	Packages []source.Package `json:"packages"`
	Sum      string           `json:"sum"` // entrySum of Key and Packages
}

// entrySum sums an entry's key and packages, as put writes them.
func entrySum(key string, pkgs []source.Package) (string, error) {
	b, err := json.Marshal(pkgs)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(key+"\n"), b...))
	return hex.EncodeToString(sum[:]), nil
}

func (h *host) packageCache() packageCache {
	if h.p.Runtime != "yaml" || h.o.CacheDir == "" {
		return packageCache{}
	}
	if _, ok := h.p.Options["compiler"]; ok {
		return packageCache{}
	}
	sum := sha256.Sum256([]byte(h.prog.Pwd))
	return packageCache{file: filepath.Join(h.o.CacheDir, "yaml", h.p.Name+"-"+hex.EncodeToString(sum[:8]), "packages.json")}
}

// key sums what the host's answer depends on; an error (a file that
// cannot be read) means no caching.
func (h *host) packageKey() (string, error) {
	sum := sha256.New()
	info, err := proto.MarshalOptions{Deterministic: true}.Marshal(h.info())
	if err != nil {
		return "", err
	}
	st, err := os.Stat(h.bin)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(sum, "host %q %d %d\ninfo %d %x\n", h.bin, st.Size(), st.ModTime().UnixNano(), len(info), info)
	dir := h.prog.Pwd
	if err := hashFile(sum, filepath.Join(dir, "Main.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	// As packages.SearchPackageDecls walks: every .yaml file below dir,
	// which holds the template too (Main.yaml, Pulumi.yaml). The walk
	// starts from dir's real path: from a symbolic link it would see
	// nothing below it, while the host reads the template through it.
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || filepath.Ext(p) != ".yaml" {
			return nil
		}
		return hashFile(sum, p)
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// hashFile adds p's name, length and content to sum.
func hashFile(sum io.Writer, p string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	_, err = io.WriteString(sum, "file "+strconv.Quote(p)+" "+strconv.Itoa(len(b))+"\n")
	if err == nil {
		_, err = sum.Write(b)
	}
	return err
}

// get returns the cached answer for key.
func (c packageCache) get(key string) ([]source.Package, bool) {
	if c.file == "" || key == "" {
		return nil, false
	}
	b, err := os.ReadFile(c.file)
	if err != nil {
		return nil, false
	}
	var got cachedPackages
	if json.Unmarshal(b, &got) != nil || got.Key != key {
		return nil, false
	}
	if sum, err := entrySum(got.Key, got.Packages); err != nil || sum != got.Sum {
		return nil, false
	}
	return got.Packages, true
}

// put keeps the answer for key (written to a temporary file, then
// renamed); failing to is only a miss next time.
func (c packageCache) put(key string, pkgs []source.Package) {
	if c.file == "" || key == "" {
		return
	}
	sum, err := entrySum(key, pkgs)
	if err != nil {
		return
	}
	b, err := json.Marshal(cachedPackages{Key: key, Packages: pkgs, Sum: sum})
	if err != nil || os.MkdirAll(filepath.Dir(c.file), 0o755) != nil {
		return
	}
	tmp := c.file + ".tmp" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, b, 0o644) != nil || os.Rename(tmp, c.file) != nil {
		os.Remove(tmp)
	}
}

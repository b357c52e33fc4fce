package resource

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// EnsureHashes returns v with the hash of every asset and archive in it
// computed (relative paths resolve against dir; "" is the current
// directory). Values that already have a hash are kept.
func EnsureHashes(v any, dir string) (any, error) {
	return MapErr(v, func(x any) (any, bool, error) {
		switch y := x.(type) {
		case Asset:
			h, err := y.EnsureHash(dir)
			return h, true, err
		case Archive:
			h, err := y.EnsureHash(dir)
			return h, true, err
		}
		return nil, false, nil
	})
}

// EnsureHash returns the asset with its hash: the SHA-256 (hex) of its
// contents. Relative paths resolve against dir.
func (a Asset) EnsureHash(dir string) (Asset, error) {
	if a.Hash != "" {
		return a, nil
	}
	r, err := a.Open(dir)
	if err != nil {
		return a, err
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return a, fmt.Errorf("hashing %s: %w", a, err)
	}
	a.Hash = hex.EncodeToString(h.Sum(nil))
	return a, nil
}

// Open returns the asset's contents. Relative paths resolve against dir;
// of URIs only file:// ones can be read.
func (a Asset) Open(dir string) (io.ReadCloser, error) {
	switch {
	case a.Path != "":
		f, err := os.Open(resolvePath(dir, a.Path))
		if err != nil {
			return nil, fmt.Errorf("reading the file asset: %w", err)
		}
		return f, nil
	case a.URI != "":
		p, err := filePathOfURI(a.URI)
		if err != nil {
			return nil, err
		}
		return Asset{Path: p}.Open(dir)
	case a.IsElided():
		return nil, fmt.Errorf("the contents of %s are not known here (only its hash)", a)
	}
	return io.NopCloser(strings.NewReader(a.Text)), nil
}

// EnsureHash returns the archive with its hash: the SHA-256 (hex) of its
// tar form (each file, in order, under its slash-separated name with mode
// 0600 and no time stamps). Relative paths resolve against dir.
func (a Archive) EnsureHash(dir string) (Archive, error) {
	if a.Hash != "" {
		return a, nil
	}
	h := sha256.New()
	if err := a.WriteTar(h, dir); err != nil {
		return a, err
	}
	a.Hash = hex.EncodeToString(h.Sum(nil))
	return a, nil
}

// WriteTar writes the archive's files to w as a tar stream: asset archives
// by sorted name (nested archives under their member name), folders in
// lexical order, archive files in their own order.
func (a Archive) WriteTar(w io.Writer, dir string) error {
	tw := tar.NewWriter(w)
	err := a.each(dir, "", func(name string, size int64, r io.Reader) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := io.Copy(tw, r)
		return err
	})
	if err != nil {
		return fmt.Errorf("reading %s: %w", a, err)
	}
	return tw.Close()
}

// entryFunc receives one file of an archive.
type entryFunc func(name string, size int64, r io.Reader) error

// each calls fn for every file of the archive, names prefixed by prefix.
func (a Archive) each(dir, prefix string, fn entryFunc) error {
	switch {
	case a.Path != "":
		return eachInPath(resolvePath(dir, a.Path), prefix, fn)
	case a.URI != "":
		p, err := filePathOfURI(a.URI)
		if err != nil {
			return err
		}
		return eachInPath(resolvePath(dir, p), prefix, fn)
	case a.IsElided():
		return errors.New("only its hash is known here, not its contents")
	}
	names := make([]string, 0, len(a.Assets))
	for k := range a.Assets {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		full := path.Join(prefix, name)
		switch m := a.Assets[name].(type) {
		case Asset:
			if err := eachAsset(m, dir, full, fn); err != nil {
				return err
			}
		case Archive:
			if err := m.each(dir, full, fn); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		default:
			return fmt.Errorf("member %q is %T, not an asset or an archive", name, m)
		}
	}
	return nil
}

// eachAsset passes one asset of an asset archive to fn.
func eachAsset(a Asset, dir, name string, fn entryFunc) error {
	r, err := a.Open(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return fn(name, int64(len(data)), strings.NewReader(string(data)))
}

// eachInPath passes the files of a folder or archive file to fn.
func eachInPath(p, prefix string, fn entryFunc) error {
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	if info.IsDir() {
		return eachInFolder(p, prefix, fn)
	}
	lower := strings.ToLower(p)
	switch {
	case strings.HasSuffix(lower, ".zip"), strings.HasSuffix(lower, ".jar"):
		return eachInZip(p, prefix, fn)
	case strings.HasSuffix(lower, ".tar"), strings.HasSuffix(lower, ".tgz"), strings.HasSuffix(lower, ".tar.gz"):
		return eachInTar(p, prefix, fn)
	}
	return fmt.Errorf("%s is neither a folder nor a .tar, .tgz, .tar.gz or .zip file", p)
}

func eachInFolder(root, prefix string, fn entryFunc) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Stat(p) // follows symbolic links
		if err != nil || info.IsDir() || !info.Mode().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return fn(path.Join(prefix, filepath.ToSlash(rel)), info.Size(), f)
	})
}

func eachInTar(p, prefix string, fn entryFunc) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if !strings.HasSuffix(strings.ToLower(p), ".tar") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		defer gz.Close()
		r = gz
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if h.Typeflag == tar.TypeReg {
			if err := fn(path.Join(prefix, h.Name), h.Size, tr); err != nil {
				return err
			}
		}
	}
}

func eachInZip(p, prefix string, fn entryFunc) error {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", p, f.Name, err)
		}
		err = fn(path.Join(prefix, f.Name), int64(f.UncompressedSize64), rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// resolvePath resolves a relative p against dir.
func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

// filePathOfURI returns the path of a file:// URI; other schemes fail.
func filePathOfURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("the asset URI %q is not valid: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("the asset URI %q cannot be read: only file:// URIs are supported; fetching remote assets is not implemented", uri)
	}
	return filepath.FromSlash(u.Path), nil
}

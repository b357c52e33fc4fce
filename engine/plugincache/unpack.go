package plugincache

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// lock takes the install lock of the cache directory final (an exclusive
// flock on <final>.lock, as the Pulumi CLI takes it), waiting while another
// process or goroutine holds it, until ctx ends. It returns the release.
func lock(ctx context.Context, final string, say func(string, ...any)) (func(), error) {
	path := final + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the plugin lock %s: %w", path, err)
	}
	wait, told := time.Millisecond, false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return func() { f.Close() }, nil // closing releases the lock
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !told {
			say("waiting for another install or removal of %s (it holds %s)", filepath.Base(final), path)
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for the plugin lock %s: %w", path, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// unpack installs the archive into final (the caller holds its lock):
// the .partial marker, the directory, the files, the binary made
// executable, then the marker removed. On failure nothing is left.
func unpack(archive, final, name string, lim Limits) (err error) {
	marker := final + ".partial"
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return fmt.Errorf("writing the install marker %s: %w", marker, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(final)
			os.Remove(marker)
		}
	}()
	if err := os.Mkdir(final, 0o755); err != nil {
		return fmt.Errorf("creating the plugin directory %s: %w", final, err)
	}
	if err := extract(archive, final, lim); err != nil {
		return err
	}
	bin := filepath.Join(final, Binary(name))
	if st, err := os.Lstat(bin); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("the plugin archive has no %s at its root; it is not a Pulumi resource plugin of that name", Binary(name))
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return fmt.Errorf("making %s executable: %w", bin, err)
	}
	if err := os.Remove(marker); err != nil {
		return fmt.Errorf("removing the install marker %s: %w", marker, err)
	}
	return nil
}

// extract unpacks the gzip tar archive into dest. Only directories and
// regular files are accepted; an entry whose path is absolute or climbs
// out with .. is refused (path traversal), and so is an archive over lim
// (each entry's size is checked before it is written, and the bytes
// written are counted).
func extract(archive, dest string, lim Limits) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("the plugin archive is not a gzip file: %w", err)
	}
	tr := tar.NewReader(gz)
	var entries int
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the plugin archive: %w", err)
		}
		if entries++; entries > lim.Entries {
			return &LimitError{What: "the plugin archive", Limit: fmt.Sprintf("%d entries", lim.Entries)}
		}
		if hdr.Size > lim.File {
			return &LimitError{What: fmt.Sprintf("the plugin archive's entry %q (%d bytes)", hdr.Name, hdr.Size), Limit: boundedfile.Size(lim.File) + " for one file"}
		}
		if total += max(hdr.Size, 0); total > lim.Unpacked {
			return &LimitError{What: "the unpacked plugin archive", Limit: boundedfile.Size(lim.Unpacked) + " in all"}
		}
		rel, err := entryPath(hdr.Name)
		if err != nil {
			return err
		}
		if rel == "." {
			continue
		}
		target := filepath.Join(dest, rel)
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeFile(target, io.LimitReader(tr, hdr.Size), hdr.FileInfo().Mode().Perm())
		default:
			return fmt.Errorf("the plugin archive's entry %q is not a file or a directory (type %q); refused", hdr.Name, hdr.Typeflag)
		}
		if err != nil {
			return fmt.Errorf("unpacking %s: %w", hdr.Name, err)
		}
	}
}

// entryPath returns an archive entry's path relative to the destination,
// refusing absolute paths and any .. component.
func entryPath(name string) (string, error) {
	slashed := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(slashed, "/") || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("the plugin archive's entry %q has an absolute path; refused (path traversal)", name)
	}
	for _, part := range strings.Split(slashed, "/") {
		if part == ".." {
			return "", fmt.Errorf("the plugin archive's entry %q climbs out of the plugin directory; refused (path traversal)", name)
		}
	}
	return filepath.Clean(filepath.FromSlash(slashed)), nil
}

// writeFile writes r to a new file at path with mode perm (at least
// readable and writable by its owner).
func writeFile(path string, r io.Reader, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm|0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

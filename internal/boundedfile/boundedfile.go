// Package boundedfile reads the files a user names (and the state files
// runner keeps) with two guarantees: only a regular file is read, so that a
// device such as /dev/zero or a named pipe can neither exhaust memory nor
// hang the run, and no file is read past a limit set for its kind.
//
// The type is checked before the file is opened (a named pipe is never
// opened), and again on the open file, which is opened without blocking so
// that a pipe put in its place in between is refused too.
package boundedfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Kind is a kind of file and the most runner reads of one.
type Kind struct {
	// Name says what the file is, in a sentence: "the kubeconfig".
	Name string
	// Limit is the largest size read, in bytes.
	Limit int64
}

// The kinds of file runner reads, with their limits.
var (
	Environment = Kind{"the environment file", 1 << 20}
	StackConfig = Kind{"the stack config", 16 << 20}
	Kubeconfig  = Kind{"the kubeconfig", 16 << 20}
	Passphrase  = Kind{"the passphrase file", 64 << 10}
	Plan        = Kind{"the plan", 512 << 20}
	State       = Kind{"the state file", 1 << 30}
	AWSShared   = Kind{"the AWS shared file", 16 << 20}
	// Workspace is runner.yaml; Project a user project's Pulumi.yaml.
	Workspace = Kind{"the workspace file", 16 << 20}
	Project   = Kind{"the project file", 16 << 20}
	// Value is a config value piped into `config set`.
	Value = Kind{"the value on the standard input", 16 << 20}
)

// RefusedError is a file that was not read: it is not a regular file, or
// it is larger than its kind's limit.
type RefusedError struct {
	Path string
	Kind Kind
	// Mode is the file's type when it is not a regular file (0 otherwise).
	Mode fs.FileMode
	// TooLarge is set when the file is over the limit.
	TooLarge bool
}

func (e *RefusedError) Error() string {
	what := e.Kind.Name
	if e.Path != "" {
		what += " " + e.Path
	}
	if e.TooLarge {
		return fmt.Sprintf("reading %s: it is larger than %s, the most runner reads of %s; name a smaller file",
			what, Size(e.Kind.Limit), e.Kind.Name)
	}
	return fmt.Sprintf("reading %s: it is %s, not a regular file; name a regular file", what, describe(e.Mode))
}

// IsRefused reports whether err holds a *RefusedError.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}

// describe names a file type in words.
func describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeDir != 0:
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link to a file that does not exist"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// Size writes a limit in binary units: "16 MiB".
func Size(n int64) string {
	for _, u := range []struct {
		unit  string
		shift uint
	}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens the regular file at path for reading, checked as the package
// documentation says. Errors of the file system (a missing file) come back
// as os.Open gives them, so that errors.Is(err, fs.ErrNotExist) holds. The
// caller reads at most kind.Limit bytes of it (Read does).
func Open(path string, kind Kind) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, kind, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err = f.Stat()
	if err == nil {
		err = check(path, kind, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func check(path string, kind Kind, st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return &RefusedError{Path: path, Kind: kind, Mode: st.Mode().Type()}
	}
	if st.Size() > kind.Limit {
		return &RefusedError{Path: path, Kind: kind, TooLarge: true}
	}
	return nil
}

// chunk is how much Read reads between checks of its context.
const chunk = 1 << 20

// Read returns the content of the regular file at path, at most
// kind.Limit bytes: a longer file (one that grew since it was checked, or
// a file of /proc that reports no size) is refused. It stops with ctx's
// error when ctx ends.
func Read(ctx context.Context, path string, kind Kind) ([]byte, error) {
	f, err := Open(path, kind)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	return readAll(ctx, f, path, kind, size)
}

// ReadFile is Read without a context, for files read where no operation
// runs yet (a regular file under the limit is read at once).
func ReadFile(path string, kind Kind) ([]byte, error) {
	return Read(context.Background(), path, kind)
}

// ReadAll reads r (the file at path, opened by Open) to its end, refusing
// more than kind.Limit bytes, and stops with ctx's error when ctx ends.
func ReadAll(ctx context.Context, r io.Reader, path string, kind Kind) ([]byte, error) {
	return readAll(ctx, r, path, kind, 0)
}

// readAll is ReadAll with room made first for size bytes (the size the
// file reports), so that a file is read into one buffer.
func readAll(ctx context.Context, r io.Reader, path string, kind Kind, size int64) ([]byte, error) {
	data := make([]byte, 0, min(size, kind.Limit)+512)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		room := min(cap(data)-len(data), chunk)
		n, err := r.Read(data[len(data) : len(data)+room])
		data = data[:len(data)+n]
		if int64(len(data)) > kind.Limit {
			return nil, &RefusedError{Path: path, Kind: kind, TooLarge: true}
		}
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s %s: %w", kind.Name, path, err)
		}
	}
}

package backend

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
)

// Identifier is a Store that names the storage it keeps state in, the
// same however its URL spells it: two URLs of one folder, bucket prefix
// or database schema give one identity, so that a stack is never copied
// onto itself (`runner stack migrate`).
type Identifier interface {
	// Identity names the storage; "" when it cannot tell.
	Identity(ctx context.Context) (string, error)
}

// SameStorage reports whether a and b keep their state in one storage,
// and its identity; stores that cannot tell are different.
func SameStorage(ctx context.Context, a, b Store) (bool, string, error) {
	ia, ok := a.(Identifier)
	ib, ok2 := b.(Identifier)
	if !ok || !ok2 {
		return false, "", nil
	}
	x, err := ia.Identity(ctx)
	if err != nil {
		return false, "", err
	}
	y, err := ib.Identity(ctx)
	if err != nil {
		return false, "", err
	}
	return x != "" && x == y, x, nil
}

var _ Identifier = (*Folder)(nil)

// Identity is the folder's absolute path with its symbolic links
// resolved (as far as it exists).
func (f *Folder) Identity(context.Context) (string, error) {
	p, err := resolvePath(f.Root)
	if err != nil {
		return "", err
	}
	return "file://" + p, nil
}

// resolvePath returns the absolute form of path with every symbolic link
// of its longest existing ancestor resolved.
func resolvePath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || dir == filepath.Dir(dir) {
			return "", err
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

package backend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// StateDigest returns a digest of what is stored for (project, stack): the
// snapshot file and the journal of an operation that did not commit, byte
// for byte. It is "" when the project was never deployed on the stack. Two
// equal digests mean the same stored state; any write changes it.
func (f *Folder) StateDigest(ctx context.Context, project, stack string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, err := f.paths(project, stack)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	found := false
	for _, name := range []string{p.snapshot, p.journal} {
		n, err := hashFile(h, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return "", fmt.Errorf("reading %s to tell whether the state changed: %w", name, err)
		default:
			found = true
		}
		// Each part ends with its length, so that bytes cannot move from one
		// file to the other unnoticed.
		fmt.Fprintf(h, "\n%d\n", n)
	}
	if !found {
		return "", nil
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile writes the bytes of the file name to h and returns how many.
func hashFile(h io.Writer, name string) (int64, error) {
	f, err := boundedfile.Open(name, boundedfile.State)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := io.Copy(h, io.LimitReader(f, boundedfile.State.Limit+1))
	if err == nil && n > boundedfile.State.Limit {
		err = &boundedfile.RefusedError{Path: name, Kind: boundedfile.State, TooLarge: true}
	}
	return n, err
}

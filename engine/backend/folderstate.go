package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/internal/boundedfile"
)

// The folder keeps a checkpoint as <stack>.json, or as <stack>.json.gz or
// <stack>.json.zst where the Pulumi CLI wrote it so
// (PULUMI_DIY_BACKEND_GZIP, PULUMI_DIY_BACKEND_ZSTD): it is read in any of
// them, the newest when several are there (as Pulumi reads them), and
// written back in the form it has.

const (
	gzipExt = GzipExt
	zstdExt = ZstdExt
)

// checkpointPath is the file of the (project, stack) checkpoint.
func (f *Folder) checkpointPath(project, stack string) string {
	plain := f.key(DIYCheckpointKey(project, stack))
	best, bestTime := plain, int64(-1)
	for _, path := range []string{plain, plain + gzipExt, plain + zstdExt} {
		if st, err := os.Stat(path); err == nil && st.ModTime().UnixNano() > bestTime {
			best, bestTime = path, st.ModTime().UnixNano()
		}
	}
	return best
}

// readCheckpointFile reads the checkpoint at path: the file's bytes (raw,
// nil when there is none, hashed to name the snapshot) and the checkpoint
// JSON (plain, decompressed).
func readCheckpointFile(path string) (raw, plain []byte, err error) {
	raw, err = readOptional(path)
	if err != nil || raw == nil {
		return nil, nil, err
	}
	plain, err = decompress(path, raw)
	return raw, plain, err
}

// decompress returns the checkpoint JSON in raw, the bytes of the file path.
func decompress(path string, raw []byte) ([]byte, error) {
	plain, err := Decompress(filepath.Ext(path), raw)
	if errors.Is(err, ErrUncompressedTooLarge) {
		err = &boundedfile.RefusedError{Path: path, Kind: boundedfile.State, TooLarge: true}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the state file %s: %w", path, err)
	}
	return plain, nil
}

// compress renders the checkpoint JSON plain in the form of the file path.
func compress(path string, plain []byte) ([]byte, error) {
	return Compress(filepath.Ext(path), plain)
}

// encodeSnapshot renders snap as the file bytes of p's checkpoint.
func encodeSnapshot(ctx context.Context, p paths, snap *state.Snapshot, c resource.Crypter) ([]byte, error) {
	plain, err := state.MarshalCheckpoint(ctx, baseOrEmpty(snap), p.project, p.stack, c)
	if err != nil {
		return nil, fmt.Errorf("saving the state of project %s on stack %s: %w", p.project, p.stack, err)
	}
	data, err := compress(p.snapshot, plain)
	if err != nil {
		return nil, fmt.Errorf("saving the state of project %s on stack %s: %w", p.project, p.stack, err)
	}
	return data, nil
}

// exportFile returns p's checkpoint as an export (a Pulumi deployment, as
// `pulumi stack export` prints it), nil when there is none.
func exportFile(p paths) ([]byte, error) {
	_, plain, err := readCheckpointFile(p.snapshot)
	if err != nil || plain == nil {
		return nil, err
	}
	return FromCheckpoint(p.snapshot, plain)
}

// importFile renders an export as the file bytes of p's checkpoint.
func importFile(p paths, export []byte) ([]byte, error) {
	plain, err := ToCheckpoint(p.project, p.stack, export)
	if err != nil {
		return nil, err
	}
	return compress(p.snapshot, plain)
}

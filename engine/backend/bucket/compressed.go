package bucket

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/internal/boundedfile"
)

// gzipExt and zstdExt end the keys of checkpoints the Pulumi CLI wrote
// compressed (PULUMI_DIY_BACKEND_GZIP, PULUMI_DIY_BACKEND_ZSTD).
const (
	gzipExt = backend.GzipExt
	zstdExt = backend.ZstdExt
)

// readCompressed reads the (project, stack) checkpoint when there is no
// plain one: one LIST finds its compressed forms, and the newest of them
// (as Pulumi picks) is read, with the extension of its form; nil when
// there is none.
func (s *Store) readCompressed(ctx context.Context, project, stack string) (*Object, string, error) {
	key := checkpointKey(project, stack)
	list, err := s.obj.List(ctx, key)
	if err != nil {
		return nil, "", err
	}
	var found *ObjectInfo
	ext := ""
	for i, l := range list {
		for _, e := range []string{gzipExt, zstdExt} {
			if l.Key == key+e && (found == nil || l.Modified.After(found.Modified)) {
				found, ext = &list[i], e
			}
		}
	}
	if found == nil {
		return nil, "", nil
	}
	o, err := s.obj.Get(ctx, found.Key)
	if errors.Is(err, ErrNotExist) {
		return nil, "", nil
	}
	return o, ext, err
}

// decompress returns the checkpoint JSON of a checkpoint stored in the
// form ext, bounded as a state file is.
func decompress(ext string, data []byte) ([]byte, error) {
	plain, err := backend.Decompress(ext, data)
	if errors.Is(err, backend.ErrUncompressedTooLarge) {
		err = fmt.Errorf("it is over %d bytes uncompressed", boundedfile.State.Limit)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the %s checkpoint: %w", ext, err)
	}
	return plain, nil
}

// setForm records the form (a compression's extension, "" for plain) the
// (project, stack) checkpoint was read in.
func (s *Store) setForm(project, stack, ext string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.form[seenKey(project, stack)] = ext
}

// formOf returns the form the (project, stack) checkpoint was read in.
func (s *Store) formOf(project, stack string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.form[seenKey(project, stack)]
}

// storedForm returns the key and bytes that store the checkpoint JSON data
// of (project, stack) in the form it was read in (plain, gzip or zstd),
// and that form's extension.
func (s *Store) storedForm(project, stack string, data []byte) (key string, stored []byte, ext string, err error) {
	s.mu.Lock()
	ext = s.form[seenKey(project, stack)]
	s.mu.Unlock()
	stored, err = backend.Compress(ext, data)
	if err != nil {
		return "", nil, "", fmt.Errorf("saving the state of project %s on stack %s: %w", project, stack, err)
	}
	return checkpointKey(project, stack) + ext, stored, ext, nil
}

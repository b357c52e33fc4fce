package bucket

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
// plain one: one LIST finds its compressed forms; a gzipped one is read
// (gz set), a zstd one refused saying what to do; nil when there is none.
func (s *Store) readCompressed(ctx context.Context, project, stack string) (*Object, bool, error) {
	key := checkpointKey(project, stack)
	list, err := s.obj.List(ctx, key)
	if err != nil {
		return nil, false, err
	}
	for _, l := range list {
		switch l.Key {
		case key + zstdExt:
			return nil, false, fmt.Errorf("%s/%s %s", s.obj.Describe(), l.Key, strings.TrimPrefix(backend.ZstdAdvice, "it "))
		case key + gzipExt:
			o, err := s.obj.Get(ctx, l.Key)
			if errors.Is(err, ErrNotExist) {
				return nil, false, nil
			}
			return o, err == nil, err
		}
	}
	return nil, false, nil
}

// gunzip decompresses a gzipped checkpoint, bounded as a state file is.
func gunzip(data []byte) ([]byte, error) {
	plain, err := backend.Gunzip(data)
	if errors.Is(err, backend.ErrUncompressedTooLarge) {
		err = fmt.Errorf("it is over %d bytes uncompressed", boundedfile.State.Limit)
	}
	if err != nil {
		return nil, fmt.Errorf("decompressing the gzipped checkpoint: %w", err)
	}
	return plain, nil
}

func (s *Store) setGzipped(project, stack string, gz bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gz[seenKey(project, stack)] = gz
}

// storedForm returns the key and bytes that store the checkpoint JSON data
// of (project, stack) in the form it was read in (gzipped or plain).
func (s *Store) storedForm(project, stack string, data []byte) (string, []byte, error) {
	s.mu.Lock()
	gz := s.gz[seenKey(project, stack)]
	s.mu.Unlock()
	if !gz {
		return checkpointKey(project, stack), data, nil
	}
	stored, err := backend.Gzip(data)
	if err != nil {
		return "", nil, fmt.Errorf("saving the state of project %s on stack %s: %w", project, stack, err)
	}
	return checkpointKey(project, stack) + gzipExt, stored, nil
}

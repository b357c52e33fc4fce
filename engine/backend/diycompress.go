package backend

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// GzipExt and ZstdExt end the names of checkpoints the Pulumi CLI wrote
// compressed (PULUMI_DIY_BACKEND_GZIP=true, PULUMI_DIY_BACKEND_ZSTD=true:
// <stack>.json.gz, <stack>.json.zst). runner reads both and writes a
// checkpoint back in the form it found.
const (
	GzipExt = ".gz"
	ZstdExt = ".zst"
)

// ErrUncompressedTooLarge is Decompress's answer for a checkpoint whose
// plain form is over the state file limit.
var ErrUncompressedTooLarge = errors.New("the uncompressed checkpoint is over the state file limit")

// Decompress returns the checkpoint JSON of data, the bytes of a file
// whose name ends in ext (GzipExt, ZstdExt; anything else is plain),
// bounded as a state file is (ErrUncompressedTooLarge).
func Decompress(ext string, data []byte) ([]byte, error) {
	return decompressBounded(ext, data, boundedfile.State.Limit)
}

// decompressBounded is Decompress with a limit of the plain form.
func decompressBounded(ext string, data []byte, limit int64) ([]byte, error) {
	var r io.Reader
	switch ext {
	case GzipExt:
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decompressing the gzipped checkpoint: %w", err)
		}
		r = zr
	case ZstdExt:
		// The window is bounded too, so that a hostile frame cannot make
		// the decoder allocate more than a state file's size.
		zr, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(limit)+1), zstd.WithDecoderMaxWindow(uint64(max(limit, zstd.MinWindowSize))))
		if err != nil {
			return nil, fmt.Errorf("decompressing the zstd checkpoint: %w", err)
		}
		defer zr.Close()
		r = zr
	default:
		return data, nil
	}
	plain, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(plain)) > limit || errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
		return nil, ErrUncompressedTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("decompressing the checkpoint: %w", err)
	}
	return plain, nil
}

// Compress renders the checkpoint JSON plain in the form of a file whose
// name ends in ext (GzipExt, ZstdExt; anything else: plain).
func Compress(ext string, plain []byte) ([]byte, error) {
	var b bytes.Buffer
	var w io.WriteCloser
	switch ext {
	case GzipExt:
		w = gzip.NewWriter(&b)
	case ZstdExt:
		zw, err := zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		w = zw
	default:
		return plain, nil
	}
	if _, err := w.Write(plain); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

package backend

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// GzipExt and ZstdExt end the names of checkpoints the Pulumi CLI wrote
// compressed (PULUMI_DIY_BACKEND_GZIP, PULUMI_DIY_BACKEND_ZSTD).
const (
	GzipExt = ".gz"
	ZstdExt = ".zst"
)

// ZstdAdvice says why a zstd checkpoint is refused and what to do.
const ZstdAdvice = "it is compressed with zstd (PULUMI_DIY_BACKEND_ZSTD), which runner does not read; " +
	"have the Pulumi CLI write it plain or with gzip (unset PULUMI_DIY_BACKEND_ZSTD, or set PULUMI_DIY_BACKEND_GZIP=true, then `pulumi stack export | pulumi stack import`)"

// ErrUncompressedTooLarge is Gunzip's answer for a checkpoint whose plain
// form is over the state file limit.
var ErrUncompressedTooLarge = errors.New("the uncompressed checkpoint is over the state file limit")

// Gunzip decompresses a gzipped checkpoint, bounded as a state file is.
func Gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	plain, err := io.ReadAll(io.LimitReader(zr, boundedfile.State.Limit+1))
	if err == nil && int64(len(plain)) > boundedfile.State.Limit {
		err = ErrUncompressedTooLarge
	}
	if err != nil {
		return nil, err
	}
	return plain, nil
}

// Gzip compresses a checkpoint's JSON as the Pulumi CLI's gzip form.
func Gzip(plain []byte) ([]byte, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(plain); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

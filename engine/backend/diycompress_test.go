package backend

import (
	"bytes"
	"errors"
	"testing"
)

// TestCompressedCheckpointsRoundTripBounded: each of Pulumi's checkpoint
// forms reads back what was written, and a plain form over the limit is
// refused (ErrUncompressedTooLarge), not read whole.
func TestCompressedCheckpointsRoundTripBounded(t *testing.T) {
	plain := []byte(`{"version":3,"checkpoint":{"stack":"organization/app/dev"}}`)
	big := bytes.Repeat([]byte(" "), 4096)
	for _, ext := range []string{"", GzipExt, ZstdExt} {
		stored, err := Compress(ext, plain)
		if err != nil {
			t.Fatalf("Compress(%q): %v", ext, err)
		}
		if got, err := Decompress(ext, stored); err != nil || !bytes.Equal(got, plain) {
			t.Errorf("Decompress(%q) of what Compress wrote = %q, %v", ext, got, err)
		}
		if ext == "" {
			continue
		}
		huge, _ := Compress(ext, big)
		if _, err := decompressBounded(ext, huge, 1000); !errors.Is(err, ErrUncompressedTooLarge) {
			t.Errorf("decompressBounded(%q) of 4096 bytes with a limit of 1000 = %v, want ErrUncompressedTooLarge", ext, err)
		}
		if _, err := Decompress(ext, stored[:len(stored)/2]); err == nil {
			t.Errorf("Decompress(%q) of a truncated checkpoint succeeded", ext)
		}
	}
}

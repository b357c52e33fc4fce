package state

import (
	"context"

	"github.com/runnerhq/runner/engine/resource"
)

// MarshalProperties encodes a property map as the state does: secrets as
// Pulumi's secret object with ciphertext from c, resource.Computed as
// Pulumi's unknown sentinel. An empty map encodes as nil.
func MarshalProperties(ctx context.Context, m resource.PropertyMap, c resource.Crypter) (map[string]any, error) {
	return valueCodec{crypter: c}.encodeMap(ctx, m)
}

// UnmarshalProperties decodes what MarshalProperties wrote, decrypting its
// secrets with c; nil gives an empty map.
func UnmarshalProperties(ctx context.Context, m map[string]any, c resource.Crypter) (resource.PropertyMap, error) {
	return valueCodec{crypter: c}.decodeMap(ctx, m)
}

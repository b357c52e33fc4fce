package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// Pulumi's signature key and values for special property values.
const (
	// SigKey is the key that marks a JSON object as a special property value.
	SigKey = "4dabf18193072939515e22adb298388d"
	// SecretSig marks a secret property value.
	SecretSig = "1b47061264138c4ac30d75fd1eb44270"
)

// ErrNoCrypter is returned when a secret must be encrypted or decrypted and
// no crypter was given.
var ErrNoCrypter = errors.New("the state holds secrets and no crypter was given to encrypt or decrypt them")

// valueCodec turns property values into their JSON form and back.
// With opaque set, secrets are not decrypted: they decode as a Secret with a
// nil element (for inspection without the passphrase).
type valueCodec struct {
	crypter resource.Crypter
	opaque  bool
}

// encodeMap encodes every value of m; nil and empty maps encode as nil.
func (c valueCodec) encodeMap(ctx context.Context, m resource.PropertyMap) (map[string]any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	return eachProperty(m, func(v any) (any, error) { return c.encode(ctx, v) })
}

// eachProperty returns the map of fn applied to every property of m; an
// error names the property.
func eachProperty(m map[string]any, fn func(any) (any, error)) (map[string]any, error) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		e, err := fn(v)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		out[k] = e
	}
	return out, nil
}

// encode returns the JSON form of one property value.
func (c valueCodec) encode(ctx context.Context, v any) (any, error) {
	return resource.MapErr(v, func(x any) (any, bool, error) { return c.encodeOne(ctx, x) })
}

// encodeOne is the resource.MapErr function of encode.
func (c valueCodec) encodeOne(ctx context.Context, v any) (any, bool, error) {
	switch x := v.(type) {
	case nil, bool, float64, string:
		return x, true, nil
	case resource.Computed:
		return resource.UnknownStringValue, true, nil
	case resource.Secret:
		enc, err := c.encodeSecret(ctx, x)
		return enc, true, err
	case resource.PropertyMap:
		enc, err := c.encodeMap(ctx, x)
		return enc, true, err
	case resource.Asset:
		return EncodeAsset(x), true, nil
	case resource.Archive:
		return EncodeArchive(x), true, nil
	case resource.ResourceReference:
		return EncodeResourceReference(x), true, nil
	case map[string]any, []any:
		return nil, false, nil
	}
	n, err := resource.Normalize(v)
	if err != nil {
		return nil, true, err
	}
	enc, err := c.encode(ctx, n)
	return enc, true, err
}

// encodeSecret encrypts the JSON encoding of the secret's element.
func (c valueCodec) encodeSecret(ctx context.Context, s resource.Secret) (any, error) {
	if c.crypter == nil {
		return nil, ErrNoCrypter
	}
	inner, err := c.encode(ctx, s.Element)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(inner)
	if err != nil {
		return nil, fmt.Errorf("encoding a secret value: %w", err)
	}
	ct, err := c.crypter.EncryptValue(ctx, string(plain))
	if err != nil {
		return nil, fmt.Errorf("encrypting a secret value: %w", err)
	}
	return map[string]any{SigKey: SecretSig, "ciphertext": ct}, nil
}

// decodeMap decodes a JSON object of property values; nil gives an empty map.
func (c valueCodec) decodeMap(ctx context.Context, m map[string]any) (resource.PropertyMap, error) {
	return eachProperty(m, func(v any) (any, error) { return c.decode(ctx, v) })
}

// decode turns one JSON property value back into its in-memory form.
func (c valueCodec) decode(ctx context.Context, v any) (any, error) {
	return resource.MapErr(v, func(x any) (any, bool, error) { return c.decodeOne(ctx, x) })
}

// decodeOne is the resource.MapErr function of decode.
func (c valueCodec) decodeOne(ctx context.Context, v any) (any, bool, error) {
	switch x := v.(type) {
	case string:
		if x == resource.UnknownStringValue {
			return resource.Computed{}, true, nil
		}
		return x, true, nil
	case map[string]any:
		sig, ok := x[SigKey]
		switch {
		case !ok:
			return nil, false, nil
		case sig == SecretSig:
			d, err := c.decodeSecret(ctx, x)
			return d, true, err
		}
		if d, ok, err := DecodeSpecial(sig, x); ok {
			return d, true, err
		}
		return x, true, nil // other special objects (such as integers): kept as they are
	case []any:
		return nil, false, nil
	}
	return v, true, nil
}

// decodeSecret decrypts a secret object (or reads its plaintext form).
func (c valueCodec) decodeSecret(ctx context.Context, obj map[string]any) (any, error) {
	if c.opaque {
		return resource.Secret{}, nil
	}
	var plain string
	if ct, ok := obj["ciphertext"].(string); ok {
		if c.crypter == nil {
			return nil, ErrNoCrypter
		}
		p, err := c.crypter.DecryptValue(ctx, ct)
		if err != nil {
			return nil, fmt.Errorf("decrypting a secret value (is the passphrase right?): %w", err)
		}
		plain = p
	} else if p, ok := obj["plaintext"].(string); ok {
		plain = p
	} else {
		return nil, errors.New("a secret value has neither ciphertext nor plaintext")
	}
	var inner any
	if err := json.Unmarshal([]byte(plain), &inner); err != nil {
		return nil, errors.New("a decrypted secret value is not JSON") // the parser's message could quote the plaintext
	}
	elem, err := c.decode(ctx, inner)
	if err != nil {
		return nil, err
	}
	return resource.Secret{Element: elem}, nil
}

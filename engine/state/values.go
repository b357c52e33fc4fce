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
	out := make(map[string]any, len(m))
	for k, v := range m {
		e, err := c.encode(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		out[k] = e
	}
	return out, nil
}

// encode returns the JSON form of one property value.
func (c valueCodec) encode(ctx context.Context, v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, float64, string:
		return x, nil
	case resource.Computed:
		return resource.UnknownStringValue, nil
	case resource.Secret:
		return c.encodeSecret(ctx, x)
	case resource.PropertyMap:
		return c.encodeMap(ctx, x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			enc, err := c.encode(ctx, e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = enc
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			enc, err := c.encode(ctx, e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = enc
		}
		return out, nil
	}
	n, err := resource.Normalize(v)
	if err != nil {
		return nil, err
	}
	return c.encode(ctx, n)
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
	out := make(resource.PropertyMap, len(m))
	for k, v := range m {
		d, err := c.decode(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		out[k] = d
	}
	return out, nil
}

// decode turns one JSON property value back into its in-memory form.
func (c valueCodec) decode(ctx context.Context, v any) (any, error) {
	switch x := v.(type) {
	case string:
		if x == resource.UnknownStringValue {
			return resource.Computed{}, nil
		}
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			d, err := c.decode(ctx, e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = d
		}
		return out, nil
	case map[string]any:
		if sig, ok := x[SigKey]; ok {
			if sig == SecretSig {
				return c.decodeSecret(ctx, x)
			}
			return x, nil // assets, archives, resource references: kept as they are
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			d, err := c.decode(ctx, e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = d
		}
		return out, nil
	}
	return v, nil
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

package state

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// SealPlaintextSecrets returns data, a deployment export, with every secret
// in Pulumi's plaintext form ({"<sig>": "<secret sig>", "plaintext": "<json>"},
// what `stack export --show-secrets` writes) replaced by its ciphertext
// form, encrypted with c, and the deployment's secrets_providers set to sp
// (when sp is not nil), as `pulumi stack import` re-encrypts an export with
// the stack's secrets manager. Secrets already in ciphertext form are kept
// as they are. It returns how many secrets it encrypted; when none, data is
// returned unchanged. Errors never quote a secret.
func SealPlaintextSecrets(ctx context.Context, data []byte, c resource.Crypter, sp *SecretsProvider) ([]byte, int, error) {
	return seal(ctx, data, sealer{ctx: ctx, crypter: c}, sp)
}

// ResealSecrets returns data, a deployment export whose secrets were
// encrypted with another salt of the passphrase (from: a Pulumi CLI stack
// whose own stack config has an encryptionsalt of its own), with every
// ciphertext decrypted with from and encrypted again with to, plaintext
// secrets encrypted with to, and the deployment's secrets_providers set to
// sp. It returns how many secrets it encrypted. Errors never quote a
// secret.
func ResealSecrets(ctx context.Context, data []byte, from, to resource.Crypter, sp *SecretsProvider) ([]byte, int, error) {
	if sp == nil {
		return nil, 0, errors.New("resealing secrets needs the secrets provider of the new crypter")
	}
	return seal(ctx, data, sealer{ctx: ctx, crypter: to, from: from}, sp)
}

func seal(ctx context.Context, data []byte, s sealer, sp *SecretsProvider) ([]byte, int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // keep every number exactly as written
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, 0, fmt.Errorf("the deployment is not JSON: %w", err)
	}
	sealed, err := s.walk(doc, "")
	if err != nil {
		return nil, 0, err
	}
	if s.count == 0 && s.from == nil {
		return data, 0, nil
	}
	if sp != nil {
		if err := setSecretsProvider(sealed, sp); err != nil {
			return nil, 0, err
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sealed); err != nil { // Encode ends the document with a newline
		return nil, 0, fmt.Errorf("encoding the deployment: %w", err)
	}
	return out.Bytes(), s.count, nil
}

// sealer encrypts the plaintext secrets it meets and counts them.
type sealer struct {
	ctx     context.Context
	crypter resource.Crypter
	from    resource.Crypter // when set, ciphertexts are decrypted with it and encrypted again
	count   int
}

// walk returns v with every plaintext secret object encrypted; where is the
// JSON path so far, for errors.
func (s *sealer) walk(v any, where string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if x[SigKey] == SecretSig {
			return s.seal(x, where)
		}
		for k, e := range x {
			r, err := s.walk(e, where+"."+k)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
	case []any:
		for i, e := range x {
			r, err := s.walk(e, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
	}
	return v, nil
}

// seal encrypts one secret object's plaintext; a ciphertext is kept, or
// with from, decrypted with it and encrypted again.
func (s *sealer) seal(obj map[string]any, where string) (any, error) {
	raw, ok := obj["plaintext"]
	if ct, has := obj["ciphertext"]; has {
		if s.from == nil {
			return obj, nil
		}
		str, isString := ct.(string)
		if !isString {
			return nil, fmt.Errorf("the ciphertext of the secret at %s is not a string", where)
		}
		pt, err := s.from.DecryptValue(s.ctx, str)
		if err != nil {
			return nil, fmt.Errorf("decrypting the secret at %s: %w", where, err)
		}
		raw, ok = pt, true
	}
	if !ok {
		return nil, fmt.Errorf("the secret at %s has neither ciphertext nor plaintext", where)
	}
	plain, ok := raw.(string)
	if !ok {
		return nil, fmt.Errorf("the plaintext of the secret at %s is not a string (Pulumi writes the value's JSON encoding as a string)", where)
	}
	if !json.Valid([]byte(plain)) {
		return nil, fmt.Errorf("the plaintext of the secret at %s is not the JSON encoding of a value", where)
	}
	if s.crypter == nil {
		return nil, ErrNoCrypter
	}
	ct, err := s.crypter.EncryptValue(s.ctx, plain)
	if err != nil {
		return nil, fmt.Errorf("encrypting the secret at %s: %w", where, err)
	}
	s.count++
	return map[string]any{SigKey: SecretSig, "ciphertext": ct}, nil
}

// setSecretsProvider records sp as the deployment's secrets provider.
func setSecretsProvider(doc any, sp *SecretsProvider) error {
	top, _ := doc.(map[string]any)
	d, _ := top["deployment"].(map[string]any)
	if d == nil {
		return errors.New(`the export has no "deployment" object`)
	}
	p := map[string]any{"type": sp.Type}
	if len(sp.State) > 0 {
		p["state"] = sp.State
	}
	d["secrets_providers"] = p
	return nil
}

// Package statetest provides helpers for testing code that stores state: a
// deterministic-key AES-GCM crypter, the location of Pulumi's published
// schemas (the repository's copies and the shared ones), and sample
// snapshots.
package statetest

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/state"
	"github.com/runnerhq/runner/internal/testenv"
)

// Crypter is an AES-256-GCM resource.Crypter with a fixed key, producing
// ciphertexts shaped like Pulumi's ("v1:<b64 nonce>:<b64 ciphertext>"). It
// counts its calls.
type Crypter struct {
	aead      cipher.AEAD
	Encrypted atomic.Int64
	Decrypted atomic.Int64
}

// NewCrypter returns a Crypter whose key is derived from seed (any byte
// repeated to 32 bytes); two crypters with the same seed read each other's
// ciphertexts.
func NewCrypter(seed byte) *Crypter {
	key := make([]byte, 32)
	for i := range key {
		key[i] = seed + byte(i)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return &Crypter{aead: aead}
}

// EncryptValue encrypts plaintext with a random nonce.
func (c *Crypter) EncryptValue(_ context.Context, plaintext string) (string, error) {
	c.Encrypted.Add(1)
	nonce := make([]byte, c.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	ct := c.aead.Seal(nil, nonce, []byte(plaintext), nil)
	return "v1:" + base64.StdEncoding.EncodeToString(nonce) + ":" + base64.StdEncoding.EncodeToString(ct), nil
}

// DecryptValue decrypts what EncryptValue produced.
func (c *Crypter) DecryptValue(_ context.Context, ciphertext string) (string, error) {
	c.Decrypted.Add(1)
	parts := strings.Split(ciphertext, ":")
	if len(parts) != 3 || parts[0] != "v1" {
		return "", errors.New("the ciphertext is not of the form v1:<nonce>:<ciphertext>")
	}
	nonce, err := base64.StdEncoding.DecodeString(parts[1])
	if err != nil {
		return "", fmt.Errorf("decoding the nonce: %w", err)
	}
	ct, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil {
		return "", fmt.Errorf("decoding the ciphertext: %w", err)
	}
	pt, err := c.aead.Open(nil, nonce, ct, nil)
	if err != nil {
		return "", errors.New("the ciphertext does not decrypt with this key")
	}
	return string(pt), nil
}

// SchemaDir returns the folder of the repository's copies of Pulumi's
// published schemas (engine/state/schema, the files the state package
// embeds), which every clone has.
func SchemaDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(testenv.ModuleRoot(t), "engine", "state", "schema")
}

// SharedSchemaDir returns the folder of the shared reference copies of
// Pulumi's schemas (<module root>/../shared/pulumi-schemas), for checking
// that the repository's copies have not drifted from them. Without it the
// test skips, or fails under CI (testenv.Unavailable).
func SharedSchemaDir(t testing.TB) string {
	t.Helper()
	return testenv.Shared(t, "pulumi-schemas")
}

// URN returns the URN of a resource of typ named name in project and stack.
func URN(project, stack, typ, name string) resource.URN {
	return resource.NewURN(stack, project, "", typ, name)
}

// Snapshot returns a snapshot of project and stack with a root stack
// resource, a provider and n custom resources of type "test:index:Thing"
// named r00000, r00001, ... Each depends on the one before it; each has a
// secret input and a nested output structure.
func Snapshot(project, stack string, n int) *state.Snapshot {
	now := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	root := &state.Resource{
		URN: URN(project, stack, resource.RootStackType, project+"-"+stack), Type: resource.RootStackType,
		Outputs: resource.PropertyMap{"endpoint": "https://example.test", "token": resource.Secret{Element: "s3cr3t"}},
	}
	prov := &state.Resource{
		URN: URN(project, stack, "pulumi:providers:test", "default"), Custom: true, ID: "prov-id",
		Type: "pulumi:providers:test", Parent: root.URN, Inputs: resource.PropertyMap{}, Outputs: resource.PropertyMap{},
	}
	snap := &state.Snapshot{
		Manifest:        state.Manifest{Time: now, Version: "v0.1.0"},
		SecretsProvider: &state.SecretsProvider{Type: "passphrase", State: []byte(`{"salt":"v1:AAAAAAAAAAA=:v1:AAAAAAAAAAAAAAAA:AAAA"}`)},
		Resources:       []*state.Resource{root, prov},
	}
	var prev resource.URN
	for i := 0; i < n; i++ {
		r := Thing(project, stack, i, now)
		r.Parent, r.Provider = root.URN, string(prov.URN)+"::prov-id"
		if prev != "" {
			r.Dependencies = []resource.URN{prev}
			r.PropertyDependencies = map[string][]resource.URN{"after": {prev}}
		}
		snap.Resources = append(snap.Resources, r)
		prev = r.URN
	}
	return snap
}

// Thing returns the i-th custom resource of Snapshot, without references.
func Thing(project, stack string, i int, now time.Time) *state.Resource {
	name := fmt.Sprintf("r%05d", i)
	return &state.Resource{
		URN: URN(project, stack, "test:index:Thing", name), Custom: true, ID: "id-" + name, Type: "test:index:Thing",
		Inputs: resource.PropertyMap{
			"name": name, "size": float64(i % 100), "enabled": true,
			"password": resource.Secret{Element: "pw-" + name},
			"tags":     map[string]any{"env": stack, "list": []any{"a", float64(1.5), nil}},
		},
		Outputs: resource.PropertyMap{
			"name": name, "size": float64(i % 100), "arn": "arn:test:" + name,
			"password": resource.Secret{Element: "pw-" + name},
		},
		Created: &now, Modified: &now,
	}
}

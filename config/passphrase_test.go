package config

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// pulumiVector is from Pulumi's own tests: valid for "password".
const pulumiVector = "v1:fozI5u6B030=:v1:F+6ZduKKd8G0/V7L:PGMFeIzwobWRKmEAzUdaQHqC5mMRIQ=="

func TestPulumiTestVector(t *testing.T) {
	if testing.Short() {
		t.Skip("two full PBKDF2 derivations")
	}
	c, err := OpenCrypter("password", pulumiVector)
	if err != nil {
		t.Fatalf("the Pulumi vector does not open with its passphrase: %v", err)
	}
	if c.EncryptionSalt() != pulumiVector {
		t.Fatal("the salt state changed")
	}
	if _, err := OpenCrypter("password123", pulumiVector); !errors.Is(err, ErrIncorrectPassphrase) {
		t.Fatalf("a wrong passphrase gave %v", err)
	}
}

// independent re-implements Pulumi's value encryption from its description.
func independentKey(t *testing.T, passphrase, state string) cipher.AEAD {
	parts := strings.SplitN(state, ":", 3)
	salt, _ := base64.StdEncoding.DecodeString(parts[1])
	key, err := pbkdf2.Key(sha256.New, passphrase, salt, Iterations, 32)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	g, _ := cipher.NewGCM(block)
	return g
}

func TestRoundTripWithIndependentImplementation(t *testing.T) {
	old := Iterations
	Iterations = 1000
	defer func() { Iterations = old }()
	ctx := context.Background()
	c, err := NewCrypter("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	g := independentKey(t, "s3cret", c.EncryptionSalt())
	// Ours -> theirs.
	ct, err := c.EncryptValue(ctx, "hello")
	if err != nil {
		t.Fatal(err)
	}
	p := strings.Split(ct, ":")
	nonce, _ := base64.StdEncoding.DecodeString(p[1])
	sealed, _ := base64.StdEncoding.DecodeString(p[2])
	plain, err := g.Open(nil, nonce, sealed, nil)
	if err != nil || string(plain) != "hello" {
		t.Fatalf("independent decrypt: %q %v", plain, err)
	}
	// Theirs -> ours.
	n2 := make([]byte, 12)
	n2[0] = 7
	theirs := "v1:" + base64.StdEncoding.EncodeToString(n2) + ":" + base64.StdEncoding.EncodeToString(g.Seal(nil, n2, []byte("world"), nil))
	got, err := c.DecryptValue(ctx, theirs)
	if err != nil || got != "world" {
		t.Fatalf("decrypt of an independent ciphertext: %q %v", got, err)
	}
	// The salt state reopens, and a wrong passphrase is refused.
	if _, err := OpenCrypter("s3cret", c.EncryptionSalt()); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCrypter("nope", c.EncryptionSalt()); !errors.Is(err, ErrIncorrectPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	for _, bad := range []string{"v2:x:y", "v1:!!:x", "v1:AAAA:AAAA", "plain"} {
		if _, err := c.DecryptValue(ctx, bad); err == nil {
			t.Fatalf("%q decrypted", bad)
		}
	}
}

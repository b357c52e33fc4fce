package config

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
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
	key, err := pbkdf2.Key(sha256.New, passphrase, salt, testIterations, 32)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	g, _ := cipher.NewGCM(block)
	return g
}

func TestRoundTripWithIndependentImplementation(t *testing.T) {
	ctx := context.Background()
	c, err := NewCrypter("s3cret", WithIterations(testIterations))
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
	if _, err := OpenCrypter("s3cret", c.EncryptionSalt(), WithIterations(testIterations)); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCrypter("nope", c.EncryptionSalt(), WithIterations(testIterations)); !errors.Is(err, ErrIncorrectPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	for _, bad := range []string{"v2:x:y", "v1:!!:x", "v1:AAAA:AAAA", "plain"} {
		if _, err := c.DecryptValue(ctx, bad); err == nil {
			t.Fatalf("%q decrypted", bad)
		}
	}
}

func TestPassphraseSourceIsNamed(t *testing.T) {
	dir := t.TempDir()
	passFile := dir + "/pass"
	if err := os.WriteFile(passFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	envFile := &EnvFile{Path: "/ws/config/pulumi/environment", Values: map[string]string{}}
	tests := []struct {
		name      string
		vars      map[string]string
		fileVars  map[string]string // set by the environment file (and so in vars too)
		want      string
		wantFrom  string
		wantUnset bool
	}{
		{name: "process variable", vars: map[string]string{PassphraseVar: "p1"}, want: "p1", wantFrom: "the environment variable PULUMI_CONFIG_PASSPHRASE"},
		{name: "environment file", fileVars: map[string]string{PassphraseVar: "p2"}, want: "p2", wantFrom: "PULUMI_CONFIG_PASSPHRASE in /ws/config/pulumi/environment"},
		{name: "passphrase file", vars: map[string]string{PassphraseFileVar: passFile}, want: "from-file", wantFrom: "the file " + passFile + " named by the environment variable PULUMI_CONFIG_PASSPHRASE_FILE"},
		{name: "passphrase file from the environment file", fileVars: map[string]string{PassphraseFileVar: passFile}, want: "from-file", wantFrom: "named by PULUMI_CONFIG_PASSPHRASE_FILE in /ws/config/pulumi/environment"},
		{name: "the variable comes first", vars: map[string]string{PassphraseVar: "p1", PassphraseFileVar: passFile}, want: "p1", wantFrom: "the environment variable PULUMI_CONFIG_PASSPHRASE"},
		{name: "none", wantUnset: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{}
			envFile.Values = map[string]string{}
			for k, v := range tt.vars {
				vars[k] = v
			}
			for k, v := range tt.fileVars {
				vars[k], envFile.Values[k] = v, v
			}
			p, ok, err := PassphraseFromEnv(func(k string) string { return vars[k] }, envFile)
			if err != nil {
				t.Fatal(err)
			}
			if ok == tt.wantUnset {
				t.Fatalf("ok = %v", ok)
			}
			if p.Value != tt.want || !strings.Contains(p.Source, tt.wantFrom) {
				t.Fatalf("got %q from %q; want %q from %q", p.Value, p.Source, tt.want, tt.wantFrom)
			}
		})
	}
	_, _, err := PassphraseFromEnv(func(k string) string {
		if k == PassphraseFileVar {
			return dir + "/missing"
		}
		return ""
	}, nil)
	if err == nil || !strings.Contains(err.Error(), dir+"/missing") {
		t.Fatalf("a missing passphrase file: %v", err)
	}
}

// TestIterationsMustMatch checks that a crypter made with one iteration
// count does not open with another: the count is part of the key.
func TestIterationsMustMatch(t *testing.T) {
	c, err := NewCrypter("s3cret", WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCrypter("s3cret", c.EncryptionSalt(), WithIterations(testIterations+1)); !errors.Is(err, ErrIncorrectPassphrase) {
		t.Fatalf("opening with another iteration count gave %v, want ErrIncorrectPassphrase", err)
	}
}

func TestOpenCrypterAsync(t *testing.T) {
	ctx := context.Background()
	made, err := NewCrypter("s3cret", WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := made.EncryptValue(ctx, "hello")
	if err != nil {
		t.Fatal(err)
	}
	explained := errors.New("explained")
	explain := func(err error) error { return fmt.Errorf("%w: %w", explained, err) }
	tests := []struct {
		name       string
		passphrase string
		salt       string
		openErr    bool  // refused at once
		waitErr    error // the check's error (nil: opens)
	}{
		{"right passphrase", "s3cret", made.EncryptionSalt(), false, nil},
		{"wrong passphrase", "wrong", made.EncryptionSalt(), false, ErrIncorrectPassphrase},
		{"malformed salt", "s3cret", "v2:nope", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := OpenCrypterAsync(tt.passphrase, tt.salt, explain, WithIterations(testIterations))
			if tt.openErr {
				if err == nil {
					t.Fatal("a malformed salt was accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.EncryptionSalt() != tt.salt {
				t.Errorf("the salt is %q, want %q", c.EncryptionSalt(), tt.salt)
			}
			plain, derr := c.DecryptValue(ctx, sealed) // waits for the check
			werr := c.Wait(ctx)
			_, eerr := c.EncryptValue(ctx, "x")
			if tt.waitErr == nil {
				if werr != nil || derr != nil || eerr != nil || plain != "hello" {
					t.Fatalf("got %q, wait %v, decrypt %v, encrypt %v", plain, werr, derr, eerr)
				}
				return
			}
			for _, err := range []error{werr, derr, eerr} {
				if !errors.Is(err, tt.waitErr) || !errors.Is(err, explained) {
					t.Errorf("got %v, want %v as explained", err, tt.waitErr)
				}
			}
		})
	}
}

func TestWaitHonoursContext(t *testing.T) {
	made, err := NewCrypter("s3cret", WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenCrypterAsync("s3cret", made.EncryptionSalt(), func(err error) error { return err }, WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Wait(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("a canceled wait gave %v", err) // canceled while the check runs, else its result
	}
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(ctx); err != nil {
		t.Fatalf("a finished check hid behind a canceled context: %v", err)
	}
}

// TestCrypterReadsAlso: a crypter decrypts the secrets of another salt of
// the passphrase once told to, and still encrypts with its own salt.
func TestCrypterReadsAlso(t *testing.T) {
	ctx := context.Background()
	a, err := NewCrypter("s3cret", WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewCrypter("s3cret", WithIterations(testIterations))
	if err != nil {
		t.Fatal(err)
	}
	ct, err := a.EncryptValue(ctx, `"v"`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.DecryptValue(ctx, ct); err == nil {
		t.Fatal("a crypter of another salt decrypts the secret without ReadsAlso")
	}
	b.ReadsAlso(a)
	if v, err := b.DecryptValue(ctx, ct); err != nil || v != `"v"` {
		t.Fatalf("after ReadsAlso: %q, %v", v, err)
	}
	own, err := b.EncryptValue(ctx, `"w"`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.DecryptValue(ctx, own); err == nil {
		t.Error("b encrypts with a's salt after ReadsAlso")
	}
}

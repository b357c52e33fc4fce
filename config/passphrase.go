package config

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// DefaultIterations is the PBKDF2 iteration count of Pulumi's passphrase
// provider.
const DefaultIterations = 1_000_000

// CrypterOption changes how NewCrypter and OpenCrypter derive their key.
type CrypterOption func(*crypterOptions)

type crypterOptions struct{ iterations int }

// WithIterations derives the key with n PBKDF2 iterations instead of
// DefaultIterations (n <= 0 keeps the default). A stack's secrets open only
// with the count they were made with: only tests lower it, for speed.
func WithIterations(n int) CrypterOption {
	return func(o *crypterOptions) {
		if n > 0 {
			o.iterations = n
		}
	}
}

func crypterOpts(opts []CrypterOption) crypterOptions {
	o := crypterOptions{iterations: DefaultIterations}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// ErrIncorrectPassphrase is returned when the passphrase does not open the
// stack config's encryptionsalt.
var ErrIncorrectPassphrase = errors.New("incorrect passphrase")

// Crypter encrypts and decrypts values the way Pulumi's passphrase secrets
// provider does: AES-256-GCM under a key derived from the passphrase with
// PBKDF2-HMAC-SHA256, ciphertexts spelled "v1:<b64 nonce>:<b64 ciphertext>".
// It satisfies the engine's resource.Crypter.
//
// A crypter opened with OpenCrypterAsync checks its passphrase in the
// background: until the check is done its methods wait, and after a
// failed one they return its error.
type Crypter struct {
	ready chan struct{} // closed once the key is checked; nil: checked when opened
	err   error         // the check's error, set before ready closes
	aead  cipher.AEAD
	state string     // the encryptionsalt value
	also  []*Crypter // crypters of other salts of the passphrase that DecryptValue tries too
}

// ReadsAlso makes c decrypt, besides its own, the secrets of others: the
// same passphrase under other salts (a project state the Pulumi CLI wrote
// with its own stack config's salt). c still encrypts with its own salt.
// It is called before c is used.
func (c *Crypter) ReadsAlso(others ...*Crypter) { c.also = append(c.also, others...) }

// keyCache derives each (passphrase, salt) key once per process: a
// derivation costs about a second.
var keyCache sync.Map // string -> []byte

func deriveKey(passphrase string, salt []byte, iterations int) ([]byte, error) {
	id := sha256.Sum256(append(append([]byte(passphrase), 0), salt...))
	cacheKey := fmt.Sprintf("%x/%d", id, iterations)
	if k, ok := keyCache.Load(cacheKey); ok {
		return k.([]byte), nil
	}
	key, err := pbkdf2.Key(sha256.New, passphrase, salt, iterations, 32)
	if err != nil {
		return nil, fmt.Errorf("deriving the key from the passphrase: %w", err)
	}
	keyCache.Store(cacheKey, key)
	return key, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// keyed returns a crypter under the key of passphrase and salt; its
// encryptionsalt value is for the caller to set.
func keyed(passphrase string, salt []byte, opts []CrypterOption) (*Crypter, error) {
	key, err := deriveKey(passphrase, salt, crypterOpts(opts).iterations)
	if err != nil {
		return nil, err
	}
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	return &Crypter{aead: aead}, nil
}

// NewCrypter makes a fresh salt for passphrase and returns the crypter and
// the encryptionsalt value to store in the stack config.
func NewCrypter(passphrase string, opts ...CrypterOption) (*Crypter, error) {
	salt := make([]byte, 8)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	c, err := keyed(passphrase, salt, opts)
	if err != nil {
		return nil, err
	}
	check, err := c.EncryptValue(context.Background(), "pulumi")
	if err != nil {
		return nil, err
	}
	c.state = "v1:" + base64.StdEncoding.EncodeToString(salt) + ":" + check
	return c, nil
}

// OpenCrypter checks passphrase against an encryptionsalt value and returns
// the crypter; a wrong passphrase gives ErrIncorrectPassphrase.
func OpenCrypter(passphrase, encryptionSalt string, opts ...CrypterOption) (*Crypter, error) {
	salt, check, err := parseSalt(encryptionSalt)
	if err != nil {
		return nil, err
	}
	aead, err := openKey(passphrase, salt, check, opts)
	if err != nil {
		return nil, err
	}
	return &Crypter{aead: aead, state: encryptionSalt}, nil
}

// OpenCrypterAsync is OpenCrypter with the key derived and checked in the
// background, so that other work goes on meanwhile: the derivation keeps a
// core busy for a quarter of a second or more. A malformed encryptionsalt
// is an error at once; a wrong passphrase is the error of Wait and of
// every later method call, as explain makes it of ErrIncorrectPassphrase
// (or of a failed derivation).
func OpenCrypterAsync(passphrase, encryptionSalt string, explain func(error) error, opts ...CrypterOption) (*Crypter, error) {
	salt, check, err := parseSalt(encryptionSalt)
	if err != nil {
		return nil, err
	}
	c := &Crypter{ready: make(chan struct{}), state: encryptionSalt}
	go func() {
		defer close(c.ready)
		if c.aead, c.err = openKey(passphrase, salt, check, opts); c.err != nil {
			c.err = explain(c.err)
		}
	}()
	return c, nil
}

// Wait returns once the crypter's passphrase is checked, with the check's
// error (nil: the passphrase opens the salt), or ctx's error if ctx ends
// first.
func (c *Crypter) Wait(ctx context.Context) error {
	if c.ready == nil {
		return nil
	}
	select {
	case <-c.ready: // checked first: a done ctx does not hide a finished check
		return c.err
	default:
	}
	select {
	case <-c.ready:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// parseSalt splits an encryptionsalt value into the salt and the check
// value (the word "pulumi" encrypted under the key).
func parseSalt(encryptionSalt string) (salt []byte, check string, err error) {
	parts := strings.SplitN(encryptionSalt, ":", 3)
	if len(parts) != 3 || parts[0] != "v1" {
		return nil, "", fmt.Errorf("the encryptionsalt %q is not of the form v1:<salt>:v1:<nonce>:<ciphertext>", encryptionSalt)
	}
	salt, err = base64.StdEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, "", fmt.Errorf("the encryptionsalt's salt is not base64: %w", err)
	}
	return salt, parts[2], nil
}

// openKey derives the key of passphrase and salt and checks it against
// check: ErrIncorrectPassphrase when check does not decrypt to "pulumi".
func openKey(passphrase string, salt []byte, check string, opts []CrypterOption) (cipher.AEAD, error) {
	c, err := keyed(passphrase, salt, opts)
	if err != nil {
		return nil, err
	}
	word, err := c.DecryptValue(context.Background(), check)
	if err != nil || word != "pulumi" {
		return nil, ErrIncorrectPassphrase
	}
	return c.aead, nil
}

// EncryptionSalt returns the encryptionsalt value (also the "salt" state of
// the snapshot's passphrase secrets provider).
func (c *Crypter) EncryptionSalt() string { return c.state }

// EncryptValue encrypts plaintext with a fresh random nonce.
func (c *Crypter) EncryptValue(ctx context.Context, plaintext string) (string, error) {
	if err := c.Wait(ctx); err != nil {
		return "", err
	}
	nonce := make([]byte, c.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	sealed := c.aead.Seal(nil, nonce, []byte(plaintext), nil)
	return "v1:" + base64.StdEncoding.EncodeToString(nonce) + ":" + base64.StdEncoding.EncodeToString(sealed), nil
}

// DecryptValue decrypts a "v1:<nonce>:<ciphertext>" value.
func (c *Crypter) DecryptValue(ctx context.Context, ciphertext string) (string, error) {
	if err := c.Wait(ctx); err != nil {
		return "", err
	}
	parts := strings.Split(ciphertext, ":")
	if len(parts) != 3 || parts[0] != "v1" {
		return "", errors.New("a secret is not of the form v1:<nonce>:<ciphertext>")
	}
	nonce, err := base64.StdEncoding.DecodeString(parts[1])
	if err != nil {
		return "", fmt.Errorf("a secret's nonce is not base64: %w", err)
	}
	sealed, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil {
		return "", fmt.Errorf("a secret's ciphertext is not base64: %w", err)
	}
	if len(nonce) != c.aead.NonceSize() {
		return "", errors.New("a secret's nonce has the wrong length")
	}
	plain, err := c.aead.Open(nil, nonce, sealed, nil)
	if err != nil {
		for _, o := range c.also {
			if v, err := o.DecryptValue(ctx, ciphertext); err == nil {
				return v, nil
			}
		}
		return "", errors.New("a secret does not decrypt with this stack's passphrase")
	}
	return string(plain), nil
}

// Passphrase names the variables a passphrase is read from, as Pulumi does.
const (
	PassphraseVar     = "PULUMI_CONFIG_PASSPHRASE"
	PassphraseFileVar = "PULUMI_CONFIG_PASSPHRASE_FILE"
)

// Passphrase is a stack passphrase and where it came from.
type Passphrase struct {
	Value string
	// Source says where the value came from, for messages: "PULUMI_CONFIG_PASSPHRASE
	// in /ws/config/pulumi/environment", "the environment variable
	// PULUMI_CONFIG_PASSPHRASE", "the file /x/pass named by
	// PULUMI_CONFIG_PASSPHRASE_FILE" or "the prompt".
	Source string
	// Fix says how to give the right one.
	Fix string
}

// PromptedPassphrase is a passphrase typed at the prompt.
func PromptedPassphrase(v string) Passphrase {
	return Passphrase{Value: v, Source: "the prompt", Fix: "type the stack's passphrase"}
}

// PassphraseFromEnv returns the passphrase from PULUMI_CONFIG_PASSPHRASE,
// then from the file named by PULUMI_CONFIG_PASSPHRASE_FILE; ok is false
// when neither is set (the caller may then prompt). getenv reads the
// environment runner runs with (nil: the process's own); env is the
// environment file whose values it holds (nil when none): a value that
// came from it is named as such.
func PassphraseFromEnv(getenv func(string) string, env *EnvFile) (p Passphrase, ok bool, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	where := func(key string) string {
		if env != nil && env.Values[key] != "" && env.Values[key] == getenv(key) {
			return fmt.Sprintf("%s in %s", key, env.Path)
		}
		return "the environment variable " + key
	}
	if v, set := lookup(getenv, PassphraseVar); set {
		src := where(PassphraseVar)
		return Passphrase{Value: v, Source: src, Fix: "correct " + src}, true, nil
	}
	if f := getenv(PassphraseFileVar); f != "" {
		src := fmt.Sprintf("the file %s named by %s", f, where(PassphraseFileVar))
		b, err := boundedfile.ReadFile(f, boundedfile.Passphrase)
		if boundedfile.IsRefused(err) {
			return Passphrase{}, false, fmt.Errorf("%w (named by %s)", err, where(PassphraseFileVar))
		}
		if err != nil {
			return Passphrase{}, false, fmt.Errorf("reading %s: %w", src, err)
		}
		return Passphrase{Value: strings.TrimRight(string(b), "\r\n"), Source: src, Fix: "put the stack's passphrase in " + f}, true, nil
	}
	return Passphrase{}, false, nil
}

func lookup(getenv func(string) string, key string) (string, bool) {
	v := getenv(key)
	return v, v != ""
}

package config

import "fmt"

// Secret is a decrypted secret config value. Every way of printing it
// (String, %v, %#v, JSON) shows "[secret]"; Reveal gives the plaintext.
type Secret struct{ plaintext string }

// NewSecret wraps plaintext.
func NewSecret(plaintext string) Secret { return Secret{plaintext: plaintext} }

// Reveal returns the plaintext.
func (s Secret) Reveal() string { return s.plaintext }

// String redacts.
func (Secret) String() string { return "[secret]" }

// GoString redacts.
func (Secret) GoString() string { return "[secret]" }

// Format redacts under every verb.
func (Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("[secret]")) }

// MarshalJSON redacts.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"[secret]"`), nil }

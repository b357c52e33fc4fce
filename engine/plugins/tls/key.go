package tls

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/runnerhq/runner/engine/resource"
)

var curves = map[string]elliptic.Curve{
	"P224": elliptic.P224(), "P256": elliptic.P256(), "P384": elliptic.P384(), "P521": elliptic.P521(),
}

// checkPrivateKey validates algorithm (RSA, ECDSA or ED25519), rsaBits
// (default 2048) and ecdsaCurve (default P224, as in Pulumi).
func checkPrivateKey(m resource.PropertyMap) error {
	if err := required(m, "algorithm"); err != nil {
		return err
	}
	if m.Known("algorithm") {
		a, err := m.String("algorithm", "")
		if err != nil {
			return err
		}
		if a != "RSA" && a != "ECDSA" && a != "ED25519" {
			return fmt.Errorf(`property "algorithm" must be RSA, ECDSA or ED25519, not %q`, a)
		}
	}
	if m.Known("rsaBits") {
		bits, err := m.Int("rsaBits", 2048)
		if err != nil {
			return err
		}
		if bits < 1024 || bits > 16384 {
			return fmt.Errorf(`property "rsaBits" must be between 1024 and 16384, not %d`, bits)
		}
		m["rsaBits"] = float64(bits)
	}
	if m.Known("ecdsaCurve") {
		c, err := m.String("ecdsaCurve", "P224")
		if err != nil {
			return err
		}
		if curves[c] == nil {
			return fmt.Errorf(`property "ecdsaCurve" must be P224, P256, P384 or P521, not %q`, c)
		}
		m["ecdsaCurve"] = c
	}
	return nil
}

// createPrivateKey generates the key and renders it in PEM (the
// algorithm's usual form and PKCS#8) and OpenSSH forms; the private forms
// are secrets. OpenSSH forms are empty for P224, which SSH does not know.
// The ID is the hex SHA-1 of the public key PEM.
func createPrivateKey(in resource.PropertyMap) (string, resource.PropertyMap, error) {
	algorithm, _ := in.String("algorithm", "")
	bits, _ := in.Int("rsaBits", 2048)
	curve, _ := in.String("ecdsaCurve", "P224")
	key, err := generateKey(algorithm, bits, curve)
	if err != nil {
		return "", nil, err
	}
	keyPem, err := marshalPrivateKey(key)
	if err != nil {
		return "", nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", nil, fmt.Errorf("encoding the private key as PKCS#8: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return "", nil, fmt.Errorf("encoding the public key: %w", err)
	}
	pubPem := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}))
	outs := in.Copy(8)
	outs["privateKeyPem"] = resource.Secret{Element: keyPem}
	outs["privateKeyPemPkcs8"] = resource.Secret{Element: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))}
	outs["publicKeyPem"] = pubPem
	sshPriv, sshPub, md5, sha := "", "", "", ""
	if pub, err := ssh.NewPublicKey(key.Public()); err == nil {
		sshPub = string(ssh.MarshalAuthorizedKey(pub))
		md5, sha = ssh.FingerprintLegacyMD5(pub), ssh.FingerprintSHA256(pub)
		block, err := ssh.MarshalPrivateKey(key, "")
		if err != nil {
			return "", nil, fmt.Errorf("encoding the private key for OpenSSH: %w", err)
		}
		sshPriv = string(pem.EncodeToMemory(block))
	}
	outs["privateKeyOpenssh"] = resource.Secret{Element: sshPriv}
	outs["publicKeyOpenssh"] = sshPub
	outs["publicKeyFingerprintMd5"] = md5
	outs["publicKeyFingerprintSha256"] = sha
	sum := sha1.Sum([]byte(pubPem))
	return hex.EncodeToString(sum[:]), outs, nil
}

func generateKey(algorithm string, bits int, curve string) (crypto.Signer, error) {
	switch algorithm {
	case "RSA":
		k, err := rsa.GenerateKey(rand.Reader, bits)
		if err != nil {
			return nil, fmt.Errorf("generating a %d-bit RSA key: %w", bits, err)
		}
		return k, nil
	case "ECDSA":
		c := curves[curve]
		if c == nil {
			return nil, fmt.Errorf(`property "ecdsaCurve" must be P224, P256, P384 or P521, not %q`, curve)
		}
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating an ECDSA %s key: %w", curve, err)
		}
		return k, nil
	case "ED25519":
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating an ED25519 key: %w", err)
		}
		return k, nil
	}
	return nil, fmt.Errorf(`property "algorithm" must be RSA, ECDSA or ED25519, not %q`, algorithm)
}

// marshalPrivateKey renders the key as Pulumi does: PKCS#1 for RSA, SEC 1
// for ECDSA, PKCS#8 for ED25519.
func marshalPrivateKey(key crypto.Signer) (string, error) {
	var block *pem.Block
	switch k := key.(type) {
	case *rsa.PrivateKey:
		block = &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
	case *ecdsa.PrivateKey:
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			return "", fmt.Errorf("encoding the ECDSA key: %w", err)
		}
		block = &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
	default:
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return "", fmt.Errorf("encoding the private key: %w", err)
		}
		block = &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	}
	return string(pem.EncodeToMemory(block)), nil
}

// parsePrivateKey reads the PEM private key in property key. Errors name
// the property and never quote the key.
func parsePrivateKey(m resource.PropertyMap, key string) (crypto.Signer, error) {
	s, err := m.String(key, "")
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, fmt.Errorf("property %q must hold a PEM private key", key)
	}
	var k any
	switch block.Type {
	case "RSA PRIVATE KEY":
		k, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(block.Bytes)
	case "PRIVATE KEY":
		k, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	default:
		err = fmt.Errorf("a PEM block of type %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("property %q: %w", key, err)
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("property %q holds a %T, which cannot sign", key, k)
	}
	return signer, nil
}

// algorithmName is Pulumi's name for a key's algorithm.
func algorithmName(pub crypto.PublicKey) string {
	switch pub.(type) {
	case *rsa.PublicKey:
		return "RSA"
	case *ecdsa.PublicKey:
		return "ECDSA"
	case ed25519.PublicKey:
		return "ED25519"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", pub), "*")
}

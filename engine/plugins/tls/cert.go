package tls

import (
	"crypto"
	"crypto/rand"
	"crypto/sha1"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// checkCertCommon validates validityPeriodHours, earlyRenewalHours,
// allowedUses, isCaCertificate and setSubjectKeyId.
func checkCertCommon(m resource.PropertyMap) error {
	for _, k := range []string{"validityPeriodHours", "earlyRenewalHours"} {
		if !m.Known(k) {
			continue
		}
		n, err := m.Int(k, 0)
		if err != nil {
			return err
		}
		if n < 0 {
			return fmt.Errorf("property %q must not be negative, not %d", k, n)
		}
		if _, ok := m[k]; ok {
			m[k] = float64(n)
		}
	}
	for _, k := range []string{"isCaCertificate", "setSubjectKeyId", "setAuthorityKeyId"} {
		if m.Known(k) {
			if _, err := m.Bool(k, false); err != nil {
				return err
			}
		}
	}
	return checkKnown(m, func() error { _, _, err := uses(m); return err }, "allowedUses")
}

// checkRequestFields validates privateKeyPem, subject, dnsNames,
// ipAddresses and uris.
func checkRequestFields(m resource.PropertyMap) error {
	if err := checkKnown(m, func() error { _, err := parsePrivateKey(m, "privateKeyPem"); return err }, "privateKeyPem"); err != nil {
		return err
	}
	if err := checkKnown(m, func() error { _, err := subject(m); return err }, "subject"); err != nil {
		return err
	}
	return checkKnown(m, func() error { _, _, _, err := names(m); return err }, "dnsNames", "ipAddresses", "uris")
}

func checkSelfSigned(m resource.PropertyMap) error {
	if err := required(m, "privateKeyPem", "validityPeriodHours", "allowedUses"); err != nil {
		return err
	}
	if err := checkRequestFields(m); err != nil {
		return err
	}
	return checkCertCommon(m)
}

func checkCertRequest(m resource.PropertyMap) error {
	if err := required(m, "privateKeyPem"); err != nil {
		return err
	}
	return checkRequestFields(m)
}

func checkLocallySigned(m resource.PropertyMap) error {
	if err := required(m, "certRequestPem", "caPrivateKeyPem", "caCertPem", "validityPeriodHours", "allowedUses"); err != nil {
		return err
	}
	checks := []struct {
		key   string
		check func() error
	}{
		{"certRequestPem", func() error { _, err := parseCSR(m); return err }},
		{"caCertPem", func() error { _, err := parseCert(m, "caCertPem"); return err }},
		{"caPrivateKeyPem", func() error { _, err := parsePrivateKey(m, "caPrivateKeyPem"); return err }},
	}
	for _, c := range checks {
		if err := checkKnown(m, c.check, c.key); err != nil {
			return err
		}
	}
	return checkCertCommon(m)
}

// template builds the certificate fields shared by both kinds of
// certificate: serial, validity, usages and CA flag.
func template(in resource.PropertyMap, pub crypto.PublicKey) (*x509.Certificate, error) {
	hours, err := in.Int("validityPeriodHours", 0)
	if err != nil {
		return nil, err
	}
	ku, eku, err := uses(in)
	if err != nil {
		return nil, err
	}
	isCA, _ := in.Bool("isCaCertificate", false)
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("drawing a serial number: %w", err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	t := &x509.Certificate{
		SerialNumber:          serial,
		NotBefore:             now,
		NotAfter:              now.Add(time.Duration(hours) * time.Hour),
		KeyUsage:              ku,
		ExtKeyUsage:           eku,
		IsCA:                  isCA,
		BasicConstraintsValid: true,
	}
	if set, _ := in.Bool("setSubjectKeyId", false); set {
		if t.SubjectKeyId, err = keyID(pub); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// keyID is the SHA-1 of the public key's DER, the usual subject key ID.
func keyID(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encoding the public key: %w", err)
	}
	sum := sha1.Sum(der)
	return sum[:], nil
}

// certOutputs adds certPem and the validity outputs. The ID is the serial.
func certOutputs(in resource.PropertyMap, der []byte, t *x509.Certificate) (string, resource.PropertyMap) {
	outs := in.Copy(8)
	outs["certPem"] = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	outs["validityStartTime"] = t.NotBefore.Format(time.RFC3339)
	outs["validityEndTime"] = t.NotAfter.Format(time.RFC3339)
	outs["readyForRenewal"] = readyForRenewal(t.NotAfter.Format(time.RFC3339), in, time.Now())
	return t.SerialNumber.String(), outs
}

// createSelfSigned signs a certificate with its own key.
func createSelfSigned(in resource.PropertyMap) (string, resource.PropertyMap, error) {
	key, err := parsePrivateKey(in, "privateKeyPem")
	if err != nil {
		return "", nil, err
	}
	t, err := template(in, key.Public())
	if err != nil {
		return "", nil, err
	}
	if t.Subject, err = subject(in); err != nil {
		return "", nil, err
	}
	if t.DNSNames, t.IPAddresses, t.URIs, err = names(in); err != nil {
		return "", nil, err
	}
	if set, _ := in.Bool("setAuthorityKeyId", false); set {
		if t.AuthorityKeyId, err = keyID(key.Public()); err != nil {
			return "", nil, err
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, t, t, key.Public(), key)
	if err != nil {
		return "", nil, fmt.Errorf("signing the certificate: %w", err)
	}
	id, outs := certOutputs(in, der, t)
	outs["keyAlgorithm"] = algorithmName(key.Public())
	return id, outs, nil
}

// createCertRequest makes a PKCS#10 request. The ID is the hex SHA-1 of
// its PEM.
func createCertRequest(in resource.PropertyMap) (string, resource.PropertyMap, error) {
	key, err := parsePrivateKey(in, "privateKeyPem")
	if err != nil {
		return "", nil, err
	}
	var req x509.CertificateRequest
	if req.Subject, err = subject(in); err != nil {
		return "", nil, err
	}
	if req.DNSNames, req.IPAddresses, req.URIs, err = names(in); err != nil {
		return "", nil, err
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &req, key)
	if err != nil {
		return "", nil, fmt.Errorf("signing the certificate request: %w", err)
	}
	p := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	outs := in.Copy(8)
	outs["certRequestPem"] = string(p)
	outs["keyAlgorithm"] = algorithmName(key.Public())
	sum := sha1.Sum(p)
	return hex.EncodeToString(sum[:]), outs, nil
}

// createLocallySigned signs the request's key and names with the CA.
func createLocallySigned(in resource.PropertyMap) (string, resource.PropertyMap, error) {
	csr, err := parseCSR(in)
	if err != nil {
		return "", nil, err
	}
	ca, err := parseCert(in, "caCertPem")
	if err != nil {
		return "", nil, err
	}
	caKey, err := parsePrivateKey(in, "caPrivateKeyPem")
	if err != nil {
		return "", nil, err
	}
	if pub, ok := caKey.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(ca.PublicKey) {
		return "", nil, fmt.Errorf(`property "caPrivateKeyPem" is not the key of the certificate in "caCertPem"`)
	}
	t, err := template(in, csr.PublicKey)
	if err != nil {
		return "", nil, err
	}
	t.Subject = csr.Subject
	t.DNSNames, t.IPAddresses, t.URIs = csr.DNSNames, csr.IPAddresses, csr.URIs
	der, err := x509.CreateCertificate(rand.Reader, t, ca, csr.PublicKey, caKey)
	if err != nil {
		return "", nil, fmt.Errorf("signing the certificate with the CA key: %w", err)
	}
	id, outs := certOutputs(in, der, t)
	outs["caKeyAlgorithm"] = algorithmName(caKey.Public())
	return id, outs, nil
}

func parseCSR(m resource.PropertyMap) (*x509.CertificateRequest, error) {
	der, err := pemBlock(m, "certRequestPem", "CERTIFICATE REQUEST")
	if err != nil {
		return nil, err
	}
	csr, err := x509.ParseCertificateRequest(der)
	if err != nil {
		return nil, fmt.Errorf(`property "certRequestPem": %w`, err)
	}
	if err := csr.CheckSignature(); err != nil {
		return nil, fmt.Errorf(`property "certRequestPem": the request's signature does not verify: %w`, err)
	}
	return csr, nil
}

func parseCert(m resource.PropertyMap, key string) (*x509.Certificate, error) {
	der, err := pemBlock(m, key, "CERTIFICATE")
	if err != nil {
		return nil, err
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("property %q: %w", key, err)
	}
	return c, nil
}

func pemBlock(m resource.PropertyMap, key, typ string) ([]byte, error) {
	s, err := m.String(key, "")
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode([]byte(s))
	if block == nil || block.Type != typ {
		return nil, fmt.Errorf("property %q must hold a PEM %s", key, typ)
	}
	return block.Bytes, nil
}

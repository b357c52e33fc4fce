package tls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/runnerhq/runner/engine/resource"
)

var ctx = context.Background()

func create(t *testing.T, typ string, news resource.PropertyMap) resource.CreateResponse {
	t.Helper()
	in, err := Plugin{}.Check(ctx, resource.CheckRequest{Type: typ, News: news})
	if err != nil {
		t.Fatalf("Check %s: %v", typ, err)
	}
	resp, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: typ, Inputs: in})
	if err != nil {
		t.Fatalf("Create %s: %v", typ, err)
	}
	return resp
}

func secretString(t *testing.T, m resource.PropertyMap, key string) string {
	t.Helper()
	s, ok := m[key].(resource.Secret)
	if !ok {
		t.Fatalf("output %s is %T, want a Secret", key, m[key])
	}
	return s.Element.(string)
}

func TestPrivateKeyAlgorithms(t *testing.T) {
	tests := []struct {
		news    resource.PropertyMap
		pemType string
		ssh     bool
	}{
		{resource.PropertyMap{"algorithm": "ECDSA", "ecdsaCurve": "P256"}, "EC PRIVATE KEY", true},
		{resource.PropertyMap{"algorithm": "ECDSA"}, "EC PRIVATE KEY", false}, // P224: no SSH form
		{resource.PropertyMap{"algorithm": "ED25519"}, "PRIVATE KEY", true},
		{resource.PropertyMap{"algorithm": "RSA"}, "RSA PRIVATE KEY", true},
	}
	for _, tt := range tests {
		resp := create(t, PrivateKeyType, tt.news)
		p := secretString(t, resp.Outputs, "privateKeyPem")
		if b, _ := pem.Decode([]byte(p)); b == nil || b.Type != tt.pemType {
			t.Errorf("%v: privateKeyPem is not a %s", tt.news, tt.pemType)
		}
		secretString(t, resp.Outputs, "privateKeyPemPkcs8")
		priv := secretString(t, resp.Outputs, "privateKeyOpenssh")
		pub, _ := resp.Outputs["publicKeyOpenssh"].(string)
		if tt.ssh {
			if _, err := ssh.ParsePrivateKey([]byte(priv)); err != nil {
				t.Errorf("%v: privateKeyOpenssh: %v", tt.news, err)
			}
			pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(pub))
			if err != nil {
				t.Fatalf("%v: publicKeyOpenssh: %v", tt.news, err)
			}
			if resp.Outputs["publicKeyFingerprintSha256"] != ssh.FingerprintSHA256(pk) {
				t.Errorf("%v: fingerprint mismatch", tt.news)
			}
		} else if priv != "" || pub != "" {
			t.Errorf("%v: OpenSSH forms for a key SSH does not know", tt.news)
		}
		if !strings.Contains(resp.Outputs["publicKeyPem"].(string), "PUBLIC KEY") || resp.ID == "" {
			t.Errorf("%v: publicKeyPem %v, ID %q", tt.news, resp.Outputs["publicKeyPem"], resp.ID)
		}
	}
}

func TestCheckErrorsNameTheProperty(t *testing.T) {
	key := create(t, PrivateKeyType, resource.PropertyMap{"algorithm": "ECDSA", "ecdsaCurve": "P256"}).Outputs["privateKeyPem"]
	tests := []struct {
		typ  string
		news resource.PropertyMap
		want string
	}{
		{PrivateKeyType, resource.PropertyMap{}, `"algorithm"`},
		{PrivateKeyType, resource.PropertyMap{"algorithm": "DSA"}, `"algorithm"`},
		{PrivateKeyType, resource.PropertyMap{"algorithm": "RSA", "rsaBits": 512.0}, `"rsaBits"`},
		{PrivateKeyType, resource.PropertyMap{"algorithm": "ECDSA", "ecdsaCurve": "P999"}, `"ecdsaCurve"`},
		{SelfSignedCertType, resource.PropertyMap{"privateKeyPem": key, "allowedUses": []any{}}, `"validityPeriodHours"`},
		{SelfSignedCertType, resource.PropertyMap{"privateKeyPem": "junk", "validityPeriodHours": 1.0, "allowedUses": []any{}}, `"privateKeyPem"`},
		{SelfSignedCertType, resource.PropertyMap{"privateKeyPem": key, "validityPeriodHours": 1.0, "allowedUses": []any{"flying"}}, `"allowedUses"`},
		{SelfSignedCertType, resource.PropertyMap{"privateKeyPem": key, "validityPeriodHours": -1.0, "allowedUses": []any{}}, `"validityPeriodHours"`},
		{SelfSignedCertType, resource.PropertyMap{"privateKeyPem": key, "validityPeriodHours": 1.0, "allowedUses": []any{}, "ipAddresses": []any{"nope"}}, `"ipAddresses"`},
		{SelfSignedCertType, resource.PropertyMap{"privateKeyPem": key, "validityPeriodHours": 1.0, "allowedUses": []any{}, "subject": map[string]any{"cn": "x"}}, `"subject.cn"`},
		{CertRequestType, resource.PropertyMap{}, `"privateKeyPem"`},
		{LocallySignedCertType, resource.PropertyMap{"certRequestPem": "x", "caPrivateKeyPem": key, "caCertPem": "x", "validityPeriodHours": 1.0, "allowedUses": []any{}}, `"certRequestPem"`},
		{"tls:index/nope:Nope", resource.PropertyMap{}, "tls:index/nope:Nope"},
	}
	for _, tt := range tests {
		_, err := Plugin{}.Check(ctx, resource.CheckRequest{Type: tt.typ, News: tt.news})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%s, %v) = %v, want an error naming %s", tt.typ, tt.news, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "PRIVATE KEY-----\n") {
			t.Errorf("error quotes a private key: %v", err)
		}
	}
}

// pki creates a CA and a server certificate for 127.0.0.1 through the plugin.
func pki(t *testing.T) (caPem, certPem, keyPem string) {
	caKey := create(t, PrivateKeyType, resource.PropertyMap{"algorithm": "ECDSA", "ecdsaCurve": "P256"})
	ca := create(t, SelfSignedCertType, resource.PropertyMap{
		"privateKeyPem":       caKey.Outputs["privateKeyPem"],
		"subject":             map[string]any{"commonName": "test CA", "organization": "runner"},
		"validityPeriodHours": 24.0,
		"isCaCertificate":     true,
		"allowedUses":         []any{"cert_signing", "crl_signing", "digitalSignature"},
	})
	srvKey := create(t, PrivateKeyType, resource.PropertyMap{"algorithm": "RSA"})
	csr := create(t, CertRequestType, resource.PropertyMap{
		"privateKeyPem": srvKey.Outputs["privateKeyPem"],
		"subject":       map[string]any{"commonName": "localhost"},
		"dnsNames":      []any{"localhost"},
		"ipAddresses":   []any{"127.0.0.1"},
	})
	cert := create(t, LocallySignedCertType, resource.PropertyMap{
		"certRequestPem":      csr.Outputs["certRequestPem"],
		"caPrivateKeyPem":     caKey.Outputs["privateKeyPem"],
		"caCertPem":           ca.Outputs["certPem"],
		"validityPeriodHours": 12.0,
		"allowedUses":         []any{"key_encipherment", "digital_signature", "server_auth"},
	})
	if cert.Outputs["caKeyAlgorithm"] != "ECDSA" || csr.Outputs["keyAlgorithm"] != "RSA" {
		t.Errorf("key algorithms: ca %v, csr %v", cert.Outputs["caKeyAlgorithm"], csr.Outputs["keyAlgorithm"])
	}
	return ca.Outputs["certPem"].(string), cert.Outputs["certPem"].(string), secretString(t, srvKey.Outputs, "privateKeyPem")
}

func parse(t *testing.T, p string) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode([]byte(p))
	if b == nil {
		t.Fatalf("not PEM: %q", p)
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChainVerifies(t *testing.T) {
	caPem, certPem, _ := pki(t)
	ca, leaf := parse(t, caPem), parse(t, certPem)
	if !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 || ca.Subject.CommonName != "test CA" {
		t.Errorf("CA: IsCA %v, KeyUsage %v, subject %v", ca.IsCA, ca.KeyUsage, ca.Subject)
	}
	if leaf.IsCA || leaf.KeyUsage != x509.KeyUsageKeyEncipherment|x509.KeyUsageDigitalSignature {
		t.Errorf("leaf: IsCA %v, KeyUsage %v", leaf.IsCA, leaf.KeyUsage)
	}
	if len(leaf.ExtKeyUsage) != 1 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth {
		t.Errorf("leaf ExtKeyUsage %v", leaf.ExtKeyUsage)
	}
	if d := leaf.NotAfter.Sub(leaf.NotBefore); d != 12*time.Hour {
		t.Errorf("leaf validity %v", d)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("verifying for 127.0.0.1: %v", err)
	}
	if err := leaf.VerifyHostname("10.0.0.1"); err == nil {
		t.Errorf("the leaf verifies for an IP it does not name")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Errorf("a server-only certificate verified for client auth")
	}
}

func TestHandshake(t *testing.T) {
	caPem, certPem, keyPem := pki(t)
	pair, err := tls.X509KeyPair([]byte(certPem), []byte(keyPem))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte("ok"))
	}()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM([]byte(caPem))
	conn, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: roots})
	if err != nil {
		t.Fatalf("TLS handshake with 127.0.0.1: %v", err)
	}
	defer conn.Close()
	b, err := io.ReadAll(conn)
	if err != nil || string(b) != "ok" {
		t.Errorf("read %q, %v", b, err)
	}
}

func TestWrongCAKey(t *testing.T) {
	k1 := create(t, PrivateKeyType, resource.PropertyMap{"algorithm": "ED25519"})
	k2 := create(t, PrivateKeyType, resource.PropertyMap{"algorithm": "ED25519"})
	ca := create(t, SelfSignedCertType, resource.PropertyMap{"privateKeyPem": k1.Outputs["privateKeyPem"], "validityPeriodHours": 1.0, "allowedUses": []any{"cert_signing"}, "isCaCertificate": true})
	csr := create(t, CertRequestType, resource.PropertyMap{"privateKeyPem": k2.Outputs["privateKeyPem"]})
	in := resource.PropertyMap{"certRequestPem": csr.Outputs["certRequestPem"], "caPrivateKeyPem": k2.Outputs["privateKeyPem"], "caCertPem": ca.Outputs["certPem"], "validityPeriodHours": 1.0, "allowedUses": []any{}}
	_, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: LocallySignedCertType, Inputs: in})
	if err == nil || !strings.Contains(err.Error(), `"caPrivateKeyPem"`) {
		t.Errorf("Create with the wrong CA key = %v", err)
	}
}

func TestPreviewAndUnknowns(t *testing.T) {
	tests := []struct {
		typ    string
		news   resource.PropertyMap
		secret string
		plain  string
	}{
		{PrivateKeyType, resource.PropertyMap{"algorithm": "RSA"}, "privateKeyPem", "publicKeyPem"},
		{SelfSignedCertType, resource.PropertyMap{"privateKeyPem": resource.Computed{}, "validityPeriodHours": 1.0, "allowedUses": []any{"server_auth"}}, "", "certPem"},
		{CertRequestType, resource.PropertyMap{"privateKeyPem": resource.Secret{Element: resource.Computed{}}}, "", "certRequestPem"},
		{LocallySignedCertType, resource.PropertyMap{"certRequestPem": resource.Computed{}, "caPrivateKeyPem": resource.Computed{}, "caCertPem": resource.Computed{}, "validityPeriodHours": 1.0, "allowedUses": []any{resource.Computed{}}}, "", "certPem"},
	}
	for _, tt := range tests {
		in, err := Plugin{}.Check(ctx, resource.CheckRequest{Type: tt.typ, News: tt.news})
		if err != nil {
			t.Fatalf("Check %s with unknowns: %v", tt.typ, err)
		}
		resp, err := Plugin{}.Create(ctx, resource.CreateRequest{Type: tt.typ, Inputs: in, Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := resp.Outputs[tt.plain].(resource.Computed); !ok || resp.ID != "" {
			t.Errorf("%s preview: %s = %v, ID %q", tt.typ, tt.plain, resp.Outputs[tt.plain], resp.ID)
		}
		if tt.secret != "" && !resp.Outputs.IsSecret(tt.secret) {
			t.Errorf("%s preview: %s not secret", tt.typ, tt.secret)
		}
	}
}

func TestDiffReadDelete(t *testing.T) {
	olds := resource.PropertyMap{"algorithm": "ECDSA", "ecdsaCurve": "P256"}
	d, _ := Plugin{}.Diff(ctx, resource.DiffRequest{Type: PrivateKeyType, OldInputs: olds, NewInputs: resource.PropertyMap{"algorithm": "ECDSA", "ecdsaCurve": "P384"}})
	if len(d.Replaces) != 1 || d.Replaces[0] != "ecdsaCurve" {
		t.Errorf("Diff = %+v", d)
	}
	in := resource.PropertyMap{"earlyRenewalHours": 2.0}
	outs := resource.PropertyMap{"validityEndTime": time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "readyForRenewal": false}
	rr, err := Plugin{}.Read(ctx, resource.ReadRequest{Type: SelfSignedCertType, ID: "1", Inputs: in, Outputs: outs})
	if err != nil || rr.ID != "1" || rr.Outputs["readyForRenewal"] != true {
		t.Errorf("Read within the renewal window = %+v, %v", rr, err)
	}
	rr, err = Plugin{}.Read(ctx, resource.ReadRequest{Type: SelfSignedCertType})
	if err != nil || rr.ID != "" {
		t.Errorf("Read without ID = %+v, %v", rr, err)
	}
	if err := (Plugin{}).Delete(ctx, resource.DeleteRequest{Type: PrivateKeyType, ID: "x"}); err != nil {
		t.Error(err)
	}
}

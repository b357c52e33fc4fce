package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writePEM(t *testing.T, path string, der []byte) string {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckWantsTheIssuedCertificate: a server the CA trusts answers, but
// unless it presents the very certificate ingress issued, it is not ours.
func TestCheckWantsTheIssuedCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	dir := t.TempDir()
	served := writePEM(t, filepath.Join(dir, "served.crt"), srv.Certificate().Raw) // trusted as its own CA

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	other := writePEM(t, filepath.Join(dir, "other.crt"), der)

	ctx := context.Background()
	if err := Check(ctx, srv.URL, served, served); err != nil {
		t.Fatalf("the issued certificate was refused: %v", err)
	}
	err = Check(ctx, srv.URL, served, other)
	if err == nil || !strings.Contains(err.Error(), "is not this environment's service") || !strings.Contains(err.Error(), other) {
		t.Fatalf("a server without the issued certificate: %v", err)
	}
}

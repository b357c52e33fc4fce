package ekstoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// signedRequest is a request as a server receives it, to check its
// Signature Version 4 as AWS does: independently of the SDK that signed it.
type signedRequest struct {
	Method, Host, Path string
	Query              url.Values
	Header             http.Header
	// PayloadHash is the hex SHA-256 of the body ("UNSIGNED-PAYLOAD" for
	// S3's presigned URLs).
	PayloadHash string
}

// sigv4Fields are the signature's parts, from the query of a presigned
// URL or from the Authorization header.
type sigv4Fields struct {
	Credential, Date, SignedHeaders, Signature string
}

func (r signedRequest) fields() sigv4Fields {
	if r.Query.Get("X-Amz-Signature") != "" {
		return sigv4Fields{r.Query.Get("X-Amz-Credential"), r.Query.Get("X-Amz-Date"), r.Query.Get("X-Amz-SignedHeaders"), r.Query.Get("X-Amz-Signature")}
	}
	f := sigv4Fields{Date: r.Header.Get("X-Amz-Date")}
	auth := strings.TrimPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ")
	for _, part := range strings.Split(auth, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			f.Credential = v
		case "SignedHeaders":
			f.SignedHeaders = v
		case "Signature":
			f.Signature = v
		}
	}
	return f
}

// signature is what the request's signature must be when its access key
// id's secret is secret.
func (r signedRequest) signature(secret string) string {
	f := r.fields()
	var pairs []string
	for k, vs := range r.Query {
		if k == "X-Amz-Signature" {
			continue
		}
		for _, v := range vs {
			pairs = append(pairs, uriEncode(k, true)+"="+uriEncode(v, true))
		}
	}
	sort.Strings(pairs)
	var headers strings.Builder
	for _, n := range strings.Split(f.SignedHeaders, ";") {
		v := r.Header.Get(n)
		if n == "host" {
			v = r.Host
		}
		headers.WriteString(n + ":" + strings.TrimSpace(v) + "\n")
	}
	canonical := strings.Join([]string{r.Method, uriEncode(r.Path, false), strings.Join(pairs, "&"), headers.String(), f.SignedHeaders, r.PayloadHash}, "\n")
	_, scope, _ := strings.Cut(f.Credential, "/")
	parts := strings.Split(scope, "/")
	toSign := "AWS4-HMAC-SHA256\n" + f.Date + "\n" + scope + "\n" + hexSHA256([]byte(canonical))
	key := []byte("AWS4" + secret)
	for _, p := range parts {
		key = hmacSHA256(key, p)
	}
	return hex.EncodeToString(hmacSHA256(key, toSign))
}

// accessKeyID is the id the request says it was signed with.
func (r signedRequest) accessKeyID() string {
	id, _, _ := strings.Cut(r.fields().Credential, "/")
	return id
}

func uriEncode(s string, slash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~', c == '/' && !slash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

func hexSHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// TestSigV4CheckAWSExample checks the checker on AWS's documented example
// of a presigned URL (Amazon S3 API reference, "Authenticating Requests:
// Using Query Parameters"): GET examplebucket/test.txt on 2013-05-24.
func TestSigV4CheckAWSExample(t *testing.T) {
	u, err := url.Parse("https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
		"&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request" +
		"&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host" +
		"&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
	if err != nil {
		t.Fatal(err)
	}
	r := signedRequest{Method: "GET", Host: u.Host, Path: u.Path, Query: u.Query(), PayloadHash: "UNSIGNED-PAYLOAD"}
	if got, want := r.signature("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), r.fields().Signature; got != want {
		t.Fatalf("signature %s, AWS's example has %s", got, want)
	}
	if r.signature("another secret") == r.fields().Signature {
		t.Fatal("another secret gives the same signature")
	}
}

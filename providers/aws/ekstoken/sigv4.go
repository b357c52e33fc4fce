package ekstoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// emptyPayload is the hex SHA-256 of an empty body: the payload hash of a
// presigned request to any service but S3.
const emptyPayload = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// unsignedPayload is S3's payload hash of presigned URLs.
const unsignedPayload = "UNSIGNED-PAYLOAD"

// presign is one request to sign with AWS Signature Version 4 in its query
// string (a presigned URL).
type presign struct {
	// Scheme is https unless set (a test server's http).
	Scheme             string
	Method, Host, Path string
	// Query are the request's own parameters (X-Amz-* are added).
	Query url.Values
	// Headers are signed besides host (lower-case names).
	Headers         map[string]string
	Region, Service string
	Time            time.Time
	Expires         time.Duration
	PayloadHash     string
	Creds           Credentials
}

// URL returns the presigned https URL.
func (p presign) URL() string {
	q := url.Values{}
	for k, v := range p.Query {
		q[k] = append([]string(nil), v...)
	}
	date := p.Time.UTC().Format("20060102T150405Z")
	scope := date[:8] + "/" + p.Region + "/" + p.Service + "/aws4_request"
	names := []string{"host"}
	for k := range p.Headers {
		names = append(names, strings.ToLower(k))
	}
	sort.Strings(names)
	q.Set("X-Amz-Algorithm", "AWS4-HMAC-SHA256")
	q.Set("X-Amz-Credential", p.Creds.AccessKeyID+"/"+scope)
	q.Set("X-Amz-Date", date)
	q.Set("X-Amz-Expires", strconv.Itoa(int(p.Expires/time.Second)))
	q.Set("X-Amz-SignedHeaders", strings.Join(names, ";"))
	if p.Creds.SessionToken != "" {
		q.Set("X-Amz-Security-Token", p.Creds.SessionToken)
	}
	query := canonicalQuery(q)

	var headers strings.Builder
	for _, n := range names {
		v := p.Host
		if n != "host" {
			v = p.Headers[n]
		}
		headers.WriteString(n + ":" + strings.TrimSpace(v) + "\n")
	}
	canonical := strings.Join([]string{p.Method, encodePath(p.Path), query, headers.String(),
		strings.Join(names, ";"), p.PayloadHash}, "\n")
	toSign := "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + hexSHA256(canonical)

	key := hmacSHA256([]byte("AWS4"+p.Creds.SecretAccessKey), date[:8])
	for _, part := range []string{p.Region, p.Service, "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	sig := hex.EncodeToString(hmacSHA256(key, toSign))
	scheme := p.Scheme
	if scheme == "" {
		scheme = "https"
	}
	return scheme + "://" + p.Host + encodePath(p.Path) + "?" + query + "&X-Amz-Signature=" + sig
}

// canonicalQuery sorts the parameters by name and value and encodes them
// as SigV4 requires (RFC 3986: only unreserved characters stay as they are).
func canonicalQuery(q url.Values) string {
	var pairs []string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, uriEncode(k, true)+"="+uriEncode(v, true))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

func encodePath(p string) string {
	if p == "" {
		return "/"
	}
	return uriEncode(p, false)
}

// uriEncode percent-encodes every byte but the unreserved characters (and
// '/' unless slash).
func uriEncode(s string, slash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == '/' && !slash:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

func hexSHA256(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}
